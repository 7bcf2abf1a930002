"""A result cache in front of Strawberry's execution: a repeated operation is answered without
parsing, validating or resolving it again (it is still authenticated and charged).

Private names: Strawberry's ``SyncBaseHTTPView.execute_single`` (undocumented; overridden to
answer from the cache before the schema is asked) and its ``SyncHTTPRequestAdapter`` (the
request adapter it is passed). With ``SPEED_TRICKS`` off the view has no result cache.
"""

from collections.abc import Callable
from datetime import date
from typing import Any

import orjson
from cross_web import SyncHTTPRequestAdapter
from flask import Request, Response, g
from strawberry.http import GraphQLRequestData
from strawberry.types import ExecutionResult

from web.caching import PageCache, cache_key
from web.limits import charge_more

from ..context import Context
from ..view import ApiGraphQLView

PRIVATE_API = (
    "strawberry.http.sync_base_view.SyncBaseHTTPView.execute_single",
    "strawberry.http.sync_base_view.SyncHTTPRequestAdapter",
)


class CachingGraphQLView(ApiGraphQLView):
    """Results without errors are kept by data version, day, method, document, variables and
        operation name (the data only changes with a seed or import), with the document's cost; an
        answer from here is charged the units the first one was (it holds no slot of heavy work),
        and such responses are marked replayable (``web.replay``). A result that read the request's
        minute (``web.today.request_now``: opening hours "now") is answered again only within that
        minute, as the replay store does. A result that read the change feed
    (``web.conditional.live_answer``) is neither kept nor replayed."""

    def __init__(
        self, *, version: Callable[[], int], results: PageCache[bytes], **kwargs: Any
    ) -> None:
        super().__init__(version=version, **kwargs)
        self._results = results

    def execute_single(
        self,
        request: Request,
        request_adapter: SyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: Any,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        version = self._version() if self._results.enabled else None
        tag = _result_tag(request_adapter.method, request_data, version, context.today)
        cached = self._results.get(tag) if tag is not None else None
        live = False
        if cached is not None:
            data, cost, until = orjson.loads(cached)
            # Reading the clock marks this answer, too, as one for the current minute.
            if until is not None and context.now().timestamp() >= until:
                cached = None
            else:
                _charge_as_first(cost)
                result = ExecutionResult(data=data, errors=None, extensions={"cost": cost})
        if cached is None:
            result = super().execute_single(
                request, request_adapter, sub_response, context, root_value, request_data
            )
            live = bool(g.get("live_answer"))  # web.conditional.live_answer: never kept
            if tag is not None and not result.errors and result.data is not None and not live:
                cost = (result.extensions or {}).get("cost")
                self._results.put(tag, orjson.dumps([result.data, cost, _until(context)]))
        if tag is not None and version is not None and not result.errors and not live:
            g.graphql_cacheable = (version, context.today)
        return result


def _charge_as_first(cost: dict[str, int] | None) -> None:
    """Charge a cached answer the units its first answer cost (429 when they are not left)."""
    if cost is not None:
        requested = cost["requested"]
        charge_more(
            cost.get("charged", 1), what=f"this GraphQL document (estimated cost {requested:,})"
        )


def _until(context: Context) -> float | None:
    """The epoch second a result stops being the answer: the end of the request's minute when
    it read that minute (``g.clock_read``, set by web.today.request_now), else None (never)."""
    return context.now().timestamp() + 60 if g.get("clock_read") else None


def _result_tag(
    method: str, data: GraphQLRequestData, version: int | None, today: date
) -> str | None:
    """The cache key of an operation, or None when it cannot be cached."""
    if version is None:
        return None
    try:
        variables = orjson.dumps(data.variables, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None  # not plain JSON (cannot come from a request, but stay safe)
    if not isinstance(data.query, str) or data.extensions:
        return None
    return cache_key(version, today.isoformat(), method, data.query, variables, data.operation_name)
