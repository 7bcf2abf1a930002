"""Jurisdiction metadata: populations, the law file and a pool of real ZIP codes per state."""

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

import us
import zipcodes

# 2020 census resident population, in thousands; `us` ships no population data.
# fmt: off
POPULATION_THOUSANDS: dict[str, int] = {
    "AL": 5024, "AK": 733, "AZ": 7152, "AR": 3012, "CA": 39538, "CO": 5774, "CT": 3606,
    "DE": 990, "DC": 690, "FL": 21538, "GA": 10712, "HI": 1455, "ID": 1839, "IL": 12813,
    "IN": 6786, "IA": 3190, "KS": 2938, "KY": 4506, "LA": 4658, "ME": 1362, "MD": 6177,
    "MA": 7030, "MI": 10077, "MN": 5706, "MS": 2961, "MO": 6155, "MT": 1084, "NE": 1962,
    "NV": 3105, "NH": 1378, "NJ": 9289, "NM": 2118, "NY": 20201, "NC": 10439, "ND": 779,
    "OH": 11799, "OK": 3959, "OR": 4237, "PA": 13003, "RI": 1097, "SC": 5118, "SD": 887,
    "TN": 6911, "TX": 29146, "UT": 3272, "VT": 643, "VA": 8631, "WA": 7705, "WV": 1794,
    "WI": 5894, "WY": 577, "PR": 3286, "GU": 154, "VI": 87, "AS": 50, "MP": 48,
}
# fmt: on

LAW_FIELDS = (
    "state",
    "stateCode",
    "recreational",
    "medical",
    "possession_limit_oz",
    "home_grow",
    "home_grow_plants",
    "delivery_legal",
    "updated",
    "notes",
    "confidence",
    "sources",
)


class Place(NamedTuple):
    """One real ZIP code with the coordinates and area codes zipcodes records for it."""

    zip: str
    city: str
    state: str
    lat: float
    lng: float
    area_codes: tuple[str, ...]


def jurisdiction_codes() -> tuple[str, ...]:
    """The 56 two-letter codes (50 states, DC and 5 territories), sorted."""
    return tuple(sorted(s.abbr for s in us.STATES_AND_TERRITORIES))


@cache
def _state_names() -> dict[str, str]:
    return {s.abbr: s.name for s in us.STATES_AND_TERRITORIES}


def state_name(code: str) -> str:
    """The jurisdiction's name as the `us` package spells it."""
    return _state_names()[code]


def population(code: str) -> int:
    """2020-census population of a jurisdiction, in thousands."""
    return POPULATION_THOUSANDS[code]


@cache
def _laws_text() -> str:
    # importlib.resources keeps this working from a wheel or zip, not just a checkout.
    return (
        resources.files("seed").joinpath("data").joinpath("laws.json").read_text(encoding="utf-8")
    )


def load_laws() -> list[dict[str, Any]]:
    """The law records from seed/data/laws.json, sorted by state code (a fresh copy per call)."""
    records = json.loads(_laws_text())
    codes = sorted(r["stateCode"] for r in records)
    if codes != list(jurisdiction_codes()):
        raise ValueError("laws.json must hold exactly one record per US jurisdiction")
    for record in records:
        missing = [f for f in LAW_FIELDS if f not in record]
        if missing:
            raise ValueError(f"laws.json record {record.get('stateCode')} lacks {missing}")
    return sorted(records, key=lambda r: r["stateCode"])


def _usable(record: dict[str, Any]) -> bool:
    # Some records carry 0.0 coordinates (unknown location); a listing needs a real
    # point and at least one area code for its phone number.
    return (
        record["active"]
        and float(record["lat"]) != 0.0
        and float(record["long"]) != 0.0
        and bool(record["area_codes"])
    )


@cache
def _zip_pools() -> dict[str, tuple[Place, ...]]:
    standard: dict[str, list[Place]] = {}
    po_box: dict[str, list[Place]] = {}
    for record in zipcodes.list_all():
        kind = record["zip_code_type"]
        if kind not in ("STANDARD", "PO BOX") or not _usable(record):
            continue
        place = Place(
            zip=record["zip_code"],
            city=record["city"],
            state=record["state"],
            lat=float(record["lat"]),
            lng=float(record["long"]),
            area_codes=tuple(record["area_codes"]),
        )
        (standard if kind == "STANDARD" else po_box).setdefault(place.state, []).append(place)
    pools: dict[str, tuple[Place, ...]] = {}
    for code in jurisdiction_codes():
        # Street-delivery ZIPs read as real addresses; the Northern Mariana Islands
        # (and American Samoa) only have PO BOX ZIPs, so fall back to those there.
        places = standard.get(code) or po_box.get(code) or []
        pools[code] = tuple(sorted(places, key=lambda p: p.zip))
    return pools


def zip_pool(code: str) -> tuple[Place, ...]:
    """Real, active, located ZIP codes of a jurisdiction, sorted by ZIP (cached)."""
    return _zip_pools().get(code, ())
