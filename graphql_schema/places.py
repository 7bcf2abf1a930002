"""Where and when arguments (zip, radius, near, bbox; openNow, openAt) as the service's
``Location`` and ``When``, its errors spelled as GraphQL spells the parameters.

``radius`` is the distance from ``zip``; around ``near`` it is ``near.radius``: giving the
top-level ``radius`` with ``near`` is refused, naming ``radius``.
"""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from enum import Enum

from service.errors import InvalidParameter
from service.places import Location, locate
from service.when import When

from .arguments import BBoxInput, NearInput

# GraphQL's names of the service's parameters it spells otherwise; ``radius`` is only
# ``near.radius`` inside ``near`` (a top-level radius keeps its name).
_NAMES = {"lat": "near.lat", "lng": "near.lng", "open_now": "openNow", "open_at": "openAt"}
_NEAR_NAMES = {**_NAMES, "radius": "near.radius"}


@contextmanager
def _spelled(names: Mapping[str, str]) -> Iterator[None]:
    """Re-raise the service's InvalidParameter naming GraphQL's parameters."""
    try:
        yield
    except InvalidParameter as error:
        raise error.spelled(names) from error


def where(
    zip: str | None, radius: float | None, near: NearInput | None, bbox: BBoxInput | None
) -> Location | None:
    """The one location of a field's arguments, or None; raise InvalidParameter if bad."""
    box = None if bbox is None else [bbox.west, bbox.south, bbox.east, bbox.north]
    if near is None:
        with _spelled(_NAMES):
            return locate(zip=zip, radius=radius, bbox=box)
    if radius is not None:
        raise InvalidParameter(
            "radius is a distance from zip; around near, give near.radius", param="radius"
        )
    with _spelled(_NEAR_NAMES):
        return locate(zip=zip, lat=near.lat, lng=near.lng, radius=near.radius, bbox=box)


def when(open_now: bool | None, open_at: datetime | None) -> When | None:
    """The instant a field's arguments ask about, or None; raise InvalidParameter if bad."""
    with _spelled(_NAMES):
        return When.create(open_now=open_now, open_at=open_at)


def value(member: Enum | None) -> str | None:
    """The service's text of an enum argument (a sort order)."""
    return None if member is None else str(member.value)
