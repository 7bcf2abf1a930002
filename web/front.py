"""GET /: the front door. A browser gets a small offline HTML page (what the service is, how to
get a key, where everything is); a JSON client (``Accept: application/json``, or ``*/*`` as curl
sends) gets the same links as JSON. Open to all: no key, no quota."""

from html import escape

from flask import Flask, Response, jsonify, request

from .csp import page_headers
from .pages import html_page
from .routes import route_policy

# (name, path, what it is); the paths are the edges' published ones.
LINKS = (
    ("swagger_ui", "/api/v1/docs", "Swagger UI: every REST endpoint, tried in the browser"),
    ("openapi", "/api/v1/openapi.json", "The OpenAPI 3 document, for generating clients"),
    ("graphiql", "/graphql", "GraphiQL: the GraphQL explorer (POST /graphql for clients)"),
    ("errors", "/docs/errors", "The error reference every error.docs link points into"),
    ("health", "/health", "Health check: is the service and its database up"),
)
REST_BASE = "/api/v1"
KEY_HOW = (
    "Every /api/v1 and /graphql request needs an API key, sent as the X-API-Key header, as "
    "Authorization: Bearer <key>, or as the api_key query parameter. On a local install, "
    "./scripts/serve.sh prints one on its first start; an operator creates more with "
    ".venv/bin/flask --app app keys create --tier free --name NAME."
)


def _html(base: str) -> str:
    items = "".join(
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
        f"<h2>Get a key</h2><p>{escape(KEY_HOW)}</p>"
        "<h2>A first call</h2><pre>curl -H 'X-API-Key: YOUR_KEY' "
        f"'{escape(base or 'ORIGIN')}{REST_BASE}/strains?limit=2'</pre>"
        + (
            ""
            if base
            else "<p>ORIGIN is this page's address: scheme, host and port, such as "
            "<code>http://127.0.0.1:5000</code> on a local install. (The service never builds "
            "links from the Host header; an operator who sets <code>PUBLIC_BASE_URL</code> gets "
            "it filled in here.)</p>"
        )
        + f'<h2>Where everything is</h2><ul class="links">{items}</ul>'
        + "<footer>The demo dataset is generated: businesses and people in it are invented; "
        "the laws and the geography are real.</footer>",
    )


def init_front_page(app: Flask) -> None:
    """Serve / as HTML or JSON, by the Accept header."""
    base = app.config.get("PUBLIC_BASE_URL") or ""
    page = _html(base)
    headers = page_headers(page) | {"Vary": "Accept"}
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
            return Response(page, mimetype="text/html", headers=headers)
        response = jsonify(index)
        response.headers["Vary"] = "Accept"
        return response
