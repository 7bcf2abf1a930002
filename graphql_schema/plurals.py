"""Filters taking one value (the singular argument, ``state``, as it always has) or several (its
plural, ``states``: any of them), and the service's errors naming the argument the client wrote.

The service names such a filter by its singular whether it gets one value or a list; when the
client gave the plural, ``AnyOf.naming`` rewrites the error to name that plural instead.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import TypeVar

from service.errors import InvalidParameter

V = TypeVar("V")


class AnyOf:
    """The singular-or-plural filters of one field: ``pick`` each, then build the service's
    filters inside ``naming()``."""

    def __init__(self) -> None:
        self._plurals: dict[str, str] = {}  # singular -> plural, for each plural given

    def pick(
        self, singular: str, one: V | None, plural: str, many: Sequence[V] | None
    ) -> V | Sequence[V] | None:
        """The plural's values when given, else the singular's value; giving both is an
        InvalidParameter naming the plural."""
        if many is None:
            return one
        if one is not None:
            raise InvalidParameter(
                f"{singular} and {plural} cannot be combined: give one", param=plural
            )
        self._plurals[singular] = plural
        return many

    @contextmanager
    def naming(self) -> Iterator[None]:
        """An InvalidParameter about a plural's values names that plural: param and the
        message's leading word (``states takes at most 10 values``)."""
        try:
            yield
        except InvalidParameter as error:
            singular = error.param
            plural = self._plurals.get(singular) if singular is not None else None
            if singular is None or plural is None:
                raise
            message = error.message
            if message.startswith(f"{singular} "):
                message = plural + message[len(singular) :]
            raise InvalidParameter(message, param=plural) from error


def enum_values(chosen: Enum | Sequence[Enum] | None) -> str | list[str] | None:
    """The service's text of an enum filter's one member or several (``pick``'s answer)."""
    if chosen is None:
        return None
    if isinstance(chosen, Enum):
        return str(chosen.value)
    return [str(member.value) for member in chosen]
