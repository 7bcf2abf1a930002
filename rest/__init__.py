"""The /api/v1 REST edge: Flask + Marshmallow (flask-smorest) over the service layer.

May import web, service (and models for type hints), flask, marshmallow, webargs and
flask_smorest; never graphql_schema or seed.
"""

from flask import Flask, Response
from flask_smorest import Api  # type: ignore[import-untyped]  # ships no type hints
from werkzeug.exceptions import HTTPException

from web.errors import http_error_response
from web.routes import OPEN, RoutePolicy, declare_paths, number_params

from . import (  # noqa: F401  (routes)
    changes,
    compounds,
    deals,
    dispensaries,
    doctors,
    index,
    laws,
    search,
    strains,
    usage,
)
from .accel.dumping import compile_dumps
from .accel.views import skip_documentation_wrappers
from .blueprint import bp
from .openapi import DOCS_PATH, OPENAPI_PATH, SWAGGER_STATIC_PATH, spec_options, swagger_assets
from .parser import PARSED_QUERIES_EXTENSION, ParsedQueries
from .schemas import ErrorEnvelopeSchema, Output

API_PREFIX = "/api/v1"


class EnvelopeApi(Api):  # type: ignore[misc]  # flask-smorest's Api is untyped
    """flask-smorest Api whose HTTP errors have the app-wide envelope of web.errors."""

    ERROR_SCHEMA = ErrorEnvelopeSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # each operation lists its own error statuses

    def handle_http_exception(self, error: HTTPException) -> Response:
        """flask-smorest's documented hook for its HTTPException handler."""
        return http_error_response(error)


def init_rest(app: Flask) -> Api:
    """Register the v1 blueprint and its OpenAPI document."""
    app.config.setdefault("API_TITLE", "Cannabis Data Service")
    app.config.setdefault("API_VERSION", "v1")
    app.config.setdefault("OPENAPI_VERSION", "3.0.3")
    app.config.setdefault("OPENAPI_URL_PREFIX", API_PREFIX)
    app.config.setdefault("OPENAPI_JSON_PATH", "openapi.json")
    app.config.setdefault("OPENAPI_SWAGGER_UI_PATH", DOCS_PATH.removeprefix(API_PREFIX))
    app.config.setdefault("OPENAPI_SWAGGER_UI_URL", SWAGGER_STATIC_PATH + "/")
    # The key a visitor authorises survives a reload (in localStorage), as it does in GraphiQL.
    app.config.setdefault("OPENAPI_SWAGGER_UI_CONFIG", {"persistAuthorization": True})
    app.config.setdefault("API_SPEC_OPTIONS", spec_options(app.config.get("PUBLIC_BASE_URL")))
    if app.config["SPEED_TRICKS"]:
        compile_dumps(Output)  # every output schema dumps through a compiled plan
    api = EnvelopeApi(app)
    # flask-smorest registers a schema for its page-number pagination header; our lists page by
    # limit and offset in the body's meta, so nothing refers to it (an unused component).
    api.spec.components.schemas.pop("PaginationMetadata", None)
    api.register_blueprint(bp)
    if app.config["SPEED_TRICKS"]:
        skip_documentation_wrappers(app, f"{bp.name}.")  # views called without them
        app.extensions[PARSED_QUERIES_EXTENSION] = ParsedQueries()  # query strings parsed once
    number_params(app).update(bp.number_names)  # ETags and replay keys read them as numbers
    index.init_index(app, api.spec.to_dict()["paths"], API_PREFIX)
    app.register_blueprint(swagger_assets)
    # Each operation declares its own policy (route_policy). A request under /api/v1/ that matches
    # none (404, 405) needs a key and is charged all the same; the index (any method), the
    # OpenAPI document, the docs page and its assets are open.
    declare_paths(app, RoutePolicy(keyed=True, metered=True), prefixes=[API_PREFIX + "/"])
    declare_paths(
        app,
        OPEN,
        exact=[API_PREFIX, API_PREFIX + "/", OPENAPI_PATH, DOCS_PATH],
        prefixes=[SWAGGER_STATIC_PATH + "/"],
    )
    return api
