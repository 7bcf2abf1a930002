"""GraphQL cost limits over HTTP: refusals before validation, extensions.cost, the time budget.

Costs below are worked out by hand: every field counts once per item of each list around it, a
list once per item it can return (its limit, else its default), a page's items by the page's
limit; ``laws`` returns 56 records. To these values the work of resolved fields is added, named
piece by piece (``work``, tests/graphql/costs.py): a call per parent, a statement per level.
"""

import gc
import json
import time
from typing import Any

import pytest
import strawberry.schema.schema as strawberry_schema
from flask import Flask

from app import REQUEST_ENGINE_EXTENSION
from graphql_schema.cost import MAX_SPREADS
from graphql_schema.graphiql import EXAMPLE_QUERY
from service import keys
from service.quotas import units_for_cost
from tests.graphql_refusals import refusal, refusal_body
from web.db import SESSIONS_EXTENSION

from .costs import INTROSPECTION

BUDGET = 25_000  # the default of GRAPHQL_COST_BUDGET
CYCLIC = (
    "{ strains(limit: 1) { items { dispensaries(limit: 100) { menu(limit: 100) { strain { "
    "dispensaries(limit: 100) { menu(limit: 100) { strain { dispensaries(limit: 100) { name } "
    "} } } } } } } } }"
)
# bench/run.py's GraphQL nested page.
BENCH_NESTED = (
    '{ dispensaries(state: "CO", limit: 20) { total items { id name deals(limit: 5) '
    "{ title discount } menu { name price strain { slug } } law { recreational } } } }"
)
README_STRAINS = (
    '{ strains(effect: "relaxed", type: INDICA, limit: 2) '
    "{ total items { slug name thc effects } } }"
)
README_NESTED = """query NearbyWithDeals {
  dispensaries(zip: "80202", radius: 5, limit: 2) {
    total
    items {
      id name distance
      deals(limit: 1) { title discount expires }
      menu(limit: 1) { name price strain { slug thc } }
      law { recreational possessionLimitOz deliveryLegal }
    }
  }
}"""


def doubling(
    count: int, on: str = "Query", leaf: str = "__typename", root: tuple[str, ...] = ()
) -> str:
    """``query Q { ...F0 }``, each fragment spreading the next twice, the last selecting ``leaf``.

    ``root`` are the fields around the first spread (``("strains", "items")`` for a Strain).
    """
    spread = "...F0"
    for field in reversed(root):
        spread = f"{field} {{ {spread} }}"
    parts = [f"query Q {{ {spread} }}"]
    parts += [f"fragment F{n} on {on} {{ ...F{n + 1} ...F{n + 1} }}" for n in range(count)]
    parts.append(f"fragment F{count} on {on} {{ {leaf} }}")
    return " ".join(parts)


def _only_error(body: dict[str, Any]) -> dict[str, Any]:
    assert body["data"] is None, body
    assert len(body["errors"]) == 1, body
    return body["errors"][0]


def _values(value: Any) -> int:
    """The values of an introspection answer's field: its own, its items', theirs."""
    if isinstance(value, dict):
        return 1 + sum(_values(v) for v in value.values())
    if isinstance(value, list) and (not value or isinstance(value[0], dict)):
        return sum(_values(item) for item in value)  # no list of scalars here is empty
    return 1


def _cost_error(estimate: int) -> str:
    return (
        f"Estimated query cost {estimate} exceeds the budget of {BUDGET}: every field counts once "
        "per item of each list around it (a list's limit, or its default), and what a field makes "
        "the server do adds to it (resolvers, statements, rows read: docs/graphql.md); lower the "
        "limits, select fewer nested lists and fields, or split the query"
    )


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The documents graphql-core's own validation runs on (Strawberry's validate, counted)."""
    seen: list[Any] = []
    original = strawberry_schema.validate

    def counting(*args: Any, **kwargs: Any):
        seen.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(strawberry_schema, "validate", counting)
    return seen


# --- refused before validation -----------------------------------------------------------------


@pytest.mark.parametrize("count", [40, 80])
def test_the_doubling_fragment_document_is_refused_at_once_for_its_spreads(
    gql, validations: list, count: int
) -> None:
    # A full collection of the test session's heap, due at any moment, would be timed too.
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        body = gql(doubling(count))
        elapsed = time.process_time() - started
    finally:
        gc.enable()
    error = _only_error(body)
    assert error["message"] == f"{2 * count + 1} fragment spreads found. Allowed: {MAX_SPREADS}"
    assert error["extensions"] == {"code": 400}
    # CPU time of this process, so other load on the machine cannot fail it; it had run for
    # 30 s at 40 fragments (exponential in them).
    assert elapsed < 1.0
    assert validations == []  # graphql-core's own rules never saw it


@pytest.mark.parametrize(
    ("document", "values", "worked"),
    [
        # 31 fragments, 61 spreads: 2 ** 30 __typename fields (merged at execution, summed here).
        (doubling(30), 2**30, lambda work: 0),
        # On a list's items: 100 strains, 2 ** 30 times three fields each, plus the items.
        (
            doubling(30, "Strain", "slug name thc", ("strains(limit: 100)", "items")),
            1 + 100 * (1 + 3 * 2**30),
            lambda work: work.field("Query", "strains", limit=100),
        ),
        # Default page size 20, nested menus of 100: fragments used by lists multiply too.
        (
            doubling(20, "MenuItem", "name price", ("dispensaries", "items", "menu")),
            1 + 20 * (1 + 100 * (1 + 2 * 2**20)),
            lambda work: work.field("Query", "dispensaries") + work.field("Dispensary", "menu", 20),
        ),
    ],
    ids=["on Query", "on Strain items", "on MenuItem under two lists"],
)
def test_doubling_fragments_within_the_spread_limit_are_refused_by_their_cost(
    gql, validations: list, work, document: str, values: int, worked
) -> None:
    estimate = values + worked(work)
    started = time.process_time()
    error = _only_error(gql(document))
    assert time.process_time() - started < 1.0
    assert error["message"] == _cost_error(estimate)
    assert error["extensions"] == {
        "code": 400,
        "cost": {"requested": estimate, "budget": BUDGET},
    }
    assert validations == []


def test_deep_fragments_are_refused_for_depth_each_fragment_walked_once(
    gql, validations: list
) -> None:
    # Each fragment adds two levels and spreads the next twice: depth 2 * 30 + 2, 2 ** 30 paths.
    fragments = " ".join(
        f"fragment D{n} on Deal {{ dispensary {{ deals(limit: 1) {{ {f'...D{n + 1} ' * 2}}} }} }}"
        for n in range(30)
    )
    document = (
        f"query Deep {{ deals(limit: 1) {{ items {{ ...D0 }} }} }} {fragments} "
        "fragment D30 on Deal { id }"
    )
    started = time.process_time()
    error = _only_error(gql(document))
    assert time.process_time() - started < 1.0
    assert error["message"] == "'Deep' exceeds maximum operation depth of 10"
    assert validations == []


def test_aliases_in_a_fragment_count_at_each_spread(gql) -> None:
    fragment = "fragment L on Law { a: state b: stateCode }"
    within = 'x0: law(state: "CA") { ...L } x1: law(state: "NY") { ...L ...L }'
    assert gql.data(f"{{ {within} }} {fragment}") == {
        "x0": {"a": "California", "b": "CA"},
        "x1": {"a": "New York", "b": "NY"},
    }  # 2 + 2 + 2 x 2 = 8 aliases: 2 roots, and L's two at each of its three spreads
    over = f'{{ {within} x2: law(state: "WA") {{ ...L ...L }} x3: law(state: "OR") {{ ...L }} }}'
    error = _only_error(gql(f"{over} {fragment}"))
    assert error["message"] == "16 aliases found. Allowed: 15"  # 4 roots + 2 x 6 spreads
    assert error["extensions"] == {"code": 400}


def test_doubling_fragments_inside_introspection_are_counted_once_per_schema_object(
    gql, validations: list
) -> None:
    fragments = " ".join(
        f"fragment F{n} on __Field {{ ...F{n + 1} ...F{n + 1} }}" for n in range(30)
    )
    document = (
        f'query Q {{ __type(name: "Law") {{ fields {{ ...F0 }} }} }} {fragments} '
        "fragment F30 on __Field { name }"
    )
    started = time.process_time()
    error = _only_error(gql(document))
    assert time.process_time() - started < 1.0
    # __type 1 + Law's 11 fields x (1 + 2 ** 30 names), each value of introspection weighed.
    assert error["message"] == _cost_error((1 + 11 * (1 + 2**30)) * INTROSPECTION)
    assert validations == []


def test_the_cyclic_relation_query_is_refused_with_its_estimate(
    gql, validations: list, work
) -> None:
    # dispensaries(100) { name }: 200; strain { that }: 201; menu(100): 100 x 202 = 20,200; and
    # so on up: 20,201,020,100 under the one strain, + items 1 + strains 1. Each level's
    # relation is called once per parent: 1 strain, 100 dispensaries, 10 ** 4 strains, ...
    estimate = 20_201_020_102 + work.field("Query", "strains", limit=1)
    for level in range(3):
        estimate += work.field("Strain", "dispensaries", 10 ** (4 * level), limit=100)
    for level in range(2):
        estimate += work.field("Dispensary", "menu", 10 ** (4 * level + 2), limit=100)
    error = _only_error(gql(CYCLIC))
    assert error["message"] == _cost_error(estimate)
    assert error["extensions"]["cost"] == {"requested": estimate, "budget": BUDGET}
    assert validations == []


def test_aliases_multiply_a_cost_that_passes_alone(gql, work) -> None:
    one = "strains(limit: 50) { items { dispensaries(limit: 100) { id } } }"
    alone = 1 + 50 * (1 + 100 * 2)  # 10,051 values
    alone += work.field("Query", "strains", limit=50)
    alone += work.field("Strain", "dispensaries", 50, limit=100)
    cost = {"requested": alone, "budget": BUDGET, "charged": units_for_cost(alone)}
    assert gql(f"{{ {one} }}")["extensions"]["cost"] == cost
    error = _only_error(gql(f"{{ a: {one} b: {one} }}"))
    assert error["message"] == _cost_error(2 * alone)


def test_a_variable_limit_sets_the_estimate_and_its_default_applies_without_it(gql, work) -> None:
    query = (
        "query($n: Int = 5, $m: Int!) { dispensaries(limit: $n) { items { name "
        "menu(limit: $m) { name price } } } }"
    )

    def worked(n: int) -> int:  # the list, and the menus of its n dispensaries
        return work.field("Query", "dispensaries", limit=n) + work.field("Dispensary", "menu", n)

    admitted = {
        (3, 4): 1 + 3 * (1 + 1 + 4 * 3) + worked(3),  # 43 values
        (None, 10): 1 + 5 * (1 + 1 + 10 * 3) + worked(5),  # 161: $n's default
        (2, -7): 1 + 2 * (1 + 1 + 1 * 3) + worked(2),  # 11: below 1 counts one
        (55, 100): 1 + 55 * (1 + 1 + 100 * 3) + worked(55),  # 16,611
    }
    for (n, m), expected in admitted.items():
        variables = {"m": m} if n is None else {"n": n, "m": m}
        body = gql(query, variables)
        cost = {"requested": expected, "budget": BUDGET, "charged": units_for_cost(expected)}
        assert body["extensions"]["cost"] == cost, (n, m)
    # 1 + 100 x (2 + 300); a menu limit of 500 is clamped to 100 as the resolver clamps it.
    for m in (100, 500):
        error = _only_error(gql(query, {"n": 100, "m": m, "unused": "x"}))
        assert error["message"] == _cost_error(30_201 + worked(100))


# --- admitted documents report their cost ------------------------------------------------------


def _nearby(work, limit: int) -> int:
    """The work of README_NESTED's and the GraphiQL example's list: 5 miles around 80202."""
    return work.field("Query", "dispensaries", zip="80202", radius=5.0, limit=limit)


def _nested(work, parents: int, *relations: str) -> int:
    return sum(work.field("Dispensary", relation, parents) for relation in relations)


@pytest.mark.parametrize(
    ("query", "values", "worked"),
    [
        # strains 1, total 1, items 2, four fields of each 8.
        (
            README_STRAINS,
            12,
            lambda work: work.field("Query", "strains", effect="relaxed", type="indica", limit=2),
        ),
        # 1 + total 1 + 2 items x (1 + id name distance 3 + deals 1 x 4 + menu 1 x (1 + 2 +
        # strain 3) + law 4) = 2 + 2 x 18.
        (
            README_NESTED,
            38,
            lambda work: _nearby(work, 2) + _nested(work, 2, "deals", "menu", "law"),
        ),
        # 1 + 1 + 3 x (1 + 3 + deals 2 x 4 + law 3).
        (  # the example the served GraphiQL page opens with
            EXAMPLE_QUERY,
            47,
            lambda work: _nearby(work, 3) + _nested(work, 3, "deals", "law"),
        ),
        # 1 + 1 + 20 x (1 + id name 2 + deals 5 x 3 + menu 100 x (1 + 2 + strain 2) + law 2).
        (
            BENCH_NESTED,
            10_402,
            lambda work: (
                work.field("Query", "dispensaries", state="CO", limit=20)
                + _nested(work, 20, "deals", "menu", "law")
            ),
        ),
        # 56 laws x (1 + 2 fields): laws has no limit, so every record counts.
        ("{ laws { state stateCode } }", 56 * 3, lambda work: work.field("Query", "laws")),
    ],
    ids=["readme strains", "readme nested", "graphiql example", "bench nested page", "laws"],
)
def test_admitted_documents_report_their_cost_after_the_quota(
    gql, work, query: str, values: int, worked
) -> None:
    requested = values + worked(work)
    body = gql(query)
    assert "errors" not in body, body["errors"]
    assert list(body["extensions"]) == ["rateLimit", "cost"]
    # A quota unit per started 1,000.
    cost = {"requested": requested, "budget": BUDGET, "charged": -(-requested // 1_000)}
    assert body["extensions"]["cost"] == cost


def test_a_field_repeated_under_one_name_counts_once(gql, work) -> None:
    body = gql("{ laws { state state stateCode } laws { state } }")
    assert len(body["data"]["laws"]) == 56
    requested = 56 * 3 + work.field("Query", "laws")
    cost = {"requested": requested, "budget": BUDGET, "charged": units_for_cost(requested)}
    assert body["extensions"]["cost"] == cost


def test_graphiqls_introspection_is_counted_exactly(gql) -> None:
    from graphql import get_introspection_query

    body = gql(get_introspection_query(descriptions=True))
    assert "errors" not in body
    values = sum(_values(v) for v in body["data"].values())
    assert values > 2_000
    requested = values * INTROSPECTION
    cost = {"requested": requested, "budget": BUDGET, "charged": units_for_cost(requested)}
    assert body["extensions"]["cost"] == cost


def test_a_budget_setting_moves_the_line(make_app, api_keys: dict, gql) -> None:
    nested = gql(BENCH_NESTED)["extensions"]["cost"]["requested"]
    small = gql(README_NESTED)["extensions"]["cost"]["requested"]
    budget = nested - 1
    client = make_app(GRAPHQL_COST_BUDGET=budget).test_client()

    def post(query: str) -> dict:
        headers = {"X-API-Key": api_keys["enterprise"]}
        return client.post("/graphql", json={"query": query}, headers=headers).get_json()

    cost = {"requested": small, "budget": budget, "charged": units_for_cost(small)}
    assert post(README_NESTED)["extensions"]["cost"] == cost
    error = _only_error(post(BENCH_NESTED))
    assert error["message"].startswith(
        f"Estimated query cost {nested} exceeds the budget of {budget}: "
    )


def test_no_cost_is_reported_when_validation_refuses_the_document(gql) -> None:
    body = gql('{ law(state: "CA") { state nope } }')
    assert _only_error(body)["message"] == "Cannot query field 'nope' on type 'Law'."
    assert list(body["extensions"]) == ["rateLimit"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "{ nope { deeper { still } } }",
            "Cannot query field 'nope' on type 'Query'. Did you mean 'node' or 'nodes'?",
        ),
        (
            "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }",
            "Cannot spread fragment 'A' within itself via 'B'.",
        ),
        ("{ ...Missing }", "Unknown fragment 'Missing'."),
        ("{ ... on Nowhere { laws { state } } }", "Unknown type 'Nowhere'."),
    ],
    ids=["unknown field", "fragment cycle", "unknown fragment", "unknown type"],
)
def test_documents_the_cost_walk_cannot_size_are_left_to_graphql_cores_rules(
    gql, query: str, message: str
) -> None:
    error = _only_error(gql(query))
    assert error["message"] == message
    assert error["extensions"] == {"code": 400}


@pytest.mark.usefixtures("speed_tricks")  # the replay lane and the result cache are tricks
def test_a_replayed_and_a_stored_result_keep_the_cost(
    make_app, api_keys: dict, count_statements, work
) -> None:
    # STATE_TTL_MS: a slow first request must not make the repeat read the key and version.
    app = make_app(STATE_TTL_MS=60_000)
    client = app.test_client()
    query = (
        '{ dispensaries(state: "CO", limit: 3) { total items { id deals(limit: 2) { title } } } }'
    )
    headers = {"X-API-Key": api_keys["enterprise"]}
    requested = 1 + 1 + 3 * (1 + 1 + 2 * 2) + work.field("Query", "dispensaries", state="CO")
    requested += work.field("Dispensary", "deals", 3)
    cost = {"requested": requested, "budget": BUDGET, "charged": units_for_cost(requested)}
    first = client.post("/graphql", json={"query": query}, headers=headers)
    with count_statements(app) as seen:
        again = client.post("/graphql", json={"query": query}, headers=headers)
    assert seen == []  # replayed in front of Flask
    for response in (first, again):
        body = json.loads(response.data)
        assert list(body["extensions"]) == ["rateLimit", "cost"]
        assert body["extensions"]["cost"] == cost
    remaining = [json.loads(r.data)["extensions"]["rateLimit"]["remaining"] for r in (first, again)]
    assert remaining[1] == remaining[0] - 1
    # A key this worker has not verified yet goes to Flask, which answers from its result store.
    with app.extensions[SESSIONS_EXTENSION]() as db:
        newcomer = keys.create_key(db, tier="pro", name="cost newcomer").plaintext
        db.commit()
    with count_statements(app) as seen:
        stored = client.post("/graphql", json={"query": query}, headers={"X-API-Key": newcomer})
    assert not [s for s in seen if "dispensar" in s]  # no statement of the query's own
    assert stored.get_json()["data"] == first.get_json()["data"]
    assert list(stored.get_json()["extensions"]) == ["rateLimit", "cost"]
    assert stored.get_json()["extensions"]["cost"] == cost


# --- the time budget ---------------------------------------------------------------------------

SLOW = "{ strains(limit: 50) { items { slug terpenes dispensaries(limit: 20) { name } } } }"


def test_an_operation_past_its_time_budget_ends_with_a_503_envelope(
    make_app, api_keys: dict
) -> None:
    app = make_app(GRAPHQL_TIME_BUDGET_MS=1, PAGE_CACHE_MB=0)
    response = app.test_client().post(
        "/graphql", json={"query": SLOW}, headers={"X-API-Key": api_keys["enterprise"]}
    )
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert response.get_json() == refusal_body(
        503,
        "the GraphQL operation ran past its time budget of 1 ms and was stopped; "
        "ask for less (lower limits, fewer nested lists) or split it",
    )


def test_the_worker_is_free_after_a_stopped_operation(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graphql_schema.deadline

    app: Flask = make_app(PAGE_CACHE_MB=0)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["enterprise"]}
    # An hour later at every check: the first field checked is past the deadline.
    real = time.monotonic
    monkeypatch.setattr(graphql_schema.deadline, "monotonic", lambda: real() + 3_600)
    stopped = client.post("/graphql", json={"query": SLOW}, headers=headers)
    assert stopped.status_code == 503
    assert "time budget of 3000 ms" in refusal(stopped)["message"]
    assert app.extensions[REQUEST_ENGINE_EXTENSION].pool.checkedout() == 0
    monkeypatch.undo()
    answered = client.post("/graphql", json={"query": SLOW}, headers=headers)
    assert answered.status_code == 200
    assert len(answered.get_json()["data"]["strains"]["items"]) == 50


# --- variables are priced as execution coerces them -------------------------------------------

# Three levels of 100 dispensaries, each level reached through one menu item and its strain.
FLOAT_LIMITS = (
    "query($n: Int) { dispensaries(limit: $n) { items { menu(limit: 1) { strain { "
    "dispensaries(limit: $n) { menu(limit: 1) { strain { dispensaries(limit: $n) { name } } } } "
    "} } } } }"
)


@pytest.mark.parametrize("written", ["100", "100.0", "1e2", "1.0e+2"])
def test_a_limit_variable_is_priced_at_the_value_execution_uses_however_it_is_written(
    client, api_keys: dict, work, written: str
) -> None:
    # JSON numbers written as floats coerce to the Int 100, which execution then uses.
    body = (
        '{"query": ' + json.dumps(FLOAT_LIMITS) + ', "variables": {"n": ' + written + "}}"
    ).encode()
    response = client.post(
        "/graphql",
        data=body,
        content_type="application/json",
        headers={"X-API-Key": api_keys["pro"]},
    )
    error = _only_error(response.get_json())
    # The page: 1 + 100 items x (items 1, menu 1, strain 1 + the next level's 100 x (menu 1,
    # strain 1, its dispensaries 1 + the last level's 100 x (1 + name))).
    values = 1 + 100 * (1 + 1 + 1 + 100 * (1 + 1 + 1 + 100 * 2))
    assert values == 2_030_301
    # The list; the menus of 100 and then 10 ** 4 dispensaries, each item's strain asking for
    # its 100 stockists: 100 strains, then 10 ** 4.
    estimate = values + work.field("Query", "dispensaries", limit=100)
    estimate += work.field("Dispensary", "menu", 100, limit=1)
    estimate += work.field("Dispensary", "menu", 10**4, limit=1)
    estimate += work.field("Strain", "dispensaries", 100, limit=100)
    estimate += work.field("Strain", "dispensaries", 10**4, limit=100)
    assert error["message"] == _cost_error(estimate)


def test_a_limit_variable_that_does_not_coerce_is_refused_by_graphql_core(gql) -> None:
    error = _only_error(gql(FLOAT_LIMITS, {"n": 100.5}))
    assert error["message"] == (
        "Variable '$n' has invalid value: Int cannot represent non-integer value: 100.5"
    )


def test_a_type_name_variable_is_priced_for_each_value_given(gql) -> None:
    query = "query($t: String!) { __type(name: $t) { name fields { name args { name } } } }"
    literal = {
        name: gql(f'{{ __type(name: "{name}") {{ name fields {{ name args {{ name }} }} }} }}')
        for name in ("Boolean", "Query")
    }
    for name in ("Boolean", "Query", "Boolean"):
        body = gql(query, {"t": name})
        assert "errors" not in body, body
        assert (
            body["extensions"]["cost"]["requested"]
            == (literal[name]["extensions"]["cost"]["requested"])
        )
    for body in literal.values():  # introspection is priced exactly: each value weighed
        values = _values(body["data"]["__type"])
        assert body["extensions"]["cost"]["requested"] == values * INTROSPECTION
    assert literal["Boolean"]["data"]["__type"]["fields"] is None
    assert len(literal["Query"]["data"]["__type"]["fields"]) == 16
