"""The cost walk itself: one visit per fragment, remembered verdicts, its table, deadlines."""

import time
from datetime import date
from typing import Any

import pytest
from graphql import GraphQLError, parse

import graphql_schema.cost as cost
import graphql_schema.cost_walk as cost_walk
from graphql_schema import make_schema
from graphql_schema.context import Context
from graphql_schema.cost import DocumentLimits, SchemaFacts, analyse
from graphql_schema.deadline import OperationTimeout
from service.dataset import EMPTY_TABLES

from .costs import INTROSPECTION, Work
from .test_cost import BENCH_NESTED, doubling

# Without table sizes (no data at hand) only values, calls and statements are priced.
EMPTY = Work(EMPTY_TABLES)
STRAINS = EMPTY.field("Query", "strains")


@pytest.fixture(scope="module")
def facts() -> SchemaFacts:
    return SchemaFacts(make_schema()._schema)


@pytest.mark.parametrize("count", [10, 20, 30])
def test_each_fragment_is_walked_once_however_often_it_is_spread(
    facts: SchemaFacts, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    walked: list[Any] = []
    original = cost_walk.Walk.selections

    def counting(self, nodes, parent):
        walked.append(nodes)
        return original(self, nodes, parent)

    monkeypatch.setattr(cost_walk.Walk, "selections", counting)
    document = doubling(count, "Strain", "slug", ("strains(limit: 2)", "items"))
    analysis = analyse(facts, parse(document), None, None)
    # The operation, strains' and items' selections, then each fragment's once.
    assert len(walked) == 3 + count + 1
    assert analysis.cost == 1 + 2 * (1 + 2**count) + STRAINS
    assert analysis.error is None


def test_numbers_saturate_instead_of_growing(facts: SchemaFacts) -> None:
    # 100 strains, then 10,000 times as many values per strain -> menu -> strain cycle: 10 ** 18.
    selection = "name"
    for _ in range(4):
        selection = (
            f"dispensaries(limit: 100) {{ menu(limit: 100) {{ strain {{ {selection} }} }} }}"
        )
    analysis = analyse(
        facts, parse(f"{{ strains(limit: 100) {{ items {{ {selection} }} }} }}"), None, None
    )
    assert analysis.cost == cost_walk.SATURATED == 10**15
    assert analysis.error == "'anonymous' exceeds maximum operation depth of 10"


def test_a_spread_count_over_the_limit_is_refused_before_any_walk(
    facts: SchemaFacts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cost, "Walk", None)  # would fail if used
    analysis = analyse(facts, parse(doubling(32)), None, None)
    assert analysis.error == "65 fragment spreads found. Allowed: 64"


def test_a_verdict_is_remembered_per_text_and_per_limit_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = DocumentLimits(25_000)
    limits.attach(make_schema()._schema)
    runs: list[Any] = []
    original = cost.analyse

    def counting(*args: Any, **kwargs: Any) -> Any:
        runs.append(args[3])
        return original(*args, **kwargs)

    monkeypatch.setattr(cost, "analyse", counting)
    text = "query($n: Int!, $q: String!) { search(q: $q, limit: $n) { items { __typename } } }"
    document = parse(text)
    check = lambda variables: limits.check(document, text, None, variables)  # noqa: E731
    search = EMPTY.field("Query", "search")
    assert check({"n": 5, "q": "blue"}) == 1 + 5 * 2 + search
    # Another search text: the same cost, remembered.
    assert check({"n": 5, "q": "kush"}) == 11 + search
    assert len(runs) == 1
    assert check({"n": 50, "q": "blue"}) == 1 + 50 * 2 + search
    assert check({"n": 5, "q": "og"}) == 11 + search
    assert len(runs) == 2
    plain = "{ laws { state } }"
    laws = 56 * 2 + EMPTY.field("Query", "laws")
    assert limits.check(parse(plain), plain, None, {"unused": 1}) == laws
    assert limits.check(parse(plain), plain, None, None) == laws
    assert len(runs) == 3


def test_a_refusal_is_remembered_too(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = DocumentLimits(100)
    limits.attach(make_schema()._schema)
    text = BENCH_NESTED
    with pytest.raises(GraphQLError, match=r"Estimated query cost 1[0-9]{4} exceeds the budget"):
        limits.check(parse(text), text, None, None)
    monkeypatch.setattr(cost, "analyse", None)  # would fail if called again
    with pytest.raises(GraphQLError, match="budget of 100: "):
        limits.check(parse(text), text, None, None)


def test_the_operation_that_runs_is_the_one_priced(facts: SchemaFacts) -> None:
    document = parse(
        "query Small { laws { state } } query Large { strains(limit: 100) { items { slug } } }"
    )
    small = 56 * 2 + EMPTY.field("Query", "laws")
    large = 1 + 100 * 2 + EMPTY.field("Query", "strains", limit=100)
    assert analyse(facts, document, "Small", None).cost == small
    assert analyse(facts, document, "Large", None).cost == large
    assert analyse(facts, document, None, None).cost == max(small, large)  # unclear: the dearer


def test_a_schema_list_missing_from_the_table_stops_the_schema_being_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(cost.LIST_SIZES, ("Dispensary", "reviews"))
    monkeypatch.delitem(cost.LIST_SIZES, ("Query", "doctors"))
    with pytest.raises(RuntimeError) as refused:
        make_schema()
    assert str(refused.value) == (
        "lists without a size in LIST_SIZES: Query.doctors, Dispensary.reviews, DoctorPage.items"
    )


def test_the_table_reads_defaults_from_the_schema_and_maxima_from_the_service(
    facts: SchemaFacts,
) -> None:
    sized = {
        f"{owner}.{field}": (found.default, found.size.maximum, found.page)
        for (owner, field), found in facts.sized.items()
    }
    assert sized == {
        "Query.strains": (20, 100, True),
        "Query.dispensaries": (20, 100, True),
        "Query.deals": (20, 100, True),
        "Query.doctors": (20, 50, True),
        "Query.search": (20, 100, True),
        "Query.changes": (100, 1000, True),
        "Query.laws": (56, 56, False),
        "Query.nodes": (100, 100, False),
        "Dispensary.deals": (20, 100, False),
        "Dispensary.menu": (100, 100, False),
        "Dispensary.reviews": (20, 20, False),
        "Strain.dispensaries": (20, 100, False),
        # The chemistry vocabulary's sizes (service.compounds).
        "Query.compounds": (18, 18, False),
        "Chemistry.cannabinoids": (9, 9, False),
        "Chemistry.terpenes": (9, 9, False),
        "Lineage.parents": (3, 3, False),
        "Strain.parents": (3, 3, True),
        "Strain.children": (20, 100, True),
        "LabBatch.results": (18, 18, False),
        "LineageGraph.nodes": (100, 100, False),
        "LineageGraph.edges": (300, 300, False),
    }


@pytest.mark.parametrize("stock", [False, True], ids=["served", "stock"])
def test_both_executions_stop_at_a_passed_deadline(session, stock: bool) -> None:
    schema = make_schema(stock=stock)
    late = Context(
        connections=session.connection,
        today=date.today(),
        deadline=time.monotonic() - 1,
    )
    with pytest.raises(OperationTimeout):
        schema.execute_sync("{ laws { state } }", context_value=late)
    on_time = Context(
        connections=session.connection,
        today=date.today(),
        deadline=time.monotonic() + 60,
    )
    result = schema.execute_sync("{ laws { state } }", context_value=on_time)
    assert result.errors is None
    assert len(result.data["laws"]) == 56
    requested = 56 * 2 + EMPTY.field("Query", "laws")
    assert on_time.cost == {"requested": requested, "budget": 25_000}


def test_variables_that_do_not_coerce_leave_nothing_remembered() -> None:
    limits = DocumentLimits(25_000)
    limits.attach(make_schema()._schema)
    text = "query($n: Int, $q: String!) { search(q: $q, limit: $n) { items { __typename } } }"
    document = parse(text)
    search = EMPTY.field("Query", "search")
    # Not an Int: execution runs nothing and answers with the variable's error; nothing kept.
    assert limits.check(document, text, None, {"n": "many", "q": "blue"}) == 0
    assert limits.check(document, text, None, {"n": 100, "q": "blue"}) == 1 + 100 * 2 + search
    assert limits.check(document, text, None, {"n": 100.0, "q": "blue"}) == 1 + 100 * 2 + search
    assert limits.check(document, text, None, {"q": "blue"}) == 1 + 20 * 2 + search


def test_a_type_name_read_from_a_variable_is_part_of_what_is_remembered() -> None:
    limits = DocumentLimits(25_000)
    limits.attach(make_schema()._schema)
    text = "query($t: String!) { __type(name: $t) { fields { name } } }"
    document = parse(text)
    boolean = limits.check(document, text, None, {"t": "Boolean"})
    query = limits.check(document, text, None, {"t": "Query"})
    # Boolean has no fields: null counts 1.
    assert (boolean, query) == ((1 + 1) * INTROSPECTION, (1 + 16 * 2) * INTROSPECTION)
    assert limits.estimate(document, text, None, {"t": "Query"}).variables == ("t",)
