"""Where a listing may sit: its ZIP code must belong to its state, its point inside the state.

Both checks use the same offline geography the demo seed draws from: the ``zipcodes`` package
for which state a ZIP code belongs to, and the seed's pool of usable ZIP codes per jurisdiction
(``seed.geography.zip_pool``) for a bounding box around the state's ZIP centroids, widened by
``BOX_MARGIN_DEGREES`` on every side because real addresses lie beyond the outermost centroid.
"""

from dataclasses import dataclass
from functools import cache

import zipcodes

from ..geography import zip_pool

BOX_MARGIN_DEGREES = 0.5


@dataclass(frozen=True)
class Box:
    """A latitude/longitude rectangle."""

    min_lat: float
    max_lat: float
    min_lng: float
    max_lng: float

    def contains(self, lat: float, lng: float) -> bool:
        """True when the point lies inside the rectangle (edges included)."""
        return self.min_lat <= lat <= self.max_lat and self.min_lng <= lng <= self.max_lng


@cache
def _zip_states() -> dict[str, str]:
    return {record["zip_code"]: record["state"] for record in zipcodes.list_all()}


def zip_state(zip_code: str) -> str | None:
    """The jurisdiction code a ZIP code belongs to, or None for an unknown ZIP code."""
    return _zip_states().get(zip_code)


@cache
def state_box(code: str) -> Box | None:
    """The widened bounding box of a jurisdiction's ZIP centroids (None without ZIP data)."""
    places = zip_pool(code)
    if not places:
        return None
    lats, lngs = [p.lat for p in places], [p.lng for p in places]
    margin = BOX_MARGIN_DEGREES
    return Box(min(lats) - margin, max(lats) + margin, min(lngs) - margin, max(lngs) + margin)


def location_problems(state: str, zip_code: str, lat: float, lng: float) -> list[str]:
    """Why a listing's ZIP code or coordinates do not fit its state (empty when they do)."""
    problems = []
    owner = zip_state(zip_code)
    if owner is None:
        problems.append(f"zip {zip_code} is not a known US ZIP code")
    elif owner != state:
        problems.append(f"zip {zip_code} belongs to {owner}, not {state}")
    box = state_box(state)
    if box is not None and not box.contains(lat, lng):
        problems.append(f"lat/lng {lat:g},{lng:g} lie outside {state}")
    return problems
