"""GraphiQL in a real browser: headless Chromium, offline assets, a nested query run by clicking."""

import json
import shutil
import threading
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from flask import Flask
from werkzeug.serving import make_server

from service import keys

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright_sync = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')"
)
if shutil.which("chromium") is None:
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)

pytestmark = pytest.mark.browser
LAUNCH_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
NESTED = """{
  dispensaries(state: "CA", limit: 2) {
    total
    items { id name deals(limit: 1) { title } menu(limit: 1) { name } law { stateCode } }
  }
}"""


@pytest.fixture
def server_url(app: Flask) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture
def page(server_url: str) -> Iterator:
    with playwright_sync.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context()
        page = context.new_page()
        outside: list[str] = []
        page.on(
            "request",
            lambda request: (
                outside.append(request.url)
                if not request.url.startswith((server_url, "data:", "blob:"))
                else None
            ),
        )
        yield page
        browser.close()
        assert outside == [], f"the page tried to reach outside the app: {outside}"


def test_graphiql_runs_a_nested_query_with_a_pasted_key(app: Flask, server_url: str, page) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="free", name="browser").plaintext
        db.commit()
    # A shared link carries the query; the key is pasted by hand into the Headers tab.
    page.goto(f"{server_url}/graphql?q={quote(NESTED)}", wait_until="networkidle")
    assert page.title() == "Cannabis Data Service GraphQL"
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
