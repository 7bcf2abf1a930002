"""Query-argument schemas: parse strings, then build the service's filter and page objects.

Each list's page bounds come from service.bounds, its words from service.vocab and the other
limits from service.filters; nothing is re-typed here.
Unknown parameters are refused before these run (rest.blueprint); a known parameter given twice
is rejected by the parser.
"""

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load

from service import bounds
from service.bounds import MAX_OFFSET, ListBound
from service.filters import (
    DEFAULT_RADIUS_MILES,
    MAX_CBD,
    MAX_RADIUS_MILES,
    MAX_THC,
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
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES

from .fields import (
    BOOLEAN_PATTERN,
    DECIMAL_DIGITS,
    StrictBoolean,
    StrictInteger,
    StrictNumber,
    decimal_pattern,
    integer_pattern,
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
    type = _choice(STRAIN_TYPES)
    effect = _word("relaxed")
    flavor = _word("earthy")
    thc_min = _percent("Minimum THC percentage", MAX_THC)
    thc_max = _percent("Maximum THC percentage, not below thc_min", MAX_THC)
    cbd_min = _percent("Minimum CBD percentage", MAX_CBD)
    cbd_max = _percent("Maximum CBD percentage, not below cbd_min", MAX_CBD)

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[StrainFilters, PageRequest]:
        page = self.page(data)
        return StrainFilters.create(**data), page


class DispensaryArgs(_ListArgs):
    BOUND = bounds.DISPENSARIES
    limit = _limit(BOUND)
    offset = _offset()
    state = _state()
    city = _city()
    zip = fields.String(
        metadata={
            "description": "A known five-digit US ZIP code: nearest dispensaries first, with "
            "distance.",
            "pattern": ZIP_PATTERN,
        }
    )
    radius = StrictNumber(
        expect=f"a number of miles greater than 0 and at most {MAX_RADIUS_MILES:g}",
        metadata={
            "description": _decimal(
                f"Miles from zip, greater than 0 and at most {MAX_RADIUS_MILES:g} (default "
                f"{DEFAULT_RADIUS_MILES:g}); only with zip."
            ),
            "minimum": 0,
            "exclusiveMinimum": True,
            "maximum": MAX_RADIUS_MILES,
            ACCEPTS: decimal_pattern(int(MAX_RADIUS_MILES), exclusive_minimum=True),
        },
    )
    type = _choice(DISPENSARY_TYPES)
    delivery = _boolean("true: only dispensaries that deliver.")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DispensaryFilters, PageRequest]:
        page = self.page(data)
        return DispensaryFilters.create(**data), page


class DealArgs(_ListArgs):
    BOUND = bounds.DEALS
    limit = _limit(BOUND)
    offset = _offset()
    state = _state()
    city = _city()
    category = _choice(DEAL_CATEGORIES)

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DealFilters, PageRequest]:
        page = self.page(data)
        return DealFilters.create(**data), page


class DoctorArgs(_ListArgs):
    BOUND = bounds.DOCTORS
    limit = _limit(BOUND)
    offset = _offset()
    state = _state()
    city = _city()
    telehealth = _boolean("true: only doctors offering telehealth.")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DoctorFilters, PageRequest]:
        page = self.page(data)
        return DoctorFilters.create(**data), page


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
