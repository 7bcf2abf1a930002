"""service.numbers: the one number grammar, and one canonical text per value."""

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.numbers import NUMBER, canonical, exact, read_float


@pytest.mark.parametrize(
    ("spellings", "expected"),
    [
        (["10", "1e1", "1E1", "1.0e+1", "10.0", "+010", "0.1e2", "100e-1"], "10"),
        (["0", "-0", "-0.0", "0e5", ".0", "0."], "0"),
        (["0.5", ".5", "5e-1", "5.0E-1", "0.50"], "5e-1"),
        (["5e-324", "0.5e-323"], "5e-324"),
        (["-2.5", "-25e-1"], "-25e-1"),
        (["1e18", "1000000000000000000"], "1e18"),  # past 18 digits: an exponent
    ],
)
def test_every_spelling_of_a_value_has_one_canonical_text(
    spellings: list[str], expected: str
) -> None:
    assert {canonical(text) for text in spellings} == {expected}


@pytest.mark.parametrize("text", ["abc", "1e", "nan", "Infinity", "0x10", " 1", "1_0", "80202 "])
def test_text_outside_the_grammar_is_kept_as_it_is(text: str) -> None:
    assert canonical(text) == text


def test_a_list_of_numbers_is_canonical_item_by_item() -> None:
    assert canonical("-1.22e2,37.70,-122.35,3.783E1") == "-122,377e-1,-12235e-2,3783e-2"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_way_python_writes_a_float_is_read_back_exactly(value: float) -> None:
    for text in (str(value), repr(value), f"{value:e}", f"{value:E}", f"{value:.17g}"):
        assert NUMBER.fullmatch(text), text
        if value == 0 or abs(value) >= 5e-324:
            read = read_float(text)
            assert read == float(text)
    assert read_float(repr(value)) == value


@given(
    st.decimals(allow_nan=False, allow_infinity=False),
    st.decimals(allow_nan=False, allow_infinity=False),
)
def test_two_texts_share_a_canonical_text_exactly_when_their_values_are_equal(
    a: Decimal, b: Decimal
) -> None:
    first, second = str(a), str(b)
    assert (canonical(first) == canonical(second)) == (exact(first) == exact(second))
    assert math.isclose(float(canonical(first)), float(a)) or float(a) == 0
