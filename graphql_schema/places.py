"""Where and when arguments (zip, radius, near, bbox; openNow, openAt) as the service's
``Location`` and ``When``, its errors spelled as GraphQL spells the parameters.

``radius`` is the distance from ``zip``; around ``near`` it is ``near.radius``: giving the
top-level ``radius`` with ``near`` is refused, naming ``radius``.
"""

from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from types import TracebackType

from service.errors import InvalidParameter
from service.places import Location, locate
from service.when import Clock, When, since

from .arguments import BBoxInput, NearInput


class _Spelled:
    """A context re-raising the service's InvalidParameter with GraphQL's parameter names."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self._names = names

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if isinstance(error, InvalidParameter):
            raise error.spelled(self._names) from error


# GraphQL's names of the service's parameters it spells otherwise; ``radius`` is only
# ``near.radius`` inside ``near`` (a top-level radius keeps its name).
_NAMES = {"lat": "near.lat", "lng": "near.lng", "open_now": "openNow", "open_at": "openAt"}
_AS_GRAPHQL = _Spelled(_NAMES)
_AROUND_NEAR = _Spelled({**_NAMES, "radius": "near.radius"})


def where(
    zip: str | None, radius: float | None, near: NearInput | None, bbox: BBoxInput | None
) -> Location | None:
    """The one location of a field's arguments, or None; raise InvalidParameter if bad."""
    box = None if bbox is None else [bbox.west, bbox.south, bbox.east, bbox.north]
    if near is None:
        with _AS_GRAPHQL:
            return locate(zip=zip, radius=radius, bbox=box)
    if radius is not None:
        raise InvalidParameter(
            "radius is a distance from zip; around near, give near.radius", param="radius"
        )
    with _AROUND_NEAR:
        return locate(zip=zip, lat=near.lat, lng=near.lng, radius=near.radius, bbox=box)


def when(open_now: bool | None, open_at: datetime | None) -> When | None:
    """The instant a field's arguments ask about, or None; raise InvalidParameter if bad."""
    with _AS_GRAPHQL:
        return When.create(open_now=open_now, open_at=open_at)


def updated_since(value: datetime | None, instant: Clock) -> datetime | None:
    """The instant of ``updatedSince`` in UTC, or None; raise InvalidParameter (named
    updated_since, which the view spells updatedSince) for one later than ``instant()``."""
    return None if value is None else since(value, instant)


def value(member: Enum | None) -> str | None:
    """The service's text of an enum argument (a sort order)."""
    return None if member is None else str(member.value)


def place_order(member: Enum | None, sorts: tuple[str, ...]) -> str | None:
    """``value`` of a PlaceSort argument, refusing (naming ``sort``) the order a list does not
    take: PRICE_PER_GRAM orders only Strain.dispensaries."""
    given = value(member)
    if given is not None and given not in sorts and member is not None:
        raise InvalidParameter(f"sort {member.name} orders only Strain.dispensaries", param="sort")
    return given
