"""Query-argument schemas: parse strings, then build the service's filter and page objects.

Bounds and defaults come from service.paging and service.filters; nothing is re-typed here.
Unknown parameters are ignored; a known parameter given twice is rejected by the parser.
"""

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load

from service.filters import (
    MAX_RADIUS_MILES,
    SEARCH_MAX_LENGTH,
    SEARCH_TYPES,
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    SearchQuery,
    StrainFilters,
)
from service.paging import DEFAULT_LIMIT, DOCTORS_MAX_LIMIT, MAX_LIMIT, MAX_OFFSET, PageRequest

from .fields import StrictBoolean, StrictInteger, StrictNumber


def _limit(maximum: int) -> StrictInteger:
    return StrictInteger(
        expect=f"an integer from 1 to {maximum} (larger values are reduced to {maximum})",
        metadata={
            "description": f"Results per page, 1 to {maximum}; larger values are reduced to "
            f"{maximum} and meta.limit shows the limit in effect.",
            "minimum": 1,
            "default": DEFAULT_LIMIT,
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
        },
    )


def _percent(description: str) -> StrictNumber:
    return StrictNumber(
        expect="a number from 0 to 100",
        metadata={"description": description, "minimum": 0, "maximum": 100},
    )


def _state() -> fields.String:
    return fields.String(
        metadata={"description": "Two-letter code of a US state, DC or territory (any case)."}
    )


def _city() -> fields.String:
    return fields.String(metadata={"description": "City name (any case)."})


class _ListArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    MAXIMUM = MAX_LIMIT
    limit = _limit(MAX_LIMIT)
    offset = _offset()

    def page(self, data: dict[str, Any]) -> PageRequest:
        return PageRequest.build(
            data.pop("limit", None), data.pop("offset", None), maximum=self.MAXIMUM
        )


class StrainArgs(_ListArgs):
    type = fields.String(metadata={"description": "indica, sativa or hybrid (any case)."})
    effect = fields.String(metadata={"description": "An effect, e.g. relaxed (any case)."})
    flavor = fields.String(metadata={"description": "A flavor, e.g. earthy (any case)."})
    thc_min = _percent("Minimum THC percentage.")
    thc_max = _percent("Maximum THC percentage.")
    cbd_min = _percent("Minimum CBD percentage.")
    cbd_max = _percent("Maximum CBD percentage.")

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[StrainFilters, PageRequest]:
        page = self.page(data)
        return StrainFilters.create(**data), page


class DispensaryArgs(_ListArgs):
    state = _state()
    city = _city()
    zip = fields.String(
        metadata={"description": "Five-digit ZIP code: nearest dispensaries first, with distance."}
    )
    radius = StrictNumber(
        expect=f"a number of miles greater than 0 and at most {MAX_RADIUS_MILES:g}",
        metadata={"description": "Miles from zip (default 50).", "maximum": MAX_RADIUS_MILES},
    )
    type = fields.String(metadata={"description": "recreational, medical or both (any case)."})
    delivery = StrictBoolean(metadata={"description": "true: only dispensaries that deliver."})

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DispensaryFilters, PageRequest]:
        page = self.page(data)
        return DispensaryFilters.create(**data), page


class DealArgs(_ListArgs):
    state = _state()
    city = _city()
    category = fields.String(
        metadata={
            "description": "flower, edibles, concentrates, vapes, pre-rolls, topicals or "
            "tinctures (any case)."
        }
    )

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DealFilters, PageRequest]:
        page = self.page(data)
        return DealFilters.create(**data), page


class DoctorArgs(_ListArgs):
    MAXIMUM = DOCTORS_MAX_LIMIT
    limit = _limit(DOCTORS_MAX_LIMIT)
    state = _state()
    city = _city()
    telehealth = StrictBoolean(metadata={"description": "true: only doctors offering telehealth."})

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[DoctorFilters, PageRequest]:
        page = self.page(data)
        return DoctorFilters.create(**data), page


class SearchArgs(_ListArgs):
    q = fields.String(
        required=True,
        error_messages={"required": "q is required: the text to search for"},
        metadata={"description": f"Text to find, 1 to {SEARCH_MAX_LENGTH} characters."},
    )
    type = fields.String(metadata={"description": f"One of: {', '.join(SEARCH_TYPES)}."})
    state = _state()

    @post_load
    def build(self, data: dict[str, Any], **_: Any) -> tuple[SearchQuery, PageRequest]:
        page = self.page(data)
        return SearchQuery.create(**data), page
