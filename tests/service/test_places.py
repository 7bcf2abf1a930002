"""Where and when a list is asked about: service.places.locate and service.when.When."""

from datetime import UTC, datetime, timedelta

import pytest

from service.errors import InvalidParameter
from service.filters import MAX_VALUES, DealFilters, DispensaryFilters, StrainFilters
from service.geo import zip_point
from service.places import Box, Near, coordinate, locate
from service.when import When
from tests.filters import deal_filters, dispensary_filters


def _refused(param: str, **kwargs: object) -> str:
    with pytest.raises(InvalidParameter) as raised:
        locate(**kwargs)  # type: ignore[arg-type]
    assert raised.value.param == param
    return raised.value.message


def test_lat_lng_make_a_point_with_the_default_radius() -> None:
    where = locate(lat="37.7749", lng="-122.4194")
    assert where == Near(zip_point("94103").__class__(37.7749, -122.4194), 50.0)


def test_zip_makes_a_point_named_by_the_zip() -> None:
    where = locate(zip="94110", radius=5)
    assert isinstance(where, Near)
    assert where.zip == "94110"
    assert where.radius == 5


@pytest.mark.parametrize(
    "value", ["91", "-90.0000001", "180", "nan", "1e2", "", " 1", "٣", "0x1", "+-1", "1,5"]
)
def test_a_bad_latitude_is_refused_naming_lat(value: str) -> None:
    message = _refused("lat", lat=value, lng="0")
    assert "lat must be a decimal number from -90 to 90" in message


@pytest.mark.parametrize(
    "value", ["180", "-180.000", "0", "+12.5", "-.5", "179.999999999999", "1e1", "-1.8E2"]
)
def test_longitudes_up_to_180_are_read(value: str) -> None:
    assert coordinate(value, "lng") == float(value)


def test_lat_without_lng_names_the_missing_one() -> None:
    assert "lng is missing" in _refused("lat", lat="1")
    assert "lat is missing" in _refused("lng", lng="1")


@pytest.mark.parametrize(
    ("kwargs", "second"),
    [
        ({"zip": "94110", "lat": "1", "lng": "1"}, "lat"),
        ({"zip": "94110", "bbox": "-1,-1,1,1"}, "bbox"),
        ({"lat": "1", "lng": "1", "bbox": "-1,-1,1,1"}, "bbox"),
    ],
)
def test_two_locations_are_refused_naming_both(kwargs: dict, second: str) -> None:
    message = _refused(second, **kwargs)
    assert "cannot be combined" in message
    first = "zip" if "zip" in kwargs else "lat/lng"
    named = "lat/lng" if second == "lat" else second  # error.param is one real parameter
    assert message.startswith(f"{first} and {named}")


def test_radius_needs_a_point() -> None:
    assert "needs zip or lat/lng" in _refused("radius", radius=5)
    assert "needs zip or lat/lng" in _refused("radius", radius=5, bbox="-1,-1,1,1")


@pytest.mark.parametrize("radius", [0, -1, 500.0001, float("nan"), float("inf")])
def test_radius_out_of_range_is_refused(radius: float) -> None:
    assert "greater than 0 and at most 500" in _refused("radius", lat="1", lng="1", radius=radius)


def test_bbox_reads_four_numbers_west_south_east_north() -> None:
    assert locate(bbox="-122.52,37.70,-122.35,37.83") == Box(-122.52, 37.70, -122.35, 37.83)
    assert locate(bbox=[-180, -90, 180, 90]) == Box(-180, -90, 180, 90)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("170,10,-170,20", "crosses the antimeridian"),
        ("1,20,2,10", "south must not be greater than north"),
        ("1,2,3", "four decimal numbers"),
        ("1,2,3,4,5", "four decimal numbers"),
        ("a,b,c,d", "four decimal numbers"),
        ("1,91,2,92", "four decimal numbers"),
        ("1, 2,3,4", "four decimal numbers"),
    ],
)
def test_a_bad_bbox_is_refused_naming_bbox(value: str, says: str) -> None:
    assert says in _refused("bbox", bbox=value)


def test_deals_take_no_bbox() -> None:
    with pytest.raises(InvalidParameter) as raised:
        DealFilters.create(where=locate(bbox="-1,-1,1,1"))
    assert raised.value.param == "bbox"
    assert raised.value.message == "bbox is not taken by this list"


def test_an_edge_respells_the_parameters_an_error_names() -> None:
    with pytest.raises(InvalidParameter) as raised:
        locate(lat=91, lng=0)
    spelled = raised.value.spelled({"lat": "near.lat", "lng": "near.lng"})
    assert spelled.param == "near.lat"
    assert spelled.message == "near.lat must be a decimal number from -90 to 90 (e.g. 37.7749)"


def test_respelling_replaces_whole_unqualified_names_only() -> None:
    error = InvalidParameter("radius of lat/lng (latitude, radiuses, near.radius)", param="zip")
    spelled = error.spelled({"radius": "near.radius", "lat": "near.lat", "zip": "postcode"})
    assert spelled.message == "near.radius of near.lat/lng (latitude, radiuses, near.radius)"
    assert spelled.param == "postcode"


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-24T18:30:00-08:00",
        "2026-12-24T18:30-08:00",
        "2026-12-24T18:30:00Z",
        "2026-12-24T18:30:00.123456+05:30",
    ],
)
def test_open_at_reads_iso_8601_with_an_offset(text: str) -> None:
    when = When.create(open_at=text)
    assert when is not None
    assert when.only_open
    assert when.instant(lambda: pytest.fail("the clock was read")) == datetime.fromisoformat(
        text.replace("Z", "+00:00")
    )


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-24T18:30:00",
        "2026-12-24 18:30:00-08:00",
        "2026-02-30T10:00:00Z",
        "tomorrow",
        "2026-12-24T18:30:00-08",
        "1969-12-31T23:59:00Z",
        "2101-01-01T00:00:00Z",
        "\uff12\uff10\uff12\uff16-12-24T18:30Z",
    ],
)
def test_open_at_without_an_offset_or_malformed_is_refused(text: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        When.create(open_at=text)
    assert raised.value.param == "open_at"


def test_open_now_and_open_at_together_are_refused() -> None:
    with pytest.raises(InvalidParameter) as raised:
        When.create(open_now=True, open_at="2026-12-24T18:30:00-08:00")
    assert raised.value.param == "open_at"


def test_open_now_reads_the_clock_it_is_given_and_false_does_not_filter() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert When.create(open_now=True).instant(lambda: now) == now  # type: ignore[union-attr]
    only_reporting = When.create(open_now=False)
    assert only_reporting is not None
    assert not only_reporting.only_open
    assert When.create() is None


def test_an_instant_keeps_its_own_offset() -> None:
    when = When.create(open_at="2026-07-01T09:00:00+10:00")
    assert when is not None
    assert when.open_at is not None
    assert when.open_at.utcoffset() == timedelta(hours=10)
    assert when.open_at == datetime(2026, 6, 30, 23, 0, tzinfo=UTC)


def test_sort_defaults_to_distance_around_a_point_and_name_otherwise() -> None:
    assert DispensaryFilters.create().sort == "name"
    assert dispensary_filters(lat="1", lng="1").sort == "distance"
    assert dispensary_filters(bbox="-1,-1,1,1").sort == "name"
    assert DealFilters.create().sort == "expires"
    assert deal_filters(zip="94110").sort == "distance"
    assert DispensaryFilters.create(sort=" -Rating ").sort == "-rating"


def test_sort_by_distance_needs_a_point() -> None:
    for make in (DispensaryFilters.create, DealFilters.create):
        with pytest.raises(InvalidParameter) as raised:
            make(sort="distance")  # type: ignore[operator]
        assert raised.value.param == "sort"
        assert "needs a point" in raised.value.message
    with pytest.raises(InvalidParameter):
        dispensary_filters(bbox="-1,-1,1,1", sort="distance")
    with pytest.raises(InvalidParameter) as raised:
        DealFilters.create(sort="rating")
    assert "expires, distance" in raised.value.message


def test_multi_value_filters_read_commas_or_lists_and_drop_repeats() -> None:
    assert DispensaryFilters.create(state="ca, nv,CA").state == ("CA", "NV")
    assert StrainFilters.create(type=["Hybrid", "indica"]).type == ("hybrid", "indica")
    assert StrainFilters.create(effect="relaxed,happy").effect == ("relaxed", "happy")
    assert DealFilters.create(category="flower,edibles").category == ("flower", "edibles")


@pytest.mark.parametrize(
    ("kwargs", "param", "says"),
    [
        ({"state": "CA,"}, "state", "empty value"),
        ({"state": "CA,,NV"}, "state", "empty value"),
        ({"state": "CA,XX"}, "state", "two-letter code"),
        ({"state": ",".join(["CA"] * (MAX_VALUES + 1))}, "state", f"at most {MAX_VALUES}"),
        ({"type": "medical,shop"}, "type", "must be one of"),
    ],
)
def test_a_bad_value_among_several_is_refused_naming_the_filter(
    kwargs: dict, param: str, says: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        dispensary_filters(**kwargs)
    assert raised.value.param == param
    assert says in raised.value.message
