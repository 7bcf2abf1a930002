"""Query-argument schemas: parse strings, then build the service's filter and page objects.

Each list's page bounds come from service.bounds, its words from service.vocab and the other
limits from service.filters; nothing is re-typed here.
Unknown parameters are refused before these run (rest.blueprint); a known parameter given twice
is rejected by the parser.
"""

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load
from webargs.fields import DelimitedList

from service import bounds
from service.bounds import MAX_OFFSET, ListBound
from service.filters import (
    DEAL_SORTS,
    MAX_CBD,
    MAX_THC,
    MAX_VALUES,
    PLACE_SORTS,
    SEARCH_MAX_LENGTH,
    SEARCH_MIN_LENGTH,
    WORD_MAX_LENGTH,
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    LawFilters,
    SearchQuery,
    StrainFilters,
)
from service.geo import JURISDICTIONS
from service.paging import PageRequest
from service.places import (
    BBOX_EXAMPLE,
    DEFAULT_RADIUS_MILES,
    LAT_EXAMPLE,
    LNG_EXAMPLE,
    MAX_RADIUS_MILES,
)
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES
from service.when import OPEN_AT_EXAMPLE

from .fields import (
    BOOLEAN_PATTERN,
    DECIMAL_DIGITS,
    StrictBoolean,
    StrictInteger,
    StrictNumber,
    coordinate_pattern,
    decimal_pattern,
    integer_pattern,
    list_pattern,
)
from .openapi import (
    NOT_SPACE,
    ZIP_PATTERN,
    choice_pattern,
    state_pattern,
    text_pattern,
    word_pattern,
)

# The document publishes the values a client should send, typed (integer, number, boolean, enum),
# so that generated clients get typed arguments. The server reads more than that, as each
# description says (any case, surrounding whitespace, 1/0, a limit over its maximum), with the
# messages it always had: ``ACCEPTS`` in a field's metadata is the exact grammar of the strings it
# takes (apispec publishes only OpenAPI keywords, so it stays out of the document), and
# tests/fuzz checks the server against it.
ACCEPTS = "accepts"


def _limit(bound: ListBound) -> StrictInteger:
    maximum = bound.maximum
    return StrictInteger(
        expect=f"an integer from 1 to {maximum} (larger values are reduced to {maximum})",
        metadata={
            "description": f"Results per page, 1 to {maximum}; larger values (up to 18 digits) "
            f"are reduced to {maximum} and meta.limit shows the limit in effect.",
            "minimum": 1,
            "maximum": maximum,
            "default": bound.default,
            # A limit over the maximum (up to 18 digits) is reduced, not refused.
            ACCEPTS: integer_pattern(1),
        },
    )


def _offset() -> StrictInteger:
    return StrictInteger(
        expect=f"an integer from 0 to {MAX_OFFSET}",
        metadata={
            "description": "Results to skip.",
            "minimum": 0,
            "maximum": MAX_OFFSET,
            "default": 0,
            ACCEPTS: integer_pattern(0, MAX_OFFSET),
        },
    )


def _decimal(description: str) -> str:
    return (
        f"{description} Written as a plain decimal: at most {DECIMAL_DIGITS} digits before the "
        f"point and {DECIMAL_DIGITS} after it, no exponent."
    )


def _percent(description: str, maximum: float) -> StrictNumber:
    return StrictNumber(
        expect=f"a number from 0 to {maximum:g}",
        metadata={
            "description": _decimal(f"{description}, from 0 to {maximum:g}."),
            "minimum": 0,
            "maximum": maximum,
            ACCEPTS: decimal_pattern(int(maximum)),
        },
    )


def _boolean(description: str) -> StrictBoolean:
    return StrictBoolean(
        metadata={
            "description": f"{description} true or false; 1 and 0 and any case are read too.",
            ACCEPTS: BOOLEAN_PATTERN,
        }
    )


def _choice(words: tuple[str, ...], description: str = "") -> fields.String:
    listed = f"{', '.join(words[:-1])} or {words[-1]}"
    return fields.String(
        metadata={
            "description": f"{description}{listed}; any case, surrounding whitespace ignored.",
            "enum": list(words),
            ACCEPTS: choice_pattern(words),
        }
    )


def _word(example: str) -> fields.String:
    return fields.String(
        metadata={
            "description": f"A word such as {example} (any case): a letter, then letters, digits, "
            f"spaces or hyphens; at most {WORD_MAX_LENGTH} characters. An unknown word matches "
            "nothing.",
            "pattern": word_pattern(WORD_MAX_LENGTH),
        }
    )


def _state() -> fields.String:
    return fields.String(
        metadata={
            "description": "Two-letter code of a US state, DC or territory; any case, "
            "surrounding ASCII whitespace ignored.",
            "enum": sorted(JURISDICTIONS),
            ACCEPTS: state_pattern(JURISDICTIONS),
        }
    )


def _city() -> fields.String:
    return fields.String(
        metadata={
            "description": "City name (any case): 1 to 80 printable characters once runs of "
            "whitespace are collapsed to one space.",
            "pattern": NOT_SPACE,
        }
    )


def _any_of(one: fields.String, what: str) -> DelimitedList:
    """A filter taking up to MAX_VALUES values separated by commas, any of which matches; each
    value read as ``one`` reads it. Published as an array (style form, explode false)."""
    grammar = one.metadata.get(ACCEPTS) or one.metadata["pattern"]
    item = {key: value for key, value in one.metadata.items() if key != ACCEPTS}
    item.pop("description", None)
    return DelimitedList(
        fields.String(metadata=item),
        metadata={
            "description": f"{one.metadata['description']} Several {what}, separated by commas "
            f"or with the parameter repeated, match any of them (at most {MAX_VALUES}).",
            "minItems": 1,
            "maxItems": MAX_VALUES,
            ACCEPTS: list_pattern(grammar, MAX_VALUES),
        },
    )


def _coordinate(name: str, limit: int, example: str, other: str) -> fields.String:
    return fields.String(
        metadata={
            "description": f"{name} in WGS84 decimal degrees, -{limit} to {limit} (e.g. "
            f"{example}); a plain decimal, at most 12 digits after the point. Give {other} "
            "too: nearest first, with distance.",
            "type": "number",
            "minimum": -limit,
            "maximum": limit,
            ACCEPTS: coordinate_pattern(limit),
        }
    )


def _radius() -> StrictNumber:
    return StrictNumber(
        expect=f"a number of miles greater than 0 and at most {MAX_RADIUS_MILES:g}",
        metadata={
            "description": _decimal(
                f"Miles from zip or lat/lng, greater than 0 and at most {MAX_RADIUS_MILES:g} "
                f"(default {DEFAULT_RADIUS_MILES:g}); only with zip or lat/lng."
            ),
            "minimum": 0,
            "exclusiveMinimum": True,
            "maximum": MAX_RADIUS_MILES,
            ACCEPTS: decimal_pattern(int(MAX_RADIUS_MILES), exclusive_minimum=True),
        },
    )


def _zip() -> fields.String:
    return fields.String(
        metadata={
            "description": "A known five-digit US ZIP code: nearest first, with distance. At "
            "most one of zip, lat/lng and bbox.",
            "pattern": ZIP_PATTERN,
        }
    )


def _bbox() -> fields.String:
    return fields.String(
        metadata={
            "description": "Map viewport west,south,east,north in decimal degrees (e.g. "
            f"{BBOX_EXAMPLE}): only what lies inside, edges included. South must not exceed "
            "north; a box crossing the antimeridian (west greater than east) is refused: ask "
            "for its two halves. At most one of zip, lat/lng and bbox.",
            "pattern": "^[^,]+,[^,]+,[^,]+,[^,]+$",
        }
    )


def _sort(choices: tuple[str, ...], default: str, ties: str) -> fields.String:
    ratings = " (rating lowest first, -rating highest first)" if "rating" in choices else ""
    return fields.String(
        metadata={
            "description": f"Order of the list: {', '.join(choices)}{ratings}; any case, "
            f"surrounding whitespace ignored. Default {default}; distance (nearest first) is the "
            "default with zip or lat/lng and needs one of them. Ties are broken by "
            f"{ties}, then id, so pages are stable.",
            "enum": list(choices),
            ACCEPTS: choice_pattern(choices),
        }
    )


def _open_now() -> StrictBoolean:
    return _boolean(
        "true: only those open now in their own time zone; false: all of them, each still "
        "showing is_open and next_change. The answer describes the current minute."
    )


def _open_at() -> fields.String:
    return fields.String(
        metadata={
            "description": "Only those open at this instant: ISO 8601 date and time with a UTC "
            f"offset (e.g. {OPEN_AT_EXAMPLE}, or Z), years 1970 to 2100; each item shows "
            "is_open and next_change. Not with open_now.",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?"
            "(Z|[+-][0-9]{2}:[0-9]{2})$",
        }
    )


class _ListArgs(Schema):
    """Arguments of one list; each subclass names its ``BOUND`` and declares ``limit`` and
    ``offset`` first (the order the document lists them in)."""

    class Meta:
        unknown = EXCLUDE

    BOUND: ListBound

    def page(self, data: dict[str, Any]) -> PageRequest:
        return PageRequest.within(self.BOUND, data.pop("limit", None), data.pop("offset", None))


class StrainArgs(_ListArgs):
    BOUND = bounds.STRAINS
    limit = _limit(BOUND)
    offset = _offset()
    type = _any_of(_choice(STRAIN_TYPES), "types")
    effect = _any_of(_word("relaxed"), "effects")
    flavor = _any_of(_word("earthy"), "flavors")
    thc_min = _percent("Minimum THC percentage", MAX_THC)
    thc_max = _percent("Maximum THC percentage, not below thc_min", MAX_THC)
    cbd_min = _percent("Minimum CBD percentage", MAX_CBD)
    cbd_max = _percent("Maximum CBD percentage, not below cbd_min", MAX_CBD)

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[StrainFilters, PageRequest]:
        page = self.page(data)
        return StrainFilters.create(**data), page


def _place_fields(*, boxes: bool = True) -> dict[str, fields.Field[Any]]:
    """Where: a ZIP code or lat/lng with a radius, or (``boxes``) a map viewport."""
    where: dict[str, fields.Field[Any]] = {
        "zip": _zip(),
        "lat": _coordinate("Latitude", 90, LAT_EXAMPLE, "lng"),
        "lng": _coordinate("Longitude", 180, LNG_EXAMPLE, "lat"),
        "radius": _radius(),
    }
    if boxes:
        where["bbox"] = _bbox()
    return where


def _dispensary_fields(bound: ListBound) -> dict[str, fields.Field[Any]]:
    return {
        "limit": _limit(bound),
        "offset": _offset(),
        "state": _any_of(_state(), "states"),
        "city": _city(),
        **_place_fields(),
        "type": _any_of(_choice(DISPENSARY_TYPES), "types"),
        "delivery": _boolean("true: only dispensaries that deliver."),
        "open_now": _open_now(),
        "open_at": _open_at(),
        "sort": _sort(PLACE_SORTS, "name", "name"),
    }


class _DispensaryArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DispensaryFilters, PageRequest]:
        page = self.page(data)
        return DispensaryFilters.create(**data), page


# Built from a dict so that each list declares limit and offset first (the document's order).
DispensaryArgs = type(
    "DispensaryArgs",
    (_DispensaryArgs,),
    {"BOUND": bounds.DISPENSARIES, **_dispensary_fields(bounds.DISPENSARIES)},
)
# GET /strains/{slug}/dispensaries: every parameter of /dispensaries, its own page bound.
StockistArgs = type(
    "StockistArgs",
    (_DispensaryArgs,),
    {
        "BOUND": bounds.STRAIN_DISPENSARIES,
        **_dispensary_fields(bounds.STRAIN_DISPENSARIES),
    },
)


class _DealArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DealFilters, PageRequest]:
        page = self.page(data)
        return DealFilters.create(**data), page


DealArgs = type(
    "DealArgs",
    (_DealArgs,),
    {
        "BOUND": bounds.DEALS,
        "limit": _limit(bounds.DEALS),
        "offset": _offset(),
        "state": _any_of(_state(), "states"),
        "city": _city(),
        "category": _any_of(_choice(DEAL_CATEGORIES), "categories"),
        **_place_fields(boxes=False),
        "open_now": _boolean(
            "true: only deals whose dispensary is open now in its own time zone. The answer "
            "describes the current minute."
        ),
        "open_at": _open_at(),
        "sort": _sort(DEAL_SORTS, "expires", "expiry date"),
    },
)


class _DoctorArgs(_ListArgs):
    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DoctorFilters, PageRequest]:
        page = self.page(data)
        return DoctorFilters.create(**data), page


DoctorArgs = type(
    "DoctorArgs",
    (_DoctorArgs,),
    {
        "BOUND": bounds.DOCTORS,
        "limit": _limit(bounds.DOCTORS),
        "offset": _offset(),
        "state": _any_of(_state(), "states"),
        "city": _city(),
        **_place_fields(),
        "telehealth": _boolean("true: only doctors offering telehealth."),
        "sort": _sort(PLACE_SORTS, "name", "name"),
    },
)


class LawArgs(Schema):
    """Filters of the law list (every record fits one page: no limit or offset)."""

    class Meta:
        unknown = EXCLUDE

    recreational = _boolean("true: only where adult use is legal; false: only where it is not.")
    medical = _boolean("true: only where medical use is legal; false: only where it is not.")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> LawFilters:
        return LawFilters(**data)


class SearchArgs(_ListArgs):
    BOUND = bounds.SEARCH
    limit = _limit(BOUND)
    offset = _offset()
    q = fields.String(
        required=True,
        error_messages={"required": "q is required: the text to search for"},
        metadata={
            "description": f"Text to find: {SEARCH_MIN_LENGTH} to {SEARCH_MAX_LENGTH} characters "
            "once leading and trailing whitespace is trimmed; no NUL.",
            "pattern": text_pattern(SEARCH_MIN_LENGTH, SEARCH_MAX_LENGTH),
        },
    )
    type = _choice(SEARCH_TYPES, "One of: ")
    state = _state()

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[SearchQuery, PageRequest]:
        page = self.page(data)
        return SearchQuery.create(**data), page
