import pytest
from marshmallow import Schema, ValidationError

from rest.fields import StrictBoolean, StrictInteger, StrictNumber


class Probe(Schema):
    limit = StrictInteger(expect="an integer from 1 to 100")
    thc_min = StrictNumber(expect="a number from 0 to 100")
    delivery = StrictBoolean()


@pytest.mark.parametrize(
    ("raw", "value"), [("0", 0), ("7", 7), ("-1", -1), ("000120", 120), ("1" * 18, int("1" * 18))]
)
def test_integers_are_plain_ascii_digits(raw: str, value: int) -> None:
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
        "1e3",
        "1.0",
        "nan",
        "inf",
        "+5",
        "0x10",
        "1" * 19,
        "--1",
    ],
)
def test_anything_else_is_not_an_integer(raw: str) -> None:
    with pytest.raises(ValidationError) as info:
        Probe().load({"limit": raw})
    assert info.value.messages == {"limit": ["limit must be an integer from 1 to 100"]}


@pytest.mark.parametrize(
    ("raw", "value"), [("20", 20.0), ("20.5", 20.5), (".5", 0.5), ("7.", 7.0), ("-3", -3.0)]
)
def test_decimals_are_plain_ascii(raw: str, value: float) -> None:
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
        "1e3",
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
