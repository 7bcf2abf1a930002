"""What the cost and time budgets need from internals. Always on: no public hook gives them.

Private names: Strawberry's ``StrawberryGraphQLCoreExecutionContext`` (its execution context
class, subclassed) and ``Schema._schema`` (the graphql-core schema it built, which the cost
check reads); graphql-core's executor methods ``execute_field`` and ``execute_fields``
(overridden to check the clock) and its ``context_value``.
"""

from typing import Any

from graphql import GraphQLSchema
from strawberry import Schema
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from ..deadline import check

PRIVATE_API = (
    "strawberry.schema.schema.StrawberryGraphQLCoreExecutionContext",
    "strawberry.schema.schema.Schema._schema",
    "graphql.execution.Executor.execute_field",
    "graphql.execution.Executor.execute_fields",
    "graphql.execution.Executor.context_value",
)


def core_schema(schema: Schema) -> GraphQLSchema:
    """The graphql-core schema Strawberry built from ``schema``."""
    return schema._schema


class DeadlineExecution(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's execution, stopped with OperationTimeout once the context's ``deadline``
    (a ``time.monotonic()`` value) has passed: checked at every field and every object."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline: float | None = getattr(self.context_value, "deadline", None)

    def check_deadline(self) -> None:
        check(self.deadline)

    def execute_field(self, *args: Any, **kwargs: Any) -> Any:
        check(self.deadline)
        return super().execute_field(*args, **kwargs)

    def execute_fields(self, *args: Any, **kwargs: Any) -> Any:
        check(self.deadline)
        return super().execute_fields(*args, **kwargs)
