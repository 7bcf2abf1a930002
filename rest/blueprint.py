"""The v1 blueprint object, shared by the route modules."""

from flask_smorest import Blueprint

from .parser import QueryParser


class V1Blueprint(Blueprint):
    ARGUMENTS_PARSER = QueryParser()


bp = V1Blueprint("api_v1", __name__, url_prefix="/api/v1", description="Cannabis data, v1")
