"""The HTML pages in a real browser (headless Chromium): offline assets, working under their
Content-Security-Policy with no violation reported; GraphiQL runs a nested query by clicking,
sends nothing without a key, fills its docs once one is entered and remembers it over a reload;
Swagger UI loads the document and sends a request."""

import json
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from flask import Flask, request, request_started

from service import keys
from tests.browser.conftest import policy_of as _policy_of

pytestmark = pytest.mark.browser

NESTED = """{
  dispensaries(state: "CA", limit: 2) {
    total
    items { id name deals(limit: 1) { title } menu(limit: 1) { name } law { stateCode } }
  }
}"""


def test_graphiql_runs_a_nested_query_with_a_pasted_key(app: Flask, server_url: str, page) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="browser").plaintext
        db.commit()
    # A shared link carries the query; the key is pasted by hand into the Headers tab.
    response = page.goto(f"{server_url}/graphql?q={quote(NESTED)}", wait_until="networkidle")
    assert page.title() == "Cannabis Data Service GraphQL"
    policy = _policy_of(response)
    assert "unsafe-inline" not in response.headers["content-security-policy"]
    assert policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    page.get_by_text("Headers", exact=True).click()
    headers_editor = page.locator(".graphiql-editor-tool .CodeMirror").last
    assert "paste your key here" in headers_editor.inner_text()
    headers_editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(json.dumps({"X-API-Key": key}))

    page.locator("button.graphiql-execute-button").click()
    result = page.locator(".graphiql-response")
    result.get_by_text('"stateCode": "CA"').first.wait_for(timeout=15_000)
    text = result.inner_text()
    assert '"total": 16' in text
    assert text.count('"id": "disp_') == 2


def test_swagger_ui_loads_the_document_and_sends_a_request(
    page, server_url: str, screenshot
) -> None:
    response = page.goto(f"{server_url}/api/v1/docs", wait_until="networkidle")
    policy = _policy_of(response)
    assert policy["script-src"].startswith("'self' 'sha256-")
    assert policy["frame-ancestors"] == "'none'"
    operations = page.locator(".opblock-summary-path")
    operations.first.wait_for(timeout=15_000)
    document = page.request.get(f"{server_url}/api/v1/openapi.json").json()
    methods = [name for item in document["paths"].values() for name in item if name != "parameters"]
    assert operations.count() == len(methods) == 17
    screenshot("swagger-ui")
    page.locator(".opblock-summary-path", has_text="/api/v1/laws/{state}").click()
    page.get_by_role("button", name="Try it out").click()
    page.locator("input[placeholder='state']").fill("CA")
    page.get_by_role("button", name="Execute").click()
    # Sent without a key (none was authorised): the API's own 401 envelope comes back.
    status = page.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for(timeout=15_000)
    assert status.inner_text().strip() == "401"
    assert '"code": 401' in page.locator(".live-responses-table .microlight").first.inner_text()


def test_the_error_reference_renders_under_its_policy(page, server_url: str) -> None:
    response = page.goto(f"{server_url}/docs/errors", wait_until="networkidle")
    assert _policy_of(response)["default-src"] == "'none'"
    assert page.locator("section h2").first.inner_text() == "400 Bad Request"


@pytest.fixture
def graphql_posts(app: Flask) -> Iterator[list[tuple[str | None, bool]]]:
    """Every POST to /graphql the server receives, as (X-API-Key header, is introspection),
    recorded when the request starts: before authentication can refuse it."""
    seen: list[tuple[str | None, bool]] = []

    def record(_sender: Flask, **_extra: object) -> None:
        if request.method == "POST" and request.path == "/graphql":
            body = request.get_data(cache=True, as_text=True)
            seen.append((request.headers.get("X-API-Key"), "__schema" in body))

    request_started.connect(record, app)
    yield seen
    request_started.disconnect(record, app)


def _enter_headers(page, headers: dict[str, str]) -> None:
    page.get_by_text("Headers", exact=True).click()
    editor = page.locator(".graphiql-editor-tool .CodeMirror").last
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(json.dumps(headers))


def _run_and_wait(page, text: str) -> str:
    page.locator("button.graphiql-execute-button").click()
    result = page.locator(".graphiql-response")
    result.get_by_text(text).first.wait_for(timeout=15_000)
    return result.inner_text()


def _query_fields_in_the_docs(page) -> list[str]:
    """The Query type's fields as the documentation explorer lists them (opened here; no
    re-fetch is clicked)."""
    if page.get_by_label("Show Documentation Explorer").count():
        page.get_by_label("Show Documentation Explorer").click()
    docs = page.locator(".graphiql-doc-explorer")
    docs.locator(".graphiql-doc-explorer-type-name", has_text="Query").first.click(timeout=15_000)
    fields = docs.locator(".graphiql-doc-explorer-field-name")
    fields.first.wait_for(timeout=15_000)
    return fields.all_inner_texts()


def test_a_first_visit_sends_nothing_until_a_key_is_entered(
    server_url: str, page, graphql_posts: list
) -> None:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/graphql") else None)
    page.goto(f"{server_url}/graphql", wait_until="networkidle")
    page.locator(".graphiql-response").get_by_text("Nothing was sent").wait_for(timeout=15_000)
    # Running the example with the placeholder is answered by the page itself.
    text = _run_and_wait(page, "put your API key in the Headers tab")
    assert '"data": null' in text
    page.get_by_label("Show Documentation Explorer").click()
    assert page.locator(".graphiql-doc-explorer-error").inner_text() == "Error fetching schema"
    # Half a key does not start introspection, and a Bearer placeholder sends nothing either.
    _enter_headers(page, {"X-API-Key": "cds_live_abc"})
    _enter_headers(page, {"Authorization": "Bearer paste your key here"})
    _run_and_wait(page, "put your API key in the Headers tab")
    assert sent == [f"{server_url}/graphql"]  # the page itself, no operation
    assert graphql_posts == []


def test_graphiql_remembers_the_key_and_never_sends_a_placeholder(
    app: Flask, server_url: str, page, screenshot, graphql_posts: list
) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="browser").plaintext
        db.commit()
    page.goto(f"{server_url}/graphql", wait_until="networkidle")
    assert graphql_posts == []

    _enter_headers(page, {"X-API-Key": key})
    # The key alone fills the documentation explorer: introspection runs once, with it.
    assert {"strains", "dispensary", "doctor", "deal", "search"} <= set(
        _query_fields_in_the_docs(page)
    )
    assert graphql_posts == [(key, True)]
    text = _run_and_wait(page, '"dispensaries"')
    assert '"total": ' in text
    assert graphql_posts == [(key, True), (key, False)]

    page.reload(wait_until="networkidle")
    page.get_by_text("Headers", exact=True).click()
    headers_editor = page.locator(".graphiql-editor-tool .CodeMirror").last
    assert key in headers_editor.inner_text()
    assert "paste your key here" not in headers_editor.inner_text()
    screenshot("graphiql-after-reload")
    text = _run_and_wait(page, '"dispensaries"')
    assert '"total": ' in text
    # After the reload: introspection with the remembered key, then the operation.
    assert graphql_posts == [(key, True), (key, False), (key, True), (key, False)]
