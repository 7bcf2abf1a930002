"""The fields of the REST query parameters, one builder per kind of parameter: what each reads,
its messages and what the OpenAPI document publishes of it. rest.args assembles them into each
endpoint's argument schema."""

from marshmallow import fields
from webargs.fields import DelimitedList

from service.bounds import MAX_OFFSET, ListBound
from service.filters import MAX_VALUES, WORD_MAX_LENGTH
from service.geo import JURISDICTIONS
from service.numbers import NUMBER_PATTERN
from service.places import (
    BBOX_EXAMPLE,
    DEFAULT_RADIUS_MILES,
    MAX_RADIUS_MILES,
)
from service.when import OPEN_AT_EXAMPLE, SINCE_EXAMPLE

from .blueprint import NUMERIC
from .fields import (
    BOOLEAN_PATTERN,
    StrictBoolean,
    StrictInteger,
    StrictNumber,
    list_pattern,
)
from .openapi import (
    NOT_SPACE,
    SPACE,
    ZIP_PATTERN,
    choice_pattern,
    state_pattern,
    word_pattern,
)

# The document publishes the values a client should send, typed (integer, number, boolean, enum),
# so that generated clients get typed arguments. The server reads more than that, as each
# description says (any case, surrounding whitespace, 1/0, a limit over its maximum), with the
# messages it always had: ``ACCEPTS`` in a field's metadata is the exact grammar of the strings it
# takes (apispec publishes only OpenAPI keywords, so it stays out of the document), and
# tests/fuzz checks the server against it. For a number it is the grammar of service.numbers;
# the value must then be within the published minimum and maximum as a double reads it (an
# integer: a whole number, of any size).
ACCEPTS = "accepts"


def limit(bound: ListBound) -> StrictInteger:
    maximum = bound.maximum
    return StrictInteger(
        expect=f"an integer from 1 to {maximum} (larger values are reduced to {maximum})",
        metadata={
            "description": f"Results per page, 1 to {maximum}; a larger value (of any size) is "
            f"reduced to {maximum} and meta.limit shows the limit in effect. {WHOLE}",
            # No "maximum": a larger limit is read (reduced), so the document does not refuse it.
            "minimum": 1,
            "default": bound.default,
            # A limit over the maximum (of any size) is reduced, not refused.
            ACCEPTS: NUMBER_PATTERN,
        },
    )


def offset() -> StrictInteger:
    return StrictInteger(
        expect=f"an integer from 0 to {MAX_OFFSET}",
        metadata={
            "description": f"Results to skip. {WHOLE}",
            "minimum": 0,
            "maximum": MAX_OFFSET,
            "default": 0,
            ACCEPTS: NUMBER_PATTERN,
        },
    )


# How a number may be written (service.numbers), said in each number's description.
NUMBER_FORMS = (
    "Any JSON number form, exponent included (20, 20.5, 1e-05, 2.5E+1; in a URL + is %2B); no "
    "NaN, Infinity or hex."
)
WHOLE = "A whole number in any JSON number form (20, 2e1, 20.0)."


def depth(lowest: int, highest: int) -> StrictInteger:
    return StrictInteger(
        expect=f"an integer from {lowest} to {highest}",
        metadata={
            "description": f"Generations to walk, {lowest} to {highest} (default {lowest}). "
            f"{WHOLE}",
            "minimum": lowest,
            "maximum": highest,
            "default": lowest,
            ACCEPTS: NUMBER_PATTERN,
        },
    )


def decimal(description: str) -> str:
    return f"{description} {NUMBER_FORMS}"


def percent(description: str, maximum: float) -> StrictNumber:
    return StrictNumber(
        expect=f"a number from 0 to {maximum:g}",
        metadata={
            "description": decimal(f"{description}, from 0 to {maximum:g}."),
            "minimum": 0,
            "maximum": maximum,
            ACCEPTS: NUMBER_PATTERN,
        },
    )


def boolean(description: str) -> StrictBoolean:
    return StrictBoolean(
        metadata={
            "description": f"{description} true or false; 1 and 0 and any case are read too.",
            ACCEPTS: BOOLEAN_PATTERN,
        }
    )


def enum_names(words: tuple[str, ...]) -> dict[str, list[str]]:
    """The enum of ``words``, with member names for generated clients when a word starts with a
    minus (a descending sort): ``-rating`` is RATING_DESC rather than VALUE_3."""
    names = {"enum": list(words)}
    if any(word.startswith("-") for word in words):
        names["x-enum-varnames"] = [
            word.lstrip("-").replace("-", "_").upper() + ("_DESC" if word.startswith("-") else "")
            for word in words
        ]
    return names


def choice(words: tuple[str, ...], description: str = "") -> fields.String:
    listed = f"{', '.join(words[:-1])} or {words[-1]}"
    return fields.String(
        metadata={
            "description": f"{description}{listed}; any case, surrounding whitespace ignored.",
            **enum_names(words),
            ACCEPTS: choice_pattern(words),
        }
    )


def word(example: str) -> fields.String:
    return fields.String(
        metadata={
            "description": f"A word such as {example} (any case): a letter, then letters, digits, "
            f"spaces or hyphens; at most {WORD_MAX_LENGTH} characters. An unknown word matches "
            "nothing.",
            "pattern": word_pattern(WORD_MAX_LENGTH),
        }
    )


def slug(description: str) -> fields.String:
    # Letters in any case, as str.lower() folds them (KELVIN SIGN is a k), then trimmed.
    alphanumeric = "[A-Za-z0-9\u212a]"
    return fields.String(
        metadata={
            "description": f"{description} A strain's slug such as blue-dream (any case, "
            "surrounding whitespace ignored): letters and digits in words joined by hyphens. An "
            "unknown slug matches nothing.",
            "pattern": f"^{SPACE}*{alphanumeric}+(?:-{alphanumeric}+)*{SPACE}*$",
        }
    )


def state() -> fields.String:
    return fields.String(
        metadata={
            "description": "Two-letter code of a US state, DC or territory; any case, "
            "surrounding ASCII whitespace ignored.",
            "enum": sorted(JURISDICTIONS),
            ACCEPTS: state_pattern(JURISDICTIONS),
        }
    )


def city() -> fields.String:
    return fields.String(
        metadata={
            "description": "City name (any case): 1 to 80 printable characters once runs of "
            "whitespace are collapsed to one space.",
            "pattern": NOT_SPACE,
        }
    )


def any_of(one: fields.String, what: str) -> DelimitedList:
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


def coordinate(name: str, limit: int, example: str, other: str) -> fields.String:
    return fields.String(
        metadata={
            "description": f"{name} in WGS84 decimal degrees, -{limit} to {limit} (e.g. "
            f"{example}). {NUMBER_FORMS} Give {other} too: nearest first, with distance.",
            "type": "number",
            NUMERIC: True,
            "minimum": -limit,
            "maximum": limit,
            ACCEPTS: NUMBER_PATTERN,
        }
    )


def radius() -> StrictNumber:
    return StrictNumber(
        expect=f"a number of miles greater than 0 and at most {MAX_RADIUS_MILES:g}",
        metadata={
            "description": decimal(
                f"Miles from zip or lat/lng, greater than 0 and at most {MAX_RADIUS_MILES:g} "
                f"(default {DEFAULT_RADIUS_MILES:g}); only with zip or lat/lng."
            ),
            "minimum": 0,
            "exclusiveMinimum": True,
            "maximum": MAX_RADIUS_MILES,
            ACCEPTS: NUMBER_PATTERN,
        },
    )


def zip() -> fields.String:
    return fields.String(
        metadata={
            "description": "A known five-digit US ZIP code: nearest first, with distance. At "
            "most one of zip, lat/lng and bbox.",
            "pattern": ZIP_PATTERN,
        }
    )


def bbox() -> fields.String:
    return fields.String(
        metadata={
            "description": "Map viewport west,south,east,north in decimal degrees (e.g. "
            f"{BBOX_EXAMPLE}): only what lies inside, edges included. South must not exceed "
            "north; a box crossing the antimeridian (west greater than east) is refused: ask "
            "for its two halves. At most one of zip, lat/lng and bbox.",
            "pattern": "^[^,]+,[^,]+,[^,]+,[^,]+$",
            NUMERIC: True,
        }
    )


def sort(choices: tuple[str, ...], default: str, ties: str, key: str = "id") -> fields.String:
    """``ties``: what breaks ties of the default order (then ``key``); empty when it has none."""
    ratings = " (rating lowest first, -rating highest first)" if "rating" in choices else ""
    nearest = (
        "; distance (nearest first) is the default with zip or lat/lng and needs one of them"
        if "distance" in choices
        else ""
    )
    stamps = (
        f" updated_at: oldest change first, ties by {key}; -updated_at: the exact reverse."
        if "updated_at" in choices
        else ""
    )
    per_gram = (
        " price_per_gram: cheapest per gram of the strain's menu item first, those without a "
        "price per gram last."
        if "price_per_gram" in choices
        else ""
    )
    tied = f" Ties are broken by {ties}, then {key}, so pages are stable." if ties else ""
    return fields.String(
        metadata={
            "description": f"Order of the list: {', '.join(choices)}{ratings}; any case, "
            f"surrounding whitespace ignored. Default {default}{nearest}.{tied}{stamps}{per_gram}",
            **enum_names(choices),
            ACCEPTS: choice_pattern(choices),
        }
    )


def updated_since() -> fields.String:
    return fields.String(
        metadata={
            "description": "Only those whose updated_at is at or after this instant (inclusive): "
            f"RFC 3339 with seconds and a UTC offset or Z (e.g. {SINCE_EXAMPLE}), not in the "
            "future. Combines with every other parameter.",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?"
            "([Zz]|[+-][0-9]{2}:[0-9]{2})$",
        }
    )


def open_now() -> StrictBoolean:
    return boolean(
        "true: only those open now in their own time zone; false: all of them, each still "
        "showing is_open and next_change. The answer describes the current minute."
    )


def open_at() -> fields.String:
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
