"""Strict query-string fields: plain ASCII numbers and booleans only (and the output fields).

Python's int() and float() accept "1_000", " 7", full-width digits, "1e3", "nan" and "inf";
a query string should not, so these fields match an exact pattern before converting.
"""

import re
from typing import Any

from marshmallow import ValidationError, fields, missing

_INTEGER = re.compile(r"^-?[0-9]{1,18}$")
_DECIMAL = re.compile(r"^-?(?:[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})$")
_TRUE = ("true", "1")
_FALSE = ("false", "0")


class _Described:
    """Mixin: error messages read "<param> must be <expectation>"."""

    data_key: str | None  # set by the marshmallow field it is mixed into

    def __init__(self, *, expect: str, **kwargs: Any) -> None:
        self.expect = expect
        super().__init__(**kwargs)

    def fail_for(self, attr: str | None) -> ValidationError:
        name = self.data_key or attr or "value"
        return ValidationError(f"{name} must be {self.expect}")


class StrictInteger(_Described, fields.Integer):
    """An integer written with ASCII digits and an optional leading minus sign."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _INTEGER.fullmatch(value):
            raise self.fail_for(attr)
        return int(value)


class StrictNumber(_Described, fields.Float):
    """A decimal number written with ASCII digits: no exponent, nan, inf or padding."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
            raise self.fail_for(attr)
        return float(value)


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


# Regexes of exactly the strings these fields take, bounds checked by the service folded in. The
# document publishes typed values (number, integer, boolean) with their bounds; these patterns
# stay beside the fields (rest.parameters.ACCEPTS) for the tests that hold the server to the grammar
# the descriptions state.
DECIMAL_DIGITS = 12  # digits allowed before the point, and after it, by _DECIMAL
INTEGER_DIGITS = 18  # digits StrictInteger reads


def _same_length_range(low: str, high: str) -> list[str]:
    """Regex alternatives for the digit strings of len(low) from ``low`` to ``high``."""
    rest = len(low) - 1
    if low == high:
        return [low]
    if low[1:] == "0" * rest and high[1:] == "9" * rest:
        return [f"[{low[0]}-{high[0]}]" + _repeat("[0-9]", rest)]
    if low[0] == high[0]:
        return [low[0] + part for part in _same_length_range(low[1:], high[1:])]
    parts = [low[0] + part for part in _same_length_range(low[1:], "9" * rest)]
    if int(high[0]) - int(low[0]) > 1:
        parts += _same_length_range(
            str(int(low[0]) + 1) + "0" * rest, str(int(high[0]) - 1) + "9" * rest
        )
    return parts + [high[0] + part for part in _same_length_range("0" * rest, high[1:])]


def _repeat(atom: str, low: int, high: int | None = None) -> str:
    """``atom`` repeated ``low`` times, or ``low`` to ``high`` times; "" when that is nothing."""
    high = low if high is None else high
    if high == 0:
        return ""
    if low == high:
        return atom if low == 1 else f"{atom}{{{low}}}"
    return f"{atom}{{{low},{high}}}"


def _digits(low: int, high: int) -> str:
    """Digit strings of at most 12 characters, leading zeros allowed, valued ``low``..``high``."""
    alternatives = []
    for width in range(len(str(low)), len(str(high)) + 1):
        start, stop = max(low, 10 ** (width - 1)), min(high, 10**width - 1)
        zeros = _repeat("0", 0, DECIMAL_DIGITS - width)
        alternatives += [zeros + part for part in _same_length_range(str(start), str(stop))]
    return "|".join(alternatives)


def integer_pattern(minimum: int, maximum: int | None = None) -> str:
    """The StrictInteger strings valued from ``minimum`` (0 or 1) to ``maximum`` (None: any of
    its 18 digits). Leading zeros are allowed; "-0" is zero, so it is in when 0 is."""
    n = INTEGER_DIGITS
    if maximum is None:
        positive = "[1-9][0-9]*"
    else:
        positive = "|".join(
            part
            for width in range(1, len(str(maximum)) + 1)
            for part in _same_length_range(str(10 ** (width - 1)), str(min(maximum, 10**width - 1)))
        )
    alternatives = [f"(?=[0-9]{{1,{n}}}$)0*(?:{positive})"]
    if minimum <= 0:
        alternatives.append(f"-?0{{1,{n}}}")
    return "^(?:" + "|".join(alternatives) + ")$"


def decimal_pattern(maximum: int, *, exclusive_minimum: bool = False) -> str:
    """The StrictNumber strings valued from 0 (excluded if ``exclusive_minimum``) to ``maximum``.

    ``maximum`` is a positive integer. "-0" is zero, so it is in when 0 is.
    """
    n = DECIMAL_DIGITS
    any_fraction = rf"(?:\.[0-9]{{0,{n}}})?"
    zero_fraction = rf"(?:\.0{{0,{n}}})?"
    zeros = rf"0{{1,{n}}}"
    whole = [
        f"(?:{_digits(1, maximum - 1)}){any_fraction}",
        f"{_digits(maximum, maximum)}{zero_fraction}",
    ]
    if exclusive_minimum:
        # A zero integer part (or none) needs a non-zero digit somewhere in the fraction.
        nonzero = "|".join(
            _repeat("0", k) + "[1-9]" + _repeat("[0-9]", 0, n - 1 - k) for k in range(n)
        )
        zero = [rf"(?:{zeros})?\.(?:{nonzero})"]
    else:
        negative_zero = rf"-(?:{zeros}{zero_fraction}|\.{zeros})"
        zero = [f"{zeros}{any_fraction}", rf"\.[0-9]{{1,{n}}}", negative_zero]
    return "^(?:" + "|".join(whole + zero) + ")$"


BOOLEAN_PATTERN = "^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])$"


def coordinate_pattern(limit: int) -> str:
    """The coordinates service.places.coordinate takes: a sign, at most three digits (value at
    most ``limit``, 90 or 180) and twelve decimals, no exponent."""
    fraction = "(?:\\.[0-9]{0,12})?"
    zero_fraction = "(?:\\.0{0,12})?"
    if limit == 90:
        below = "0{0,2}[0-9]|0?[1-8][0-9]"
        top = "0?90"
    else:
        below = "0{0,2}[0-9]|0?[1-9][0-9]|1[0-7][0-9]"
        top = "180"
    return f"^[+-]?(?:(?:{below}){fraction}|{top}{zero_fraction}|\\.[0-9]{{1,12}})$"


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
