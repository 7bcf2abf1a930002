"""Validated, normalised filter objects: the one place both edges' arguments end up.

The edges parse strings into Python values; the ``create`` constructors here check meaning
(ranges, enums, known codes), normalise case, and raise InvalidParameter naming the parameter.
"""

import math
import re
from dataclasses import dataclass
from typing import Any

from .errors import InvalidParameter
from .geo import Point, normalise_state, zip_point
from .vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES

DEFAULT_RADIUS_MILES = 50.0
MAX_RADIUS_MILES = 500.0
MAX_THC = 100.0
MAX_CBD = 100.0
# A one-character query matches most names and says little: at least two (a 400 otherwise).
SEARCH_MIN_LENGTH = 1  # what a search-as-you-type box sends first
SEARCH_MAX_LENGTH = 200
WORD_MAX_LENGTH = 40  # effect and flavor words
_WORD = re.compile(rf"^[a-z][a-z0-9 \-]{{0,{WORD_MAX_LENGTH - 1}}}$")


def is_encodable(text: str) -> bool:
    """False for text a database cannot store, such as lone UTF-16 surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _choice(value: str | None, allowed: tuple[str, ...], param: str) -> str | None:
    if value is None:
        return None
    folded = value.strip().lower()
    if folded not in allowed:
        raise InvalidParameter(f"{param} must be one of: {', '.join(allowed)}", param=param)
    return folded


def _word(value: str | None, param: str) -> str | None:
    if value is None:
        return None
    folded = value.strip().lower()
    if not _WORD.fullmatch(folded):
        raise InvalidParameter(
            f"{param} must be a lowercase word such as relaxed or earthy (letters, digits, spaces "
            f"or hyphens, at most {WORD_MAX_LENGTH} characters)",
            param=param,
        )
    return folded


def _percent_range(
    low: float | None, high: float | None, names: tuple[str, str], maximum: float
) -> None:
    for value, name in ((low, names[0]), (high, names[1])):
        if value is not None and not (math.isfinite(value) and 0 <= value <= maximum):
            raise InvalidParameter(f"{name} must be a number from 0 to {maximum:g}", param=name)
    if low is not None and high is not None and low > high:
        raise InvalidParameter(f"{names[0]} must not be greater than {names[1]}", param=names[0])


def _city(value: str | None) -> str | None:
    if value is None:
        return None
    folded = " ".join(value.split()).lower()
    if not folded or len(folded) > 80 or not folded.isprintable():
        raise InvalidParameter("city must be a city name of 1 to 80 characters", param="city")
    return folded


@dataclass(frozen=True)
class StrainFilters:
    type: str | None = None
    effect: str | None = None
    flavor: str | None = None
    thc_min: float | None = None
    thc_max: float | None = None
    cbd_min: float | None = None
    cbd_max: float | None = None

    @classmethod
    def create(cls, **values: Any) -> "StrainFilters":
        """Validate and normalise; raise InvalidParameter for the first bad value."""
        f = cls(**values)
        _percent_range(f.thc_min, f.thc_max, ("thc_min", "thc_max"), MAX_THC)
        _percent_range(f.cbd_min, f.cbd_max, ("cbd_min", "cbd_max"), MAX_CBD)
        return cls(
            type=_choice(f.type, STRAIN_TYPES, "type"),
            effect=_word(f.effect, "effect"),
            flavor=_word(f.flavor, "flavor"),
            thc_min=f.thc_min,
            thc_max=f.thc_max,
            cbd_min=f.cbd_min,
            cbd_max=f.cbd_max,
        )


@dataclass(frozen=True)
class DispensaryFilters:
    state: str | None = None
    city: str | None = None
    zip: str | None = None
    radius: float | None = None
    type: str | None = None
    delivery: bool | None = None
    # Resolved from ``zip``; set by create().
    origin: Point | None = None

    @classmethod
    def create(
        cls,
        *,
        state: str | None = None,
        city: str | None = None,
        zip: str | None = None,
        radius: float | None = None,
        type: str | None = None,
        delivery: bool | None = None,
    ) -> "DispensaryFilters":
        """Validate and normalise; resolve ``zip`` to a point; raise InvalidParameter if bad."""
        if radius is not None:
            if zip is None:
                raise InvalidParameter(
                    "radius needs zip (it is a distance from that ZIP code)", param="radius"
                )
            if not (math.isfinite(radius) and 0 < radius <= MAX_RADIUS_MILES):
                raise InvalidParameter(
                    f"radius must be a number of miles greater than 0 and at most "
                    f"{MAX_RADIUS_MILES:g}",
                    param="radius",
                )
        origin = zip_point(zip.strip()) if zip is not None else None
        return cls(
            state=normalise_state(state) if state is not None else None,
            city=_city(city),
            zip=zip.strip() if zip is not None else None,
            radius=(radius if radius is not None else DEFAULT_RADIUS_MILES) if zip else None,
            type=_choice(type, DISPENSARY_TYPES, "type"),
            delivery=delivery,
            origin=origin,
        )


@dataclass(frozen=True)
class DealFilters:
    state: str | None = None
    city: str | None = None
    category: str | None = None

    @classmethod
    def create(
        cls, *, state: str | None = None, city: str | None = None, category: str | None = None
    ) -> "DealFilters":
        """Validate and normalise; raise InvalidParameter if bad."""
        return cls(
            state=normalise_state(state) if state is not None else None,
            city=_city(city),
            category=_choice(category, DEAL_CATEGORIES, "category"),
        )


@dataclass(frozen=True)
class LawFilters:
    """Which law records to list: None leaves a field unfiltered."""

    recreational: bool | None = None
    medical: bool | None = None


@dataclass(frozen=True)
class DoctorFilters:
    state: str | None = None
    city: str | None = None
    telehealth: bool | None = None

    @classmethod
    def create(
        cls, *, state: str | None = None, city: str | None = None, telehealth: bool | None = None
    ) -> "DoctorFilters":
        """Validate and normalise; raise InvalidParameter if bad."""
        return cls(
            state=normalise_state(state) if state is not None else None,
            city=_city(city),
            telehealth=telehealth,
        )


@dataclass(frozen=True)
class SearchQuery:
    q: str
    type: str | None = None  # one of SEARCH_TYPES
    state: str | None = None

    @classmethod
    def create(
        cls, *, q: str | None, type: str | None = None, state: str | None = None
    ) -> "SearchQuery":
        """Validate the query text and scope; raise InvalidParameter if bad."""
        text = (q or "").strip()
        if not text:
            raise InvalidParameter("q is required: the text to search for", param="q")
        if len(text) > SEARCH_MAX_LENGTH:
            raise InvalidParameter(f"q must be at most {SEARCH_MAX_LENGTH} characters", param="q")
        if "\x00" in text:
            raise InvalidParameter("q must not contain NUL characters", param="q")
        if not is_encodable(text):
            raise InvalidParameter("q must be valid Unicode text", param="q")
        return cls(
            q=text,
            type=_choice(type, SEARCH_TYPES, "type"),
            state=normalise_state(state) if state is not None else None,
        )
