import math

import pytest

from service.errors import InvalidParameter
from service.filters import (
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    SearchQuery,
    StrainFilters,
)
from service.geo import EARTH_RADIUS_MILES, Point, bounding_box, haversine_miles
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES
from tests.filters import dispensary_filters


# Each filter with a closed vocabulary: how to build it from one value, and what it keeps.
def _one(values: tuple[str, ...] | None) -> str | None:
    """The single value of a filter that takes several ("any of")."""
    assert values is not None
    assert len(values) == 1
    return values[0]


CHOICES = {
    "strains.type": (lambda v: _one(StrainFilters.create(type=v).type), STRAIN_TYPES),
    "dispensaries.type": (
        lambda v: _one(DispensaryFilters.create(type=v).type),
        DISPENSARY_TYPES,
    ),
    "deals.category": (
        lambda v: _one(DealFilters.create(category=v).category),
        DEAL_CATEGORIES,
    ),
    "search.type": (lambda v: SearchQuery.create(q="og", type=v).type, SEARCH_TYPES),
}


def test_strain_filters_fold_case_and_keep_ranges() -> None:
    f = StrainFilters.create(
        type="InDiCa", effect="Relaxed", flavor=" EARTHY ", thc_min=10.0, thc_max=20.0
    )
    assert (f.type, f.effect, f.flavor, f.thc_min, f.thc_max) == (
        ("indica",),
        ("relaxed",),
        ("earthy",),
        10.0,
        20.0,
    )


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        ({"type": "ruderalis"}, "type", "type must be one of: indica, sativa, hybrid"),
        ({"thc_min": 30.0, "thc_max": 10.0}, "thc_min", "thc_min must not be greater than thc_max"),
        ({"cbd_min": 5.0, "cbd_max": 1.0}, "cbd_min", "cbd_min must not be greater than cbd_max"),
        ({"thc_max": 101.0}, "thc_max", "thc_max must be a number from 0 to 100"),
        ({"cbd_min": -1.0}, "cbd_min", "cbd_min must be a number from 0 to 100"),
        ({"thc_min": float("nan")}, "thc_min", "thc_min must be a number from 0 to 100"),
        ({"cbd_max": float("inf")}, "cbd_max", "cbd_max must be a number from 0 to 100"),
        ({"effect": "relaxed; DROP TABLE"}, "effect", "effect must be a lowercase word"),
    ],
)
def test_bad_strain_filters_name_their_parameter(values: dict, param: str, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message.replace("(", r"\(")) as info:
        StrainFilters.create(**values)
    assert info.value.param == param


def test_state_codes_are_case_insensitive_jurisdictions() -> None:
    assert DoctorFilters.create(state="ca").state == ("CA",)
    assert DealFilters.create(state="pr").state == ("PR",)


@pytest.mark.parametrize("state", ["XX", "C", "CAL", "", "\uff23\uff21", "c\x00"])
def test_unknown_state_codes_are_rejected(state: str) -> None:
    with pytest.raises(InvalidParameter, match="state must be a two-letter code") as info:
        DoctorFilters.create(state=state)
    assert info.value.param == "state"


def test_zip_resolves_to_coordinates_with_default_radius() -> None:
    f = dispensary_filters(zip="94110")
    assert f.radius == 50.0
    assert f.origin is not None
    assert (round(f.origin.lat, 2), round(f.origin.lng, 2)) == (37.75, -122.42)


@pytest.mark.parametrize(
    ("values", "param"),
    [
        ({"zip": "9411"}, "zip"),
        ({"zip": "00000"}, "zip"),
        ({"zip": "abcde"}, "zip"),
        ({"zip": "94110", "radius": 0.0}, "radius"),
        ({"zip": "94110", "radius": 500.5}, "radius"),
        ({"radius": 10.0}, "radius"),
        ({"type": "adult"}, "type"),
        ({"city": " "}, "city"),
    ],
)
def test_bad_dispensary_filters_name_their_parameter(values: dict, param: str) -> None:
    with pytest.raises(InvalidParameter) as info:
        dispensary_filters(**values)
    assert info.value.param == param


def test_deal_category_is_case_insensitive_and_closed() -> None:
    assert DealFilters.create(category="Pre-Rolls").category == ("pre-rolls",)
    with pytest.raises(InvalidParameter, match="category must be one of: flower, edibles"):
        DealFilters.create(category="seeds")


@pytest.mark.parametrize("name", CHOICES)
def test_every_word_of_a_filters_vocabulary_is_taken_in_any_case(name: str) -> None:
    build, words = CHOICES[name]
    assert [build(f" {word.upper()} ") for word in words] == list(words)


@pytest.mark.parametrize("name", CHOICES)
def test_a_word_outside_a_filters_vocabulary_is_refused_listing_the_words(name: str) -> None:
    build, words = CHOICES[name]
    param = name.split(".")[1]
    with pytest.raises(InvalidParameter) as info:
        build("ruderalis")
    assert (info.value.message, info.value.param) == (
        f"{param} must be one of: {', '.join(words)}",
        param,
    )


@pytest.mark.parametrize(
    ("q", "message"),
    [
        (None, "q is required"),
        ("", "q is required"),
        ("   ", "q is required"),
        ("x" * 201, "q must be at most 200 characters"),
        ("a\x00b", "q must not contain NUL"),
    ],
)
def test_search_query_text_is_required_and_bounded(q: str | None, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message):
        SearchQuery.create(q=q)


def test_search_query_at_the_maximum_length_is_accepted() -> None:
    assert SearchQuery.create(q="x" * 200, type="Strains").type == "strains"


@pytest.mark.parametrize(
    ("lat", "lng"), [(48.2, -114.3), (19.7, -155.1), (61.2, -149.9), (25.8, -80.2)]
)
@pytest.mark.parametrize("radius", [1.0, 50.0, 500.0])
def test_bounding_box_contains_every_point_of_the_circle(lat, lng, radius) -> None:
    center = Point(lat, lng)
    min_lat, max_lat, min_lng, max_lng = bounding_box(center, radius)
    for bearing in range(0, 360, 3):
        point = _destination(center, radius * 0.9999, bearing)
        assert haversine_miles(center, point) <= radius
        assert min_lat <= point.lat <= max_lat
        assert min_lng <= point.lng <= max_lng


def _destination(origin: Point, miles: float, bearing_degrees: float) -> Point:
    angular = miles / EARTH_RADIUS_MILES
    lat1, lng1, bearing = map(math.radians, (origin.lat, origin.lng, bearing_degrees))
    lat2 = math.asin(
        math.sin(lat1) * math.cos(angular) + math.cos(lat1) * math.sin(angular) * math.cos(bearing)
    )
    lng2 = lng1 + math.atan2(
        math.sin(bearing) * math.sin(angular) * math.cos(lat1),
        math.cos(angular) - math.sin(lat1) * math.sin(lat2),
    )
    return Point(math.degrees(lat2), math.degrees(lng2))
