"""HTTP semantics: CORS, compression, nosniff, HEAD, 405 with Allow, body cap, debug off."""

import gzip
import json

import brotli
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.graphql_refusals import refusal_body

REST_PATHS = [
    "/api/v1/strains",
    "/api/v1/strains/blue-dream",
    "/api/v1/dispensaries",
    "/api/v1/dispensaries/disp_1001",
    "/api/v1/deals",
    "/api/v1/doctors",
    "/api/v1/laws/CA",
    "/api/v1/search",
]
PREFLIGHT = {
    "Origin": "https://shop.example",
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "X-API-Key",
}


@pytest.mark.parametrize("path", ["/api/v1/strains", "/graphql"])
def test_preflight_needs_no_key_and_allows_the_key_header(client: FlaskClient, path) -> None:
    response = client.options(path, headers=PREFLIGHT)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "https://shop.example"
    assert "x-api-key" in response.headers["Access-Control-Allow-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert "X-RateLimit-Limit" not in response.headers


def test_preflights_are_not_charged(client: FlaskClient, api_keys: dict) -> None:
    for _ in range(3):
        client.options("/api/v1/strains", headers=PREFLIGHT)
    response = client.get("/api/v1/laws/CA", headers={"X-API-Key": api_keys["free"]})
    assert response.headers["X-RateLimit-Remaining"] == "99"


def test_browser_scripts_may_read_quota_and_request_id_headers(
    client: FlaskClient, api_keys: dict
) -> None:
    response = client.get(
        "/api/v1/laws/CA", headers={"X-API-Key": api_keys["pro"], "Origin": "https://a.example"}
    )
    assert response.headers["Access-Control-Allow-Origin"] == "https://a.example"
    exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert exposed == {
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
        "X-Request-ID",
    }


def test_an_origin_allowlist_refuses_other_origins(make_app) -> None:
    app = make_app(CORS_ORIGINS=["https://ok.example"])
    client = app.test_client()
    allowed = client.options(
        "/api/v1/strains", headers={**PREFLIGHT, "Origin": "https://ok.example"}
    )
    refused = client.options(
        "/api/v1/strains", headers={**PREFLIGHT, "Origin": "https://no.example"}
    )
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://ok.example"
    assert "Access-Control-Allow-Origin" not in refused.headers


@pytest.mark.parametrize(
    ("encoding", "decode"), [("br", brotli.decompress), ("gzip", gzip.decompress)]
)
def test_large_responses_are_compressed(
    client: FlaskClient, api_keys: dict, encoding: str, decode
) -> None:
    headers = {"X-API-Key": api_keys["pro"], "Accept-Encoding": encoding}
    plain = client.get("/api/v1/strains?limit=50", headers={"X-API-Key": api_keys["pro"]})
    packed = client.get("/api/v1/strains?limit=50", headers=headers)
    assert packed.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert json.loads(decode(packed.data)) == plain.get_json()
    assert len(packed.data) < len(plain.data) / 2


def test_small_responses_are_not_compressed(client: FlaskClient, api_keys: dict) -> None:
    response = client.get(
        "/api/v1/laws/CA", headers={"X-API-Key": api_keys["pro"], "Accept-Encoding": "br, gzip"}
    )
    assert len(response.data) < 500
    assert "Content-Encoding" not in response.headers


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/api/v1/laws/CA", 200),
        ("get", "/api/v1/laws/CA", 401),
        ("get", "/api/v1/nowhere", 404),
        ("get", "/docs/errors", 200),
        ("get", "/api/v1/openapi.json", 200),
        ("post", "/graphql", 400),
        ("get", "/health", 200),
    ],
)
def test_every_response_forbids_content_sniffing(
    client: FlaskClient, api_keys: dict, method: str, path: str, status: int
) -> None:
    headers = {} if status == 401 else {"X-API-Key": api_keys["pro"]}
    response = getattr(client, method)(path, headers=headers)
    assert response.status_code == status
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/api/v1/strains?limit=3", "/api/v1/laws/CA"])
def test_head_mirrors_get_without_a_body(client: FlaskClient, api_keys: dict, path) -> None:
    headers = {"X-API-Key": api_keys["enterprise"]}
    get = client.get(path, headers=headers)
    head = client.head(path, headers=headers)
    assert head.status_code == get.status_code == 200
    assert head.data == b""
    assert head.headers["Content-Type"] == get.headers["Content-Type"]
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert (
        int(head.headers["X-RateLimit-Remaining"]) == int(get.headers["X-RateLimit-Remaining"]) - 1
    )


@pytest.mark.parametrize("path", REST_PATHS)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_writes_on_rest_routes_are_405_with_allow(
    client: FlaskClient, api_keys: dict, path: str, method: str
) -> None:
    response = getattr(client, method)(path, headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 405
    assert response.get_json()["error"]["code"] == 405
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS"}


@pytest.mark.parametrize("method", ["put", "patch", "delete", "head"])
def test_graphql_allows_only_get_and_post(client: FlaskClient, api_keys: dict, method) -> None:
    response = getattr(client, method)("/graphql", headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 405
    allowed = set(response.headers["Allow"].replace(" ", "").split(","))
    assert {"GET", "POST"} <= allowed
    assert not {"PUT", "PATCH", "DELETE"} & allowed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "Unable to parse request body as JSON"),
        (b"{}", "No GraphQL query found in the request"),
        (b'[{"query": "{ laws { state } }"}]', "Batching is not enabled"),
    ],
)
def test_malformed_graphql_requests_get_a_400(
    client: FlaskClient, api_keys: dict, body: bytes, message: str
) -> None:
    response = client.post(
        "/graphql",
        data=body,
        headers={"X-API-Key": api_keys["pro"], "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.content_type == "application/json"
    assert response.get_json() == refusal_body(400, message)


def test_graphql_bodies_over_64_kib_get_a_413(client: FlaskClient, api_keys: dict) -> None:
    headers = {"X-API-Key": api_keys["pro"], "Content-Type": "application/json"}
    padding = " " * (64 * 1024 - len('{"query": "{ laws { state } }"}'))
    fits = client.post(
        "/graphql", data='{"query": "{ laws { state } }"}' + padding, headers=headers
    )
    assert fits.status_code == 200
    too_big = client.post(
        "/graphql", data='{"query": "{ laws { state } }"}' + padding + " ", headers=headers
    )
    assert too_big.status_code == 413
    assert too_big.get_json() == refusal_body(413, "request body too large: at most 65536 bytes")


def test_flask_debug_does_not_enable_debugging(
    monkeypatch: pytest.MonkeyPatch, make_app, api_keys: dict
) -> None:
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app: Flask = make_app()
    assert app.debug is False

    def explode():
        raise RuntimeError("detail that must stay inside")

    app.add_url_rule("/api/v1/boom", "boom", explode)
    response = app.test_client().get("/api/v1/boom", headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    assert "Traceback" not in text
    assert "detail that must stay inside" not in text
    assert "Werkzeug Debugger" not in text
