"""GET /: an HTML page for browsers, a JSON index for JSON clients; open and never charged."""

import pytest

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
LINKS = {
    "swagger_ui": "/api/v1/docs",
    "openapi": "/api/v1/openapi.json",
    "graphiql": "/graphql",
    "errors": "/docs/errors",
    "health": "/health",
}


def test_a_browser_gets_the_html_front_page(client) -> None:
    response = client.get("/", headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert "Accept" in response.headers["Vary"].split(", ")
    page = response.get_data(as_text=True)
    for path in LINKS.values():
        assert f'href="{path}"' in page
    assert "X-API-Key" in page
    assert "Authorization: Bearer" in page
    assert "<script" not in page
    policy = response.headers["Content-Security-Policy"]
    assert "style-src 'self' 'sha256-" in policy
    assert "unsafe-inline" not in policy


@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
def test_a_json_client_gets_an_index_of_the_same_links(client, accept: str | None) -> None:
    response = client.get("/", headers={"Accept": accept} if accept else {})
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert "Accept" in response.headers["Vary"].split(", ")
    body = response.get_json()
    assert body["success"] is True
    assert body["data"]["links"] == LINKS
    assert body["data"]["rest"] == "/api/v1"
    assert body["data"]["graphql"] == "/graphql"
    assert "keys create" in body["data"]["get_a_key"]


def test_every_front_page_link_answers_200_without_a_key(client) -> None:
    for path in LINKS.values():
        assert client.get(path, headers={"Accept": BROWSER_ACCEPT}).status_code == 200, path


def test_the_front_page_needs_no_key_and_is_never_charged(client, api_keys) -> None:
    with_key = client.get("/", headers={"X-API-Key": api_keys["free"]})
    assert with_key.status_code == 200
    assert "X-RateLimit-Remaining" not in with_key.headers
    assert client.get("/", headers={"X-API-Key": "garbage"}).status_code == 200


def test_links_follow_the_public_base_url(make_app) -> None:
    app = make_app(PUBLIC_BASE_URL="https://api.example")
    body = app.test_client().get("/", headers={"Accept": "application/json"}).get_json()
    assert body["data"]["links"]["openapi"] == "https://api.example/api/v1/openapi.json"
    page = app.test_client().get("/", headers={"Accept": BROWSER_ACCEPT}).get_data(as_text=True)
    assert "https://api.example/api/v1/strains?limit=2" in page


def test_the_error_reference_shares_the_front_pages_stylesheet(client) -> None:
    front = client.get("/", headers={"Accept": BROWSER_ACCEPT}).get_data(as_text=True)
    errors = client.get("/docs/errors").get_data(as_text=True)
    style = front[front.index("<style>") : front.index("</style>")]
    assert style in errors
    assert '<p class="brand"><a href="/">' in errors
