"""The /graphql view: sync Strawberry view, our context, HTTP-level errors as GraphQL responses,
offline GraphiQL."""

import json
import time
from collections.abc import Callable
from typing import Any

import orjson
from cross_web import HTTPException as TransportError
from cross_web import SyncHTTPRequestAdapter
from flask import Blueprint, Request, Response, abort, current_app, g, request
from flask_limiter import Limiter
from strawberry.flask.views import GraphQLView
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.ides import get_graphql_ide_html
from strawberry.types import ExecutionResult
from werkzeug.exceptions import MethodNotAllowed

from service.dataset import TableSizes, table_sizes
from service.errors import TimeBudgetExceeded
from web.conditional import uncacheable
from web.csp import page_headers
from web.db import request_connection
from web.documents import DocumentStore
from web.limits import quota_snapshot
from web.replay import mark_replayable
from web.today import request_now, request_today

from .admission import Refused
from .context import Context
from .deadline import OperationTimeout
from .errors import ArgumentNames, shape_error
from .graphiql import STATIC_URL, graphiql_page
from .persisted import is_persisted, resolve_persisted
from .refusals import TransportRefusal, refusal_response
from .schema import MAX_TOKENS
from .transport import (
    refuse_non_query_over_get,
    refuse_unclear_operation,
    refuse_unclear_request,
    shared_parse,
)

assets = Blueprint(
    "graphiql", __name__, static_folder="static/graphiql", static_url_path=STATIC_URL
)


def offline_graphiql_html() -> str:
    """Strawberry's GraphiQL page, served offline with our key handling (``graphiql``)."""
    return graphiql_page(get_graphql_ide_html("graphiql"))


class ApiGraphQLView(GraphQLView[Context, None]):
    """Runs operations with a per-request Context and reports the caller's quota.

    Each operation has ``time_budget_ms`` from the start of the request; past it, execution stops
    and the request ends with a 503 envelope. An admitted document's cost estimate and the quota
    units it was charged are reported in ``extensions.cost`` (from the CostLimits extension's
    results); one refused before it ran for its units or for heavy work in flight ends with a 429
    envelope.
    """

    # One instance serves every request (it keeps only what __init__ sets, read-only after), so
    # the GraphiQL page is read and rewritten once, not on every operation.
    init_every_request = False

    def __init__(
        self,
        *,
        limiter: Limiter,
        time_budget_ms: int,
        version: Callable[[], int],
        documents: DocumentStore,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._limiter = limiter
        self._documents = documents
        self._time_budget_ms = time_budget_ms
        self._version = version
        # The table sizes the cost check weighs rows by, with the data version they are of.
        self._sizes: tuple[int, TableSizes] | None = None
        self._argument_names = ArgumentNames.of(self.schema)
        self._parse = shared_parse(MAX_TOKENS)
        self._ide_html = offline_graphiql_html()
        # Its icon and fonts are data: URLs; its scripts post operations to /graphql.
        self._ide_headers = page_headers(self._ide_html, data_urls=True, connect=True)

    @property
    def graphql_ide_html(self) -> str:
        return self._ide_html

    def should_render_graphql_ide(self, request: Any) -> bool:
        # A GET with a persisted query's hash (and no query) is an operation, not the page.
        return "extensions" not in request.query_params and super().should_render_graphql_ide(
            request
        )

    def render_graphql_ide(self, request: Request) -> Response:
        # The page as hashed for its policy (Strawberry's own renders it through Jinja).
        return Response(self._ide_html, mimetype="text/html", headers=self._ide_headers)

    def get_context(self, request: Request, response: Response) -> Context:
        return Context(
            connections=request_connection,
            today=request_today(),
            now=request_now,
            deadline=time.monotonic() + self._time_budget_ms / 1000,
            sizes=self.table_sizes,
            retention_days=current_app.config["CHANGE_RETENTION_DAYS"],
        )

    def table_sizes(self) -> TableSizes:
        """The data's table sizes, counted again when the data version changes."""
        version = self._version()
        known = self._sizes
        if known is None or known[0] != version:
            known = self._sizes = (version, table_sizes(request_connection()))
        return known[1]

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    def decode_json(self, data: str | bytes) -> object:
        try:
            return json.loads(data)
        except RecursionError:  # [[[[...]]]]: the decoder's stack, not a server fault
            raise TransportError(400, "JSON in the request is nested too deeply") from None

    def parse_query_params(self, params: Any) -> dict[str, Any]:
        try:
            return super().parse_query_params(params)
        except TransportError as error:
            if error.reason != "Unable to parse request body as JSON":
                raise
            raise TransportError(
                400, "the variables or extensions parameter of a GET is not valid JSON"
            ) from None

    def parse_http_body(
        self, request: SyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        data = super().parse_http_body(request)
        if isinstance(data, list):
            return data  # a batch: refused by the base view
        if is_persisted(data):
            stored = data.query is None
            data = resolve_persisted(data, self._documents)
            if stored and data.query is not None:  # checked before it was stored
                refuse_unclear_operation(data.query, data.operation_name, self._parse)
        if request.method == "GET" and data.query is not None:
            refuse_non_query_over_get(data.query, data.operation_name, self._parse)
        return data

    def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        if result.errors:
            uncacheable()  # an answer with errors gets no ETag and is never replayed
            result.errors = [shape_error(error, self._argument_names) for error in result.errors]
        data = super().process_result(request, result)
        extensions = dict(data.pop("extensions", None) or {})
        # The cost goes after the quota: a replay replaces the quota and keeps what follows.
        cost = extensions.pop("cost", None)
        quota = quota_snapshot(self._limiter)
        if quota is not None:
            extensions["rateLimit"] = quota
        if cost is not None and data.get("data") is not None:
            extensions["cost"] = cost
        if extensions:
            data["extensions"] = extensions
        if quota is not None:
            cacheable = g.get("graphql_cacheable")
            if cacheable is not None:
                units = cost.get("charged", 1) if isinstance(cost, dict) else 1
                mark_replayable(*cacheable, quota_in_body=quota, units=units)
        return data

    def dispatch_request(self) -> Any:
        refuse_unclear_request(request, self._parse)
        try:
            return self.run(request=request)
        except TransportRefusal as refusal:
            uncacheable()
            return refusal_response(refusal)
        except Refused as refused:
            raise refused.error from None
        except OperationTimeout:
            raise TimeBudgetExceeded(
                f"the GraphQL operation ran past its time budget of {self._time_budget_ms} ms "
                "and was stopped; ask for less (lower limits, fewer nested lists) or split it"
            ) from None
        except UnicodeDecodeError:
            abort(400, description="request body is not valid UTF-8 JSON")
        except TransportError as error:
            # Malformed transport (bad JSON, no query, batches): the app-wide error, not text.
            if error.status_code == 405:
                raise MethodNotAllowed(valid_methods=["GET", "POST"]) from error
            abort(error.status_code, description=error.reason)


def sdl_view(sdl: str) -> Callable[[], Response]:
    """``GET /graphql/schema.graphql``: the schema in SDL, for codegen and typed clients."""

    def schema_sdl() -> Response:
        return Response(sdl, mimetype="text/plain")  # charset=utf-8 is added for text/*

    return schema_sdl


def is_ide_request() -> bool:
    """True for the GET that loads GraphiQL (no query, no persisted query's hash): needs no key,
    charges no quota."""
    args = request.args
    return request.method == "GET" and "query" not in args and "extensions" not in args


def is_persisted_get() -> bool:
    """True for a GET naming its document by a persisted query's hash (``extensions``)."""
    return request.method == "GET" and "extensions" in request.args
