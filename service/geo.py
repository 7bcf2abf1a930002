"""Jurisdiction codes, ZIP code resolution, time zones by ZIP and great-circle distance."""

import math
import re
import zoneinfo
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import zipcodes
from sqlalchemy import ColumnElement, Float, SQLColumnExpression, bindparam, func, literal

from models.expressions import smaller_of

from .errors import InvalidParameter

# The 56 jurisdictions with a law record: 50 states, DC and five territories.
_CODES = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP"
)
JURISDICTIONS = frozenset(_CODES.split(" "))
EARTH_RADIUS_MILES = 3958.7613
_ZIP_PATTERN = re.compile(r"^[0-9]{5}$")


@dataclass(frozen=True)
class Point:
    lat: float
    lng: float


def normalise_state(value: str, *, param: str = "state") -> str:
    """Return the upper-case jurisdiction code; raise InvalidParameter for anything else."""
    code = value.strip().upper() if value.isascii() else ""
    if code not in JURISDICTIONS:
        raise InvalidParameter(
            f"{param} must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)",
            param=param,
        )
    return code


def is_jurisdiction(value: str) -> bool:
    """True when ``value`` (any case) is one of the 56 jurisdiction codes."""
    return value.isascii() and value.upper() in JURISDICTIONS


@cache
def _zip_points() -> dict[str, Point]:
    points = {}
    for record in zipcodes.list_all():
        lat, lng = float(record["lat"]), float(record["long"])
        if lat or lng:  # a few records carry 0,0 placeholders
            points[record["zip_code"]] = Point(lat, lng)
    return points


def zip_point(value: str, *, param: str = "zip") -> Point:
    """Return a five-digit ZIP's coordinates; raise InvalidParameter if malformed or unknown."""
    if not _ZIP_PATTERN.fullmatch(value):
        raise InvalidParameter(f"{param} must be a five-digit US ZIP code", param=param)
    point = _zip_points().get(value)
    if point is None:
        raise InvalidParameter(f"{param} {value} is not a known US ZIP code", param=param)
    return point


def warm_zip_index() -> None:
    """Build the ZIP lookup table now rather than on the first proximity request."""
    _zip_points()


def haversine_miles(a: Point, b: Point) -> float:
    """Great-circle distance between two points in statute miles."""
    return miles_from(a)(b.lat, b.lng)


# What math.radians multiplies by; the distance below is written with it in the same order of
# operations as :func:`miles_sql`, so that Python and the database give the very same floats.
PER_DEGREE = math.pi / 180
_TWICE_RADIUS = 2 * EARTH_RADIUS_MILES


def origin_terms(origin: Point) -> dict[str, float]:
    """The origin's part of the distance, worked out once: the bind parameters of
    :func:`miles_sql` (its latitude in radians, that latitude's cosine, its longitude)."""
    lat = origin.lat * PER_DEGREE
    return {"origin_lat": lat, "origin_cos": math.cos(lat), "origin_lng": origin.lng}


def miles_from(origin: Point) -> Callable[[float, float], float]:
    """The great-circle distance (haversine) in statute miles from ``origin`` to a latitude
    and longitude, with the origin's own terms worked out once."""
    terms = origin_terms(origin)
    lat1, cos1, lng1 = terms["origin_lat"], terms["origin_cos"], terms["origin_lng"]
    sin, cos, asin, sqrt = math.sin, math.cos, math.asin, math.sqrt

    def miles(lat: float, lng: float) -> float:
        a = sin((lat * PER_DEGREE - lat1) * 0.5)
        b = sin((lng - lng1) * PER_DEGREE * 0.5)
        h = a * a + cos1 * cos(lat * PER_DEGREE) * b * b
        return _TWICE_RADIUS * asin(min(1.0, sqrt(h)))

    return miles


def miles_sql(
    lat: SQLColumnExpression[float], lng: SQLColumnExpression[float]
) -> ColumnElement[float]:
    """:func:`miles_from` as SQL over the columns ``lat`` and ``lng``, from the origin given by
    the bind parameters of :func:`origin_terms`: the same operations in the same order, each
    the C library's (SQLite's and PostgreSQL's sin, cos, asin and sqrt are libm's, as Python's
    are), so the database orders, filters and reports exactly the distances Python computes."""
    lat1 = bindparam("origin_lat", type_=Float)
    cos1 = bindparam("origin_cos", type_=Float)
    lng1 = bindparam("origin_lng", type_=Float)
    per_degree = literal(PER_DEGREE, Float)
    half = literal(0.5, Float)  # halving, exact like Python's, without SQL's division rules
    a = func.sin((lat * per_degree - lat1) * half)
    b = func.sin((lng - lng1) * per_degree * half)
    h = a * a + cos1 * func.cos(lat * per_degree) * b * b
    capped = smaller_of(literal(1.0, Float), func.sqrt(h))
    return literal(_TWICE_RADIUS, Float) * func.asin(capped)


def bounding_box(center: Point, radius_miles: float) -> tuple[float, float, float, float]:
    """Return (min_lat, max_lat, min_lng, max_lng) enclosing the circle; cheap SQL prefilter."""
    angular = radius_miles / EARTH_RADIUS_MILES
    dlat = math.degrees(angular)
    min_lat, max_lat = center.lat - dlat, center.lat + dlat
    # The circle's widest longitude span is at latitude asin(sin(lat)/cos(r)), not at the
    # centre's latitude: its half-width is asin(sin(r) / cos(lat)).
    ratio = math.sin(angular) / max(math.cos(math.radians(center.lat)), 1e-12)
    if ratio >= 1 or max_lat >= 90 or min_lat <= -90:
        return (min_lat, max_lat, -180.0, 180.0)  # the circle reaches a pole
    dlng = math.degrees(math.asin(ratio))
    if center.lng - dlng < -180 or center.lng + dlng > 180:
        # The circle crosses the antimeridian (western Alaska): do not prefilter longitude.
        return (min_lat, max_lat, -180.0, 180.0)
    return (min_lat, max_lat, center.lng - dlng, center.lng + dlng)


@cache
def _known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def valid_timezone(name: object) -> bool:
    """True when ``name`` is an IANA time zone zoneinfo knows, spelled exactly (America/Denver)."""
    return isinstance(name, str) and name in _known_zones()


@cache
def _zip_zones() -> tuple[dict[str, str], dict[str, str]]:
    """(ZIP -> its zone, jurisdiction -> the zone most of its ZIP codes have); a record whose
    zone zoneinfo does not know (blank, or a town's name) is left out of both."""
    by_zip: dict[str, str] = {}
    per_state: dict[str, Counter[str]] = {}
    for record in zipcodes.list_all():
        zone = record["timezone"]
        if valid_timezone(zone):
            by_zip[record["zip_code"]] = zone
            per_state.setdefault(record["state"], Counter())[zone] += 1
    # Ties go to the name first in sort order, so the choice never depends on file order.
    common = {
        state: min(counts, key=lambda zone: (-counts[zone], zone))
        for state, counts in per_state.items()
    }
    return by_zip, common


def zip_timezone(zip_code: str, state: str | None = None) -> str:
    """The IANA zone of a ZIP code, else the most common one of ``state`` (or of the ZIP's own
    state); raise ValueError when neither is known."""
    by_zip, common = _zip_zones()
    zone = by_zip.get(zip_code)
    if zone is not None:
        return zone
    if state is None:
        records = zipcodes.matching(zip_code) if _ZIP_PATTERN.fullmatch(zip_code) else []
        state = records[0]["state"] if records else None
    zone = common.get(state.upper()) if state is not None else None
    if zone is None:
        raise ValueError(f"no time zone is known for ZIP code {zip_code!r} (state {state})")
    return zone
