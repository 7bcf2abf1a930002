"""Object identity (``interface Node``, ``node``, ``nodes``) and the DateTime and Date scalars."""

import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from graphql import GraphQLObjectType, get_named_type
from sqlalchemy import select

from graphql_schema import make_schema
from graphql_schema.cost_work import NODE_ID
from graphql_schema.scalars import parse_date, parse_datetime, serialize_datetime
from models import Deal
from service.nodes import MAX_NODE_IDS
from tests.graphql.expected import (
    DEAL_FIELDS,
    DISPENSARY_FIELDS,
    DOCTOR_FIELDS,
    LAW_FIELDS,
    STRAIN_FIELDS,
)

NODE_TYPES = ("Strain", "Dispensary", "Deal", "Doctor", "Law")
# Per kind: the REST list, the key of its id there, the detail field and its argument, fields.
KINDS = {
    "Strain": ("/api/v1/strains", "slug", "strain", "slug", f"{STRAIN_FIELDS} terpenes"),
    "Dispensary": ("/api/v1/dispensaries", "id", "dispensary", "id", f"{DISPENSARY_FIELDS}"),
    "Deal": ("/api/v1/deals", "id", "deal", "id", DEAL_FIELDS),
    "Doctor": ("/api/v1/doctors", "id", "doctor", "id", DOCTOR_FIELDS),
    "Law": ("/api/v1/laws", "stateCode", "law", "state", LAW_FIELDS),
}


def _rest_ids(client, api_keys, kind: str, count: int = 2) -> list[str]:
    path, key, *_ = KINDS[kind]
    query = "" if kind == "Law" else f"?limit={count}"  # laws are one page, unpaged
    response = client.get(path + query, headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 200, response.get_data(as_text=True)
    return [item[key] for item in response.get_json()["data"][:count]]


@pytest.mark.parametrize("kind", NODE_TYPES)
def test_node_by_a_rest_id_is_the_record_its_own_field_gives(gql, client, api_keys, kind) -> None:
    _, _, field, argument, fields = KINDS[kind]
    [rest_id] = _rest_ids(client, api_keys, kind, 1)
    data = gql.data(
        f'{{ node(id: "{rest_id}") {{ __typename id ... on {kind} {{ {fields} }} }} '
        f'detail: {field}({argument}: "{rest_id}") {{ id {fields} }} }}'
    )
    assert data["node"] == {"__typename": kind, **data["detail"]}
    assert data["node"]["id"] == rest_id


@pytest.mark.parametrize("kind", NODE_TYPES)
def test_the_id_field_of_a_list_is_the_rest_id(gql, client, api_keys, kind) -> None:
    path = KINDS[kind][0].rsplit("/", 1)[1]
    rest = _rest_ids(client, api_keys, kind, 2)
    if kind == "Law":
        listed = [law["id"] for law in gql.data("{ laws { id } }")["laws"][:2]]
    else:
        listed = [
            item["id"]
            for item in gql.data(f"{{ {path}(limit: 2) {{ items {{ id }} }} }}")[path]["items"]
        ]
    assert listed == rest


def test_nodes_answers_in_the_order_asked_with_null_for_unknown_ids(gql, client, api_keys) -> None:
    ids = [_rest_ids(client, api_keys, kind, 1)[0] for kind in NODE_TYPES]
    asked = [ids[4], "disp_999999999", ids[1], ids[0], "nope_1", ids[3], ids[2], ids[1]]
    data = gql.data("query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }", {"ids": asked})
    kinds = {ids[n]: NODE_TYPES[n] for n in range(5)}
    assert data["nodes"] == [
        None if key not in kinds else {"__typename": kinds[key], "id": key} for key in asked
    ]


@pytest.mark.parametrize(
    "unknown",
    [
        "disp_999999999",
        "deal_0",
        "doc_999999",
        "ZZ",
        "co",  # a law's id is its upper-case code
        "Blue-Dream",  # a strain's id is its slug, in lower case
        "no-such-strain",
        "",
        "disp_1 ",
        "DISP_1001",
        "x" * 2_000,
        "blue-dream\n",
        "disp_1\u0000",  # never sent to the database (PostgreSQL refuses NUL in text)
        "CO\n",
    ],
)
def test_an_unknown_id_is_null_without_errors(gql, unknown: str) -> None:
    body = gql("query($id: ID!) { node(id: $id) { id } }", {"id": unknown})
    assert body["data"] == {"node": None}
    assert "errors" not in body


def test_an_expired_deal_is_no_node_as_it_is_no_deal(gql, committed, expired_deal) -> None:
    public_id = committed.scalar(select(Deal.public_id).order_by(Deal.id).limit(1))
    with expired_deal() as expired:
        assert expired == public_id
        data = gql.data(
            f'query Expired {{ node(id: "{public_id}") {{ id }} '
            f'nodes(ids: ["{public_id}"]) {{ id }} deal(id: "{public_id}") {{ id }} }}'
        )
    assert data == {"node": None, "nodes": [None], "deal": None}


def test_more_than_a_hundred_ids_are_refused_naming_ids(gql) -> None:
    query = "query($ids: [ID!]!) { nodes(ids: $ids) { id } }"
    assert len(gql.data(query, {"ids": ["nope"] * MAX_NODE_IDS})["nodes"]) == MAX_NODE_IDS
    body = gql(query, {"ids": ["nope"] * (MAX_NODE_IDS + 1)})
    assert body["data"] is None
    [error] = body["errors"]
    assert error["message"] == "ids takes at most 100 ids, got 101: ask in several requests"
    assert error["extensions"] == {"code": 400, "param": "ids"}


def test_fragments_on_node_and_on_each_kind_select_by_type(gql, client, api_keys) -> None:
    disp, law = _rest_ids(client, api_keys, "Dispensary", 1)[0], "CO"
    either = "...Who ... on Dispensary { name } ... on Law { state }"
    data = gql.data(
        f'{{ a: node(id: "{disp}") {{ {either} }} b: node(id: "{law}") {{ {either} }} }} '
        "fragment Who on Node { __typename id }"
    )
    name = gql.data(f'{{ dispensary(id: "{disp}") {{ name }} }}')["dispensary"]["name"]
    assert data == {
        "a": {"__typename": "Dispensary", "id": disp, "name": name},
        "b": {"__typename": "Law", "id": "CO", "state": "Colorado"},
    }


def test_a_normalising_cache_can_key_every_object_with_an_id() -> None:
    schema = make_schema()._schema
    node = schema.type_map["Node"]
    with_id = {
        name
        for name, named in schema.type_map.items()
        if isinstance(named, GraphQLObjectType)
        and not name.startswith("__")
        and "id" in named.fields
    }
    # A change's id is the id of the record it is about; the feed holds one change per record,
    # so a cache keying Change:<id> keeps that record's latest change. It is not a Node.
    assert str(schema.type_map["Change"].fields["id"].type) == "ID!"
    assert node not in schema.type_map["Change"].interfaces
    assert with_id - {"Change"} == set(NODE_TYPES)
    with_id.discard("Change")
    for name in with_id:
        named = schema.type_map[name]
        assert node in named.interfaces, name
        assert str(named.fields["id"].type) == "ID!"
    assert {t.name for t in schema.get_possible_types(node)} == set(NODE_TYPES)


def _cost(gql, query: str, variables: dict | None = None) -> int:
    body = gql(query, variables)
    assert "errors" not in body, body
    return body["extensions"]["cost"]["requested"]


def test_nodes_is_priced_per_id_and_node_like_a_detail_field(gql, client, api_keys) -> None:
    query = "query($ids: [ID!]!) { nodes(ids: $ids) { id } }"
    costs = [_cost(gql, query, {"ids": ["nope"] * n}) for n in (1, 2, 10)]
    # Each id: its record and its id (2 values) and the record read.
    per_id = 2 + NODE_ID
    assert costs[1] - costs[0] == per_id
    assert costs[2] - costs[0] == 9 * per_id
    [disp] = _rest_ids(client, api_keys, "Dispensary", 1)
    assert _cost(gql, f'{{ node(id: "{disp}") {{ id }} }}') == _cost(
        gql, f'{{ dispensary(id: "{disp}") {{ id }} }}'
    )


def test_a_costly_selection_under_a_hundred_ids_is_refused_before_it_runs(gql) -> None:
    query = (
        "query($ids: [ID!]!) { nodes(ids: $ids) { ... on Dispensary "
        "{ menu(limit: 100) { name strain { slug } } reviews(limit: 20) { text } } } }"
    )
    [error] = gql.errors(query, {"ids": ["disp_1"] * 100})
    assert error["message"].startswith("Estimated query cost ")
    assert error["extensions"]["code"] == 400
    assert error["extensions"]["cost"]["requested"] > error["extensions"]["cost"]["budget"]


# --- DateTime and Date -------------------------------------------------------------------------


def test_instants_and_dates_are_typed_in_the_schema() -> None:
    schema = make_schema()._schema
    types = schema.type_map

    def typed(owner: str, field: str) -> str:
        return str(types[owner].fields[field].type)

    assert typed("Dispensary", "nextChange") == "DateTime"
    assert typed("Deal", "expires") == "Date!"
    assert typed("Law", "updated") == "Date!"
    assert typed("Review", "date") == "Date!"
    for owner, field in (("Query", "dispensaries"), ("Query", "deals"), ("Strain", "dispensaries")):
        assert str(types[owner].fields[field].args["openAt"].type) == "DateTime"
    # No other field or argument of a date's or an instant's name is left a String.
    names = re.compile(r"(date|Date|expires|updated|Change|At|Time)$")
    for name, named in types.items():
        if name.startswith("__") or not isinstance(named, GraphQLObjectType):
            continue
        for field_name, field in named.fields.items():
            if names.search(field_name):
                assert get_named_type(field.type).name in ("DateTime", "Date"), field_name


def test_the_scalars_answer_the_text_the_strings_gave(gql, client, api_keys) -> None:
    [disp] = _rest_ids(client, api_keys, "Dispensary", 1)
    data = gql.data(
        f'{{ dispensary(id: "{disp}") {{ nextChange reviews(limit: 1) {{ date }} }} '
        'law(state: "CO") { updated } deals(limit: 1) { items { expires } } }'
    )
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", data["dispensary"]["nextChange"]
    )
    for day in (
        data["law"]["updated"],
        data["deals"]["items"][0]["expires"],
        data["dispensary"]["reviews"][0]["date"],
    ):
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", day)
    rest = client.get("/api/v1/laws/CO", headers={"X-API-Key": api_keys["pro"]}).get_json()
    assert data["law"]["updated"] == rest["data"]["updated"]


def test_an_instant_keeps_its_own_utc_offset() -> None:
    denver = timezone(timedelta(hours=-7))
    assert serialize_datetime(datetime(2026, 11, 28, 1, 0, tzinfo=denver)) == (
        "2026-11-28T01:00:00-07:00"
    )
    assert parse_datetime("2026-12-04T19:30:00Z") == datetime(2026, 12, 4, 19, 30, tzinfo=UTC)
    assert parse_datetime("2026-12-04T19:30:00-07:00").utcoffset() == timedelta(hours=-7)
    assert parse_date("2026-12-24") == date(2026, 12, 24)


@pytest.mark.parametrize(
    "value",
    [
        "2026-12-04T19:30",  # no offset
        "2026-12-04",  # a date, not an instant
        "2026-12-04 19:30:00Z",  # no T
        "tomorrow",
        "2026-13-04T19:30:00Z",
        "",
        "\uff12\uff10\uff12\uff16-12-04T19:30:00Z",  # full-width digits
    ],
)
def test_a_bad_datetime_is_a_graphql_error_literal_or_variable(gql, value: str) -> None:
    expected = (
        "DateTime must be an ISO 8601 date and time with a UTC offset or Z, such as "
        f"2026-12-24T18:30:00-08:00; got {value!r}"
    )
    literal = gql(f'{{ dispensaries(openAt: "{value}") {{ total }} }}')
    variable = gql("query($at: DateTime) { dispensaries(openAt: $at) { total } }", {"at": value})
    for body in (literal, variable):
        assert body["data"] is None
        [error] = body["errors"]
        assert error["message"].endswith(expected)
        assert error["extensions"] == {"code": 400}


@pytest.mark.parametrize("value", [5, 1.5, True, ["2026-12-04T19:30:00Z"], {"at": 1}])
def test_a_datetime_variable_of_another_json_type_is_a_graphql_error(gql, value) -> None:
    body = gql("query($at: DateTime) { deals(openAt: $at) { total } }", {"at": value})
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"] == {"code": 400}
    assert "DateTime" in error["message"]


def test_an_instant_with_z_or_an_offset_selects_the_same_dispensaries(gql) -> None:
    query = "query($at: DateTime) { dispensaries(openAt: $at, limit: 100) { total } }"
    utc = gql.data(query, {"at": "2026-12-05T01:30:00Z"})
    denver = gql.data(query, {"at": "2026-12-04T18:30:00-07:00"})
    assert utc == denver
