"""Validated, normalised filter objects: the one place both edges' arguments end up.

The edges parse strings into Python values, and place and time into ``service.places.Location``
and ``service.when.When``; the ``create`` constructors here check meaning (ranges, enums, known
codes, a sort needing a point), normalise case, and raise InvalidParameter naming the parameter.
"""

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from .compounds import FILTERED_CANNABINOIDS, RATIOS, TERPENE_KEYS
from .errors import InvalidParameter
from .geo import Point, normalise_state
from .places import Box, Location, Near
from .stamps import STAMP_SORTS
from .vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES
from .when import When

MAX_THC = 100.0
MAX_CBD = 100.0
MAX_TOTAL_THC = MAX_THC  # a batch's total THC (a strain's dispensaries' total_thc_min)
# Search text, once trimmed: one character is enough (what a search-as-you-type box sends
# first); empty text is a 400 (SearchQuery.create). Both edges publish these bounds.
SEARCH_MIN_LENGTH = 1
SEARCH_MAX_LENGTH = 200
WORD_MAX_LENGTH = 40  # effect and flavor words
_WORD = re.compile(rf"^[a-z][a-z0-9 \-]{{0,{WORD_MAX_LENGTH - 1}}}$")
# A minor cannabinoid's median, percent of dry weight (cbg_min, cbn_min, thcv_min, cbc_min).
MAX_CANNABINOID = 100.0
# The strain list's minimum filters on minor cannabinoids: (parameter, compound key).
CANNABINOID_MINIMUMS = tuple((f"{key}_min", key) for key in FILTERED_CANNABINOIDS)
# A strain slug as ``parent`` takes it: lower-case ASCII words joined by hyphens (any case is
# folded first); the same grammar service.strains.SLUG_PATTERN checks. No length bound of its
# own: a slug longer than any stored one matches nothing, and the URL's bound limits it.
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


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


def _minimum(value: float | None, name: str, maximum: float) -> None:
    if value is not None and not (math.isfinite(value) and 0 <= value <= maximum):
        raise InvalidParameter(f"{name} must be a number from 0 to {maximum:g}", param=name)


def _slug(value: str | None, param: str) -> str | None:
    """A strain's slug (any case, surrounding whitespace ignored), folded to lower case."""
    if value is None:
        return None
    folded = value.strip().lower()
    if not _SLUG.fullmatch(folded):
        raise InvalidParameter(
            f"{param} must be a strain's slug such as blue-dream: letters and digits in words "
            "joined by hyphens (any case)",
            param=param,
        )
    return folded


def _city(value: str | None) -> str | None:
    if value is None:
        return None
    folded = " ".join(value.split()).lower()
    if not folded or len(folded) > 80 or not folded.isprintable():
        raise InvalidParameter("city must be a city name of 1 to 80 characters", param="city")
    return folded


MAX_VALUES = 10  # values of one comma-separated (or list) filter


def _many(
    value: str | Sequence[str] | None, param: str, one: Callable[[str], str | None]
) -> tuple[str, ...] | None:
    """The values of a filter meaning "any of": comma-separated text (REST) or a list
    (GraphQL), each checked by ``one``; repeats dropped, order kept."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    if len(items) <= 1:  # one value (or none): judged as the filter always judged it
        return (str(one(items[0] if items else "")),)
    if len(items) > MAX_VALUES:
        raise InvalidParameter(f"{param} takes at most {MAX_VALUES} values", param=param)
    if any(not item.strip() for item in items):
        raise InvalidParameter(
            f"{param} has an empty value: each of its values must be given",
            param=param,
        )
    return tuple(dict.fromkeys(str(one(item)) for item in items))


def _states(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    return _many(value, "state", normalise_state)


def _sort(value: str | None, allowed: tuple[str, ...], where: Location | None) -> str:
    """The order of a list: ``value`` or the default (nearest first around a point, else the
    first of ``allowed``)."""
    if value is None:
        return "distance" if isinstance(where, Near) and "distance" in allowed else allowed[0]
    folded = value.strip().lower()
    if folded not in allowed:
        raise InvalidParameter(f"sort must be one of: {', '.join(allowed)}", param="sort")
    if folded == "distance" and not isinstance(where, Near):
        raise InvalidParameter(
            "sort=distance needs a point to measure from: zip or lat/lng", param="sort"
        )
    return folded


# The orders each list takes; the first is the default without a point. Every list can be
# ordered by its change stamps too (service.stamps).
PLACE_SORTS = ("name", "distance", "rating", "-rating", *STAMP_SORTS)
DEAL_SORTS = ("expires", "distance", *STAMP_SORTS)
STRAIN_SORTS = ("name", *STAMP_SORTS)
LAW_SORTS = ("state_code", *STAMP_SORTS)
# A strain's dispensaries: every order of a place list, and by the price per gram of the strain's
# menu item there (cheapest first; service.offers).
STOCKIST_SORTS = (*PLACE_SORTS, "price_per_gram")


@dataclass(frozen=True)
class StrainFilters:
    type: tuple[str, ...] | None = None
    effect: tuple[str, ...] | None = None
    flavor: tuple[str, ...] | None = None
    thc_min: float | None = None
    thc_max: float | None = None
    cbd_min: float | None = None
    cbd_max: float | None = None
    updated_since: datetime | None = None
    sort: str = "name"
    # Chemistry and lineage (issue 38): terpene keys among the leading three, the dominant
    # terpene's key, the Ratio word, minimum medians of minor cannabinoids, a parent's slug.
    terpene: tuple[str, ...] | None = None
    dominant_terpene: tuple[str, ...] | None = None
    ratio: tuple[str, ...] | None = None
    cbg_min: float | None = None
    cbn_min: float | None = None
    thcv_min: float | None = None
    cbc_min: float | None = None
    parent: str | None = None

    @classmethod
    def create(
        cls,
        *,
        type: str | Sequence[str] | None = None,
        effect: str | Sequence[str] | None = None,
        flavor: str | Sequence[str] | None = None,
        thc_min: float | None = None,
        thc_max: float | None = None,
        cbd_min: float | None = None,
        cbd_max: float | None = None,
        updated_since: datetime | None = None,
        sort: str | None = None,
        terpene: str | Sequence[str] | None = None,
        dominant_terpene: str | Sequence[str] | None = None,
        ratio: str | Sequence[str] | None = None,
        cbg_min: float | None = None,
        cbn_min: float | None = None,
        thcv_min: float | None = None,
        cbc_min: float | None = None,
        parent: str | None = None,
    ) -> "StrainFilters":
        """Validate and normalise; raise InvalidParameter for the first bad value.
        ``updated_since``: the edge's ``service.when.since``. An unknown terpene key or ratio
        word is a 400 naming the allowed values; a well-formed ``parent`` slug that names no
        strain matches nothing (as an unknown effect word does)."""
        _percent_range(thc_min, thc_max, ("thc_min", "thc_max"), MAX_THC)
        _percent_range(cbd_min, cbd_max, ("cbd_min", "cbd_max"), MAX_CBD)
        minimums = (cbg_min, cbn_min, thcv_min, cbc_min)
        for (name, _key), value in zip(CANNABINOID_MINIMUMS, minimums, strict=True):
            _minimum(value, name, MAX_CANNABINOID)
        return cls(
            type=_many(type, "type", lambda v: _choice(v, STRAIN_TYPES, "type")),
            effect=_many(effect, "effect", lambda v: _word(v, "effect")),
            flavor=_many(flavor, "flavor", lambda v: _word(v, "flavor")),
            thc_min=thc_min,
            thc_max=thc_max,
            cbd_min=cbd_min,
            cbd_max=cbd_max,
            updated_since=updated_since,
            sort=_sort(sort, STRAIN_SORTS, None),
            terpene=_many(terpene, "terpene", lambda v: _choice(v, TERPENE_KEYS, "terpene")),
            dominant_terpene=_many(
                dominant_terpene,
                "dominant_terpene",
                lambda v: _choice(v, TERPENE_KEYS, "dominant_terpene"),
            ),
            ratio=_many(ratio, "ratio", lambda v: _choice(v, RATIOS, "ratio")),
            cbg_min=cbg_min,
            cbn_min=cbn_min,
            thcv_min=thcv_min,
            cbc_min=cbc_min,
            parent=_slug(parent, "parent"),
        )


@dataclass(frozen=True)
class DispensaryFilters:
    state: tuple[str, ...] | None = None
    city: str | None = None
    type: tuple[str, ...] | None = None
    delivery: bool | None = None
    where: Location | None = None
    when: When | None = None
    sort: str = "name"
    updated_since: datetime | None = None
    # A strain's dispensaries only: the batch of its menu item there reaches this total THC.
    total_thc_min: float | None = None

    @property
    def origin(self) -> Point | None:
        """The point distances are measured from, if any."""
        return self.where.origin if isinstance(self.where, Near) else None

    @property
    def radius(self) -> float | None:
        """Miles around the point, if any."""
        return self.where.radius if isinstance(self.where, Near) else None

    @classmethod
    def create(
        cls,
        *,
        state: str | Sequence[str] | None = None,
        city: str | None = None,
        type: str | Sequence[str] | None = None,
        delivery: bool | None = None,
        where: Location | None = None,
        when: When | None = None,
        sort: str | None = None,
        updated_since: datetime | None = None,
        total_thc_min: float | None = None,
        sorts: tuple[str, ...] = PLACE_SORTS,
    ) -> "DispensaryFilters":
        """Validate and normalise; raise InvalidParameter naming the first bad parameter.
        ``where`` and ``when``: the edge's ``service.places.locate`` and ``When.create``;
        ``sorts``: the orders the list takes (a strain's dispensaries: STOCKIST_SORTS)."""
        _percent_range(total_thc_min, None, ("total_thc_min", ""), MAX_TOTAL_THC)
        return cls(
            state=_states(state),
            city=_city(city),
            type=_many(type, "type", lambda v: _choice(v, DISPENSARY_TYPES, "type")),
            delivery=delivery,
            where=where,
            when=when,
            sort=_sort(sort, sorts, where),
            updated_since=updated_since,
            total_thc_min=total_thc_min,
        )


@dataclass(frozen=True)
class DealFilters:
    state: tuple[str, ...] | None = None
    city: str | None = None
    category: tuple[str, ...] | None = None
    where: Near | None = None
    when: When | None = None
    sort: str = "expires"
    updated_since: datetime | None = None

    @classmethod
    def create(
        cls,
        *,
        state: str | Sequence[str] | None = None,
        city: str | None = None,
        category: str | Sequence[str] | None = None,
        where: Location | None = None,
        when: When | None = None,
        sort: str | None = None,
        updated_since: datetime | None = None,
    ) -> "DealFilters":
        """Validate and normalise; raise InvalidParameter if bad (a map box among them)."""
        if isinstance(where, Box):
            raise InvalidParameter("bbox is not taken by this list", param="bbox")
        return cls(
            state=_states(state),
            city=_city(city),
            category=_many(category, "category", lambda v: _choice(v, DEAL_CATEGORIES, "category")),
            where=where,
            when=when,
            sort=_sort(sort, DEAL_SORTS, where),
            updated_since=updated_since,
        )


@dataclass(frozen=True)
class LawFilters:
    """Which law records to list: None leaves a field unfiltered."""

    recreational: bool | None = None
    medical: bool | None = None
    updated_since: datetime | None = None
    sort: str = "state_code"

    @classmethod
    def create(
        cls,
        *,
        recreational: bool | None = None,
        medical: bool | None = None,
        updated_since: datetime | None = None,
        sort: str | None = None,
    ) -> "LawFilters":
        """Validate the order; raise InvalidParameter if bad."""
        return cls(recreational, medical, updated_since, _sort(sort, LAW_SORTS, None))


@dataclass(frozen=True)
class DoctorFilters:
    state: tuple[str, ...] | None = None
    city: str | None = None
    telehealth: bool | None = None
    where: Location | None = None
    sort: str = "name"
    updated_since: datetime | None = None

    @classmethod
    def create(
        cls,
        *,
        state: str | Sequence[str] | None = None,
        city: str | None = None,
        telehealth: bool | None = None,
        where: Location | None = None,
        sort: str | None = None,
        updated_since: datetime | None = None,
    ) -> "DoctorFilters":
        """Validate and normalise; raise InvalidParameter if bad."""
        return cls(
            state=_states(state),
            city=_city(city),
            telehealth=telehealth,
            where=where,
            sort=_sort(sort, PLACE_SORTS, where),
            updated_since=updated_since,
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
