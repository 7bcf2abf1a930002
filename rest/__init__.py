"""The /api/v1 REST edge: Flask + Marshmallow (flask-smorest) over the service layer.

May import service (and models for type hints), flask, marshmallow, webargs, flask_smorest and
flask_limiter; never graphql_schema or seed.
"""

from flask import Flask
from flask_smorest import Api

from . import deals, dispensaries, doctors, laws, search, strains  # noqa: F401  (routes)
from .blueprint import bp
from .schemas import ErrorEnvelopeSchema

API_PREFIX = "/api/v1"


class EnvelopeApi(Api):
    """flask-smorest Api whose errors are rendered app-wide by rest.errors, not by itself."""

    ERROR_SCHEMA = ErrorEnvelopeSchema

    def _register_error_handlers(self) -> None:
        """Leave error rendering to rest.errors.init_error_handlers."""


def init_rest(app: Flask) -> Api:
    """Register the v1 blueprint and its OpenAPI document."""
    app.config.setdefault("API_TITLE", "Cannabis Data Service")
    app.config.setdefault("API_VERSION", "v1")
    app.config.setdefault("OPENAPI_VERSION", "3.0.3")
    api = EnvelopeApi(app)
    api.register_blueprint(bp)
    return api


def is_api_path(path: str) -> bool:
    """True for paths under /api/v1 (which need a key)."""
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")
