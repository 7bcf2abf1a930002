"""No resolver runs a statement per parent item: every field of every record type, asked under
one parent and then under two, runs the same number of SQL statements, and under two no
statement twice.

The fields are read from the served schema, so a relation added later is walked too; the
where-to-buy relation is walked with every argument it takes.
"""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from graphql import GraphQLObjectType, get_named_type, is_leaf_type

from graphql_schema import make_schema

# A list of n records of each type, ``{}`` standing for the selection on each record.
PARENTS: dict[str, str] = {
    "Strain": "strains(limit: $n) { items { {} } }",
    "Dispensary": "dispensaries(limit: $n) { items { {} } }",
    "Deal": "deals(limit: $n) { items { {} } }",
    "Doctor": "doctors(limit: $n) { items { {} } }",
    "MenuItem": "dispensaries(limit: 1) { items { menu(limit: $n) { {} } } }",
    # Two dispensaries may share a law: Law has no relations (Dispensary.law is walked above).
    "Law": "dispensaries(limit: $n) { items { law { {} } } }",
    "Review": "dispensaries(limit: 1) { items { reviews(limit: $n) { {} } } }",
    "Hours": "dispensaries(limit: $n) { items { hours { {} } } }",
    "Location": "dispensaries(limit: $n) { items { location { {} } } }",
    # The feed's first changes: one law, then two (their objects: one statement for both).
    "Change": "changes(limit: $n) { items { {} } }",
    # A strain's chemistry and lineage, and what they hold.
    "Chemistry": "strains(limit: $n) { items { chemistry { {} } } }",
    "ChemistryCompound": "strains(limit: $n) { items { chemistry { terpenes { {} } } } }",
    "ChemistryTotal": "strains(limit: $n) { items { chemistry { totalThc { {} } } } }",
    "ChemistrySpread": "strains(limit: $n) { items { chemistry { totalTerpenes { {} } } } }",
    "Lineage": "strains(limit: $n) { items { lineage { {} } } }",
    "ParentStrain": "strains(limit: $n) { items { lineage { parents { {} } } } }",
    # The batch on the shelf of menu items, and its results.
    "LabBatch": "dispensaries(limit: 1) { items { menu(limit: $n) { lab { {} } } } }",
    "LabResult": "dispensaries(limit: 1) { items { menu(limit: $n) { lab { results { {} } } } } }",
}
# Search results reach each member type once more, through the union.
SEARCHED = ("Strain", "Dispensary", "Doctor", "Deal")
# Page types and the root are not records: their fields run once per request.
NOT_RECORDS = (
    "Query",
    "StrainPage",
    "DispensaryPage",
    "DealPage",
    "DoctorPage",
    "SearchResultPage",
    "ChangePage",
    # The compound vocabulary: built without a statement, no relations.
    "Compound",
    # A lineage and its nodes and edges: values Query.lineage builds with its own statements.
    "LineageGraph",
    "LineageNode",
    "LineageEdge",
)
# Pittsburgh, and a wide circle: dispensaries in New York, Ohio and Pennsylvania stock the
# tiny dataset's first two strains.
POINT = "{lat: 40.4406, lng: -79.9959, radius: 500}"
STOCKIST_ARGUMENTS = (
    "",
    'state: "NY"',
    'states: ["NY", "OH"]',
    'zip: "15222", radius: 500',
    f"near: {POINT}",
    f"near: {POINT}, sort: DISTANCE",
    f"near: {POINT}, openNow: true",
    "bbox: {west: -125, south: 24, east: -66, north: 50}",
    "openNow: true",
    "openNow: false",
    'openAt: "2026-12-04T18:00:00-07:00"',
    'openAt: "2026-12-04T18:00:00-07:00", sort: RATING_DESC, offset: 1',
    'openAt: "2026-03-08T09:15:00-08:00"',  # days from a change of UTC offset
    "sort: RATING",
    "limit: 3, offset: 2",
    "sort: PRICE_PER_GRAM",
    "totalThcMin: 10",
    "totalThcMin: 10, sort: PRICE_PER_GRAM, offset: 1",
)
STOCKIST_FIELDS = (
    "id name price unit isOpen nextChange distance reviewCount law { state } pricePerGram "
    "lab { batchId results { key } }"
)


def _selection(field: Any) -> str:
    """The smallest selection of a field: its name, with a leaf below an object."""
    named = get_named_type(field.type)
    if is_leaf_type(named):
        return ""
    leaves = [name for name, f in named.fields.items() if is_leaf_type(get_named_type(f.type))]
    return f" {{ {leaves[0]} }}"


def _record_fields() -> Iterator[tuple[str, str, str]]:
    """(type, field, selection) for every field of every record type of the served schema."""
    schema = make_schema()._schema
    for name, named in sorted(schema.type_map.items()):
        if name.startswith("__") or name in NOT_RECORDS or not isinstance(named, GraphQLObjectType):
            continue
        for field_name, field in named.fields.items():
            yield name, field_name, field_name + _selection(field)


FIELDS = list(_record_fields())


def test_every_record_type_has_a_way_to_reach_two_parents() -> None:
    assert {type_name for type_name, _, _ in FIELDS} == set(PARENTS)


Run = Callable[[str, int], list[str]]


@pytest.fixture
def app(make_app) -> Flask:
    """Nothing cached: every document really runs."""
    return make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, GRAPHQL_COST_BUDGET=1_000_000)


@pytest.fixture
def statements(app: Flask, api_keys: dict[str, str], count_statements) -> Run:
    """Run ``document`` with ``$n`` parents; return the statements it ran."""
    client = app.test_client()

    def run(document: str, n: int) -> list[str]:
        send(document, n)  # once first: what a worker reads once (time zones) is not counted
        with count_statements(app) as seen:
            send(document, n)
        return seen

    def send(document: str, n: int) -> None:
        response = client.post(
            "/graphql",
            json={"query": document, "variables": {"n": n}},
            headers={"X-API-Key": api_keys["enterprise"]},
        )
        body = response.get_json()
        assert response.status_code == 200, body
        assert "errors" not in body, body["errors"]

    return run


def _document(path: str, selection: str) -> str:
    return "query($n: Int!) { " + path.replace("{}", selection) + " }"


def _same_under_one_and_two(statements: Run, document: str, *, counts: bool = True) -> None:
    """Under two parents no statement runs twice, and (``counts``) as many run as under one."""
    two = statements(document, 2)
    assert len(set(two)) == len(two), document
    if counts:
        assert len(statements(document, 1)) == len(two), document


@pytest.mark.parametrize(
    ("type_name", "selection"),
    [(type_name, selection) for type_name, _, selection in FIELDS],
    ids=[f"{type_name}.{field}" for type_name, field, _ in FIELDS],
)
def test_a_field_runs_as_many_statements_under_two_parents_as_under_one(
    statements: Run, type_name: str, selection: str
) -> None:
    paths = [PARENTS[type_name]]
    if type_name in SEARCHED:
        paths.append(f'search(q: "a", limit: $n) {{ items {{ ... on {type_name} {{ {{}} }} }} }}')
    for path in paths:
        _same_under_one_and_two(statements, _document(path, selection))


@pytest.mark.parametrize("arguments", STOCKIST_ARGUMENTS)
def test_where_to_buy_runs_as_many_statements_under_two_strains_as_under_one(
    statements: Run, arguments: str
) -> None:
    given = f"({arguments})" if arguments else ""
    selection = f"slug dispensaries{given} {{ {STOCKIST_FIELDS} }}"
    _same_under_one_and_two(statements, _document(PARENTS["Strain"], selection))
    # Through a menu, the first item's strain may have no stockists under a filter where the
    # second's has some (the pages then differ): only no statement twice is asked there.
    through_menu = PARENTS["MenuItem"].replace("{}", "strain { {} }")
    _same_under_one_and_two(statements, _document(through_menu, selection), counts=False)


def test_the_walked_strains_have_stockists_under_the_filters(
    app: Flask, api_keys: dict[str, str]
) -> None:
    # Otherwise the counts above would compare pages that are empty for both strains.
    document = _document(PARENTS["Strain"], f"slug dispensaries(near: {POINT}) {{ id price }}")
    response = app.test_client().post(
        "/graphql",
        json={"query": document, "variables": {"n": 2}},
        headers={"X-API-Key": api_keys["enterprise"]},
    )
    items = response.get_json()["data"]["strains"]["items"]
    assert [len(item["dispensaries"]) > 0 for item in items] == [True, True]
    assert all(d["price"] is not None for item in items for d in item["dispensaries"])


# --- node and nodes ----------------------------------------------------------------------------

NODE_LISTS = {
    "Strain": "strains(limit: 2) { items { id } }",
    "Dispensary": "dispensaries(limit: 2) { items { id } }",
    "Deal": "deals(limit: 2) { items { id } }",
    "Doctor": "doctors(limit: 2) { items { id } }",
    "Law": "laws { id }",
}
NODE_FIELDS = [(t, f, s) for t, f, s in FIELDS if t in NODE_LISTS]


@pytest.fixture
def node_ids(app: Flask, api_keys: dict[str, str]) -> dict[str, list[str]]:
    """Two ids of each kind of Node, as the lists give them."""
    client = app.test_client()
    found = {}
    for type_name, path in NODE_LISTS.items():
        response = client.post(
            "/graphql", json={"query": "{ " + path + " }"}, headers={"X-API-Key": api_keys["pro"]}
        )
        body = response.get_json()
        assert response.status_code == 200, body
        listed = next(iter(body["data"].values()))
        items = listed["items"] if isinstance(listed, dict) else listed
        found[type_name] = [item["id"] for item in items[:2]]
    return found


@pytest.fixture
def node_statements(app: Flask, api_keys: dict[str, str], count_statements) -> Callable:
    """Run ``document`` with ``$ids``; return the statements it ran (the second time)."""
    client = app.test_client()

    def run(document: str, ids: list[str]) -> list[str]:
        for attempt in range(2):
            with count_statements(app) as seen:
                response = client.post(
                    "/graphql",
                    json={"query": document, "variables": {"ids": ids}},
                    headers={"X-API-Key": api_keys["enterprise"]},
                )
            body = response.get_json()
            assert response.status_code == 200, body
            assert "errors" not in body, body["errors"]
            assert all(node is not None for node in body["data"]["nodes"]), (attempt, body)
        return seen

    return run


@pytest.mark.parametrize(
    ("type_name", "selection"),
    [(type_name, selection) for type_name, _, selection in NODE_FIELDS],
    ids=[f"nodes.{type_name}.{field}" for type_name, field, _ in NODE_FIELDS],
)
def test_a_field_under_nodes_runs_as_many_statements_for_two_ids_as_for_one(
    node_statements, node_ids: dict[str, list[str]], type_name: str, selection: str
) -> None:
    document = (
        "query($ids: [ID!]!) { nodes(ids: $ids) { id ... on " + type_name + " { " + selection
    ) + " } } }"
    two = node_statements(document, node_ids[type_name])
    assert len(set(two)) == len(two), document
    assert len(node_statements(document, node_ids[type_name][:1])) == len(two), document


def test_nodes_runs_one_statement_per_kind_however_many_ids(
    node_statements, node_ids: dict[str, list[str]]
) -> None:
    document = "query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }"
    one_each = [ids[0] for ids in node_ids.values()]
    two_each = [key for ids in node_ids.values() for key in ids]
    # Besides the request's own (the key's lookup): none for no id, one per kind asked for.
    own = len(node_statements(document, []))
    assert len(node_statements(document, one_each)) == own + len(NODE_LISTS)
    assert len(node_statements(document, two_each)) == own + len(NODE_LISTS)
    assert len(node_statements(document, node_ids["Deal"])) == own + 1
