import logging
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from web.reference import ERROR_DOCS


def test_request_id_is_generated_and_echoed(client: FlaskClient, api) -> None:
    generated = api.get("/api/v1/laws/CA")
    assert len(generated.headers["X-Request-ID"]) == 32
    echoed = client.get("/api/v1/laws/CA", headers={"X-Request-ID": "trace-123"})
    assert echoed.status_code == 401
    assert echoed.headers["X-Request-ID"] == "trace-123"


def test_unsafe_request_ids_are_replaced(client: FlaskClient) -> None:
    response = client.get("/docs/errors", headers={"X-Request-ID": "bad id\twith spaces"})
    assert response.headers["X-Request-ID"] != "bad id\twith spaces"
    assert len(response.headers["X-Request-ID"]) == 32


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/v1/strains/x/y", "/api/v1/x/"])
def test_unknown_routes_under_api_get_the_404_envelope(api, path: str) -> None:
    body = api.json(path, status=404)
    assert body["success"] is False
    assert body["error"]["code"] == 404
    assert "no such endpoint" in body["error"]["message"]


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_wrong_methods_get_405_with_allow(client: FlaskClient, api_keys: dict, method) -> None:
    response = getattr(client, method)("/api/v1/laws/CA", headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 405
    assert response.content_type == "application/json"
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "HEAD"}
    assert (
        response.get_json()["error"]["message"]
        == f"method {method.upper()} is not allowed on /api/v1/laws/CA"
    )


def test_unexpected_errors_become_a_500_envelope_without_internals(app, api) -> None:
    def explode():
        raise RuntimeError("secret internal detail /srv/app/db.py")

    app.add_url_rule("/api/v1/explode", "explode", explode)
    response = api.get("/api/v1/explode")
    assert response.status_code == 500
    body = response.get_json()
    assert body == {
        "success": False,
        "error": {
            "code": 500,
            "message": "internal error; it has been logged",
            "docs": body["error"]["docs"],
        },
    }
    assert "secret" not in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)


def test_validation_error_names_parameter_and_range(api) -> None:
    body = api.json("/api/v1/strains", status=400, limit="abc")
    assert body["error"] == {
        "code": 400,
        "message": "limit must be an integer from 1 to 100 (larger values are reduced to 100)",
        "docs": body["error"]["docs"],
        "param": "limit",
    }
    assert body["error"]["docs"].endswith("/docs/errors#error-400")


def test_duplicated_parameter_is_rejected(api) -> None:
    response = api.client.get("/api/v1/strains?thc_min=1&thc_min=2", headers={"X-API-Key": api.key})
    assert response.status_code == 400
    assert response.get_json()["error"]["message"] == "thc_min was given more than once"


def test_a_filter_taking_several_values_may_be_repeated(api) -> None:
    repeated = api.json("/api/v1/strains", type=["indica", "sativa"], limit=100)
    commas = api.json("/api/v1/strains", type="indica,sativa", limit=100)
    assert repeated == commas
    assert {s["type"] for s in repeated["data"]} == {"indica", "sativa"}


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        (
            "/api/v1/strains",
            {"efect": "relaxed"},
            "unknown parameter 'efect'; did you mean 'effect'?",
        ),
        ("/api/v1/strains", {"Limit": "2"}, "unknown parameter 'Limit'; did you mean 'limit'?"),
        (
            "/api/v1/dispensaries",
            {"zipcode": "10001"},
            "unknown parameter 'zipcode'; did you mean 'zip'?",
        ),
        ("/api/v1/deals", {"limit ": "2"}, "unknown parameter 'limit '; did you mean 'limit'?"),
        (
            "/api/v1/search",
            {"q": "kush", "colour": "green"},
            "unknown parameter 'colour'; this endpoint takes limit, offset, q, state, type",
        ),
        (
            "/api/v1/laws/CA",
            {"verbose": "1"},
            "unknown parameter 'verbose'; this endpoint takes no query parameters",
        ),
        (
            "/api/v1/strains/blue-dream",
            {"x": ""},
            "unknown parameter 'x'; this endpoint takes no query parameters",
        ),
        (
            "/api/v1/usage",
            {"full": "true"},
            "unknown parameter 'full'; this endpoint takes no query parameters",
        ),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it_and_the_one_meant(
    api, path: str, params: dict, message: str
) -> None:
    error = api.json(path, status=400, **params)["error"]
    assert error["message"] == message
    unknown = next(name for name in params if name != "q")
    assert error["param"] == unknown


def test_the_cache_buster_and_the_key_parameter_stay_allowed(api) -> None:
    assert api.json("/api/v1/strains", limit=3, _="1700000000")["meta"]["limit"] == 3
    assert api.json("/api/v1/laws/CA", _="1")["data"]["stateCode"] == "CA"
    response = api.get("/api/v1/strains", key="", api_key=api.key, limit=1, _="2")
    assert response.status_code == 200


def test_an_unknown_parameter_is_refused_after_the_key_is_checked(client) -> None:
    response = client.get("/api/v1/strains?efect=relaxed")
    assert response.status_code == 401


def test_api_docs_document_every_error_the_reference_page_serves() -> None:
    api_docs = (Path(__file__).parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    for code in ERROR_DOCS:
        assert f"\n### error-{code}\n" in api_docs


def test_unexpected_errors_are_logged_with_the_traceback(app, api, caplog) -> None:
    def explode():
        raise RuntimeError("boom for the log")

    app.add_url_rule("/api/v1/explode-logged", "explode_logged", explode)
    with caplog.at_level(logging.ERROR):
        assert api.get("/api/v1/explode-logged").status_code == 500
    assert "unhandled error on GET /api/v1/explode-logged" in caplog.text
    assert "RuntimeError: boom for the log" in caplog.text
