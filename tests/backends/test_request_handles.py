"""What a request opens on the database: reads that make no ORM objects run on a plain
connection (no session), ORM reads on a session; everything goes back to the pool at the end."""

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app import REQUEST_ENGINE_EXTENSION, create_app, dispose_engines
from web.db import SESSIONS_EXTENSION

from .conftest import Backend

NO_SESSION = [
    "/api/v1/strains?type=hybrid&limit=5",
    "/api/v1/strains/blue-dream",
    "/api/v1/dispensaries?state=CO&limit=5",
    "/api/v1/dispensaries?zip=80202&radius=50",
    "/api/v1/deals?state=CO",
    "/api/v1/doctors?state=CO",
    "/api/v1/search?q=blue",
    "/api/v1/search?q=og",
    "/api/v1/search?q=blue%20dreem",
    "/api/v1/laws/CO",
    "/api/v1/laws/ZZ",
    "/api/v1/strains?limit=0",
]

# GraphQL operations whose every read is a column statement: no session either.
NO_SESSION_GRAPHQL = [
    """{ dispensaries(state: "CO", limit: 5) { total items { id name deals(limit: 2) { title }
        menu(limit: 3) { name strain { slug terpenes } } law { state }
        reviews(limit: 2) { rating date } } } }""",
    '{ strains(limit: 3) { items { slug terpenes } } strain(slug: "blue-dream") { name } }',
    '{ deals(state: "CO", limit: 3) { items { id } } }',
    "{ doctors(limit: 2) { items { id law { state } } } }",
    '{ laws { stateCode } law(state: "CA") { state } }',
    '{ search(q: "blue", type: STRAINS) { total items { ... on Strain { slug } } } }',
]


@pytest.fixture
def counted_app(backend: Backend) -> Iterator[tuple[Flask, str, list[int]]]:
    """An app on the backend's data (default key cache) that counts the sessions it opens."""
    app = create_app({"TESTING": True, "DATABASE_URL": backend.url, "PAGE_CACHE_MB": 0})
    opened: list[int] = []
    factory = app.extensions[SESSIONS_EXTENSION]

    def counting_factory():
        opened.append(1)
        return factory()

    app.extensions[SESSIONS_EXTENSION] = counting_factory
    try:
        yield app, backend.key, opened
    finally:
        dispose_engines(app)


def _keyed_client(counted_app) -> tuple[FlaskClient, dict[str, str], list[int]]:
    """A client whose key is already cached (its lookup opens a session), counter at zero."""
    app, key, opened = counted_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
    opened.clear()
    return client, headers, opened


def test_reads_without_orm_objects_open_no_session(counted_app) -> None:
    client, headers, opened = _keyed_client(counted_app)
    statuses = {path: client.get(path, headers=headers).status_code for path in NO_SESSION}
    assert opened == []
    assert statuses["/api/v1/laws/ZZ"] == 404
    assert statuses["/api/v1/strains?limit=0"] == 400
    assert all(
        status == 200 for path, status in statuses.items() if "ZZ" not in path and "=0" not in path
    )
    # A dispensary's detail (its row, menu and reviews) is read on the connection too.
    found = client.get("/api/v1/dispensaries?state=CO&limit=1", headers=headers).get_json()
    detail = client.get(f"/api/v1/dispensaries/{found['data'][0]['id']}", headers=headers)
    assert detail.status_code == 200
    assert detail.get_json()["data"]["menu"]
    assert opened == []


def test_graphql_reads_without_orm_objects_open_no_session(counted_app) -> None:
    client, headers, opened = _keyed_client(counted_app)
    for query in NO_SESSION_GRAPHQL:
        body = client.post("/graphql", json={"query": query}, headers=headers).get_json()
        assert "errors" not in body, body
        assert body["data"] is not None
    # A search page of every kind is built from list rows, read on the connection.
    fields = (
        "{ items { __typename ... on Dispensary { id } ... on Doctor { id } ... on Deal { id } } }"
    )
    searches = [
        f'{kind.lower()}: search(q: "a", type: {kind}, limit: 3) {fields}'
        for kind in ("DISPENSARIES", "DOCTORS", "DEALS")
    ]
    every_kind = "{ " + " ".join(searches) + " }"
    body = client.post("/graphql", json={"query": every_kind}, headers=headers).get_json()
    assert "errors" not in body, body
    found = {alias: page["items"] for alias, page in body["data"].items()}
    assert {item["__typename"] for items in found.values() for item in items} == {
        "Dispensary",
        "Doctor",
        "Deal",
    }
    assert opened == []
    # A dispensary by id, and a deal's dispensary, are list rows read on the connection too.
    dispensary_id = found["dispensaries"][0]["id"]
    query = (
        '{ dispensary(id: "' + dispensary_id + '") { id name isOpen } '
        '  deals(state: "CO", limit: 3) { items { id dispensary { id name timezone } } } }'
    )
    body = client.post("/graphql", json={"query": query}, headers=headers).get_json()
    assert "errors" not in body, body
    assert body["data"]["dispensary"]["id"] == dispensary_id
    assert all(item["dispensary"]["id"] for item in body["data"]["deals"]["items"])
    assert body["data"]["deals"]["items"]
    # So are a strain's dispensaries asked with the old arguments (by name, one state).
    query = '{ strain(slug: "blue-dream") { dispensaries(limit: 2) { id law { stateCode } } } }'
    body = client.post("/graphql", json={"query": query}, headers=headers).get_json()
    assert "errors" not in body, body
    first = body["data"]["strain"]["dispensaries"][0]
    code = first["law"]["stateCode"]
    query = (
        '{ strain(slug: "blue-dream") { dispensaries(state: "' + code + '", limit: 2) '
        "{ id law { stateCode } } } }"
    )
    body = client.post("/graphql", json={"query": query}, headers=headers).get_json()
    assert "errors" not in body, body
    in_state = body["data"]["strain"]["dispensaries"]
    assert in_state[0]["id"] == first["id"]  # first by name overall, so first in its state
    assert all(d["law"]["stateCode"] == code for d in in_state)
    assert opened == []


def test_every_request_hands_its_connections_back(counted_app) -> None:
    app, key, _opened = counted_app
    client = app.test_client()
    headers = {"X-API-Key": key}
    pool = app.extensions[REQUEST_ENGINE_EXTENSION].pool
    found = client.get("/api/v1/dispensaries?state=CO&limit=1", headers=headers).get_json()
    detail = f"/api/v1/dispensaries/{found['data'][0]['id']}"
    for path in [*NO_SESSION, detail, "/api/v1/strains/no-such-strain"]:
        client.get(path, headers=headers)
        assert pool.checkedout() == 0, path
    graphql = client.post(
        "/graphql",
        json={"query": '{ dispensaries(state: "CO", limit: 2) { items { name law { state } } } }'},
        headers=headers,
    )
    assert graphql.status_code == 200
    assert "errors" not in graphql.get_json()
    assert pool.checkedout() == 0
