"""Links in responses never come from the request's Host header."""

from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

EVIL = {"Host": "evil.example"}


@pytest.mark.parametrize(
    ("path", "code"),
    [("/api/v1/nope", 404), ("/api/v1/strains?limit=0", 400), ("/api/v1/strains", 401)],
)
def test_error_docs_links_are_relative_by_default(
    client: FlaskClient, api_keys: dict, path: str, code: int
) -> None:
    headers = {**EVIL, "X-API-Key": api_keys["pro"]} if code != 401 else EVIL
    body = client.get(path, headers=headers).get_json()
    assert body["error"]["docs"] == f"/docs/errors#error-{code}"


def test_error_docs_links_use_the_public_base_url_when_set(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(PUBLIC_BASE_URL="https://api.example.com")
    body = app.test_client().get("/api/v1/strains", headers=EVIL).get_json()
    assert body["error"]["docs"] == "https://api.example.com/docs/errors#error-401"


@pytest.mark.parametrize(
    "path", ["/api//v1/strains", "/docs//errors", "/graphql//static/graphiql/graphiql.min.css"]
)
def test_doubled_slashes_are_not_redirected_to_the_host_sent(
    client: FlaskClient, api_keys: dict, path: str
) -> None:
    response = client.get(path, headers={**EVIL, "X-API-Key": api_keys["pro"]})
    assert response.status_code == 404
    assert "Location" not in response.headers
    assert "evil.example" not in response.get_data(as_text=True)


def test_a_location_to_our_own_host_is_rewritten_to_the_public_url(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(PUBLIC_BASE_URL="https://api.example.com")

    @app.get("/test-redirect")
    def redirect_here():
        return "", 302, {"Location": "http://evil.example/docs/errors"}

    response = app.test_client().get("/test-redirect", headers=EVIL)
    assert response.headers["Location"] == "https://api.example.com/docs/errors"
