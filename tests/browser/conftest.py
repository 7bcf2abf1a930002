"""Headless Chromium through Playwright against the app on a loopback port; each page is
checked for requests outside the app and for Content-Security-Policy violations. Screenshots go
to test-artifacts/screenshots (or $TEST_ARTIFACTS/screenshots)."""

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

ARTIFACTS = Path(
    os.environ.get("TEST_ARTIFACTS") or Path(__file__).resolve().parents[2] / "test-artifacts"
)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
try:
    from playwright import sync_api as playwright_sync
except ImportError:  # the dev extra is not installed
    playwright_sync = None

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
# Reports each violation of the page's policy to the test (injected by the browser driver, so the
# policy under test does not apply to it).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


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
    if playwright_sync is None:
        pytest.skip("Playwright is not installed (pip install -e '.[dev]')")
    if shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with playwright_sync.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context()
        violations: list[str] = []
        context.expose_function("reportViolation", lambda text: violations.append(text))
        context.add_init_script(REPORT_VIOLATIONS)
        page = context.new_page()
        page.on(
            "console",
            lambda message: (
                violations.append(message.text)
                if "Content Security Policy" in message.text
                else None
            ),
        )
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
        assert violations == [], f"the page broke its Content-Security-Policy: {violations}"


def policy_of(response) -> dict[str, str]:
    """The Content-Security-Policy of a page's response, by directive."""
    header = response.headers["content-security-policy"]
    return dict(directive.split(" ", 1) for directive in header.split("; "))


@pytest.fixture
def screenshot(page):
    """Save a full-page screenshot under ARTIFACTS/screenshots; returns its path."""

    def take(name: str) -> Path:
        path = ARTIFACTS / "screenshots" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 0
        return path

    return take
