"""Automatic persisted queries (Apollo's protocol) on /graphql: the round trip Apollo Client's
persisted-query link makes, the refusals, conditional GETs, and the bounded shared store."""

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

import web.today
from service import keys
from tests.servers import redis_server
from web.documents import DocumentStore

QUERY = "{ laws { state } }"
LOOKUP = "query($slug: String!) { strain(slug: $slug) { name } }"
NOT_FOUND = {
    "errors": [
        {"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}
    ]
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def persisted(query: str, version: Any = 1) -> str:
    return json.dumps({"persistedQuery": {"version": version, "sha256Hash": sha(query)}})


@pytest.fixture(autouse=True)
def one_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request of a test is answered within one minute (a persisted GET's ETag names it)."""
    instant = datetime.now(UTC).replace(second=30)
    monkeypatch.setattr(web.today, "_read_clock", lambda: instant)


def _key(app: Flask, limit: int = 1_000) -> dict[str, str]:
    with app.extensions["cds.sessions"]() as db:
        plaintext = keys.create_key(db, tier="enterprise", hourly_limit=limit).plaintext
        db.commit()
    return {"X-API-Key": plaintext}


def _get(client: FlaskClient, headers: dict[str, str], **params: str) -> TestResponse:
    return client.get("/graphql", query_string=params, headers=headers)


def _remaining(response: TestResponse) -> int:
    return int(response.headers["X-RateLimit-Remaining"])


@pytest.mark.parametrize("register", ["GET", "POST"])
def test_the_apollo_round_trip_ends_in_a_free_304(make_app, register: str) -> None:
    app = make_app()
    client, headers = app.test_client(), _key(app)
    extensions = persisted(QUERY)

    unknown = _get(client, headers, extensions=extensions)
    assert unknown.status_code == 200  # as Apollo Server answers it
    assert unknown.get_json() == NOT_FOUND
    assert unknown.get_etag() == (None, None)
    assert unknown.headers["Cache-Control"] == "no-store"
    assert _remaining(unknown) == 999  # a miss costs one unit, like any refused request

    if register == "GET":
        sent = _get(client, headers, query=QUERY, extensions=extensions)
    else:
        body = {"query": QUERY, "extensions": json.loads(extensions)}
        sent = client.post("/graphql", json=body, headers=headers)
        assert sent.get_etag() == (None, None)  # a POST is never cacheable
        assert "max-age" not in sent.headers.get("Cache-Control", "")
    assert sent.status_code == 200
    laws = sent.get_json()["data"]["laws"]
    assert len(laws) > 0

    known = _get(client, headers, extensions=extensions)
    assert known.status_code == 200
    assert known.get_json()["data"]["laws"] == laws
    tag = known.get_etag()[0]
    assert len(tag) == 32
    assert known.headers["Cache-Control"] == "private, max-age=60"
    spent = _remaining(known)
    assert spent == 997

    for _ in range(2):
        again = _get(client, {**headers, "If-None-Match": f'"{tag}"'}, extensions=extensions)
        assert again.status_code == 304
        assert again.data == b""
        assert again.headers["Cache-Control"] == "private, max-age=60"
        assert _remaining(again) == spent  # free
    usage = client.get("/api/v1/usage", headers=headers).get_json()["data"]
    assert usage["remaining"] == spent


CLOCKED = "{ dispensaries(limit: 2) { items { id isOpen nextChange } } }"


@pytest.mark.parametrize(
    ("document", "next_minute"),
    [(QUERY, 304), (CLOCKED, 200)],
    ids=["an answer without the clock", "an answer about now"],
)
def test_a_tag_holds_for_the_day_unless_the_answer_read_the_clock(
    make_app, monkeypatch: pytest.MonkeyPatch, document: str, next_minute: int
) -> None:
    app = make_app()
    client, headers = app.test_client(), _key(app)
    extensions = persisted(document)
    body = {"query": document, "extensions": json.loads(extensions)}
    assert client.post("/graphql", json=body, headers=headers).status_code == 200
    tag = _get(client, headers, extensions=extensions).get_etag()[0]
    revalidate = {**headers, "If-None-Match": f'"{tag}"'}
    assert _get(client, revalidate, extensions=extensions).status_code == 304
    later = datetime.now(UTC).replace(second=30) + timedelta(minutes=1)
    monkeypatch.setattr(web.today, "_read_clock", lambda: later)
    again = _get(client, revalidate, extensions=extensions)
    assert again.status_code == next_minute
    if next_minute == 200:
        assert again.get_etag()[0] != tag


def test_variables_go_in_the_url_of_a_get(gql_client) -> None:
    client, headers = gql_client
    extensions = persisted(LOOKUP)
    slug = client.post(
        "/graphql", json={"query": "{ strains(limit: 1) { items { slug name } } }"}, headers=headers
    ).get_json()["data"]["strains"]["items"][0]
    registered = client.post(
        "/graphql",
        json={
            "query": LOOKUP,
            "variables": {"slug": slug["slug"]},
            "extensions": json.loads(extensions),
        },
        headers=headers,
    )
    assert registered.get_json()["data"] == {"strain": {"name": slug["name"]}}
    answer = _get(
        client, headers, extensions=extensions, variables=json.dumps({"slug": slug["slug"]})
    )
    assert answer.status_code == 200
    assert answer.get_json()["data"] == {"strain": {"name": slug["name"]}}


@pytest.fixture
def gql_client(client: FlaskClient, api_keys: dict[str, str]) -> tuple[FlaskClient, dict[str, str]]:
    return client, {"X-API-Key": api_keys["enterprise"]}


def _error(response: TestResponse, status: int) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert list(body) == ["errors"]
    [error] = body["errors"]
    assert error["extensions"]["code"] == status
    assert error["extensions"]["docs"].endswith(f"#error-{status}")
    message: str = error["message"]
    return message


def test_a_hash_that_is_not_the_querys_is_a_400_and_stores_nothing(gql_client) -> None:
    client, headers = gql_client
    wrong = persisted("{ laws { name } }")
    sent = client.post(
        "/graphql", json={"query": QUERY, "extensions": json.loads(wrong)}, headers=headers
    )
    assert "is not the SHA-256 of the query" in _error(sent, 400)
    assert _get(client, headers, extensions=wrong).get_json() == NOT_FOUND


@pytest.mark.parametrize("version", [2, 0, "1", True, None])
def test_a_version_other_than_1_is_a_400(gql_client, version: Any) -> None:
    client, headers = gql_client
    answer = _get(client, headers, extensions=persisted(QUERY, version))
    assert "persistedQuery.version must be 1" in _error(answer, 400)


@pytest.mark.parametrize(
    ("extensions", "says"),
    [
        ('{"persistedQuery": "abc"}', "extensions.persistedQuery must be an object"),
        ('{"persistedQuery": []}', "extensions.persistedQuery must be an object"),
        ('{"persistedQuery": {"version": 1}}', "sha256Hash must be the SHA-256"),
        ('{"persistedQuery": {"version": 1, "sha256Hash": "xyz"}}', "sha256Hash must be"),
        ('{"persistedQuery": {"version": 1, "sha256Hash": 12}}', "sha256Hash must be"),
    ],
)
def test_a_malformed_persisted_query_is_a_400(gql_client, extensions: str, says: str) -> None:
    client, headers = gql_client
    assert says in _error(_get(client, headers, extensions=extensions), 400)


@pytest.mark.parametrize("extensions", ["{not json", "[1, 2]", '"text"'])
def test_malformed_extensions_are_a_400_never_a_500(gql_client, extensions: str) -> None:
    client, headers = gql_client
    answer = _get(client, headers, extensions=extensions)
    assert answer.status_code == 400, answer.get_data(as_text=True)


def test_a_get_with_only_extensions_is_an_operation_not_the_graphiql_page(client) -> None:
    page = client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    keyless = client.get(
        "/graphql", query_string={"extensions": persisted(QUERY)}, headers={"Accept": "text/html"}
    )
    assert keyless.status_code == 401  # needs a key like every operation


def test_a_mutation_or_subscription_over_get_is_a_405(gql_client) -> None:
    client, headers = gql_client
    for document in ("mutation { laws { state } }", "subscription { laws { state } }"):
        answer = _get(client, headers, query=document)
        assert "cannot be sent with GET; use POST" in _error(answer, 405)
        assert answer.headers["Allow"] == "POST"
    # A stored document is held to the same rule.
    mutation = "mutation M { laws { state } }"
    client.post(
        "/graphql",
        json={"query": mutation, "extensions": json.loads(persisted(mutation))},
        headers=headers,
    )
    assert _get(client, headers, extensions=persisted(mutation)).status_code == 405


def test_the_cost_check_applies_to_a_persisted_document(gql_client) -> None:
    client, headers = gql_client
    heavy = (
        "{ dispensaries(limit: 100) { items "
        "{ a: menu(limit: 100) { name } b: menu(limit: 100) { name } } } }"
    )
    body = {"query": heavy, "extensions": json.loads(persisted(heavy))}
    first = client.post("/graphql", json=body, headers=headers)
    assert first.status_code == 200
    assert first.get_json()["errors"][0]["extensions"]["code"] == 400
    again = _get(client, headers, extensions=persisted(heavy))
    assert again.get_json()["errors"][0]["message"] == first.get_json()["errors"][0]["message"]
    assert again.get_etag() == (None, None)  # an answer with errors is not tagged


def test_the_store_drops_the_least_recently_used_past_its_bound(make_app) -> None:
    app = make_app(GRAPHQL_PERSISTED_ENTRIES=2)
    client, headers = app.test_client(), _key(app)
    documents = [f"{{ n{n}: laws {{ state }} }}" for n in (1, 2, 3)]
    for document in documents:
        body = {"query": document, "extensions": json.loads(persisted(document))}
        assert client.post("/graphql", json=body, headers=headers).status_code == 200
    oldest, *kept = documents
    assert _get(client, headers, extensions=persisted(oldest)).get_json() == NOT_FOUND
    for document in kept:
        assert "data" in _get(client, headers, extensions=persisted(document)).get_json()


def test_a_document_over_the_size_bound_runs_but_is_not_stored(make_app) -> None:
    app = make_app(GRAPHQL_PERSISTED_MAX_BYTES=64)
    client, headers = app.test_client(), _key(app)
    big = "{ laws { state " + " " * 64 + "} }"
    body = {"query": big, "extensions": json.loads(persisted(big))}
    assert "data" in client.post("/graphql", json=body, headers=headers).get_json()
    assert _get(client, headers, extensions=persisted(big)).get_json() == NOT_FOUND


def test_many_distinct_huge_documents_keep_the_store_bounded(app: Flask) -> None:
    store = DocumentStore(
        app.extensions["cds.limiter"], max_entries=10, max_bytes=app.config["MAX_CONTENT_LENGTH"]
    )
    huge = "#" * (app.config["MAX_CONTENT_LENGTH"] - 100)
    with app.test_request_context():
        for n in range(500):
            document = f"{{ laws {{ state }} }} {huge}{n}"
            store.put(sha(document), document)
        assert store.put("0" * 64, "#" * (app.config["MAX_CONTENT_LENGTH"] + 1)) is False
    assert len(store._local) == 10
    assert sum(len(text) for text in store._local.values()) < 11 * app.config["MAX_CONTENT_LENGTH"]


def test_a_redis_store_is_shared_by_two_workers_and_bounded(make_app) -> None:
    with redis_server("persisted queries are shared through Redis") as server:
        workers = [
            make_app(RATELIMIT_STORAGE_URI=server.url, GRAPHQL_PERSISTED_ENTRIES=2)
            for _ in range(2)
        ]
        headers = _key(workers[0])
        first, second = (app.test_client() for app in workers)
        body = {"query": QUERY, "extensions": json.loads(persisted(QUERY))}
        assert first.post("/graphql", json=body, headers=headers).status_code == 200
        answer = _get(second, headers, extensions=persisted(QUERY))
        assert "laws" in answer.get_json()["data"]
        for n in (1, 2):
            document = f"{{ n{n}: laws {{ state }} }}"
            payload = {"query": document, "extensions": json.loads(persisted(document))}
            second.post("/graphql", json=payload, headers=headers)
        assert _get(first, headers, extensions=persisted(QUERY)).get_json() == NOT_FOUND
        with redis.Redis(host="127.0.0.1", port=server.port) as client:
            assert client.hlen("{cds:apq}:documents") == 2
            assert client.zcard("{cds:apq}:used") == 2
            assert 0 < client.ttl("{cds:apq}:documents") <= 7 * 24 * 3600


def test_while_redis_is_away_each_worker_keeps_its_own(make_app) -> None:
    with redis_server("the store falls back to memory when Redis fails") as server:
        app = make_app(RATELIMIT_STORAGE_URI=server.url)
        client, headers = app.test_client(), _key(app)
        server.stop()
        body = {"query": QUERY, "extensions": json.loads(persisted(QUERY))}
        assert client.post("/graphql", json=body, headers=headers).status_code == 200
        answer = _get(client, headers, extensions=persisted(QUERY))
        assert "laws" in answer.get_json()["data"]


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        ("application/graphql-response+json", "application/graphql-response+json"),
        ("application/json", "application/json"),
        (None, "application/json"),
    ],
)
def test_persisted_query_refusals_answer_the_media_type_asked_for(
    gql_client, accept: str | None, media_type: str
) -> None:
    client, headers = gql_client
    if accept is not None:
        headers = {**headers, "Accept": accept}
    refused = _get(client, headers, extensions=persisted(QUERY, 2))
    assert refused.status_code == 400
    assert refused.mimetype == media_type
    assert "Accept" in refused.headers.get("Vary", "")
    missing = _get(client, headers, extensions=persisted("{ laws { state } }"))
    assert missing.get_json() == NOT_FOUND
    assert missing.mimetype == media_type
