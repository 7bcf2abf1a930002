"""The time budget of a GraphQL operation, checked as its fields resolve."""

from time import monotonic
from typing import Any

from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext


class OperationTimeout(BaseException):
    """The operation ran past its deadline. Not an Exception: graphql-core would turn one into
    an error per field and carry on, where this must end the whole operation at once."""


class DeadlineExecution(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's execution, stopped with OperationTimeout once the context's ``deadline``
    (a ``time.monotonic()`` value) has passed: checked at every field and every object."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline: float | None = getattr(self.context_value, "deadline", None)

    def check_deadline(self) -> None:
        if self.deadline is not None and monotonic() > self.deadline:
            raise OperationTimeout

    def execute_field(self, *args: Any, **kwargs: Any) -> Any:
        self.check_deadline()
        return super().execute_field(*args, **kwargs)

    def execute_fields(self, *args: Any, **kwargs: Any) -> Any:
        self.check_deadline()
        return super().execute_fields(*args, **kwargs)
