"""The HTML pages (GraphiQL, Swagger UI, the error reference) each send a Content-Security-Policy
that allows their own assets and inline blocks only, and refuses framing (web.csp)."""

import base64
import gzip
import hashlib
from html.parser import HTMLParser

import pytest
from flask.testing import FlaskClient

from web.csp import page_headers, page_policy

FIXED = "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


class InlineBlocks(HTMLParser):
    """The text of each inline <script> (no src) and <style> of a page, as a browser reads it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._into: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and "src" not in dict(attrs):
            self._into = self.scripts
        elif tag == "style":
            self._into = self.styles
        if self._into is not None:
            self._into.append("")

    def handle_endtag(self, tag: str) -> None:
        self._into = None

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            self._into[-1] += data


def _hash_sources(blocks: list[str]) -> str:
    return "".join(
        " 'sha256-" + base64.b64encode(hashlib.sha256(block.encode()).digest()).decode() + "'"
        for block in blocks
    )


def _expected_policy(html: str, *, data_urls: bool, connect: bool) -> str:
    blocks = InlineBlocks()
    blocks.feed(html)
    data = " data:" if data_urls else ""
    return (
        f"default-src 'none'; script-src 'self'{_hash_sources(blocks.scripts)}; "
        f"style-src 'self'{_hash_sources(blocks.styles)}; img-src 'self'{data}; "
        f"font-src 'self'{data}; " + ("connect-src 'self'; " if connect else "") + FIXED
    )


@pytest.mark.parametrize(
    ("path", "scripts", "styles"),
    [("/graphql", 1, 1), ("/api/v1/docs", 1, 0)],
)
def test_each_app_page_allows_its_own_inline_blocks_by_hash_data_assets_and_fetches(
    client: FlaskClient, path: str, scripts: int, styles: int
) -> None:
    response = client.get(path, headers={"Accept": "text/html"})  # as a browser asks
    html = response.get_data(as_text=True)
    policy = response.headers["Content-Security-Policy"]
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert policy == _expected_policy(html, data_urls=True, connect=True)
    assert (policy.count("'sha256-"), "unsafe" in policy) == (scripts + styles, False)
    assert response.headers["X-Frame-Options"] == "DENY"


def test_the_error_reference_allows_only_its_own_stylesheet_inline_and_no_fetches(
    client: FlaskClient,
) -> None:
    response = client.get("/docs/errors")
    page = response.get_data(as_text=True)
    style = page[page.index("<style>") + len("<style>") : page.index("</style>")]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert response.headers["Content-Security-Policy"] == (
        f"default-src 'none'; script-src 'self'; style-src 'self' 'sha256-{digest}'; "
        f"img-src 'self'; font-src 'self'; {FIXED}"
    )
    assert "<script" not in page
    assert response.headers["X-Frame-Options"] == "DENY"


def test_a_compressed_swagger_page_keeps_the_policy_of_its_uncompressed_html(
    client: FlaskClient,
) -> None:
    plain = client.get("/api/v1/docs")
    compressed = client.get("/api/v1/docs", headers={"Accept-Encoding": "gzip"})
    assert compressed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(compressed.get_data()) == plain.get_data()
    assert compressed.headers["Content-Security-Policy"] == plain.headers["Content-Security-Policy"]


@pytest.mark.parametrize(
    "path", ["/api/v1/openapi.json", "/health", "/api/v1/laws/CA", "/graphql?query={laws{name}}"]
)
def test_json_responses_carry_no_page_policy(
    client: FlaskClient, api_keys: dict[str, str], path: str
) -> None:
    response = client.get(path, headers={"X-API-Key": api_keys["pro"]})
    assert response.mimetype == "application/json"
    assert "Content-Security-Policy" not in response.headers
    assert "X-Frame-Options" not in response.headers


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


PAGE = """<!doctype html><html><head>
<style>body { margin: 0 }</style>
<script src="/static/app.js" integrity="sha384-x"></script>
<SCRIPT type="text/javascript">start("é");</SCRIPT>
</head><body><script>
  go();
</script><script>start("é");</script></body></html>"""


def test_inline_scripts_and_styles_are_allowed_by_the_hash_of_their_exact_text() -> None:
    started, going = _sha256('start("é");'), _sha256("\n  go();\n")  # each hash once
    styled = _sha256("body { margin: 0 }")
    assert page_policy(PAGE, data_urls=True, connect=True) == (
        f"default-src 'none'; script-src 'self' {started} {going}; style-src 'self' {styled}; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def test_a_page_without_inline_code_gets_same_origin_sources_only_and_no_connect() -> None:
    assert page_policy("<p>plain</p>") == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def test_page_headers_add_the_legacy_frame_refusal() -> None:
    assert page_headers("<p>plain</p>") == {
        "Content-Security-Policy": page_policy("<p>plain</p>"),
        "X-Frame-Options": "DENY",
    }
