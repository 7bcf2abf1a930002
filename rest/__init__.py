"""The /api/v1 REST edge: Flask + Marshmallow (flask-smorest) over the service layer.

May import service (and models for type hints), flask, marshmallow, webargs, flask_smorest and
flask_limiter; never graphql_schema or seed.
"""

from flask import Flask
from flask_smorest import Api

from . import deals, dispensaries, doctors, laws, search, strains, usage  # noqa: F401  (routes)
from .blueprint import bp
from .openapi import DOCS_PATH, SPEC_OPTIONS, SWAGGER_STATIC_PATH, is_public_path, swagger_assets
from .schemas import ErrorEnvelopeSchema

API_PREFIX = "/api/v1"


class EnvelopeApi(Api):
    """flask-smorest Api whose errors are rendered app-wide by rest.errors, not by itself."""

    ERROR_SCHEMA = ErrorEnvelopeSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # each operation lists its own error statuses

    def _register_error_handlers(self) -> None:
        """Leave error rendering to rest.errors.init_error_handlers."""


def init_rest(app: Flask) -> Api:
    """Register the v1 blueprint and its OpenAPI document."""
    app.config.setdefault("API_TITLE", "Cannabis Data Service")
    app.config.setdefault("API_VERSION", "v1")
    app.config.setdefault("OPENAPI_VERSION", "3.0.3")
    app.config.setdefault("OPENAPI_URL_PREFIX", API_PREFIX)
    app.config.setdefault("OPENAPI_JSON_PATH", "openapi.json")
    app.config.setdefault("OPENAPI_SWAGGER_UI_PATH", DOCS_PATH.removeprefix(API_PREFIX))
    app.config.setdefault("OPENAPI_SWAGGER_UI_URL", SWAGGER_STATIC_PATH + "/")
    app.config.setdefault("API_SPEC_OPTIONS", SPEC_OPTIONS)
    api = EnvelopeApi(app)
    api.register_blueprint(bp)
    app.register_blueprint(swagger_assets)
    return api


def is_api_path(path: str) -> bool:
    """True for paths under /api/v1 that need a key: all but the OpenAPI document and docs."""
    under_prefix = path == API_PREFIX or path.startswith(API_PREFIX + "/")
    return under_prefix and not is_public_path(path)
