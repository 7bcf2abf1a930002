"""GET /api/v1 (and /api/v1/): what the REST API offers, for a browser or a first curl. Open to
all: no key, no quota, no ETag.

The endpoints are read from the OpenAPI document once it is built (rest.init_rest), so the
index lists exactly the documented operations, each with its summary.
"""

from typing import Any

from flask import Flask, current_app

from web.front import KEY_HOW
from web.routes import route_policy

from .blueprint import bp
from .envelope import ok
from .openapi import DOCS_PATH, OPENAPI_PATH, REQUEST_ID_HEADER, errors, no_key, operation_id
from .schemas import IndexSchema, detail_envelope

INDEX_EXTENSION = "cds.rest_index"
INDEX_TAG = "index"
TITLE = "Cannabis Data Service REST API v1"


def build_index(paths: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The index's data from the document's ``paths``: every GET under ``prefix`` but the index
    itself, in the document's order, and where the docs and keys are."""
    endpoints = [
        {"path": path, "summary": " ".join(item["get"].get("summary", "").split())}
        for path, item in paths.items()
        if "get" in item and path.rstrip("/") != prefix
    ]
    return {
        "name": TITLE,
        "endpoints": endpoints,
        "docs": {
            "swagger_ui": DOCS_PATH,
            "openapi": OPENAPI_PATH,
            "graphql": "/graphql",
            "errors": "/docs/errors",
        },
        "get_a_key": KEY_HOW,
    }


def init_index(app: Flask, paths: dict[str, Any], prefix: str) -> None:
    """Keep the index built from the document's ``paths``; answer /api/v1/ as /api/v1."""
    app.extensions[INDEX_EXTENSION] = build_index(paths, prefix)
    # Undocumented twin: the document lists the path once, without the trailing slash.
    app.add_url_rule(prefix + "/", "api_v1.index_slash", app.view_functions["api_v1.get_index"])


@bp.get("", tags=[INDEX_TAG])
@route_policy(keyed=False, metered=False, conditional=False)
@no_key(bp)
@bp.response(200, detail_envelope(IndexSchema, "IndexDetail"), headers=REQUEST_ID_HEADER)
@errors(bp, 400, 405, 500, metered=False, keyed=False)
@operation_id(bp, "getIndex")
def get_index() -> dict[str, Any]:
    """The endpoints with a summary each, the docs and how to get a key; no key needed."""
    return ok(current_app.extensions[INDEX_EXTENSION])
