"""Views run without the wrappers that only document them.

flask-smorest's ``alt_response`` (our ``errors`` and ``not_modified``) and ``doc`` (our
``operation_id``) record documentation on a wrapper that does nothing at run time but ask the
app for the function it wraps and call it: eight to ten calls per request on most operations. With
``SPEED_TRICKS`` on, the app's ensure_sync cache (web.accel.sync_cache) answers each such wrapper
with the first function under it that does work, so the response wrapper calls the view directly.

Private API (flask-smorest): the wrappers made by ``ResponseMixin.alt_response`` and
``Blueprint.doc`` call ``current_app.ensure_sync(func)(*args, **kwargs)`` and nothing else; they
are recognised by their code object, taken from wrappers made here with the public decorators.
"""

from collections.abc import Callable, Iterable
from types import CodeType
from typing import Any

from flask import Flask
from flask_smorest import Blueprint  # type: ignore[import-untyped]  # ships no type hints

from web.accel.sync_cache import skip_pass_throughs

PRIVATE_API = (
    "flask_smorest.response.ResponseMixin.alt_response",
    "flask_smorest.blueprint.Blueprint.doc",
)

View = Callable[..., Any]


def _pass_through_codes() -> frozenset[CodeType]:
    """The code objects of the two documentation-only wrappers."""
    probe = Blueprint("probe", __name__)

    def view() -> None:
        return None

    return frozenset(
        (probe.alt_response(404)(view).__code__, probe.doc(summary="probe")(view).__code__)
    )


def pass_through_targets(views: Iterable[View]) -> dict[View, View]:
    """Each documentation-only wrapper under ``views`` -> the first function below it that does
    work (found through ``__wrapped__``, which functools.wraps sets)."""
    codes = _pass_through_codes()
    targets: dict[View, View] = {}
    for view in views:
        chain = []
        func: View | None = view
        while func is not None:
            chain.append(func)
            func = getattr(func, "__wrapped__", None)
        worker = None
        for func in reversed(chain):  # from the innermost out
            if getattr(func, "__code__", None) in codes and worker is not None:
                targets[func] = worker
            else:
                worker = func
    return targets


def skip_documentation_wrappers(app: Flask, endpoint_prefix: str) -> None:
    """Let the views of the endpoints under ``endpoint_prefix`` skip their documentation-only
    wrappers (call after the blueprint is registered)."""
    views = [v for name, v in app.view_functions.items() if name.startswith(endpoint_prefix)]
    skip_pass_throughs(app, pass_through_targets(views))
