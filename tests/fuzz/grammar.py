"""The oracle both fuzz suites hold the server to: a value is read when it matches its field's
stated grammar (rest.parameters.ACCEPTS, else the published pattern) and, for a number, its value
as a double (an integer: a whole number, one of more than 18 digits as +-10**18) lies within the
published bounds."""

import math
import re

from hypothesis import strategies as st
from marshmallow import fields

from rest.parameters import ACCEPTS

INTEGER_LIMIT = 10**18


def grammar_of(field: fields.Field) -> str:
    return field.metadata.get(ACCEPTS) or field.metadata["pattern"]


def _nonzero(text: str) -> bool:
    """Whether the number ``text`` has a non-zero digit before its exponent."""
    return re.search("[1-9]", re.split("[eE]", text)[0]) is not None


def _whole(text: str) -> int | None:
    """The whole number ``text`` writes, one of more than 18 digits as +-10**18; None when a
    fraction is left. Worked out on the digits, so no exponent is too large for it."""
    match = re.fullmatch(r"([+-]?)([0-9]*)\.?([0-9]*)(?:[eE]([+-]?[0-9]+))?", text)
    assert match is not None, text
    sign, whole, fraction, exponent = match.groups()
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return 0
    power = int(exponent or "0") - len(fraction)
    power += len(digits) - len(digits.rstrip("0"))
    digits = digits.rstrip("0")
    if power < 0:
        return None
    value = INTEGER_LIMIT if len(digits) + power > 18 else int(digits) * 10**power
    return -value if sign == "-" else value


def _number_in_bounds(field: fields.Field, text: str) -> bool:
    metadata = field.metadata
    if isinstance(field, fields.Integer):  # whole, of any size
        whole = _whole(text)
        if whole is None:
            return False
        number: float = whole
    else:
        number = float(text)
        if not math.isfinite(number) or (number == 0 and _nonzero(text)):
            return False  # a double cannot hold it
    if "minimum" in metadata and number < metadata["minimum"]:
        return False
    if metadata.get("exclusiveMinimum") and number <= metadata["minimum"]:
        return False
    return "maximum" not in metadata or number <= metadata["maximum"]


def is_number(field: fields.Field) -> bool:
    return isinstance(field, fields.Integer | fields.Float) or field.metadata.get("type") in (
        "number",
        "integer",
    )


def reads(field: fields.Field, value: str) -> bool:
    """Whether the field's documented grammar and bounds take ``value``."""
    if re.fullmatch(grammar_of(field), value) is None:
        return False
    return not is_number(field) or _number_in_bounds(field, value)


def spellings(field: fields.Field) -> st.SearchStrategy[str]:
    """Values of a number field near and within its bounds, written in the JSON number forms a
    client may use (plain, Python's str(), exponents in either case)."""
    low = field.metadata.get("minimum", -(10**6))
    high = field.metadata.get("maximum", 10**6)
    if isinstance(field, fields.Integer):
        values: st.SearchStrategy[float] = st.integers(low - 2, high + 2).map(float)
    else:
        values = st.one_of(
            st.floats(low - 1, high + 1),
            st.sampled_from([5e-324, 1e-05, 0.0, -0.0, float(low), float(high)]),
        )
    forms = st.sampled_from(["{!r}", "{:e}", "{:E}", "{:.0f}", "{:.3e}", "{:f}"])
    return st.builds(lambda value, form: form.format(value), values, forms)
