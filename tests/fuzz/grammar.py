"""The oracle both fuzz suites hold the server to: a value is read when it matches its field's
stated grammar (rest.parameters.ACCEPTS, else the published pattern) and, for a number, its value
as a double (an integer: a whole number below 10**18) lies within the published bounds."""

import math
import re
from decimal import Decimal, InvalidOperation

from hypothesis import strategies as st
from marshmallow import fields

from rest.parameters import ACCEPTS

INTEGER_LIMIT = 10**18


def grammar_of(field: fields.Field) -> str:
    return field.metadata.get(ACCEPTS) or field.metadata["pattern"]


def _nonzero(text: str) -> bool:
    """Whether the number ``text`` has a non-zero digit before its exponent."""
    return re.search("[1-9]", re.split("[eE]", text)[0]) is not None


def _number_in_bounds(field: fields.Field, text: str) -> bool:
    metadata = field.metadata
    if isinstance(field, fields.Integer):
        try:
            value = Decimal(text)
        except InvalidOperation:  # an exponent beyond 10**18: only a zero is whole and small
            if _nonzero(text):
                return False
            value = Decimal(0)
        if value.copy_abs() >= INTEGER_LIMIT or value != value.to_integral_value():
            return False
        number: float = int(value)
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
