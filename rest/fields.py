"""Strict query-string fields: ASCII numbers (service.numbers) and booleans only (and the output
fields).

Python's int() and float() accept "1_000", " 7", full-width digits, "nan" and "inf"; a query
string should not, so these fields match an exact grammar before converting.
"""

from typing import Any

from marshmallow import ValidationError, fields, missing

from service import numbers
from service.stamps import stamp_text

_TRUE = ("true", "1")
_FALSE = ("false", "0")


class _Described:
    """Mixin: error messages read "<param> must be <expectation>"."""

    data_key: str | None  # set by the marshmallow field it is mixed into

    def __init__(self, *, expect: str, **kwargs: Any) -> None:
        self.expect = expect
        super().__init__(**kwargs)

    def fail_for(self, attr: str | None, why: str = "") -> ValidationError:
        name = self.data_key or attr or "value"
        return ValidationError(f"{name} must be {self.expect}" + (f" ({why})" if why else ""))


class StrictInteger(_Described, fields.Integer):
    """A whole number in the number grammar (``20``, ``1e1``, ``20.0``); one of more than 18
    digits is read as +-10**18 (service.numbers.read_integer)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        number = numbers.read_integer(value) if isinstance(value, str) else None
        if number is None:
            raise self.fail_for(attr)
        return number


class StrictNumber(_Described, fields.Float):
    """A finite number in the number grammar, exponents included: no nan, inf, hex or padding."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        try:
            number = numbers.read_float(value) if isinstance(value, str) else None
        except numbers.OutOfRange as error:
            raise self.fail_for(attr, str(error)) from None
        if number is None:
            raise self.fail_for(attr)
        return number


class StrictBoolean(_Described, fields.Boolean):
    """true/false or 1/0, any letter case."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(expect="true or false", **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        folded = value.lower() if isinstance(value, str) else None
        if folded in _TRUE:
            return True
        if folded in _FALSE:
            return False
        raise self.fail_for(attr)


BOOLEAN_PATTERN = "^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])$"


def list_pattern(item: str, most: int) -> str:
    """One to ``most`` values separated by commas, each matching the anchored ``item``."""
    inner = item.removeprefix("^").removesuffix("$")
    return f"^(?:{inner})(?:,(?:{inner})){{0,{most - 1}}}$"


# Output fields of the schemas (rest/schemas.py).


class AbsentWhenNone(fields.Field[Any]):
    """An output field left out of the object when its value is None (rather than null)."""

    def serialize(self, attr: str, obj: Any, accessor: Any = None, **kwargs: Any) -> Any:
        value = super().serialize(attr, obj, accessor, **kwargs)
        return missing if value is None else value


class OptionalFloat(AbsentWhenNone, fields.Float):
    """A number that is left out when there is none."""


class OptionalString(AbsentWhenNone, fields.String):
    """A string that is left out when there is none."""


class OptionalBoolean(AbsentWhenNone, fields.Boolean):
    """A boolean that is left out when there is none (False is kept)."""


class Stamp(fields.String):
    """A change stamp (a datetime) as RFC 3339 in UTC with milliseconds and Z
    (service.stamps.stamp_text); published as a date-time string."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else stamp_text(value)


class Rendered(fields.List):  # type: ignore[type-arg]
    """A list whose items the view has already rendered as its ``Nested`` schema dumps them (a
    page of up to 1,000 small items, where a dump per item would cost most of the request):
    published as that list, written out as it is. A test compares the two."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value
