"""The work terms of the cost estimate, named as the walk adds them, for the tests' hand-made
sums (graphql_schema.cost_work): a resolved field's calls, its statement once per request level,
and the rows its statements read, weighed by the shared tiny dataset's table sizes."""

from typing import Any

from graphql_schema import make_schema
from graphql_schema.cost_work import ARGUMENT, CALL, INTROSPECTION, WORK, rows_read
from service.dataset import TableSizes

_TYPES = make_schema()._schema.type_map

__all__ = ["INTROSPECTION", "Work"]


class Work:
    """Work terms over one dataset's ``sizes``; arguments are named as in GraphQL."""

    def __init__(self, sizes: TableSizes) -> None:
        self.sizes = sizes

    def call(self, owner: str, name: str, **arguments: Any) -> int:
        """One call of ``owner.name``: the call, its declared arguments, the rows it reads."""
        declared = len(_TYPES[owner].fields[name].args)  # type: ignore[union-attr]
        rows = rows_read(owner, name, arguments, self.sizes)
        return CALL + ARGUMENT * declared + WORK[(owner, name)].call + rows

    def statement(self, owner: str, name: str) -> int:
        """What ``owner.name`` costs once per request level, however many parents."""
        return WORK[(owner, name)].statement

    def field(self, owner: str, name: str, parents: int = 1, **arguments: Any) -> int:
        """``owner.name`` under ``parents`` parents: a call each and one statement."""
        return parents * self.call(owner, name, **arguments) + self.statement(owner, name)
