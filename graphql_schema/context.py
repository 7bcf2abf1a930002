"""What every resolver receives as ``info.context``."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import Any

from sqlalchemy import Connection

from service.dataset import EMPTY_TABLES, TableSizes
from web.today import request_instant, request_now

from .loaders import BatchCache


@dataclass
class Context:
    """Every read goes through ``db``, the request's plain connection, opened on first use:
    resolvers build no ORM objects, so a query opens no session, as a REST read does not."""

    connections: Callable[[], Connection]
    today: date  # deals are active on or after this day (evaluated once per request)
    # The request's minute (UTC), read from the request's one clock reading when a resolver
    # first calls it (opening hours "now"); calling it marks the answer as one for that minute.
    now: Callable[[], datetime] = request_now
    # The request's instant, unmarked (web.today.request_instant): what updatedSince must not
    # be later than.
    instant: Callable[[], datetime] = request_instant
    batch: BatchCache = field(default_factory=BatchCache)
    # What a resolver worked out from the query's own nodes, shared by the field's siblings.
    by_nodes: dict[tuple[int, ...], tuple[Any, Any]] = field(default_factory=dict)
    # time.monotonic() after which execution stops (deadline.py); None: no time budget.
    deadline: float | None = None
    # {requested, budget} of the admitted document, set by the cost check (cost.py); "charged",
    # its quota units, added once it is charged (admission.py).
    cost: dict[str, int] | None = None
    # The data's table sizes, which the cost check weighs rows read by (the view's, per data
    # version); by default those of an empty database.
    sizes: Callable[[], TableSizes] = field(default=lambda: EMPTY_TABLES)
    # Days the change feed keeps deletions (CHANGE_RETENTION_DAYS), shown with its pages.
    retention_days: int = 30

    @cached_property
    def db(self) -> Connection:
        return self.connections()
