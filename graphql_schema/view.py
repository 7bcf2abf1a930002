"""The /graphql view: sync Strawberry view, our context, HTTP-level errors as GraphQL responses,
offline GraphiQL."""

import json
import time
from collections.abc import Callable
from typing import Any

import orjson
from cross_web import HTTPException as TransportError
from flask import Blueprint, Request, Response, abort, current_app, g, request
from flask_limiter import Limiter
from strawberry.flask.views import GraphQLView
from strawberry.http import GraphQLHTTPResponse
from strawberry.http.ides import get_graphql_ide_html
from strawberry.types import ExecutionResult
from werkzeug.exceptions import MethodNotAllowed

from service.dataset import TableSizes, table_sizes
from service.errors import TimeBudgetExceeded
from web.csp import page_headers
from web.db import request_connection
from web.limits import quota_snapshot
from web.replay import mark_replayable
from web.today import request_now, request_today

from .admission import Refused
from .context import Context
from .deadline import OperationTimeout
from .errors import ArgumentNames, shape_error
from .graphiql import STATIC_URL, graphiql_page
from .schema import MAX_TOKENS
from .transport import refuse_unclear_request, shared_parse

# GraphQL over HTTP's media type for responses; application/json for clients that do not ask for it.
GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json"
JSON_TYPE = "application/json"

assets = Blueprint(
    "graphiql", __name__, static_folder="static/graphiql", static_url_path=STATIC_URL
)


def offline_graphiql_html() -> str:
    """Strawberry's GraphiQL page, served offline with our key handling (``graphiql``)."""
    return graphiql_page(get_graphql_ide_html("graphiql"))


def response_media_type() -> str:
    """``application/graphql-response+json`` when the request's Accept lists it (at least as
    high as ``application/json``), else ``application/json`` (GraphQL over HTTP, legacy clients).
    """
    listed = {value.lower(): quality for value, quality in request.accept_mimetypes}
    wanted = listed.get(GRAPHQL_RESPONSE_TYPE, 0)
    return GRAPHQL_RESPONSE_TYPE if wanted > 0 and wanted >= listed.get(JSON_TYPE, 0) else JSON_TYPE


def graphql_error_response(code: int, message: str, docs: str, param: str | None) -> Response:
    """An HTTP-level refusal of /graphql (no key, quota spent, bad request, ...) as a GraphQL
    response: one error, whose ``extensions`` carry what the REST envelope does (code = HTTP
    status, docs link, param). web.errors sets the status and headers (Retry-After, ...)."""
    extensions: dict[str, Any] = {"code": code, "docs": docs}
    if param is not None:
        extensions["param"] = param
    body = {"errors": [{"message": message, "extensions": extensions}]}
    response = Response(current_app.json.dumps(body))
    response.mimetype = response_media_type()
    response.vary.add("Accept")
    return response


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
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._limiter = limiter
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

    def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        if result.errors:
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
    """True for the GET that loads GraphiQL (no query): needs no key, charges no quota."""
    return request.method == "GET" and "query" not in request.args
