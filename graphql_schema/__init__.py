"""The GraphQL edge (Strawberry) over the same service layer as REST.

May import service (and models for type hints), strawberry and flask (view and context only);
never rest or seed.
"""

from collections.abc import Callable

from flask import Flask
from sqlalchemy import Connection
from sqlalchemy.orm import Session

from .schema import make_schema
from .view import ApiGraphQLView, Replayable, ResultCache, assets, is_ide_request

GRAPHQL_PATH = "/graphql"

__all__ = [
    "GRAPHQL_PATH",
    "Replayable",
    "ResultCache",
    "init_graphql",
    "is_ide_request",
    "make_schema",
]


def init_graphql(
    app: Flask,
    *,
    connections: Callable[[], Connection],
    sessions: Callable[[], Session],
    quota: Callable[[], dict[str, int] | None],
    version: Callable[[], int],
    results: ResultCache,
    replayable: Replayable,
) -> None:
    """Serve the schema at /graphql (GET and POST) and GraphiQL's vendored assets.

    ``connections`` and ``sessions`` give the request's connection (column reads) and session
    (ORM reads), each opened on first use and closed by the app at the end of the request.

    ``version`` gives the data version, ``results`` keeps finished results between requests and
    ``replayable`` is told when a response may be replayed in front of the app.

    The cost budget and the time budget per operation come from ``GRAPHQL_COST_BUDGET`` and
    ``GRAPHQL_TIME_BUDGET_MS`` in ``app.config``.
    """
    view = ApiGraphQLView.as_view(
        "graphql",
        schema=make_schema(cost_budget=app.config["GRAPHQL_COST_BUDGET"]),
        connections=connections,
        sessions=sessions,
        quota=quota,
        version=version,
        results=results,
        replayable=replayable,
        time_budget_ms=app.config["GRAPHQL_TIME_BUDGET_MS"],
        graphql_ide="graphiql",
    )
    app.add_url_rule(GRAPHQL_PATH, view_func=view, methods=["GET", "POST"])
    app.register_blueprint(assets)
