"""GET /: the front door. A browser gets a small offline HTML page (what the service is, the steps
to a first call, tiers and quotas, the terms of use, where everything is); a JSON client
(``Accept: application/json``, or ``*/*`` as curl sends) gets the links as JSON. GET
/favicon.ico: the service's icon. Open to all: no key, no quota."""

import re
from html import escape

from flask import Flask, Response, current_app, jsonify, request

from service.quotas import COST_PER_UNIT, ENTERPRISE_DEFAULT_HOURLY_LIMIT, TIER_HOURLY_LIMITS
from service.terms import CREDIT_REQUIRED_TIERS, CREDIT_TEXT, TERMS_OF_USE
from service.vocab import KEY_TIERS

from .csp import page_headers
from .pages import html_page
from .routes import route_policy

# (name, path, what it is); the paths are the edges' published ones.
LINKS = (
    ("swagger_ui", "/api/v1/docs", "Swagger UI: every REST endpoint, tried in the browser"),
    ("openapi", "/api/v1/openapi.json", "The OpenAPI 3 document, for generating clients"),
    ("rest_index", "/api/v1", "Every REST endpoint with a one-line summary (no key needed)"),
    ("graphiql", "/graphql", "GraphiQL: the GraphQL explorer (POST /graphql for clients)"),
    ("graphql_sdl", "/graphql/schema.graphql", "The GraphQL schema in SDL, for typed clients"),
    ("errors", "/docs/errors", "The error reference every error.docs link points into"),
    ("health", "/health", "Health check: is the service and its database up"),
)
REST_BASE = "/api/v1"
FIRST_CALL = REST_BASE + "/strains?limit=2"
KEY_COMMAND = '.venv/bin/flask --app app keys create --tier free --name "my app"'
KEY_HOW = (
    "Every /api/v1 and /graphql request needs an API key, sent as the X-API-Key header, as "
    "Authorization: Bearer <key>, or as the api_key query parameter. On a local install, "
    "./scripts/serve.sh prints one on its first start; an operator creates more with "
    f"{KEY_COMMAND}."
)
# A host name, IPv4 or bracketed IPv6 address, and an optional port: anything else in the Host
# header is not shown back.
_PLAIN_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
# A leaf on the accent green of web.pages; SVG, so it stays sharp at every size.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="7" fill="#2e7d32"/>'
    '<path d="M16 4c6 6 7 13 0 22-7-9-6-16 0-22z" fill="#fff"/>'
    '<path d="M16 12v17" stroke="#2e7d32" stroke-width="1.6" stroke-linecap="round"/></svg>'
)


def page_origin() -> str:
    """PUBLIC_BASE_URL when set, else the scheme and host this request came to; ORIGIN when the
    Host header is not a plain host.

    Unlike a link the service writes (web.links), this is text shown to the one client that
    sent the Host header, and nothing stores the page, so a forged Host misleads only its sender.
    """
    base: str = current_app.config.get("PUBLIC_BASE_URL") or ""
    if base:
        return base.rstrip("/")
    if _PLAIN_HOST.fullmatch(request.host):
        return f"{request.scheme}://{request.host}"
    return "ORIGIN"


def _code(text: str) -> str:
    return f"<pre><code>{escape(text)}</code></pre>"


def _steps(origin: str) -> str:
    first_call = f"curl -H \"X-API-Key: $KEY\" '{origin}{FIRST_CALL}'"
    return (
        '<h2 id="start">Get a key and make a first call</h2><ol class="steps">'
        "<li><p><strong>Get a key.</strong> On a local install, <code>./scripts/serve.sh</code> "
        "prints one on its first start (a pro-tier demo key). An operator creates more:</p>"
        f"{_code(KEY_COMMAND)}</li>"
        "<li><p><strong>Keep it in a shell variable</strong> (a key is shown only once: paste "
        f"yours):</p>{_code('KEY=cds_live_...')}</li>"
        f"<li><p><strong>Make a first call:</strong></p>{_code(first_call)}"
        "<p>The key may also be sent as <code>Authorization: Bearer &lt;key&gt;</code> or in "
        "the <code>api_key</code> query parameter; either header keeps it out of access logs "
        "and browser history.</p></li>"
        '<li><p><strong>Explore.</strong> In <a href="/api/v1/docs">Swagger UI</a>, press '
        'Authorize and paste the key; in <a href="/graphql">GraphiQL</a>, put '
        '<code>{"X-API-Key": "cds_live_..."}</code> in the Headers tab. Both remember it in '
        "this browser.</p></li></ol>"
    )


def _tier_rows() -> str:
    rows = []
    for tier in KEY_TIERS:
        if tier in TIER_HOURLY_LIMITS:
            limit = f"{TIER_HOURLY_LIMITS[tier]:,}"
        else:
            limit = f"set per key (default {ENTERPRISE_DEFAULT_HOURLY_LIMIT:,})"
        credit = "required" if tier in CREDIT_REQUIRED_TIERS else "optional"
        rows.append(f"<tr><td>{tier}</td><td>{limit}</td><td>{credit}</td></tr>")
    return "".join(rows)


def _tiers() -> str:
    return (
        '<h2 id="tiers">Tiers and quotas</h2><table class="tiers"><thead><tr><th>Tier</th>'
        "<th>Requests per hour</th><th>Credit link</th></tr></thead>"
        f"<tbody>{_tier_rows()}</tbody></table>"
        "<p>One quota per key, shared by REST and GraphQL: a REST request costs 1; a GraphQL "
        f"document 1 per started {COST_PER_UNIT:,} of its estimated cost (most cost 1). Every "
        "answer carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and "
        "<code>X-RateLimit-Reset</code>; <code>GET /api/v1/usage</code> shows what is left "
        "without spending any. Past the quota the answer is a 429 with "
        "<code>Retry-After</code>.</p>"
    )


def _terms(origin: str) -> str:
    items = "".join(f"<li>{escape(term)}</li>" for term in TERMS_OF_USE)
    credit = f'<a href="{origin}/">{CREDIT_TEXT}</a>'
    return (
        f'<h2 id="terms">Terms of use</h2><ul class="terms">{items}</ul>'
        f"<p>The credit, for a page on the free tier:</p>{_code(credit)}"
    )


def _html(origin: str) -> str:
    links = "".join(
        f'<li><a href="{escape(path)}">{escape(path)}</a> <span>{escape(what)}</span></li>'
        for _name, path, what in LINKS
    )
    return html_page(
        "Cannabis Data Service",
        "<h1>A read-only data API for cannabis apps</h1>"
        "<p>Strains, dispensaries with menus and reviews, deals, medical doctors, the laws of "
        "all 56 US jurisdictions and one search over them, as JSON: REST under "
        f"<code>{REST_BASE}</code> and GraphQL at <code>/graphql</code>, one key and one quota "
        "for both.</p>"
        + _steps(origin)
        + _tiers()
        + _terms(origin)
        + f'<h2>Where everything is</h2><ul class="links">{links}</ul>'
        + "<footer>The demo dataset is generated: businesses and people in it are invented; "
        "the laws and the geography are real.</footer>",
    )


def init_front_page(app: Flask) -> None:
    """Serve / as HTML or JSON, by the Accept header, and /favicon.ico."""
    base = app.config.get("PUBLIC_BASE_URL") or ""
    index = {
        "success": True,
        "data": {
            "name": "Cannabis Data Service",
            "rest": base + REST_BASE,
            "graphql": base + "/graphql",
            "get_a_key": KEY_HOW,
            "links": {name: base + path for name, path, _what in LINKS},
        },
    }

    @app.get("/")
    @route_policy(keyed=False, metered=False, conditional=False)
    def front_page() -> Response:
        wanted = request.accept_mimetypes.best_match(["application/json", "text/html"])
        if wanted == "text/html":
            page = _html(page_origin())
            headers = page_headers(page) | {"Vary": "Accept"}
            return Response(page, mimetype="text/html", headers=headers)
        response = jsonify(index)
        response.headers["Vary"] = "Accept"
        return response

    @app.get("/favicon.ico")
    @route_policy(keyed=False, metered=False, conditional=False)
    def favicon() -> Response:
        headers = {
            "Content-Security-Policy": "default-src 'none'",
            "Cache-Control": "public, max-age=86400",
        }
        return Response(FAVICON, mimetype="image/svg+xml", headers=headers)
