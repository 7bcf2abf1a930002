"""A list's filters from loose keyword arguments, as REST reads its query string: the place
through ``locate``, the time through ``When.create``, the rest through the filters' ``create``."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from service.filters import DealFilters, DispensaryFilters, DoctorFilters
from service.places import Location, locate
from service.when import When


def where(
    zip: str | None = None,
    lat: str | float | None = None,
    lng: str | float | None = None,
    radius: float | None = None,
    bbox: str | Sequence[float] | None = None,
) -> Location | None:
    return locate(zip=zip, lat=lat, lng=lng, radius=radius, bbox=bbox)


_PLACE = ("zip", "lat", "lng", "radius", "bbox")


def _split(given: dict[str, Any]) -> tuple[Location | None, dict[str, Any]]:
    place = {name: given.pop(name) for name in _PLACE if name in given}
    return where(**place), given


def dispensary_filters(
    *, open_now: bool | None = None, open_at: str | datetime | None = None, **given: Any
) -> DispensaryFilters:
    place, rest = _split(given)
    when = When.create(open_now=open_now, open_at=open_at)
    return DispensaryFilters.create(where=place, when=when, **rest)


def deal_filters(
    *, open_now: bool | None = None, open_at: str | datetime | None = None, **given: Any
) -> DealFilters:
    place, rest = _split(given)
    when = When.create(open_now=open_now, open_at=open_at)
    return DealFilters.create(where=place, when=when, **rest)


def doctor_filters(**given: Any) -> DoctorFilters:
    place, rest = _split(given)
    return DoctorFilters.create(where=place, **rest)
