"""A priced document's admission, once its cost is known and before it runs: it is charged one
quota unit per started 1,000 of the estimate, and a heavy one (at least ``heavy_cost``) holds a
slot of its key's heavy work in flight (web.concurrency). A refusal is :class:`Refused`, which the
view turns into the 429 envelope: Strawberry would make an Exception a GraphQL error in a 200.
"""

from collections.abc import Callable, Iterator
from functools import partial

from strawberry.extensions import SchemaExtension

from service.errors import TooManyRequests
from service.quotas import units_for_cost
from web.concurrency import hold_heavy_slot
from web.limits import charge_more, in_metered_request

from .context import Context

HEAVY_WORK = "heavy GraphQL requests"


class Refused(BaseException):
    """The document was refused before it ran; ``error`` is the answer. Not an Exception, as
    deadline.OperationTimeout: it must end the request, not become a GraphQL error."""

    def __init__(self, error: TooManyRequests) -> None:
        super().__init__(error.message)
        self.error = error


class Admission(SchemaExtension):
    """Charge an admitted document by its cost (``extensions.cost.charged``) and bound heavy
    ones in flight; executions outside a metered request (tests of the schema) run as they are."""

    def __init__(self, heavy_cost: int) -> None:
        super().__init__()
        self.heavy_cost = heavy_cost

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context.context
        cost = context.cost if isinstance(context, Context) else None
        if cost is not None and in_metered_request():
            requested = cost["requested"]
            units = units_for_cost(requested)
            try:
                # The slot first: a document refused for it costs the one unit already taken.
                if requested >= self.heavy_cost:
                    hold_heavy_slot(what=HEAVY_WORK)
                charge_more(units, what=f"this GraphQL document (estimated cost {requested:,})")
            except TooManyRequests as refusal:
                raise Refused(refusal) from None
            cost["charged"] = units
        yield


def admission(heavy_cost: int) -> Callable[[], SchemaExtension]:
    """A factory of the extension (Strawberry builds one per operation)."""
    return partial(Admission, heavy_cost)
