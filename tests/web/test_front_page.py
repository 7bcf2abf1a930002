"""GET /: an HTML page for browsers, a JSON index for JSON clients; open and never charged.
GET /favicon.ico: the icon."""

from html import unescape
from xml.etree import ElementTree

import pytest

from service.quotas import TIER_HOURLY_LIMITS
from service.terms import TERMS_OF_USE

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
LINKS = {
    "swagger_ui": "/api/v1/docs",
    "openapi": "/api/v1/openapi.json",
    "rest_index": "/api/v1",
    "graphiql": "/graphql",
    "graphql_sdl": "/graphql/schema.graphql",
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


def _page(client, *, host: str | None = None, **kwargs) -> str:
    headers = {"Accept": BROWSER_ACCEPT, **({"Host": host} if host else {})}
    response = client.get("/", headers=headers, **kwargs)
    assert response.status_code == 200
    return unescape(response.get_data(as_text=True))


def test_the_first_call_names_the_origin_the_page_was_asked_at(client) -> None:
    page = _page(client, base_url="http://cds.test:8080")
    assert "curl -H \"X-API-Key: $KEY\" 'http://cds.test:8080/api/v1/strains?limit=2'" in page
    assert '<a href="http://cds.test:8080/">Data powered by Cannabis Data Service</a>' in page
    assert "YOUR_KEY" not in page
    assert "ORIGIN" not in page


def test_a_host_header_that_is_no_plain_host_is_not_shown_back(client) -> None:
    page = _page(client, host='x.test"><b>bold')
    assert "x.test" not in page
    assert "'ORIGIN/api/v1/strains?limit=2'" in page


def test_the_commands_are_steps_each_in_a_code_block_of_its_own(client) -> None:
    page = _page(client)
    steps = page[page.index('<ol class="steps">') : page.index("</ol>")]
    assert steps.count("<li>") == 4
    blocks = [block.split("</code></pre>")[0] for block in steps.split("<pre><code>")[1:]]
    assert blocks == [
        '.venv/bin/flask --app app keys create --tier free --name "my app"',
        "KEY=cds_live_...",
        "curl -H \"X-API-Key: $KEY\" 'http://localhost/api/v1/strains?limit=2'",
    ]


def test_the_tiers_and_quotas_come_from_the_service(client, monkeypatch) -> None:
    page = _page(client)
    assert "<tr><td>free</td><td>100</td><td>required</td></tr>" in page
    assert "<tr><td>pro</td><td>1,000</td><td>optional</td></tr>" in page
    assert "<tr><td>enterprise</td><td>set per key (default 10,000)</td>" in page
    monkeypatch.setitem(TIER_HOURLY_LIMITS, "pro", 2_500)
    assert "<tr><td>pro</td><td>2,500</td>" in _page(client)


def test_the_terms_of_use_are_on_the_front_page(client) -> None:
    page = _page(client)
    terms = page[page.index('<h2 id="terms">') : page.index("Where everything is")]
    assert [item.split("</li>")[0] for item in terms.split("<li>")[1:]] == list(TERMS_OF_USE)
    assert "redistributed" in terms


def test_the_favicon_is_an_svg_served_open_and_linked_from_the_pages(client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.headers["Content-Security-Policy"] == "default-src 'none'"
    assert "X-RateLimit-Limit" not in response.headers
    root = ElementTree.fromstring(response.get_data())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    for path in ("/", "/docs/errors"):
        page = client.get(path, headers={"Accept": BROWSER_ACCEPT}).get_data(as_text=True)
        assert '<link rel="icon" href="/favicon.ico" type="image/svg+xml">' in page, path
