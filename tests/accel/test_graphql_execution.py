"""The plain-field executor and the direct resolvers give exactly the stock answer, errors and all.

Every query runs twice: through the schema as served (``plain_field_execution`` and
``install_direct_resolvers``) and through the same schema with Strawberry's stock execution
context and resolver wrappers. Data and formatted errors must be equal. A small schema of its
own feeds the executor values that must not complete (nulls in non-null places, values a scalar
refuses, missing attributes) to check that those reach graphql-core, and has resolvers of every
shape the direct path handles or must leave to Strawberry.
"""

import json
from datetime import date
from enum import Enum
from types import MappingProxyType
from typing import Annotated, Any, ClassVar

import pytest
import strawberry
from graphql import GraphQLObjectType
from sqlalchemy.orm import Session
from strawberry.extensions import SchemaExtension
from strawberry.permission import BasePermission
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from graphql_schema import make_schema
from graphql_schema.accel import direct
from graphql_schema.accel.budgets import DeadlineExecution, core_schema
from graphql_schema.accel.direct import install_direct_resolvers
from graphql_schema.accel.execution import plain_field_execution
from graphql_schema.context import Context


def _both(schema_factory, query: str, variables: dict | None = None, context=None) -> tuple:
    """(fast result, stock result), each as (data as JSON text, formatted errors)."""
    fast = schema_factory()
    stock = schema_factory(stock=True)
    # Stock: Strawberry's own execution context (the served schema's adds only the time budget).
    assert stock.execution_context_class in (
        StrawberryGraphQLCoreExecutionContext,
        DeadlineExecution,
    )
    assert fast.execution_context_class is not StrawberryGraphQLCoreExecutionContext
    answers = []
    for schema in (fast, stock):
        result = schema.execute_sync(query, variable_values=variables, context_value=context)
        errors = [error.formatted for error in result.errors or []]
        # As JSON text, so that the order of every object's keys is compared too.
        answers.append((json.dumps(result.data), errors))
    return answers[0], answers[1]


# --- a schema of odd values -------------------------------------------------------------------


@strawberry.enum
class Colour(Enum):
    RED = "red"
    GREEN = "green"


class Refuse(BasePermission):
    message = "refused"

    def has_permission(self, source: Any, info: strawberry.Info, **kwargs: Any) -> bool:
        return False


def _tag_count(root: "Thing", times: int = 1) -> int:
    """A resolver that is no method: it takes its object as ``root``."""
    return len(root.tags) * times


def _first_tag(parent: strawberry.Parent["Thing"]) -> str | None:
    """And one that takes it as ``parent``."""
    return parent.tags[0] if parent.tags else None


@strawberry.type
class Thing:
    name: str
    count: int
    ratio: float
    nickname: str | None
    tags: list[str]
    loose_tags: list[str | None] | None
    colour: Colour
    child: "Thing | None" = None
    kids: list["Thing"] = strawberry.field(default_factory=list)

    @strawberry.field
    def shout(self, times: int = 1) -> str:
        return self.name.upper() * times

    @strawberry.field
    def greet(self, info: strawberry.Info, first_name: str, title: str | None = None) -> str:
        """Renamed (firstName) and optional arguments, and ``info``."""
        return f"{title or ''}{first_name} from {self.name} at {info.field_name}"

    @strawberry.field
    def named(self, value: Annotated[int, strawberry.argument(name="n")] = 2) -> int:
        return value * self.count

    @strawberry.field
    def fail(self, message: str) -> str | None:
        raise ValueError(message)

    @strawberry.field
    def paint(self, colour: Colour) -> str:  # an enum argument: Strawberry converts it
        return f"{self.name} in {colour.value}"

    @strawberry.field(permission_classes=[Refuse])
    def guarded(self) -> str | None:
        return "never"

    tag_count: int = strawberry.field(resolver=_tag_count)
    first_tag: str | None = strawberry.field(resolver=_first_tag)


def _thing(**changes: Any) -> Thing:
    values: dict[str, Any] = {
        "name": "a",
        "count": 1,
        "ratio": 0.5,
        "nickname": None,
        "tags": ["x", "y"],
        "loose_tags": ["x", None],
        "colour": Colour.RED,
    }
    values.update(changes)
    return Thing(**values)


class Bare:
    """Has none of Thing's attributes: reading any of them fails."""


ODD_THINGS = {
    "ok": _thing(child=_thing(name="b"), kids=[_thing(name="c"), _thing(name="d")]),
    "null name": _thing(name=None),
    "text count": _thing(count="seven"),
    "huge count": _thing(count=2**40),
    "nan ratio": _thing(ratio=float("nan")),
    "int ratio": _thing(ratio=3),
    "null in tags": _thing(tags=["x", None]),
    "string tags": _thing(tags="xy"),
    "null tags": _thing(tags=None),
    "dict loose tags": _thing(loose_tags={"x": 1}),
    "odd loose tag": _thing(loose_tags=["x", object()]),
    "tuple tags": _thing(tags=("x", "y")),
    "mapping tags": _thing(tags=MappingProxyType({"x": 1})),
    "bytearray tags": _thing(tags=bytearray(b"xy")),
    "bad colour": _thing(colour="blue"),
    "plain colour value": _thing(colour="red"),
    "bad child": _thing(child=_thing(count=None)),
    "bad kid": _thing(kids=[_thing(name="c"), _thing(ratio="r")]),
    "bare kid": _thing(kids=[Bare()]),
    "bare child": _thing(child=Bare()),
}


@strawberry.type
class OddQuery:
    @strawberry.field
    def thing(self, case: str) -> Thing | None:
        return ODD_THINGS[case]

    @strawberry.field
    def strict_thing(self, case: str) -> Thing:
        return ODD_THINGS[case]

    @strawberry.field
    def things(self, case: str) -> list[Thing]:
        return [ODD_THINGS["ok"], ODD_THINGS[case]]


def _odd_schema(*extensions: type, stock: bool = False) -> strawberry.Schema:
    schema = strawberry.Schema(
        query=OddQuery,
        extensions=list(extensions),
        execution_context_class=None if stock else plain_field_execution(),
    )
    if not stock:
        install_direct_resolvers(schema)
    return schema


THING_SELECTION = """
  name count ratio nickname tags looseTags colour __typename
  child { name count }
  kids { name ratio tags }
"""


@pytest.mark.parametrize("case", ODD_THINGS)
@pytest.mark.parametrize("root", ["thing", "strictThing", "things"])
def test_odd_values_complete_as_graphql_core_completes_them(case: str, root: str) -> None:
    query = f'{{ {root}(case: "{case}") {{ {THING_SELECTION} }} }}'
    fast, stock = _both(_odd_schema, query)
    assert fast == stock


def test_an_irregular_value_is_reported_at_its_own_path() -> None:
    fast, stock = _both(_odd_schema, '{ thing(case: "odd loose tag") { name looseTags } }')
    assert fast == stock
    assert json.loads(fast[0]) == {"thing": {"name": "a", "looseTags": ["x", None]}}
    assert [error["path"] for error in fast[1]] == [["thing", "looseTags", 1]]


def test_a_null_propagates_to_the_nearest_nullable_parent() -> None:
    fast, stock = _both(_odd_schema, '{ things(case: "bad kid") { kids { ratio } } }')
    assert fast == stock
    assert fast[0] == "null"  # things is a non-null list of non-null items
    assert [error["path"] for error in fast[1]] == [["things", 1, "kids", 1, "ratio"]]


ODD_SHAPES = {
    "aliases": '{ thing(case: "ok") { a: name b: name n: count c: child { x: name } } }',
    "arguments": '{ thing(case: "ok") { shout(times: 2) name kids { shout } } }',
    "fragments": """{ thing(case: "ok") { ...F kids { ... on Thing { name } } } }
        fragment F on Thing { name child { ...G } }
        fragment G on Thing { count colour }""",
    "merged selections": '{ thing(case: "ok") { child { name } child { count } name name } }',
    "skip and include": """query Q($yes: Boolean!) { thing(case: "ok") {
        name @include(if: $yes) count @skip(if: $yes) child @include(if: $yes) { name }
        kids @skip(if: $yes) { name } } }""",
    "typename only": '{ thing(case: "ok") { __typename kids { __typename } } }',
    "resolver shapes": """{ thing(case: "ok") { greet(firstName: "Ann") g: greet(firstName: "Bo",
        title: "Dr ") named n3: named(n: 3) tagCount t2: tagCount(times: 2) firstTag
        paint(colour: GREEN) kids { greet(firstName: "Cy", title: null) tagCount } } }""",
    "resolver errors": """{ thing(case: "ok") { name fail(message: "boom")
        kids { fail(message: "kid") } guarded } }""",
}


@pytest.mark.parametrize("yes", [True, False])
@pytest.mark.parametrize("query", ODD_SHAPES.values(), ids=ODD_SHAPES.keys())
def test_every_selection_shape_gives_the_same_answer(query: str, yes: bool) -> None:
    fast, stock = _both(_odd_schema, query, {"yes": yes} if "$yes" in query else None)
    assert fast == stock
    assert json.loads(fast[0])["thing"] is not None
    assert fast[1] == [] or "fail" in query


def test_resolver_errors_are_strawberrys_errors() -> None:
    fast, _stock = _both(_odd_schema, ODD_SHAPES["resolver errors"])
    assert sorted((error["message"], tuple(error["path"])) for error in fast[1]) == [
        ("boom", ("thing", "fail")),
        ("kid", ("thing", "kids", 0, "fail")),
        ("kid", ("thing", "kids", 1, "fail")),
        ("refused", ("thing", "guarded")),
    ]


def test_only_resolvers_with_nothing_for_strawberry_to_do_are_called_directly() -> None:
    direct = install_direct_resolvers(_odd_schema(stock=True))
    assert sorted(direct) == [
        "OddQuery.strictThing",
        "OddQuery.thing",
        "OddQuery.things",
        "Thing.fail",
        "Thing.firstTag",
        "Thing.greet",
        "Thing.named",
        "Thing.shout",
        "Thing.tagCount",
    ]  # not Thing.paint (an enum argument) nor Thing.guarded (a permission class)
    served = install_direct_resolvers(make_schema(stock=True))
    assert {"Dispensary.deals", "Dispensary.menu", "Dispensary.law", "Query.law"} <= set(served)
    assert not {"Query.strains", "Query.dispensaries", "Query.search"} & set(served)  # enums


def _direct_fields(schema: strawberry.Schema) -> set[str]:
    """Type.field of every field whose resolver is called directly."""
    return {
        f"{graphql_type.name}.{name}"
        for graphql_type in core_schema(schema).type_map.values()
        if isinstance(graphql_type, GraphQLObjectType)
        for name, field in graphql_type.fields.items()
        if getattr(field.resolve, "__module__", None) == direct.__name__
    }


def test_a_stock_schema_uses_none_of_the_tricks() -> None:
    stock, served = make_schema(stock=True), make_schema()
    assert stock.execution_context_class is DeadlineExecution  # only the time budget's
    assert stock.speed_tricks is False
    assert _direct_fields(stock) == set()
    assert issubclass(served.execution_context_class, DeadlineExecution)
    assert served.execution_context_class is not DeadlineExecution
    assert served.speed_tricks is True
    assert {"Dispensary.menu", "Dispensary.law", "Query.law"} <= _direct_fields(served)


class CountResolves(SchemaExtension):
    """Counts the fields it sees resolve (a ``resolve`` hook is graphql-core middleware)."""

    seen: ClassVar[list[str]] = []

    def resolve(self, _next, root, info, *args, **kwargs):
        CountResolves.seen.append(info.field_name)
        return _next(root, info, *args, **kwargs)


def test_an_extension_that_watches_resolvers_still_sees_every_field() -> None:
    CountResolves.seen.clear()
    query = '{ things(case: "ok") { name kids { name tags } child { count } } }'
    fast, stock = _both(lambda **stock: _odd_schema(CountResolves, **stock), query)
    assert fast == stock
    item = ["name", "kids", "name", "tags", "name", "tags", "child", "count"]
    assert CountResolves.seen == ["things", *item, *item] * 2  # the fast run, then the stock one


# --- the served schema over the test dataset --------------------------------------------------


def _context(session: Session, today: date) -> Context:
    return Context(connections=session.connection, today=today)


SERVED = {
    "nested dispensaries": """{ dispensaries(limit: 6) { total limit offset items {
        id name address type rating delivery phone website reviewCount distance
        hours { mon tue wed thu fri sat sun }
        deals(limit: 3) { id title dispensaryName category discount expires }
        menu { name category price unit strainSlug strain { slug type effects thc } }
        reviews { rating text author date } law { stateCode recreational possessionLimitOz }
    } } }""",
    "zip search": '{ dispensaries(zip: "80202", radius: 50, limit: 5) { items { id distance } } }',
    "strains": """{ strains(limit: 8) { total items { slug name type thc cbd effects flavors
        description rating reviewCount terpenes
        dispensaries(limit: 2) { id menu { name } } } } }""",
    "search union": """{ search(q: "blue", limit: 10) { total items { __typename
        ... on Strain { slug name } ... on Dispensary { id name hours { mon } }
        ... on Deal { id title } ... on Doctor { id name } } } }""",
    "deals with dispensary": """{ deals(limit: 5) { items { id title
        dispensary { id name law { stateCode } } } } }""",
    "doctors and laws": """{ doctors(limit: 4) { items { id name telehealth price law { state } } }
        laws { stateCode homeGrowPlants updated } law(state: "CA") { state } }""",
    "missing one": '{ strain(slug: "no-such-strain") { slug } dispensary(id: "disp_0") { id } }',
    "aliases and fragments": """{ a: strains(limit: 3) { items { ...S } }
        b: strains(limit: 3, offset: 2) { items { slug s: name } } }
        fragment S on Strain { slug type effects }""",
}


@pytest.mark.parametrize("query", SERVED.values(), ids=SERVED.keys())
def test_served_queries_match_stock_execution(
    query: str, session: Session, reference_day: date
) -> None:
    fast, stock = _both(make_schema, query, context=_context(session, reference_day))
    assert fast == stock
    assert fast[1] == []
    assert json.loads(fast[0]) is not None


def test_plain_fields_skip_graphql_cores_field_execution(
    monkeypatch: pytest.MonkeyPatch, session: Session, reference_day: date
) -> None:
    """Only the root field runs through ``execute_field``; the page and its items do not."""
    calls: list[str] = []
    original = StrawberryGraphQLCoreExecutionContext.execute_field

    def counting(self, parent_type, source, field_details_list, *args, **kwargs):
        calls.append(f"{parent_type.name}.{field_details_list[0].node.name.value}")
        return original(self, parent_type, source, field_details_list, *args, **kwargs)

    monkeypatch.setattr(StrawberryGraphQLCoreExecutionContext, "execute_field", counting)
    query = "{ strains(limit: 4) { total items { slug type effects } } }"
    fast, stock = _both(make_schema, query, context=_context(session, reference_day))
    assert fast == stock
    assert len(json.loads(fast[0])["strains"]["items"]) == 4
    # The fast run (first) made one call; the stock run one per field and item field.
    assert calls[:1] == ["Query.strains"]
    assert calls[1:] == ["Query.strains", "StrainPage.total", "StrainPage.items"] + [
        f"Strain.{name}" for _ in range(4) for name in ("slug", "type", "effects")
    ]
