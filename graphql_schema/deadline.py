"""The time budget of a GraphQL operation: the error that ends it and the check of the clock.

The executor that runs the check at every field is ``accel/budgets.py``.
"""

from time import monotonic


class OperationTimeout(BaseException):
    """The operation ran past its deadline. Not an Exception: graphql-core would turn one into
    an error per field and carry on, where this must end the whole operation at once."""


def check(deadline: float | None) -> None:
    """Raise OperationTimeout once ``deadline`` (a ``time.monotonic()`` value) has passed."""
    if deadline is not None and monotonic() > deadline:
        raise OperationTimeout
