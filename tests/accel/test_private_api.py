"""Every private name a speed trick uses still exists in the installed dependencies.

An accel module is any module inside an ``accel`` package (or named ``accel``) of our packages.
Each opens with a docstring naming the private names it uses and lists them in ``PRIVATE_API``
as dotted paths: the longest importable module, then attributes (a name-mangled attribute is
spelled as Python stores it, ``_Class__name``). A trick with no private names (a second request
pipeline) has an empty tuple and says "Private API: none". The lists are read from the source,
so a module that no longer imports still has its names listed here, one case each.
"""

import ast
import importlib
import inspect
import re
import textwrap
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUR_PACKAGES = ("web", "rest", "graphql_schema", "service", "models")
# The tricks this repository is known to have; others may join, none may silently go.
KNOWN = {
    "graphql_schema.accel.budgets",
    "graphql_schema.accel.direct",
    "graphql_schema.accel.execution",
    "graphql_schema.accel.nodes",
    "graphql_schema.accel.result_cache",
    "rest.accel.dumping",
    "rest.accel.views",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _listed(path: Path) -> tuple[str | None, Any]:
    """The module's docstring and its PRIVATE_API as written (None when it has none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "PRIVATE_API" for t in targets):
            return ast.get_docstring(tree), ast.literal_eval(node.value)
    return ast.get_docstring(tree), None


def _accel_modules() -> dict[str, tuple[str | None, Any]]:
    """Module name -> (docstring, PRIVATE_API) for every accel module of our packages."""
    found = {}
    for package in OUR_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "accel" not in path.relative_to(ROOT).with_suffix("").parts:
                continue
            docstring, names = _listed(path)
            if path.name == "__init__.py" and names is None:
                continue  # an accel package's own docstring, with no trick of its own
            found[_module_name(path)] = (docstring, names)
    return found


ACCEL = _accel_modules()
CASES = [
    pytest.param(module, name, id=f"{module}:{name}")
    for module, (_doc, names) in ACCEL.items()
    for name in names or ()
]


def _spellings(path: str) -> set[str]:
    """How a header may name ``path``: its last name; ``__y`` for a mangled ``_Class__y``; the
    owner for a special method (``Column`` for ``Column.__init__``)."""
    parts = path.split(".")
    last = parts[-1]
    if last.startswith("__") and last.endswith("__"):
        return {parts[-2]}
    owner = parts[-2] if len(parts) > 1 else ""
    mangled = f"_{owner.lstrip('_')}__"
    if last.startswith(mangled):
        return {last, "__" + last.removeprefix(mangled)}
    return {last}


def _import_longest_prefix(path: str) -> tuple[ModuleType, list[str]]:
    """The longest importable module of ``path`` and the attribute names after it."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        try:
            return importlib.import_module(name), parts[end:]
        except ModuleNotFoundError as error:
            # Only "this name is not a module" moves on; a failing import inside it is a failure.
            if error.name is None or not (name == error.name or name.startswith(error.name + ".")):
                raise
    pytest.fail(f"{path}: no part of it can be imported")


def _assigned_on_self(klass: type, name: str) -> bool:
    """Whether the class's own source assigns ``self.<name>`` (an attribute made per instance)."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return False
    mangle = f"_{klass.__name__.lstrip('_')}"
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            attribute = node.attr
            if attribute.startswith("__") and not attribute.endswith("__"):
                attribute = mangle + attribute
            if attribute == name:
                return True
    return False


def _declared(owner: Any, name: str) -> bool:
    """Whether instances of class ``owner`` have ``name`` though the class itself does not: a
    slot, an annotation, a dataclass field or an assignment to ``self`` in a class body."""
    if not isinstance(owner, type):
        return False
    for klass in owner.__mro__:
        slots = vars(klass).get("__slots__", ())
        slots = (slots,) if isinstance(slots, str) else slots
        if (
            name in slots
            or name in inspect.get_annotations(klass)
            or name in getattr(klass, "__dataclass_fields__", {})
            or _assigned_on_self(klass, name)
        ):
            return True
    return False


def _installed(path: str) -> str:
    top = path.split(".")[0]
    shown = []
    for distribution in packages_distributions().get(top, []):
        try:
            shown.append(f"{distribution} {version(distribution)}")
        except PackageNotFoundError:
            continue
    return ", ".join(shown) or "not installed"


def resolve(path: str) -> None:
    """Fail, naming ``path``, unless the installed packages have everything it names."""
    module, attributes = _import_longest_prefix(path)
    owner: Any = module
    walked = module.__name__
    for position, attribute in enumerate(attributes):
        walked = f"{walked}.{attribute}"
        if hasattr(owner, attribute):
            owner = getattr(owner, attribute)
            continue
        last = position == len(attributes) - 1
        if last and _declared(owner, attribute):
            return
        pytest.fail(f"{path}: {walked} is missing (installed: {_installed(path)})")


def test_the_known_accel_modules_are_found() -> None:
    assert set(ACCEL) >= KNOWN
    assert len(CASES) >= 40  # the GraphQL and REST tricks alone name more than 40


@pytest.mark.parametrize("module", sorted(ACCEL))
def test_each_accel_module_lists_and_names_its_private_api(module: str) -> None:
    docstring, names = ACCEL[module]
    assert isinstance(names, tuple), f"{module} has no PRIVATE_API tuple"
    assert all(isinstance(name, str) and "." in name for name in names), names
    assert docstring, f"{module} has no docstring naming its private names"
    if not names:  # a trick without private names (a second pipeline) must say so up front
        assert re.search(r"private (api|names): none", docstring, re.IGNORECASE), (
            f"{module}: PRIVATE_API is empty and its docstring does not say 'Private API: none'"
        )
    unnamed = [name for name in names if not any(s in docstring for s in _spellings(name))]
    assert unnamed == [], f"{module}'s docstring does not name {unnamed}"


@pytest.mark.parametrize("module", sorted(ACCEL))
def test_each_accel_module_imports_with_the_list_it_declares(module: str) -> None:
    declared = importlib.import_module(module).PRIVATE_API
    assert declared == ACCEL[module][1]


@pytest.mark.parametrize(("module", "name"), CASES)
def test_the_installed_dependencies_have_each_private_name(module: str, name: str) -> None:
    resolve(name)


@pytest.mark.parametrize(
    "path",
    [
        "graphql.execution.Executor.no_such_method",
        "strawberry.types.info.Info._no_such_field",
        "flask_limiter.Limiter._Limiter__no_such_thing",
        "no_such_package.thing",
    ],
)
def test_a_missing_name_fails_naming_it(path: str) -> None:
    with pytest.raises(pytest.fail.Exception, match=path.replace(".", r"\.")):
        resolve(path)


@pytest.mark.parametrize(
    "path",
    [
        "graphql.execution.Executor.middleware_manager",  # annotated on the class
        "graphql.execution.middleware.MiddlewareManager.middlewares",  # a slot
        "strawberry.schema.config.StrawberryConfig.name_converter",  # a dataclass field
        "strawberry.schema.schema.Schema._schema",  # assigned in __init__
        "flask_limiter.Limiter._Limiter__check_all_limits_exempt",  # name-mangled method
        "flask_limiter.Limiter._Limiter__check_backend_count",  # mangled, set on self
    ],
)
def test_instance_and_mangled_names_resolve(path: str) -> None:
    resolve(path)
