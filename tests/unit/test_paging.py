import pytest

from service.bounds import DEFAULT_LIMIT, DOCTORS_MAX_LIMIT, MAX_LIMIT, MAX_OFFSET
from service.errors import InvalidParameter
from service.paging import PageRequest


def test_defaults_are_limit_20_offset_0() -> None:
    assert PageRequest.build() == PageRequest(limit=DEFAULT_LIMIT, offset=0) == PageRequest(20, 0)


@pytest.mark.parametrize(
    ("limit", "maximum", "effective"),
    [
        (1, MAX_LIMIT, 1),
        (100, MAX_LIMIT, 100),
        (101, MAX_LIMIT, 100),
        (10**18, MAX_LIMIT, 100),
        (50, DOCTORS_MAX_LIMIT, 50),
        (51, DOCTORS_MAX_LIMIT, 50),
    ],
)
def test_limit_above_the_maximum_is_clamped(limit: int, maximum: int, effective: int) -> None:
    assert PageRequest.build(limit, 0, maximum=maximum).limit == effective


@pytest.mark.parametrize("limit", [0, -1, -(10**18)])
def test_limit_below_one_is_rejected_naming_limit(limit: int) -> None:
    with pytest.raises(InvalidParameter, match="limit must be an integer from 1 to 100") as info:
        PageRequest.build(limit, 0)
    assert info.value.param == "limit"


@pytest.mark.parametrize("offset", [-1, MAX_OFFSET + 1, 10**18])
def test_offset_outside_zero_to_a_million_is_rejected(offset: int) -> None:
    with pytest.raises(InvalidParameter, match="offset must be an integer from 0 to 1000000"):
        PageRequest.build(20, offset)


def test_offset_at_the_bound_is_accepted() -> None:
    assert PageRequest.build(5, MAX_OFFSET).offset == MAX_OFFSET
