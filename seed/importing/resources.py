"""The seven resources an import reads: fields, public key, unique fields and references.

Field names are the API's where the API serves the value (``reviewCount``, ``stateCode``) and
the model column's otherwise (``street``, ``zip``, ``lat``). Length limits come from the model
columns, vocabularies from service.vocab (the words the API filters accept).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from models import Deal, Dispensary, Doctor, Law, MenuItem, Review, Strain
from service import ids
from service.compounds import MAX_PARENTS, ORIGINS, Origin
from service.strains import SLUG_PATTERN
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, STRAIN_TYPES, WEEKDAYS

from ..chemistry import leading_terpenes
from . import chemistry as chem
from .fields import (
    Field,
    Parser,
    boolean,
    choice,
    column_length,
    integer,
    iso_date,
    number,
    state_code,
    text,
    text_list,
    time_zone,
    unique_list,
    weekly_hours,
    word_list,
)
from .locations import location_problems

Values = dict[str, Any]
Check = Callable[[Values], list[str]]

MAX_PERCENT = 100.0
# How far a strain's thc/cbd may be from its chemistry's total median to one decimal: the
# rounding of the other side.
THC_TOLERANCE = 0.05
MAX_RATING = 5.0
SOURCE_MAX_LENGTH = 500
_PHONE = re.compile(r"^(?=(?:[^0-9]*[0-9]){7})[0-9+() .\-]+$")
_WEBSITE = re.compile(r"^https?://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?(?:[/?#][^\s]*)?$")


@dataclass(frozen=True)
class Reference:
    """A field naming a record of another resource by that resource's key."""

    field: str  # its value is one key, or a list of keys
    resource: str
    label: str  # how messages name the target: "dispensary", "strain", "state"


@dataclass(frozen=True)
class Resource:
    """How one resource file is read and checked."""

    name: str
    fields: tuple[Field, ...]
    key: str | None = None  # the field holding the record's public id
    unique: tuple[str, ...] = ()  # further fields no two records may share
    references: tuple[Reference, ...] = ()
    checks: tuple[Check, ...] = ()  # rules across fields, run once every field is valid
    # A field given in CSV as several columns (dispensary hours as one column per weekday).
    csv_group: tuple[str, tuple[str, ...]] | None = None

    @cached_property
    def field_names(self) -> frozenset[str]:
        return frozenset(f.name for f in self.fields)

    def csv_columns(self) -> tuple[str, ...]:
        """The columns a CSV file of this resource may have."""
        columns: list[str] = []
        for f in self.fields:
            if self.csv_group is not None and f.name == self.csv_group[0]:
                columns.extend(self.csv_group[1])
            else:
                columns.append(f.name)
        return tuple(columns)

    def required_csv_columns(self) -> tuple[str, ...]:
        """The columns a CSV header must have: required fields (every column of a group)."""
        grouped = self.csv_group[1] if self.csv_group is not None else ()
        return tuple(c for c in self.csv_columns() if c in grouped or self._required(c))

    def _required(self, name: str) -> bool:
        return any(f.name == name and f.required for f in self.fields)


def _public_id(pattern: re.Pattern[str], example: str, length: int) -> Parser:
    return text(length, pattern=pattern, hint=f"must look like {example}")


def _slug() -> Parser:
    return text(
        column_length(Strain.slug),
        pattern=SLUG_PATTERN,
        hint="must be a lowercase slug such as blue-dream (letters, digits and single hyphens)",
    )


DISPENSARY_ID = _public_id(ids.DISPENSARY_ID, "disp_1001", column_length(Dispensary.public_id))


def _law_check(values: Values) -> list[str]:
    if not values["home_grow"] and values["home_grow_plants"]:
        return ["home_grow_plants must be 0 when home_grow is false"]
    return []


def _location_check(values: Values) -> list[str]:
    return location_problems(values["state"], values["zip"], values["lat"], values["lng"])


def _menu_check(values: Values) -> list[str]:
    problems = []
    if values["strain"] is not None and values["category"] != "flower":
        problems.append("strain may only be given on flower items")
    if values["lab"] is not None and values["category"] != "flower":
        problems.append(
            "lab may only be given on flower items (its results are percent of dry weight)"
        )
    return problems


def _total_median(layout: dict[str, Any], name: str) -> float:
    median: float = layout[name]["p50"]
    return round(median, 1)


def _strain_check(values: Values) -> list[str]:
    """thc/cbd against the chemistry, parents against the origin and the strain itself."""
    problems = []
    layout = values["chemistry"]
    for field, total in (("thc", "total_thc"), ("cbd", "total_cbd")):
        given = values[field]
        if layout is None:
            if given is None:
                problems.append(f"{field} is required (unless chemistry is given)")
            continue
        median = _total_median(layout, total)
        if given is not None and abs(given - median) > THC_TOLERANCE + 1e-9:
            problems.append(
                f"{field} {given:g} does not match chemistry: its {total} median is {median:g} "
                f"to one decimal; give {median:g} or leave {field} out"
            )
    leading = leading_terpenes(layout) if layout is not None else None
    if leading is not None and values["terpenes"] and values["terpenes"] != leading:
        problems.append(
            f"terpenes must be the leading terpenes of chemistry ({';'.join(leading) or 'none'})"
            " or be left out"
        )
    if values["slug"] in values["parents"]:
        problems.append(f"parents must not name the strain itself ({values['slug']})")
    if values["parents"] and values["origin"] == Origin.LANDRACE.value:
        problems.append("a landrace has no parents: leave parents out or give another origin")
    return problems


def _location_fields(model: type[Dispensary] | type[Doctor]) -> tuple[Field, ...]:
    return (
        Field("city", text(column_length(model.city))),
        Field("state", state_code()),
        Field("zip", text(pattern=re.compile(r"^[0-9]{5}$"), hint="must be five digits")),
        Field("lat", number(-90.0, 90.0)),
        Field("lng", number(-180.0, 180.0)),
        # Absent: the ZIP code's zone (service.geo.zip_timezone).
        Field("timezone", time_zone(), required=False),
    )


LAWS = Resource(
    name="laws",
    key="stateCode",
    unique=("state",),
    fields=(
        Field("state", text(column_length(Law.state))),
        Field("stateCode", state_code()),
        Field("recreational", boolean()),
        Field("medical", boolean()),
        Field("possession_limit_oz", number(0.0)),
        Field("home_grow", boolean()),
        Field("home_grow_plants", integer(0)),
        Field("delivery_legal", boolean()),
        Field("updated", iso_date()),
        Field("notes", text(multiline=True), required=False, default=""),
        Field("confidence", text(column_length(Law.confidence)), required=False, default=""),
        Field("sources", text_list(SOURCE_MAX_LENGTH), required=False, default=list),
    ),
    checks=(_law_check,),
)

STRAINS = Resource(
    name="strains",
    key="slug",
    unique=("name",),
    fields=(
        Field("slug", _slug()),
        Field("name", text(column_length(Strain.name))),
        Field("type", choice(STRAIN_TYPES)),
        # Given chemistry, thc and cbd may be left out: its total medians to one decimal.
        Field("thc", number(0.0, MAX_PERCENT), required=False),
        Field("cbd", number(0.0, MAX_PERCENT), required=False),
        Field("description", text(multiline=True), required=False, default=""),
        Field("effects", word_list(), required=False, default=list),
        Field("flavors", word_list(), required=False, default=list),
        Field("terpenes", word_list(), required=False, default=list),
        Field("rating", number(0.0, MAX_RATING), required=False, default=0.0),
        Field("reviewCount", integer(0), required=False, default=0),
        Field("origin", choice(ORIGINS), required=False, default=Origin.UNKNOWN.value),
        Field("parents", unique_list(_slug(), MAX_PARENTS), required=False, default=list),
        Field("chemistry", chem.chemistry(), required=False),
    ),
    references=(Reference("parents", "strains", "parent"),),
    checks=(_strain_check,),
)

DISPENSARIES = Resource(
    name="dispensaries",
    key="id",
    fields=(
        Field("id", DISPENSARY_ID),
        Field("name", text(column_length(Dispensary.name))),
        Field("street", text(column_length(Dispensary.street))),
        *_location_fields(Dispensary),
        Field("type", choice(DISPENSARY_TYPES)),
        Field("delivery", boolean()),
        Field("hours", weekly_hours()),
        Field(
            "phone",
            text(column_length(Dispensary.phone), pattern=_PHONE, hint="must be a phone number"),
        ),
        Field(
            "website",
            text(
                column_length(Dispensary.website),
                pattern=_WEBSITE,
                hint="must be an http:// or https:// URL",
            ),
        ),
        # Absent: worked out from the reviews file (their mean rating and their number).
        Field("rating", number(0.0, MAX_RATING), required=False),
        Field("reviewCount", integer(0), required=False),
    ),
    references=(Reference("state", "laws", "state"),),
    checks=(_location_check,),
    csv_group=("hours", WEEKDAYS),
)

MENU_ITEMS = Resource(
    name="menu_items",
    fields=(
        Field("dispensary", DISPENSARY_ID),
        Field("name", text(column_length(MenuItem.name))),
        Field("category", choice(DEAL_CATEGORIES)),
        Field("price", number(0.0)),
        Field("unit", text(column_length(MenuItem.unit))),
        Field("strain", _slug(), required=False),
        Field("lab", chem.lab(), required=False),
    ),
    references=(
        Reference("dispensary", "dispensaries", "dispensary"),
        Reference("strain", "strains", "strain"),
    ),
    checks=(_menu_check,),
)

REVIEWS = Resource(
    name="reviews",
    fields=(
        Field("dispensary", DISPENSARY_ID),
        Field("rating", integer(1, 5)),
        Field("text", text(multiline=True)),
        Field("author", text(column_length(Review.author))),
        Field("date", iso_date()),
    ),
    references=(Reference("dispensary", "dispensaries", "dispensary"),),
)

DEALS = Resource(
    name="deals",
    key="id",
    fields=(
        Field("id", _public_id(ids.DEAL_ID, "deal_1001", column_length(Deal.public_id))),
        Field("dispensary", DISPENSARY_ID),
        Field("title", text(column_length(Deal.title))),
        Field("category", choice(DEAL_CATEGORIES)),
        Field("discount", text(column_length(Deal.discount))),
        Field("expires", iso_date()),
    ),
    references=(Reference("dispensary", "dispensaries", "dispensary"),),
)

DOCTORS = Resource(
    name="doctors",
    key="id",
    fields=(
        Field("id", _public_id(ids.DOCTOR_ID, "doc_1001", column_length(Doctor.public_id))),
        Field("name", text(column_length(Doctor.name))),
        *_location_fields(Doctor),
        Field("telehealth", boolean()),
        Field("price", number(0.0)),
        Field("rating", number(0.0, MAX_RATING), required=False, default=0.0),
    ),
    references=(Reference("state", "laws", "state"),),
    checks=(_location_check,),
)

# Dependency order: every reference points at a resource earlier in this tuple.
RESOURCES: tuple[Resource, ...] = (
    LAWS,
    STRAINS,
    DISPENSARIES,
    MENU_ITEMS,
    REVIEWS,
    DEALS,
    DOCTORS,
)
BY_NAME: dict[str, Resource] = {resource.name: resource for resource in RESOURCES}

# A merge's deletions: which object of which type goes (the feed's type names, public ids).
DELETION_TYPES = ("law", "strain", "dispensary", "deal", "doctor")
DELETIONS = Resource(
    name="deletions",
    fields=(
        Field("type", choice(DELETION_TYPES)),
        Field("id", text(column_length(Strain.slug))),
    ),
)
# Every file an import directory may hold (deletions only count in a merge).
READABLE: dict[str, Resource] = {**BY_NAME, DELETIONS.name: DELETIONS}
