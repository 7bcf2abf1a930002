"""The GraphQL edge (Strawberry) over the same service layer as REST.

May import web, service (and models for type hints), strawberry, graphql-core and flask (view
and context only); never rest or seed.
"""

from typing import Any

from flask import Flask

from web.caching import PageCache
from web.documents import DocumentStore
from web.routes import RoutePolicy, declare_paths, deep_paths, route_policy
from web.settings import page_cache_bytes
from web.state import web_state

from .accel.result_cache import CachingGraphQLView
from .refusals import graphql_error_response
from .schema import make_schema
from .view import ApiGraphQLView, assets, is_ide_request, is_persisted_get, sdl_view

GRAPHQL_PATH = "/graphql"
SDL_PATH = "/graphql/schema.graphql"

__all__ = ["GRAPHQL_PATH", "SDL_PATH", "init_graphql", "is_ide_request", "make_schema"]


def init_graphql(app: Flask) -> None:
    """Serve the schema at /graphql (GET and POST), its SDL at /graphql/schema.graphql and
    GraphiQL's vendored assets.

    Operations need a key and are charged by their cost; the GraphiQL page (a GET without a query)
    is open. The cost and time budgets come from ``GRAPHQL_COST_BUDGET`` and
    ``GRAPHQL_TIME_BUDGET_MS``, the cost of heavy work from ``GRAPHQL_HEAVY_COST``. Persisted
    queries (``GRAPHQL_PERSISTED_*``) sent by GET get ETags, 304s and a short private max-age;
    with ``SPEED_TRICKS`` off the schema runs on Strawberry's own execution and the view keeps
    no result cache.
    """
    state = web_state(app)
    tricks = app.config["SPEED_TRICKS"]
    schema = make_schema(
        stock=not tricks,
        cost_budget=app.config["GRAPHQL_COST_BUDGET"],
        heavy_cost=app.config["GRAPHQL_HEAVY_COST"],
    )
    options: dict[str, Any] = {
        "schema": schema,
        "limiter": state.limiter,
        "time_budget_ms": app.config["GRAPHQL_TIME_BUDGET_MS"],
        "version": state.version.get,
        "documents": DocumentStore(
            state.limiter,
            max_entries=app.config["GRAPHQL_PERSISTED_ENTRIES"],
            max_bytes=min(
                app.config["GRAPHQL_PERSISTED_MAX_BYTES"], app.config["MAX_CONTENT_LENGTH"]
            ),
        ),
        "graphql_ide": "graphiql",
    }
    if tricks:
        view = CachingGraphQLView.as_view(
            "graphql", results=PageCache(page_cache_bytes(app)), **options
        )
    else:
        view = ApiGraphQLView.as_view("graphql", **options)
    # An answer that read the clock (opening hours now) is tagged for its minute only.
    persisted_get = RoutePolicy(
        keyed=True,
        metered=True,
        conditional=True,
        clocked_by_answer=True,
        max_age=app.config["GRAPHQL_PERSISTED_MAX_AGE_S"],
        render_error=graphql_error_response,
    )
    # Its HTTP-level errors (401, 429, 400, ...) are GraphQL responses, as every client reads.
    route_policy(
        keyed=True,
        metered=True,
        conditional=False,
        open_when=is_ide_request,
        refine=lambda: persisted_get if is_persisted_get() else None,
        render_error=graphql_error_response,
    )(view)
    app.add_url_rule(GRAPHQL_PATH, view_func=view, methods=["GET", "POST"])
    deep_paths(app).add(GRAPHQL_PATH)  # nested resolvers run deep: a fresh stack chunk each
    # Other methods on /graphql (405) need a key and are charged like operations.
    declare_paths(
        app,
        RoutePolicy(keyed=True, metered=True, render_error=graphql_error_response),
        exact=[GRAPHQL_PATH],
    )
    # The SDL, like the OpenAPI document: no key, no charge (what codegen reads).
    sdl = route_policy(keyed=False, metered=False, conditional=False)(
        sdl_view(str(schema).strip() + "\n")
    )
    app.add_url_rule(SDL_PATH, "graphql_sdl", view_func=sdl, methods=["GET"])
    app.register_blueprint(assets)
