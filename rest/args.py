"""Query-argument schemas: parse strings, then build the service's filter and page objects.

Each list's page bounds come from service.bounds, its words from service.vocab and the other
limits from service.filters; nothing is re-typed here.
Unknown parameters are refused before these run (rest.blueprint); a known parameter given twice
is rejected by the parser.
"""

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load

from service import bounds
from service.bounds import ListBound
from service.compounds import LINEAGE_DEPTH_MAX, LINEAGE_DIRECTIONS, RATIOS, TERPENE_KEYS
from service.filters import (
    DEAL_SORTS,
    LAW_SORTS,
    MAX_CANNABINOID,
    MAX_CBD,
    MAX_THC,
    MAX_TOTAL_THC,
    PLACE_SORTS,
    SEARCH_MAX_LENGTH,
    SEARCH_MIN_LENGTH,
    STOCKIST_SORTS,
    STRAIN_SORTS,
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    LawFilters,
    SearchQuery,
    StrainFilters,
)
from service.lineage import LINEAGE_DEPTH_MIN, LineageRequest
from service.paging import PageRequest
from service.places import LAT_EXAMPLE, LNG_EXAMPLE, Location, locate
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES
from service.when import When, since
from web.today import request_instant

from . import parameters as param
from .openapi import (
    text_pattern,
)


class _ListArgs(Schema):
    """Arguments of one list; each subclass names its ``BOUND`` and declares ``limit`` and
    ``offset`` first (the order the document lists them in)."""

    class Meta:
        unknown = EXCLUDE

    BOUND: ListBound

    def page(self, data: dict[str, Any]) -> PageRequest:
        return PageRequest.within(self.BOUND, data.pop("limit", None), data.pop("offset", None))


def _since(data: dict[str, Any]) -> None:
    """``updated_since`` among parsed arguments, read as the instant it names (RFC 3339, not
    after the request's instant)."""
    given = data.get("updated_since")
    if given is not None:
        data["updated_since"] = since(given, request_instant)


class StrainArgs(_ListArgs):
    BOUND = bounds.STRAINS
    limit = param.limit(BOUND)
    offset = param.offset()
    type = param.any_of(param.choice(STRAIN_TYPES), "types")
    effect = param.any_of(param.word("relaxed"), "effects")
    flavor = param.any_of(param.word("earthy"), "flavors")
    thc_min = param.percent("Minimum THC percentage", MAX_THC)
    thc_max = param.percent("Maximum THC percentage, not below thc_min", MAX_THC)
    cbd_min = param.percent("Minimum CBD percentage", MAX_CBD)
    cbd_max = param.percent("Maximum CBD percentage, not below cbd_min", MAX_CBD)
    terpene = param.any_of(
        param.choice(TERPENE_KEYS, "A terpene among the strain's three leading ones: "), "terpenes"
    )
    dominant_terpene = param.any_of(
        param.choice(TERPENE_KEYS, "The strain's dominant terpene: "), "terpenes"
    )
    ratio = param.any_of(
        param.choice(RATIOS, "How total THC compares with total CBD (on the medians): "), "ratios"
    )
    cbg_min = param.percent("Minimum median CBG percentage", MAX_CANNABINOID)
    cbn_min = param.percent("Minimum median CBN percentage", MAX_CANNABINOID)
    thcv_min = param.percent("Minimum median THCV percentage", MAX_CANNABINOID)
    cbc_min = param.percent("Minimum median CBC percentage", MAX_CANNABINOID)
    parent = param.slug("Only the children of this strain (strains bred from it).")
    updated_since = param.updated_since()
    sort = param.sort(STRAIN_SORTS, "name", "name")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[StrainFilters, PageRequest]:
        page = self.page(data)
        _since(data)
        return StrainFilters.create(**data), page


def _place_fields(*, boxes: bool = True) -> dict[str, fields.Field[Any]]:
    """Where: a ZIP code or lat/lng with a radius, or (``boxes``) a map viewport."""
    where: dict[str, fields.Field[Any]] = {
        "zip": param.zip(),
        "lat": param.coordinate("Latitude", 90, LAT_EXAMPLE, "lng"),
        "lng": param.coordinate("Longitude", 180, LNG_EXAMPLE, "lat"),
        "radius": param.radius(),
    }
    if boxes:
        where["bbox"] = param.bbox()
    return where


def _where(data: dict[str, Any]) -> Location | None:
    """The location among parsed arguments (taken out of ``data``); REST spells the service's
    parameter names, so its errors pass as they are."""
    return locate(
        zip=data.pop("zip", None),
        lat=data.pop("lat", None),
        lng=data.pop("lng", None),
        radius=data.pop("radius", None),
        bbox=data.pop("bbox", None),
    )


def _when(data: dict[str, Any]) -> When | None:
    """The instant asked about among parsed arguments (taken out of ``data``)."""
    return When.create(open_now=data.pop("open_now", None), open_at=data.pop("open_at", None))


def _dispensary_fields(bound: ListBound) -> dict[str, fields.Field[Any]]:
    return {
        "limit": param.limit(bound),
        "offset": param.offset(),
        "state": param.any_of(param.state(), "states"),
        "city": param.city(),
        **_place_fields(),
        "type": param.any_of(param.choice(DISPENSARY_TYPES), "types"),
        "delivery": param.boolean("true: only dispensaries that deliver."),
        "open_now": param.open_now(),
        "open_at": param.open_at(),
        "sort": param.sort(PLACE_SORTS, "name", "name"),
        "updated_since": param.updated_since(),
    }


class _DispensaryArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DispensaryFilters, PageRequest]:
        page = self.page(data)
        _since(data)
        where, when = _where(data), _when(data)
        return DispensaryFilters.create(where=where, when=when, **data), page


# Built from a dict so that each list declares limit and offset first (the document's order).
DispensaryArgs = type(
    "DispensaryArgs",
    (_DispensaryArgs,),
    {"BOUND": bounds.DISPENSARIES, **_dispensary_fields(bounds.DISPENSARIES)},
)


class _StockistArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DispensaryFilters, PageRequest]:
        page = self.page(data)
        _since(data)
        where, when = _where(data), _when(data)
        filters = DispensaryFilters.create(where=where, when=when, sorts=STOCKIST_SORTS, **data)
        return filters, page


# GET /strains/{slug}/dispensaries: every parameter of /dispensaries, its own page bound, the
# order by price per gram and the batch's total THC (service.offers).
StockistArgs = type(
    "StockistArgs",
    (_StockistArgs,),
    {
        "BOUND": bounds.STRAIN_DISPENSARIES,
        **_dispensary_fields(bounds.STRAIN_DISPENSARIES),
        "sort": param.sort(STOCKIST_SORTS, "name", "name"),
        "total_thc_min": param.percent(
            "Only dispensaries whose menu item of the strain has a lab batch with at least this "
            "total THC (an item without a batch never matches)",
            MAX_TOTAL_THC,
        ),
    },
)


class _DealArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DealFilters, PageRequest]:
        page = self.page(data)
        _since(data)
        where, when = _where(data), _when(data)
        return DealFilters.create(where=where, when=when, **data), page


DealArgs = type(
    "DealArgs",
    (_DealArgs,),
    {
        "BOUND": bounds.DEALS,
        "limit": param.limit(bounds.DEALS),
        "offset": param.offset(),
        "state": param.any_of(param.state(), "states"),
        "city": param.city(),
        "category": param.any_of(param.choice(DEAL_CATEGORIES), "categories"),
        **_place_fields(boxes=False),
        "open_now": param.boolean(
            "true: only deals whose dispensary is open now in its own time zone. The answer "
            "describes the current minute."
        ),
        "open_at": param.open_at(),
        "sort": param.sort(DEAL_SORTS, "expires", "expiry date"),
        "updated_since": param.updated_since(),
    },
)


class _DoctorArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DoctorFilters, PageRequest]:
        page = self.page(data)
        _since(data)
        return DoctorFilters.create(where=_where(data), **data), page


DoctorArgs = type(
    "DoctorArgs",
    (_DoctorArgs,),
    {
        "BOUND": bounds.DOCTORS,
        "limit": param.limit(bounds.DOCTORS),
        "offset": param.offset(),
        "state": param.any_of(param.state(), "states"),
        "city": param.city(),
        **_place_fields(),
        "telehealth": param.boolean("true: only doctors offering telehealth."),
        "sort": param.sort(PLACE_SORTS, "name", "name"),
        "updated_since": param.updated_since(),
    },
)


class LawArgs(Schema):
    """Filters of the law list (every record fits one page: no limit or offset)."""

    class Meta:
        unknown = EXCLUDE

    recreational = param.boolean(
        "true: only where adult use is legal; false: only where it is not."
    )
    medical = param.boolean("true: only where medical use is legal; false: only where it is not.")
    updated_since = param.updated_since()
    sort = param.sort(LAW_SORTS, "state_code", "", key="state code")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> LawFilters:
        _since(data)
        return LawFilters.create(**data)


class LineageArgs(Schema):
    """GET /strains/{slug}/lineage: which way and how far to walk."""

    class Meta:
        unknown = EXCLUDE

    direction = param.choice(LINEAGE_DIRECTIONS, "Which way to walk (default ancestors): ")
    depth = param.depth(LINEAGE_DEPTH_MIN, LINEAGE_DEPTH_MAX)

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> LineageRequest:
        return LineageRequest.create(**data)


class SearchArgs(_ListArgs):
    BOUND = bounds.SEARCH
    limit = param.limit(BOUND)
    offset = param.offset()
    q = fields.String(
        required=True,
        error_messages={"required": "q is required: the text to search for"},
        metadata={
            "description": f"Text to find: {SEARCH_MIN_LENGTH} to {SEARCH_MAX_LENGTH} characters "
            "once leading and trailing whitespace is trimmed; no NUL.",
            "pattern": text_pattern(SEARCH_MIN_LENGTH, SEARCH_MAX_LENGTH),
        },
    )
    type = param.choice(SEARCH_TYPES, "One of: ")
    state = param.state()

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[SearchQuery, PageRequest]:
        page = self.page(data)
        return SearchQuery.create(**data), page
