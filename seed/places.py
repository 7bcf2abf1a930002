"""Choosing real ZIP codes for listings, favouring bigger cities."""

import itertools
import math
import random
from collections import Counter
from functools import cache

from service.geo import zip_timezone

from .geography import Place, zip_pool


@cache
def _weighted_pool(code: str) -> tuple[tuple[Place, ...], tuple[float, ...]]:
    places = zip_pool(code)
    if not places:
        raise ValueError(f"no usable ZIP code for jurisdiction {code}")
    # A city's ZIP count stands in for its size; weighting each ZIP by the square root
    # of it puts more shops in large cities without emptying the small towns.
    per_city = Counter(p.city for p in places)
    weights = [math.sqrt(per_city[p.city]) for p in places]
    return places, tuple(itertools.accumulate(weights))


def pick_place(rng: random.Random, code: str) -> Place:
    """A real ZIP of jurisdiction ``code``, chosen with a bias towards big cities."""
    places, cumulative = _weighted_pool(code)
    return rng.choices(places, cum_weights=cumulative)[0]


def location_columns(place: Place) -> dict[str, str | float]:
    """The columns a listing (dispensary or doctor) takes from its real ZIP code, its time
    zone included."""
    return {
        "city": place.city,
        "city_key": place.city.lower(),
        "state": place.state,
        "zip": place.zip,
        "lat": place.lat,
        "lng": place.lng,
        "timezone": zip_timezone(place.zip, place.state),
    }
