import pytest
from marshmallow import Schema, ValidationError

from rest.fields import StrictBoolean, StrictInteger, StrictNumber


class Probe(Schema):
    limit = StrictInteger(expect="an integer from 1 to 100")
    thc_min = StrictNumber(expect="a number from 0 to 100")
    delivery = StrictBoolean()


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("0", 0),
        ("7", 7),
        ("-1", -1),
        ("000120", 120),
        ("1" * 18, int("1" * 18)),
        ("1e3", 1000),
        ("1E3", 1000),
        ("1.0", 1),
        ("+5", 5),
        ("-0.0", 0),
        ("1.5e1", 15),
        ("1500e-2", 15),
        ("9.99999999999999999e17", 999999999999999999),
        ("0e2000000000000000000", 0),  # an exponent past what Decimal holds
    ],
)
def test_integers_are_whole_numbers_in_any_json_number_form(raw: str, value: int) -> None:
    assert Probe().load({"limit": raw}) == {"limit": value}


@pytest.mark.parametrize(
    "raw",
    [
        "",
        " 7",
        "7 ",
        "7\n",
        "1_000",
        "\uff11\uff10",
        "\u0663",
        "1.5",
        "1e-3",
        "1.00000000000000000000000000000001",
        "1.00000000000000000000000000000000000001e20",
        "1e-2000000000000000000",
        "nan",
        "inf",
        "Infinity",
        "0x10",
        "e3",
        "1e",
        "1e+",
        ".",
        "--1",
    ],
)
def test_anything_else_is_not_an_integer(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        Probe().load({"limit": raw})
    assert info.value.messages == {"limit": ["limit must be an integer from 1 to 100"]}


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("1" * 19, 10**18),
        ("1e18", 10**18),
        ("-1e30", -(10**18)),
        ("1e999999999", 10**18),
        ("1e2000000000000000000", 10**18),
        ("-1e2000000000000000000", -(10**18)),
    ],
)
def test_a_whole_number_of_more_than_18_digits_is_read_as_ten_to_the_18(
    raw: str, value: int
) -> None:
    # Larger than every bound (a limit is reduced, an offset refused); no huge int is built.
    assert Probe().load({"limit": raw}) == {"limit": value}


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("20", 20.0),
        ("20.5", 20.5),
        (".5", 0.5),
        ("7.", 7.0),
        ("-3", -3.0),
        ("1e-05", 1e-05),
        ("1E2", 100.0),
        ("1.0e+2", 100.0),
        ("+2.5E-1", 0.25),
        ("-0.0", 0.0),
        ("5e-324", 5e-324),
        ("1.7976931348623157e+308", 1.7976931348623157e308),
        ("0.30000000000000004", 0.30000000000000004),
        ("0e999999999", 0.0),
    ],
)
def test_numbers_are_any_json_number_form(raw: str, value: float) -> None:
    assert Probe().load({"thc_min": raw}) == {"thc_min": value}


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "Infinity",
        "20\n",
        "0x1p3",
        "1e",
        "e5",
        "1,5",
        "\uff12\uff10",
        " 20",
        "20%",
        ".",
    ],
)
def test_non_decimal_text_is_rejected(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        Probe().load({"thc_min": raw})
    assert info.value.messages == {"thc_min": ["thc_min must be a number from 0 to 100"]}


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("1e400", "1e400 is too large"),
        ("-1e309", "-1e309 is too large"),
        ("1e-400", "1e-400 is too close to 0"),
        ("2.4e-324", "2.4e-324 is too close to 0"),  # rounds to 0; 5e-324 is the least double
    ],
)
def test_a_number_a_double_cannot_hold_is_refused_saying_so(raw: str, why: str) -> None:
    with pytest.raises(ValidationError) as info:
        Probe().load({"thc_min": raw})
    assert info.value.messages == {"thc_min": [f"thc_min must be a number from 0 to 100 ({why})"]}


@pytest.mark.parametrize(
    ("raw", "value"),
    [("true", True), ("TRUE", True), ("1", True), ("false", False), ("False", False), ("0", False)],
)
def test_booleans_accept_true_false_one_zero(raw: str, value: bool) -> None:
    assert Probe().load({"delivery": raw}) == {"delivery": value}


@pytest.mark.parametrize("raw", ["yes", "no", "on", "t", "", "2", "tru"])
def test_other_boolean_spellings_are_rejected(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        Probe().load({"delivery": raw})
    assert info.value.messages == {"delivery": ["delivery must be true or false"]}
