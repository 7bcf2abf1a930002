"""Jurisdiction codes, ZIP code resolution and great-circle distance."""

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import zipcodes

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


def miles_from(origin: Point) -> Callable[[float, float], float]:
    """The great-circle distance in statute miles from ``origin`` to a latitude and longitude,
    with the origin's own terms worked out once (a proximity search measures many points)."""
    lat1 = math.radians(origin.lat)
    cos1, lng1 = math.cos(lat1), origin.lng
    radians, sin, cos, asin, sqrt = math.radians, math.sin, math.cos, math.asin, math.sqrt

    def miles(lat: float, lng: float) -> float:
        lat2 = radians(lat)
        h = sin((lat2 - lat1) / 2) ** 2 + cos1 * cos(lat2) * sin(radians(lng - lng1) / 2) ** 2
        return 2 * EARTH_RADIUS_MILES * asin(min(1.0, sqrt(h)))

    return miles


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
