"""Numbers as query strings write them: one grammar for every number parameter, and the canonical
text that makes two spellings of one value one request (ETags, cached answers).

The grammar is JSON's number (exponents included: ``1e-05`` is what Python's str() writes),
widened only where the service always read more: leading zeros, ``.5``, ``5.`` and a leading
``+``. No NaN, Infinity, hex, ``_`` separators, whitespace or non-ASCII digits.
"""

import re
from decimal import Decimal, InvalidOperation

NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NUMBER_PATTERN = "^" + NUMBER.pattern + "$"
INTEGER_DIGITS = 18  # an integer parameter reads values below 10**18
_NONZERO = re.compile(r"[1-9]")


class OutOfRange(ValueError):
    """A number whose value a double (or an 18-digit integer) cannot hold."""


def _mantissa(text: str) -> str:
    return re.split("[eE]", text, maxsplit=1)[0]


def exact(text: str) -> Decimal | None:
    """The exact value of ``text`` if it is in the grammar, else None (also for a non-zero value
    whose exponent is beyond what Decimal holds, about 10**18: no double or integer is near)."""
    if NUMBER.fullmatch(text) is None:
        return None
    try:
        return Decimal(text)
    except (InvalidOperation, ValueError):
        return None if _NONZERO.search(_mantissa(text)) else Decimal(0)


def read_float(text: str) -> float | None:
    """``text`` as a float; None when it is not in the grammar. Raises :class:`OutOfRange` when
    the value overflows to infinity or a non-zero value underflows to zero."""
    if NUMBER.fullmatch(text) is None:
        return None
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise OutOfRange(f"{text} is too large")
    if number == 0 and _NONZERO.search(_mantissa(text)):
        raise OutOfRange(f"{text} is too close to 0")
    return number


def read_integer(text: str) -> int | None:
    """``text`` as an int when its value is a whole number below 10**18 in magnitude (``1e1``,
    ``10.0``); None otherwise, :class:`OutOfRange` when it is whole but too large."""
    value = exact(text)
    if value is None:
        if NUMBER.fullmatch(text) and "-" not in text.lower().partition("e")[2]:
            raise OutOfRange(f"{text} has more than {INTEGER_DIGITS} digits")
        return None
    if value.is_zero():
        return 0
    if value.adjusted() >= INTEGER_DIGITS:
        raise OutOfRange(f"{text} has more than {INTEGER_DIGITS} digits")
    if value.adjusted() < 0 or value != value.to_integral_value():
        return None
    return int(value)


def canonical(text: str) -> str:
    """One text per value: ``1e1``, ``10``, ``10.0`` and ``+010`` all give ``10`` (a whole number
    of at most 18 digits as plain digits, any other as digits and an exponent: ``0.5`` is
    ``5e-1``); text outside the grammar is returned as it is. Comma-separated lists (bbox) are
    canonical item by item."""
    if "," in text:
        return ",".join(canonical(part) for part in text.split(","))
    value = exact(text)
    if value is None:
        return text
    if value.is_zero():
        return "0"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: the grammar has no NaN or Infinity
    kept = list(digits)
    while kept[-1] == 0:
        kept.pop()
        exponent += 1
    mantissa = "".join(map(str, kept))
    if exponent >= 0 and len(mantissa) + exponent <= INTEGER_DIGITS:
        mantissa, exponent = mantissa + "0" * exponent, 0
    return ("-" if sign else "") + mantissa + (f"e{exponent}" if exponent else "")
