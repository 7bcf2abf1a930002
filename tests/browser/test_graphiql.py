"""The HTML pages in a real browser (headless Chromium): offline assets, working under their
Content-Security-Policy with no violation reported; GraphiQL runs a nested query by clicking,
Swagger UI loads the document and sends a request."""

import json
from urllib.parse import quote

import pytest
from flask import Flask

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


def test_swagger_ui_loads_the_document_and_sends_a_request(page, server_url: str) -> None:
    response = page.goto(f"{server_url}/api/v1/docs", wait_until="networkidle")
    policy = _policy_of(response)
    assert policy["script-src"].startswith("'self' 'sha256-")
    assert policy["frame-ancestors"] == "'none'"
    operations = page.locator(".opblock-summary-path")
    operations.first.wait_for(timeout=15_000)
    assert operations.count() == 12
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
