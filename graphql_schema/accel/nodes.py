"""Work that every sibling of a field shares, done once per request instead of once per sibling.

The resolvers of one field in a list (each dispensary's ``menu``) see the same field nodes of the
query, so what they work out from those nodes alone (``info.selected_fields``, costly to convert)
is kept in the context by the nodes' identity.
With the tricks off (a schema built with ``stock=True``) it is worked out at every call.

Private names: Strawberry's ``Info._raw_info`` (graphql-core's resolve info, for its
``field_nodes``).
"""

from collections.abc import Callable
from typing import Any, TypeVar, cast

from strawberry import Info

PRIVATE_API = ("strawberry.types.info.Info._raw_info",)

T = TypeVar("T")


def per_field_nodes(info: Info[Any, Any], work: Callable[[], T]) -> T:
    """``work()``, remembered in ``info.context.by_nodes`` for the field's siblings when the
    schema's ``speed_tricks`` are on. One answer per field: ``work`` must depend only on the
    query's nodes (and the request's variables)."""
    if not getattr(info.schema, "speed_tricks", False):
        return work()
    nodes = info._raw_info.field_nodes
    key = tuple(map(id, nodes))
    memo = info.context.by_nodes
    found = memo.get(key)
    if found is None:
        # The nodes are kept with the answer so that their ids stay theirs for the request.
        found = memo[key] = (nodes, work())
    return cast(T, found[1])
