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
# A whole number of more than 18 digits is read as +-10**18: larger than any bound, never built.
INTEGER_DIGITS = 18
INTEGER_CAP: int = 10**INTEGER_DIGITS
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
    """``text`` as an int when its value is a whole number (``1e1``, ``10.0``), else None. A
    whole number of more than 18 digits (``1e30``) is read as +-10**18, so a limit of any size
    is reduced and an offset of any size is out of range, without building a huge int."""
    value = exact(text)
    if value is None:  # in the grammar, an exponent beyond 10**18 (a zero is read as 0)
        if NUMBER.fullmatch(text) is None or "-" in text.lower().partition("e")[2]:
            return None  # not a number, or a non-zero value below 1: not whole
        return -INTEGER_CAP if text.startswith("-") else INTEGER_CAP
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: the grammar has no NaN or Infinity
    if value.is_zero():
        return 0
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    if exponent + trailing < 0:
        return None  # a fraction is left
    if value.adjusted() >= INTEGER_DIGITS:
        return -INTEGER_CAP if sign else INTEGER_CAP
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
