"""Error envelopes for unknown routes, wrong methods and unexpected failures; the reference."""

import logging
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from web.reference import ERROR_DOCS


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
