"""Swagger UI in Chromium: one section per resource, a header whose error reference is a link,
the Bearer scheme's text with its ``<key>``, the server without operator jargon, and a key
authorised once that still works after a reload."""

import pytest
from flask import Flask

from service import keys

pytestmark = pytest.mark.browser

RESOURCES = [
    "index",
    "strains",
    "compounds",
    "dispensaries",
    "deals",
    "doctors",
    "laws",
    "search",
    "changes",
    "usage",
]


def _open(page, server_url: str) -> None:
    page.goto(f"{server_url}/api/v1/docs", wait_until="networkidle")
    page.locator(".opblock-summary-path").first.wait_for(timeout=15_000)


def test_swagger_ui_has_a_section_per_resource_and_a_linked_header(
    page, server_url: str, screenshot
) -> None:
    _open(page, server_url)
    sections = page.locator("h3.opblock-tag").evaluate_all("tags => tags.map(t => t.dataset.tag)")
    assert sections == RESOURCES
    errors = page.locator(".information-container a", has_text="/docs/errors")
    assert errors.get_attribute("href") == "/docs/errors"
    header = page.locator(".information-container").inner_text()
    assert "Terms of use" in header
    assert "may not be redistributed" in header
    server = page.locator(".servers select option").first.inner_text()
    assert server == "/ - This service, at the address this document was fetched from."
    screenshot("swagger-ui-sections")


def test_the_bearer_scheme_shows_its_key_placeholder(page, server_url: str) -> None:
    _open(page, server_url)
    page.locator("button.authorize").first.click()
    dialog = page.locator(".dialog-ux")
    dialog.wait_for(timeout=15_000)
    bearer = dialog.locator(".auth-container", has_text="BearerKey")
    assert "(Authorization: Bearer <key>)" in bearer.inner_text()
    assert bearer.locator("code", has_text="Authorization: Bearer <key>").count() == 1


def test_an_authorised_key_survives_a_reload(app: Flask, page, server_url: str, screenshot) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="pro", name="swagger").plaintext
        db.commit()
    _open(page, server_url)
    page.locator("button.authorize").first.click()
    header_scheme = page.locator(".dialog-ux .auth-container", has_text="ApiKeyHeader")
    header_scheme.locator("input").fill(key)
    header_scheme.locator("button.authorize").click()
    page.locator(".dialog-ux button.close-modal").click()

    page.reload(wait_until="networkidle")
    page.locator(".opblock-summary-path").first.wait_for(timeout=15_000)
    page.locator(".opblock-summary-path", has_text="/api/v1/laws/{state}").click()
    page.get_by_role("button", name="Try it out").click()
    page.locator("input[placeholder='state']").fill("CO")
    page.get_by_role("button", name="Execute").click()
    status = page.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for(timeout=15_000)
    assert status.inner_text().strip() == "200"
    body = page.locator(".live-responses-table .microlight").first.inner_text()
    assert '"stateCode": "CO"' in body
    screenshot("swagger-ui-after-reload")
