"""REST and GraphQL are two parsers over one service: same answers, same errors, one quota."""

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from graphql_schema import view as graphql_view
from service import keys
from tests.graphql_refusals import refusal

# resource -> (REST path, GraphQL field, key field, GraphQL key field)
RESOURCES = {
    "strains": ("/api/v1/strains", "strains", "slug", "slug"),
    "dispensaries": ("/api/v1/dispensaries", "dispensaries", "id", "id"),
    "deals": ("/api/v1/deals", "deals", "id", "id"),
    "doctors": ("/api/v1/doctors", "doctors", "id", "id"),
}
CAMEL = {"thc_min": "thcMin", "thc_max": "thcMax", "cbd_min": "cbdMin", "cbd_max": "cbdMax"}
# Names in messages: REST's lat and lng are GraphQL's near.lat and near.lng.
MESSAGE_NAMES = {**CAMEL, "lat": "near.lat", "lng": "near.lng"}
ENUM_PARAMS = {("strains", "type"), ("dispensaries", "type"), ("search", "type")}
NUMBERS = {"limit", "offset", "thc_min", "thc_max", "cbd_min", "cbd_max", "radius"}
BOOLEANS = {"delivery", "telehealth"}
# REST's comma-separated parameter -> GraphQL's plural argument, which takes a list.
PLURALS = {
    "state": "states",
    "type": "types",
    "category": "categories",
    "effect": "effects",
    "flavor": "flavors",
}


def _graphql_literal(resource: str, name: str, value: str) -> str:
    if (resource, name) in ENUM_PARAMS:
        return value.upper()
    if name in NUMBERS:
        return value
    if name in BOOLEANS:
        return value.lower()
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _graphql_args(resource: str, params: dict[str, str]) -> str:
    if not params:
        return ""
    parts = [f"{CAMEL.get(k, k)}: {_graphql_literal(resource, k, v)}" for k, v in params.items()]
    return "(" + ", ".join(parts) + ")"


def _graphql_plural_args(resource: str, params: dict[str, str]) -> str:
    """REST's comma lists as GraphQL's plural arguments: ``state=CA,CO`` is
    ``states: ["CA", "CO"]``."""
    parts = [
        f"{PLURALS[k]}: [{', '.join(_graphql_literal(resource, k, v) for v in text.split(','))}]"
        for k, text in params.items()
    ]
    return "(" + ", ".join(parts) + ")"


class Transports:
    def __init__(self, client: FlaskClient, key: str) -> None:
        self.client = client
        self.key = key

    def rest(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        response = self.client.get(path, query_string=params, headers={"X-API-Key": self.key})
        return {"status": response.status_code, **response.get_json()}

    def graphql(self, query: str) -> dict[str, Any]:
        response = self.client.post(
            "/graphql", json={"query": query}, headers={"X-API-Key": self.key}
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    def list_both(
        self, resource: str, params: dict[str, str], *, arguments: str | None = None
    ) -> tuple[tuple, tuple]:
        """REST's page and GraphQL's (``arguments``, by default ``params`` one for one)."""
        path, field, rest_key, gql_key = RESOURCES[resource]
        rest = self.rest(path, params)
        assert rest["status"] == 200, rest
        if arguments is None:
            arguments = _graphql_args(resource, params)
        gql = self.graphql(
            f"{{ {field}{arguments} {{ total limit offset items {{ {gql_key} }} }} }}"
        )
        page = gql["data"][field]
        return (
            ([item[rest_key] for item in rest["data"]], *rest["meta"].values()),
            (
                [item[gql_key] for item in page["items"]],
                page["total"],
                page["limit"],
                page["offset"],
            ),
        )


@pytest.fixture
def both(client: FlaskClient, api_keys: dict) -> Transports:
    return Transports(client, api_keys["enterprise"])


LIST_CASES = [
    ("strains", {}),
    ("strains", {"type": "indica"}),
    ("strains", {"effect": "relaxed", "thc_min": "15"}),
    ("strains", {"flavor": "Earthy", "cbd_max": "1.5"}),
    ("strains", {"cbd_min": "5", "limit": "7", "offset": "2"}),
    ("strains", {"limit": "500"}),
    ("dispensaries", {"state": "ca"}),
    ("dispensaries", {"zip": "94110", "radius": "150"}),
    ("dispensaries", {"type": "medical", "limit": "100"}),
    ("dispensaries", {"delivery": "true", "offset": "5"}),
    ("deals", {}),
    ("deals", {"state": "CA"}),
    ("deals", {"category": "Flower", "limit": "100"}),
    ("doctors", {"state": "ny"}),
    ("doctors", {"telehealth": "false", "limit": "80"}),
]


@pytest.mark.parametrize(("resource", "params"), LIST_CASES)
def test_same_filters_give_the_same_ids_order_and_meta(
    both: Transports, resource: str, params: dict[str, str]
) -> None:
    rest, gql = both.list_both(resource, params)
    assert rest == gql
    assert rest[1] > 0, "the case should match something"


@pytest.mark.parametrize(
    ("resource", "params"),
    [
        ("strains", {"type": "indica,hybrid", "effect": "relaxed,happy"}),
        ("strains", {"flavor": "earthy,Sweet"}),
        ("dispensaries", {"state": "CA,co", "type": "medical,both"}),
        ("deals", {"state": "CA,CO", "category": "flower,Edibles"}),
        ("doctors", {"state": "NY,CA"}),
    ],
)
def test_rests_comma_lists_give_what_graphqls_plural_lists_give(
    both: Transports, resource: str, params: dict[str, str]
) -> None:
    rest, gql = both.list_both(resource, params, arguments=_graphql_plural_args(resource, params))
    assert rest == gql
    assert rest[1] > 0, "the case should match something"


@pytest.mark.parametrize(
    "params",
    [
        {"q": "blue"},
        {"q": "kush", "type": "strains"},
        {"q": "an", "state": "CA", "limit": "100"},
        {"q": "off", "type": "deals", "offset": "3"},
    ],
)
def test_search_gives_the_same_hits_in_the_same_order(
    both: Transports, params: dict[str, str]
) -> None:
    rest = both.rest("/api/v1/search", params)
    gql = both.graphql(
        f"{{ search{_graphql_args('search', params)} {{ total limit offset items {{ __typename "
        "... on Strain { name slug } ... on Dispensary { name id } ... on Doctor { name id } "
        "... on Deal { title id } } } }"
    )["data"]["search"]
    rest_items = [(i["type"], i["name"], i.get("slug") or i.get("id")) for i in rest["data"]]
    gql_items = [
        (i["__typename"].lower(), i.get("name") or i.get("title"), i.get("slug") or i.get("id"))
        for i in gql["items"]
    ]
    assert rest_items == gql_items
    assert list(rest["meta"].values()) == [gql["total"], gql["limit"], gql["offset"]]


ERROR_CASES = [
    ("strains", {"limit": "0"}, "limit"),
    ("strains", {"thc_min": "30", "thc_max": "10"}, "thc_min"),
    ("strains", {"cbd_max": "101"}, "cbd_max"),
    ("strains", {"effect": "<script>"}, "effect"),
    ("dispensaries", {"state": "XX"}, "state"),
    ("dispensaries", {"zip": "00000"}, "zip"),
    ("dispensaries", {"radius": "10"}, "radius"),
    ("deals", {"category": "seeds"}, "category"),
    ("deals", {"offset": "2000000"}, "offset"),
    ("doctors", {"city": " "}, "city"),
]


@pytest.mark.parametrize(("resource", "params", "param"), ERROR_CASES)
def test_invalid_arguments_fail_with_the_same_message_and_code(
    both: Transports, resource: str, params: dict[str, str], param: str
) -> None:
    path, field, _rest_key, _gql_key = RESOURCES[resource]
    rest = both.rest(path, params)
    gql = both.graphql(f"{{ {field}{_graphql_args(resource, params)} {{ total }} }}")
    assert rest["status"] == 400
    [error] = gql["errors"]
    # The same message, naming each argument as its transport spells it (thcMin, thc_min).
    expected = rest["error"]["message"]
    for rest_name, gql_name in MESSAGE_NAMES.items():
        expected = re.sub(rf"\b{rest_name}\b", gql_name, expected)
    assert error["message"] == expected
    assert error["extensions"]["code"] == rest["error"]["code"] == 400
    assert rest["error"]["param"] == param
    assert error["extensions"]["param"] == CAMEL.get(param, param)
    assert gql["data"] == {field: None}


@pytest.mark.parametrize("q", ["", "   ", "x" * 201])
def test_bad_search_text_fails_alike(both: Transports, q: str) -> None:
    rest = both.rest("/api/v1/search", {"q": q})
    gql = both.graphql(f'{{ search(q: "{q}") {{ total }} }}')
    assert gql["errors"][0]["message"] == rest["error"]["message"]
    assert gql["errors"][0]["extensions"]["code"] == 400


def test_missing_and_invalid_keys_get_the_same_401(client: FlaskClient) -> None:
    """REST's envelope and GraphQL's response carry the same error."""
    for headers in ({}, {"X-API-Key": "cds_live_" + "A" * 32}):
        rest = client.get("/api/v1/laws/CA", headers=headers)
        gql = client.post("/graphql", json={"query": "{ laws { state } }"}, headers=headers)
        assert rest.status_code == gql.status_code == 401
        assert rest.get_json()["success"] is False
        assert refusal(gql) == rest.get_json()["error"]


def test_one_quota_is_shared_by_rest_and_graphql(app: Flask, client: FlaskClient) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="contract").plaintext
        db.commit()
    headers = {"X-API-Key": key}
    remaining = []
    for i in range(100):
        if i % 2:
            response = client.post(
                "/graphql", json={"query": '{ law(state: "CA") { state } }'}, headers=headers
            )
            assert response.get_json()["extensions"]["rateLimit"]["remaining"] == 99 - i
        else:
            response = client.get("/api/v1/laws/CA", headers=headers)
        assert response.status_code == 200
        remaining.append(int(response.headers["X-RateLimit-Remaining"]))
    assert remaining == list(range(99, -1, -1))
    for blocked in (
        client.get("/api/v1/laws/CA", headers=headers),
        client.post("/graphql", json={"query": "{ laws { state } }"}, headers=headers),
    ):
        assert blocked.status_code == 429
        body = blocked.get_json()
        assert (body["error"] if "success" in body else refusal(blocked))["code"] == 429
        assert blocked.headers["X-RateLimit-Limit"] == "100"
        assert int(blocked.headers["Retry-After"]) > 0


def test_graphiql_page_needs_no_key_and_is_not_charged(app: Flask, client: FlaskClient) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="ide").plaintext
        db.commit()
    page = client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "unpkg.com" not in page.get_data(as_text=True)
    assert "/graphql/static/graphiql/graphiql.min.js" in page.get_data(as_text=True)
    with client.get("/graphql/static/graphiql/graphiql.min.js") as asset:
        assert asset.status_code == 200
        assert asset.content_type.startswith("text/javascript")
    response = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert response.headers["X-RateLimit-Remaining"] == "99"


def test_the_graphiql_page_is_built_once_not_per_request(
    make_app, api_keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    original = graphql_view.offline_graphiql_html

    def counting() -> str:
        built.append("page")
        return original()

    monkeypatch.setattr(graphql_view, "offline_graphiql_html", counting)
    client = make_app(PAGE_CACHE_MB=0).test_client()
    for _ in range(3):
        response = client.post(
            "/graphql",
            json={"query": "{ laws { stateCode } }"},
            headers={"X-API-Key": api_keys["pro"]},
        )
        assert response.status_code == 200
    page = client.get("/graphql", headers={"Accept": "text/html"})
    assert "/graphql/static/graphiql/graphiql.min.js" in page.get_data(as_text=True)
    assert built == ["page"]
