"""The front page and the error reference in Chromium: they render under their policy, share one
look, and every link on the front page answers 200; the front page's commands are copied whole,
never wrap, and name the page's own origin; the favicon draws."""

import pytest

from tests.browser.conftest import policy_of

pytestmark = pytest.mark.browser


def test_the_front_page_renders_and_every_link_answers(page, server_url: str, screenshot) -> None:
    response = page.goto(f"{server_url}/", wait_until="networkidle")
    assert response.headers["content-type"].startswith("text/html")
    assert policy_of(response)["script-src"] == "'self'"  # no script at all
    assert page.title() == "Cannabis Data Service"
    assert page.locator("h2", has_text="Get a key").count() == 1
    assert "X-API-Key" in page.locator("main").inner_text()
    links = page.locator("ul.links a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs == [
        "/api/v1/docs",
        "/api/v1/openapi.json",
        "/api/v1",
        "/graphql",
        "/graphql/schema.graphql",
        "/docs/errors",
        "/health",
    ]
    shot = screenshot("front-page")
    print(f"front page screenshot: {shot}")
    for href in hrefs:
        followed = page.goto(f"{server_url}{href}", wait_until="load")
        assert followed.status == 200, href
    # The first link, clicked as a visitor would: Swagger UI lists the operations.
    page.goto(f"{server_url}/", wait_until="networkidle")
    page.get_by_role("link", name="/api/v1/docs").click()
    page.locator(".opblock-summary-path").first.wait_for(timeout=15_000)


def test_the_error_reference_has_the_front_pages_look(page, server_url: str, screenshot) -> None:
    page.goto(f"{server_url}/", wait_until="networkidle")
    front_font = page.evaluate("getComputedStyle(document.body).fontFamily")
    front_brand = page.locator(".brand").inner_text()
    page.goto(f"{server_url}/docs/errors#error-429", wait_until="networkidle")
    assert page.evaluate("getComputedStyle(document.body).fontFamily") == front_font
    assert page.locator(".brand").inner_text() == front_brand
    # The section a docs link points at is highlighted.
    highlighted = page.evaluate(
        "getComputedStyle(document.getElementById('error-429')).backgroundColor"
    )
    assert highlighted not in ("rgba(0, 0, 0, 0)", "transparent")
    screenshot("error-reference")


def test_a_click_on_a_command_copies_it_whole_and_nothing_wraps_on_a_phone(
    page, server_url: str, screenshot
) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page.goto(f"{server_url}/", wait_until="networkidle")
    first_call = f"curl -H \"X-API-Key: $KEY\" '{server_url}/api/v1/strains?limit=2'"
    commands = page.locator("ol.steps pre code")
    assert commands.all_inner_texts()[2] == first_call
    for index in range(commands.count()):
        # One line box per command: a narrow screen scrolls it sideways instead of wrapping it.
        assert commands.nth(index).evaluate("code => code.getClientRects().length") == 1
    commands.nth(2).click()
    assert page.evaluate("getSelection().toString()") == first_call
    page.keyboard.press("Control+C")
    assert page.evaluate("navigator.clipboard.readText()") == first_call
    screenshot("front-page-phone")


def test_the_front_page_shows_tiers_and_terms_and_its_favicon_draws(page, server_url: str) -> None:
    page.goto(f"{server_url}/", wait_until="networkidle")
    rows = page.locator("table.tiers tbody tr")
    assert rows.all_inner_texts()[:2] == ["free\t100\trequired", "pro\t1,000\toptional"]
    assert page.locator("ul.terms li").count() == 4
    credit = page.locator("#terms ~ pre code").inner_text()
    assert credit == f'<a href="{server_url}/">Data powered by Cannabis Data Service</a>'
    width = page.evaluate(
        """() => new Promise((resolve) => {
          const icon = new Image();
          icon.onload = () => resolve(icon.naturalWidth);
          icon.onerror = () => resolve(-1);
          icon.src = "/favicon.ico";
        })"""
    )
    assert width > 0
