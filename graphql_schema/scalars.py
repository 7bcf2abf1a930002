"""The ``DateTime`` and ``Date`` scalars (ISO 8601), used for every ``datetime`` and ``date``.

Answers are ``isoformat()``, exactly the text these fields gave as ``String``s: an instant keeps
the UTC offset it was given (a dispensary's own), never converted to the server's. An instant in
UTC itself (``tzinfo`` is ``datetime.UTC``: the change stamps, ``updatedAt``) is written as REST
writes stamps, RFC 3339 with milliseconds and Z (service.stamps.stamp_text). Inputs must
be ISO 8601 (an instant with a UTC offset or Z); anything else is a GraphQL error naming the
scalar, raised as a GraphQLError so it is never masked as an unexpected one.
"""

from datetime import UTC, date, datetime

from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.types.scalar import ScalarDefinition

from service.stamps import stamp_text
from service.when import OPEN_AT_EXAMPLE, SINCE_EXAMPLE

DATE_EXAMPLE = "2026-12-24"


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise StrawberryInputCoercionError(f"{name} must be a string, not {value!r}")
    return value


def serialize_datetime(value: datetime) -> str:
    return stamp_text(value) if value.tzinfo is UTC else value.isoformat()


def serialize_date(value: date) -> str:
    return value.isoformat()


def parse_datetime(value: object) -> datetime:
    """An aware datetime from ISO 8601 text with a UTC offset (or Z)."""
    text = _text(value, "DateTime")
    message = (
        f"DateTime must be an ISO 8601 date and time with a UTC offset or Z, such as "
        f"{OPEN_AT_EXAMPLE}; got {text!r}"
    )
    try:
        parsed = datetime.fromisoformat(text) if text.isascii() else None
    except ValueError:
        parsed = None
    if (
        parsed is None
        or parsed.tzinfo is None
        or parsed.utcoffset() is None
        or "T" not in text.upper()
    ):
        raise StrawberryInputCoercionError(message)
    return parsed


def parse_date(value: object) -> date:
    """A date from ISO 8601 text (YYYY-MM-DD)."""
    text = _text(value, "Date")
    try:
        if not text.isascii():
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise StrawberryInputCoercionError(
            f"Date must be an ISO 8601 date, such as {DATE_EXAMPLE}; got {text!r}"
        ) from None


DATE_TIME = ScalarDefinition(
    name="DateTime",
    description=(
        "An instant: ISO 8601 date and time with its UTC offset (such as "
        f"{OPEN_AT_EXAMPLE}); change stamps (updatedAt) are in UTC, with milliseconds and Z "
        f"(such as {SINCE_EXAMPLE}); as an input, Z is accepted for UTC."
    ),
    specified_by_url=None,
    serialize=serialize_datetime,
    parse_value=parse_datetime,
    parse_literal=None,
    origin=datetime,
)
DATE = ScalarDefinition(
    name="Date",
    description=f"A calendar date: ISO 8601, YYYY-MM-DD (such as {DATE_EXAMPLE}).",
    specified_by_url=None,
    serialize=serialize_date,
    parse_value=parse_date,
    parse_literal=None,
    origin=date,
)
# Schema(scalar_overrides=...): every datetime and date of the schema is one of these.
SCALAR_OVERRIDES: dict[object, ScalarDefinition] = {datetime: DATE_TIME, date: DATE}
