"""/graphql's HTTP-level refusals are GraphQL responses (GraphQL over HTTP), so every GraphQL
client shows their message: ``{"errors": [{"message", "extensions": {"code", "docs"}}]}``, with
the HTTP status, Retry-After and X-RateLimit-* headers of the REST envelope's answer, in
``application/graphql-response+json`` when the client's Accept asks for it."""

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service import keys
from tests.graphql_refusals import refusal, refusal_body

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
QUERY = {"query": '{ law(state: "CA") { state } }'}

# What the client's Accept asks for -> the content type of the refusal.
ACCEPTS = [
    pytest.param({}, JSON, id="no Accept"),
    pytest.param({"Accept": "*/*"}, JSON, id="anything"),
    pytest.param({"Accept": JSON}, JSON, id="json"),
    pytest.param({"Accept": GRAPHQL_RESPONSE}, GRAPHQL_RESPONSE, id="graphql-response"),
    pytest.param(
        {"Accept": f"{GRAPHQL_RESPONSE}, {JSON};q=0.9"}, GRAPHQL_RESPONSE, id="both, gql first"
    ),
    pytest.param({"Accept": f"{JSON}, {GRAPHQL_RESPONSE};q=0.5"}, JSON, id="both, json first"),
    pytest.param({"Accept": f"{GRAPHQL_RESPONSE};q=0"}, JSON, id="graphql-response refused"),
]


def _fresh_key(app: Flask, limit: int | None = None) -> str:
    with app.extensions["cds.sessions"]() as db:
        created = keys.create_key(db, tier="enterprise", name="refusals", hourly_limit=limit)
        db.commit()
        return created.plaintext


def _as_graphql_client_reads(response: TestResponse, media_type: str) -> dict[str, Any]:
    """What GraphQL over HTTP lets a client rely on: the media type it asked for, a JSON object
    with a non-empty ``errors`` list of objects with a string ``message``, and no ``data`` (the
    request was not executed). Returns the one error."""
    assert response.mimetype == media_type
    assert "Accept" in response.vary
    body = response.get_json()
    assert isinstance(body, dict)
    assert "data" not in body
    assert isinstance(body["errors"], list)
    assert len(body["errors"]) == 1
    [error] = body["errors"]
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["extensions"]["docs"] == f"/docs/errors#error-{response.status_code}"
    return refusal(response)


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS)
def test_no_key_is_a_401_graphql_response(
    client: FlaskClient, accept: dict[str, str], media_type: str
) -> None:
    response = client.post("/graphql", json=QUERY, headers=accept)
    assert response.status_code == 401
    _as_graphql_client_reads(response, media_type)
    assert response.get_json() == refusal_body(
        401, "API key missing: send it in the X-API-Key header"
    )


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS)
def test_a_bad_key_is_a_401_with_the_rest_message(
    client: FlaskClient, accept: dict[str, str], media_type: str
) -> None:
    bad = {"Authorization": "Bearer cds_live_" + "A" * 32}
    response = client.get("/graphql", query_string=QUERY, headers=bad | accept)
    rest = client.get("/api/v1/laws/CA", headers=bad)
    assert response.status_code == rest.status_code == 401
    assert _as_graphql_client_reads(response, media_type) == rest.get_json()["error"]
    assert rest.mimetype == JSON
    assert "success" in rest.get_json()


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS)
def test_a_spent_quota_is_a_429_with_its_headers(
    app: Flask, client: FlaskClient, accept: dict[str, str], media_type: str
) -> None:
    headers = {"X-API-Key": _fresh_key(app, limit=1)}
    assert client.post("/graphql", json=QUERY, headers=headers).status_code == 200
    response = client.post("/graphql", json=QUERY, headers=headers | accept)
    assert response.status_code == 429
    error = _as_graphql_client_reads(response, media_type)
    assert error["message"] == (
        "rate limit of 1 per 1 hour exceeded for this API key; wait for the time in "
        "Retry-After, then retry with exponential backoff"
    )
    assert 0 < int(response.headers["Retry-After"]) <= 3600
    assert response.headers["X-RateLimit-Limit"] == "1"
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert int(response.headers["X-RateLimit-Reset"]) > 0


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS[::3])
def test_too_many_failed_keys_is_a_429_with_retry_after(
    make_app: Any, accept: dict[str, str], media_type: str
) -> None:
    client = make_app().test_client()
    bad = {"X-API-Key": "cds_live_" + "B" * 32}
    statuses = [client.post("/graphql", json=QUERY, headers=bad).status_code for _ in range(60)]
    assert set(statuses) == {401}
    response = client.post("/graphql", json=QUERY, headers=bad | accept)
    assert response.status_code == 429
    assert _as_graphql_client_reads(response, media_type)["message"] == (
        "too many failed API key attempts from this address (60 per hour)"
    )
    assert int(response.headers["Retry-After"]) > 0


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS)
def test_an_operation_stopped_at_its_time_budget_is_a_503_with_retry_after(
    make_app: Any, api_keys: dict[str, str], accept: dict[str, str], media_type: str
) -> None:
    app = make_app(GRAPHQL_TIME_BUDGET_MS=1, PAGE_CACHE_MB=0)
    slow = "{ strains(limit: 50) { items { slug terpenes dispensaries(limit: 20) { name } } } }"
    response = app.test_client().post(
        "/graphql", json={"query": slow}, headers={"X-API-Key": api_keys["enterprise"]} | accept
    )
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert "time budget of 1 ms" in _as_graphql_client_reads(response, media_type)["message"]


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS)
@pytest.mark.parametrize(
    ("body", "content_type", "status", "message"),
    [
        ("{not json", JSON, 400, "Unable to parse request body as JSON"),
        ("{}", JSON, 400, "No GraphQL query found in the request"),
        ('{"query": "{ laws { state } }"}', "text/plain", 400, "Unsupported content type"),
    ],
)
def test_malformed_requests_are_graphql_responses(
    client: FlaskClient,
    api_keys: dict[str, str],
    accept: dict[str, str],
    media_type: str,
    body: str,
    content_type: str,
    status: int,
    message: str,
) -> None:
    headers = {"X-API-Key": api_keys["pro"], "Content-Type": content_type} | accept
    response = client.post("/graphql", data=body, headers=headers)
    assert response.status_code == status
    assert _as_graphql_client_reads(response, media_type)["message"] == message


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS[::3])
def test_a_bad_parameter_is_a_400_naming_it(
    client: FlaskClient, api_keys: dict[str, str], accept: dict[str, str], media_type: str
) -> None:
    response = client.post(
        "/graphql?query=x", json=QUERY, headers={"X-API-Key": api_keys["pro"]} | accept
    )
    assert response.status_code == 400
    _as_graphql_client_reads(response, media_type)
    assert response.get_json() == refusal_body(
        400, "query belongs in the body of a POST, not in its URL", "query"
    )


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS[::3])
def test_another_method_is_a_405_naming_the_allowed_ones(
    client: FlaskClient, api_keys: dict[str, str], accept: dict[str, str], media_type: str
) -> None:
    response = client.put("/graphql", json=QUERY, headers={"X-API-Key": api_keys["pro"]} | accept)
    assert response.status_code == 405
    assert {"GET", "POST"} <= set(response.headers["Allow"].split(", "))
    assert _as_graphql_client_reads(response, media_type)["message"] == (
        "method PUT is not allowed on /graphql"
    )
    assert response.headers["X-RateLimit-Limit"] == "1000"  # charged like an operation


@pytest.mark.parametrize(("accept", "media_type"), ACCEPTS[::3])
def test_a_body_over_64_kib_is_a_413(
    client: FlaskClient, api_keys: dict[str, str], accept: dict[str, str], media_type: str
) -> None:
    headers = {"X-API-Key": api_keys["pro"], "Content-Type": JSON} | accept
    body = '{"query": "{ laws { state } }"}' + " " * (64 * 1024)
    response = client.post("/graphql", data=body, headers=headers)
    assert response.status_code == 413
    assert _as_graphql_client_reads(response, media_type)["message"] == (
        "request body too large: at most 65536 bytes"
    )


def test_graphiql_still_opens_in_a_browser(client: FlaskClient) -> None:
    page = client.get("/graphql", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    assert "graphiql" in page.get_data(as_text=True).lower()


def test_a_get_without_a_query_from_a_program_is_a_400_graphql_response(
    client: FlaskClient,
) -> None:
    response = client.get("/graphql", headers={"Accept": GRAPHQL_RESPONSE})
    assert response.status_code == 400
    assert response.get_json() == refusal_body(400, "No GraphQL query found in the request")
    assert response.mimetype == GRAPHQL_RESPONSE


def test_errors_outside_graphql_keep_the_envelope(client: FlaskClient) -> None:
    """Only /graphql itself answers GraphQL: its assets' 404 and REST keep the envelope."""
    for path in ("/graphql/", "/graphql/static/graphiql/missing.js", "/api/v1/laws"):
        body = client.get(path, headers={"Accept": GRAPHQL_RESPONSE}).get_json()
        assert body["success"] is False, path
