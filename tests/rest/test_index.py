"""GET /api/v1: the index a browser or a first curl gets, without a key and without charge."""

import pytest
from flask import Flask
from flask.testing import FlaskClient

from rest.openapi import OPENAPI_PATH
from service import keys


@pytest.mark.parametrize("path", ["/api/v1", "/api/v1/"])
def test_the_index_answers_without_a_key_with_every_endpoint_the_docs_and_how_to_get_a_key(
    client: FlaskClient, path: str
) -> None:
    response = client.get(path, headers={"Accept": "text/html"})  # as a browser asks
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert list(body) == ["success", "data"]
    assert body["success"] is True
    data = body["data"]
    assert data["docs"] == {
        "swagger_ui": "/api/v1/docs",
        "openapi": "/api/v1/openapi.json",
        "graphql": "/graphql",
        "errors": "/docs/errors",
    }
    assert "X-API-Key" in data["get_a_key"]
    assert "keys create" in data["get_a_key"]
    endpoints = {e["path"]: e["summary"] for e in data["endpoints"]}
    assert "/api/v1/strains/{slug}" in endpoints
    assert endpoints["/api/v1/usage"].startswith("The API key's tier")
    assert "/api/v1" not in endpoints


def test_the_index_lists_exactly_the_documented_operations_with_their_summaries(
    client: FlaskClient,
) -> None:
    document = client.get(OPENAPI_PATH).get_json()
    expected = [
        {"path": path, "summary": " ".join(item["get"]["summary"].split())}
        for path, item in document["paths"].items()
        if path != "/api/v1"
    ]
    assert len(expected) == 16
    assert client.get("/api/v1").get_json()["data"]["endpoints"] == expected


def test_the_index_is_not_charged_and_sends_no_quota_or_etag(app: Flask) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free").plaintext
        db.commit()
    client = app.test_client()
    for _ in range(3):
        index = client.get("/api/v1", headers={"X-API-Key": key})
        assert index.status_code == 200
        assert "X-RateLimit-Limit" not in index.headers
        assert "ETag" not in index.headers
    charged = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert charged.headers["X-RateLimit-Remaining"] == "99"  # the first charged request


def test_a_bad_key_does_not_stop_the_index(client: FlaskClient) -> None:
    for _ in range(80):  # past the failed-key throttle of keyed routes
        response = client.get("/api/v1?api_key=cds_live_nope")
    assert response.status_code == 200


def test_the_index_refuses_an_unknown_parameter_and_other_methods(client: FlaskClient) -> None:
    unknown = client.get("/api/v1?verbose=1")
    assert unknown.status_code == 400
    assert unknown.get_json()["error"]["param"] == "verbose"
    posted = client.post("/api/v1")
    assert posted.status_code == 405
    assert set(posted.headers["Allow"].split(", ")) == {"HEAD", "GET", "OPTIONS"}
    assert "X-RateLimit-Limit" not in posted.headers


def test_other_paths_under_api_v1_still_need_a_key(client: FlaskClient) -> None:
    assert client.get("/api/v1/nowhere").status_code == 401
    assert client.get("/api/v1/strains").status_code == 401
