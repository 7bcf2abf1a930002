"""Where a list is asked about: a point with a radius (a ZIP code or lat/lng) or a map box.

Both edges hand over what the client wrote (REST strings, GraphQL numbers); this module checks
it and names the parameter (as REST spells it) in every message. At most one location.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Float, SQLColumnExpression, and_, bindparam, case, literal

from .errors import InvalidParameter
from .geo import Point, bounding_box, origin_terms, zip_point
from .numbers import OutOfRange, read_float
from .stamps import STAMP_SORTS, stamp_order

DEFAULT_RADIUS_MILES = 50.0
MAX_RADIUS_MILES = 500.0
LAT_EXAMPLE, LNG_EXAMPLE = "37.7749", "-122.4194"
# A box at least this large (in square degrees: about a fifth of the continental US) is
# listed by walking the name order rather than through the (lat, lng) index.
WIDE_BOX_SQUARE_DEGREES = 300.0
BBOX_EXAMPLE = "-122.52,37.70,-122.35,37.83"


@dataclass(frozen=True)
class Near:
    """Within ``radius`` miles of ``origin``, nearest first; ``zip`` when the point is one."""

    origin: Point
    radius: float
    zip: str | None = None

    def params(self) -> dict[str, float]:
        """The bind parameters of :func:`near_where` and ``service.geo.miles_sql``."""
        min_lat, max_lat, min_lng, max_lng = bounding_box(self.origin, self.radius)
        return {
            **origin_terms(self.origin),
            "radius": self.radius,
            "min_lat": min_lat,
            "max_lat": max_lat,
            "min_lng": min_lng,
            "max_lng": max_lng,
        }


@dataclass(frozen=True)
class Box:
    """A map viewport: west <= east (it never crosses the antimeridian), south <= north."""

    west: float
    south: float
    east: float
    north: float

    @property
    def wide(self) -> bool:
        """Whether the box is wide enough to hold a large share of any dataset's rows."""
        return (self.east - self.west) * (self.north - self.south) >= WIDE_BOX_SQUARE_DEGREES

    def params(self) -> dict[str, float]:
        """The bind parameters of :func:`box_where`."""
        return {"west": self.west, "south": self.south, "east": self.east, "north": self.north}


Location = Near | Box


def coordinate(value: str | float | None, param: str) -> float | None:
    """A latitude (``param`` "lat") or longitude ("lng") in WGS84 decimal degrees, or None."""
    if value is None:
        return None
    limit = 90 if param == "lat" else 180
    example = LAT_EXAMPLE if limit == 90 else LNG_EXAMPLE
    number: float | None = None
    if isinstance(value, str):
        try:
            number = read_float(value)
        except OutOfRange:
            number = None
    elif not isinstance(value, bool):  # a number (GraphQL Float)
        number = float(value)
    if number is None or not math.isfinite(number) or abs(number) > limit:
        raise InvalidParameter(
            f"{param} must be a decimal number from -{limit} to {limit} (e.g. {example})",
            param=param,
        )
    return number


def _box(value: str | Sequence[float]) -> Box:
    param = "bbox"
    message = (
        f"{param} must be four decimal numbers west,south,east,north in degrees "
        f"(e.g. {BBOX_EXAMPLE})"
    )
    parts: list[str | float] = list(value.split(",") if isinstance(value, str) else value)
    if len(parts) != 4:
        raise InvalidParameter(message, param=param)
    numbers = []
    for part, kind in zip(parts, ("lng", "lat", "lng", "lat"), strict=True):
        try:
            numbers.append(coordinate(part, kind))
        except InvalidParameter:
            raise InvalidParameter(message, param=param) from None
    west, south, east, north = (float(n or 0.0) for n in numbers)
    if south > north:
        raise InvalidParameter(f"{param} south must not be greater than north", param=param)
    if west > east:
        raise InvalidParameter(
            f"{param} crosses the antimeridian (west is greater than east); ask for the two "
            "boxes on either side of longitude 180 separately",
            param=param,
        )
    return Box(west, south, east, north)


def locate(
    *,
    zip: str | None = None,
    lat: str | float | None = None,
    lng: str | float | None = None,
    radius: float | None = None,
    bbox: str | Sequence[float] | None = None,
) -> Location | None:
    """The one location of a request, or None; raise InvalidParameter naming the parameter
    (an edge spelling one otherwise re-spells the error: ``InvalidParameter.spelled``)."""
    if (lat is None) != (lng is None):
        alone, missing = ("lat", "lng") if lng is None else ("lng", "lat")
        raise InvalidParameter(f"lat and lng go together: {missing} is missing", param=alone)
    # (how the message names it, the parameter error.param names)
    given = [
        (label, param)
        for label, param, present in (
            ("zip", "zip", zip is not None),
            ("lat/lng", "lat", lat is not None),
            ("bbox", "bbox", bbox is not None),
        )
        if present
    ]
    if len(given) > 1:
        (first, _), (second, param) = given[:2]
        raise InvalidParameter(
            f"{first} and {second} cannot be combined: give one location", param=param
        )
    if radius is not None:
        if zip is None and lat is None:
            raise InvalidParameter(
                "radius needs zip or lat/lng (it is a distance from that point)", param="radius"
            )
        if not (math.isfinite(radius) and 0 < radius <= MAX_RADIUS_MILES):
            raise InvalidParameter(
                f"radius must be a number of miles greater than 0 and at most {MAX_RADIUS_MILES:g}",
                param="radius",
            )
    miles = radius if radius is not None else DEFAULT_RADIUS_MILES
    if zip is not None:
        code = zip.strip()
        return Near(zip_point(code), miles, zip=code)
    if lat is not None:
        return Near(Point(coordinate(lat, "lat") or 0.0, coordinate(lng, "lng") or 0.0), miles)
    if bbox is not None:
        return _box(bbox)
    return None


def near_where(
    lat: SQLColumnExpression[float], lng: SQLColumnExpression[float]
) -> ColumnElement[bool]:
    """The bounding-box prefilter of a :class:`Near` (through a (lat, lng) index); the exact
    distance test comes after it."""
    return and_(
        lat.between(bindparam("min_lat", type_=Float), bindparam("max_lat", type_=Float)),
        lng.between(bindparam("min_lng", type_=Float), bindparam("max_lng", type_=Float)),
    )


def box_where(
    lat: SQLColumnExpression[float], lng: SQLColumnExpression[float]
) -> ColumnElement[bool]:
    """Inside a :class:`Box` (edges included)."""
    return and_(
        lat.between(bindparam("south", type_=Float), bindparam("north", type_=Float)),
        lng.between(bindparam("west", type_=Float), bindparam("east", type_=Float)),
    )


def inside_tested_per_row(
    lat: SQLColumnExpression[float], lng: SQLColumnExpression[float]
) -> ColumnElement[bool]:
    """:func:`box_where` written so that neither database looks the box up in the (lat, lng)
    index, and PostgreSQL's plan, made once for any box (models.db), expects most rows inside
    (a CASE compared with ``<>`` is estimated to keep nearly every row), so a page by name
    walks the name index."""
    inside = case((box_where(lat, lng), literal(1)), else_=literal(0))
    return inside != literal(0)


def place_order(columns: Any, sort: str) -> tuple[Any, ...]:
    """The ORDER BY of a list of places (dispensaries, doctors) over ``columns`` (a candidate
    subquery's: id, sort_key, rating, distance around a point, updated_at or price_per_gram to
    order by it) for ``sort``: ties go to the name, then the id (by the change stamp: to the
    id), so that pages are stable."""
    if sort in STAMP_SORTS:
        return stamp_order(columns.updated_at, columns.id, sort)
    tail = (columns.sort_key, columns.id)
    if sort == "distance":
        return (columns.distance, *tail)
    if sort == "rating":
        return (columns.rating, *tail)
    if sort == "-rating":
        return (columns.rating.desc(), *tail)
    if sort == "price_per_gram":  # a strain's dispensaries (service.offers): cheapest first
        return (columns.price_per_gram.asc().nulls_last(), *tail)
    return tail
