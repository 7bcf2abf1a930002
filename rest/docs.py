"""GET /docs/errors: the error reference that every error.docs link points into."""

from html import escape

from flask import Flask, Response

from service.csp import page_headers

# code -> (name, when it happens, what the client should do)
ERROR_DOCS = {
    400: (
        "Bad Request",
        "A parameter is invalid or a required one (q on search) is missing. error.param names it "
        "and error.message gives the allowed values or range.",
        "Fix the parameter; retrying unchanged will fail again.",
    ),
    401: (
        "Unauthorized",
        "The API key is missing, malformed, unknown or revoked.",
        "Send a valid key in the X-API-Key header.",
    ),
    404: (
        "Not Found",
        "No strain, dispensary or law record has that slug, id or state code, or the path is not "
        "one of the API's endpoints.",
        "Check the identifier or path.",
    ),
    405: (
        "Method Not Allowed",
        "The endpoint exists but not for this HTTP method; the Allow header lists the methods.",
        "Use GET.",
    ),
    413: (
        "Payload Too Large",
        "The request body is over 64 KiB (GraphQL documents; REST takes no body).",
        "Send a smaller document: select fewer fields, or split the query.",
    ),
    429: (
        "Rate Limited",
        "The key's hourly quota is used up, or there were too many failed key attempts from "
        "this address.",
        "Wait for the seconds in Retry-After, then retry with exponential backoff.",
    ),
    500: (
        "Server Error",
        "An unexpected internal error. It was logged with the request id from X-Request-ID.",
        "Retry later with backoff; report the X-Request-ID if it persists.",
    ),
    503: (
        "Service Unavailable",
        "The database is down, unreachable or too slow right now. Nothing about the request is "
        "wrong. Or a GraphQL operation ran past its time budget (GRAPHQL_TIME_BUDGET_MS, 3 s by "
        "default) and was stopped; the message says so.",
        "Wait for the seconds in Retry-After, then retry with exponential backoff. For a GraphQL "
        "operation over its time budget, ask for less instead: lower limits, fewer nested lists, "
        "or split the query.",
    ),
}


def _page() -> str:
    sections = "".join(
        f'<section id="error-{code}"><h2>{code} {escape(name)}</h2>'
        f"<p>{escape(when)}</p><p><strong>What to do:</strong> {escape(action)}</p></section>"
        for code, (name, when, action) in ERROR_DOCS.items()
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<title>Cannabis Data Service errors</title></head><body>"
        "<h1>Errors</h1><p>Every error body is "
        "<code>{success: false, error: {code, message, docs, param?}}</code> and the HTTP status "
        f"equals error.code.</p>{sections}</body></html>"
    )


def init_docs(app: Flask) -> None:
    """Serve the error reference page (no key needed, never metered)."""
    page = _page()
    headers = page_headers(page)  # plain HTML: no script, style or image of its own

    @app.get("/docs/errors")
    def error_reference() -> Response:
        return Response(page, mimetype="text/html", headers=headers)
