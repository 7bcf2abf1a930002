"""Field rules: how one value of an import record is read, checked and normalised.

A parser takes the raw value (a JSON value from a JSONL line, or the text of a CSV cell) and
whether it came from CSV, and returns the normalised value or raises FieldError with a message
that reads after the field's name ("must be a number from 0 to 100").
"""

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.orm import QueryableAttribute

from service.errors import InvalidParameter
from service.filters import StrainFilters, is_encodable
from service.geo import is_jurisdiction, valid_timezone
from service.hours import parse_span
from service.vocab import WEEKDAYS

Parser = Callable[[Any, bool], Any]

INT_MAX = 2_147_483_647  # the largest value an Integer column holds on every backend
LIST_SEPARATOR = ";"
_CSV_NUMBER = re.compile(r"^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$")
_CSV_INTEGER = re.compile(r"^-?[0-9]+$")
_CSV_TRUE, _CSV_FALSE = ("true", "1"), ("false", "0")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_MULTILINE_CONTROLS = "\n\r\t"


class FieldError(ValueError):
    """A value breaks its field's rule; the message reads after the field's name."""


@dataclass(frozen=True)
class Field:
    """One field of a resource record: its name, parser, and whether it must be given."""

    name: str
    parse: Parser
    required: bool = True
    default: Any = None

    def read(self, raw: Any, from_csv: bool) -> Any:
        """The normalised value of ``raw``; the default when absent; FieldError when bad."""
        if is_absent(raw):
            if self.required:
                raise FieldError("is required")
            return self.default() if callable(self.default) else self.default
        return self.parse(raw, from_csv)


def is_absent(raw: Any) -> bool:
    """True for a missing value: JSON null, or an empty or blank string (an empty CSV cell)."""
    return raw is None or (isinstance(raw, str) and not raw.strip())


def column_length(attribute: QueryableAttribute[Any]) -> int:
    """The declared length of a model's String column, e.g. 160 for ``Dispensary.name``."""
    length: int = attribute.property.columns[0].type.length
    return length


def _string(raw: Any) -> str:
    if not isinstance(raw, str):
        raise FieldError("must be a string")
    if not is_encodable(raw) or "\x00" in raw:
        raise FieldError("must be valid Unicode text without NUL characters")
    return raw


def text(
    limit: int | None = None,
    *,
    multiline: bool = False,
    pattern: re.Pattern[str] | None = None,
    hint: str = "",
) -> Parser:
    """Text of at most ``limit`` characters, trimmed; one-line text has its spaces collapsed."""

    def parse(raw: Any, _from_csv: bool) -> str:
        value = _string(raw)
        if multiline:
            value = value.strip()
            printable = all(c.isprintable() or c in _MULTILINE_CONTROLS for c in value)
        else:
            value = " ".join(value.split())
            printable = value.isprintable()
        if not printable:
            raise FieldError("must not contain control characters")
        if limit is not None and len(value) > limit:
            raise FieldError(f"must be at most {limit} characters")
        if pattern is not None and not pattern.fullmatch(value):
            raise FieldError(hint)
        return value

    return parse


def number(minimum: float, maximum: float | None = None) -> Parser:
    """A finite decimal number within [minimum, maximum]; a JSON number or a CSV decimal."""
    bounds = (
        f"from {minimum:g} to {maximum:g}" if maximum is not None else f"of {minimum:g} or more"
    )

    def parse(raw: Any, from_csv: bool) -> float:
        if from_csv:
            if not _CSV_NUMBER.fullmatch(raw.strip()):
                raise FieldError(f"must be a number {bounds}")
            value = float(raw)
        elif isinstance(raw, bool) or not isinstance(raw, int | float):
            raise FieldError(f"must be a number {bounds}")
        else:
            try:
                value = float(raw)
            except OverflowError:  # a JSON integer too large for a float
                value = math.inf
        if not math.isfinite(value) or value < minimum or (maximum is not None and value > maximum):
            raise FieldError(f"must be a number {bounds}")
        return value

    return parse


def integer(minimum: int, maximum: int = INT_MAX) -> Parser:
    """A whole number within [minimum, maximum]; a JSON integer or CSV digits."""
    bounds = f"from {minimum} to {maximum}" if maximum != INT_MAX else f"of {minimum} or more"

    def parse(raw: Any, from_csv: bool) -> int:
        if from_csv:
            if not _CSV_INTEGER.fullmatch(raw.strip()):
                raise FieldError(f"must be a whole number {bounds}")
            value = int(raw)
        elif isinstance(raw, bool) or not isinstance(raw, int):
            raise FieldError(f"must be a whole number {bounds}")
        else:
            value = raw
        if not minimum <= value <= maximum:
            raise FieldError(f"must be a whole number {bounds}")
        return value

    return parse


def boolean() -> Parser:
    """A JSON true/false, or in CSV true/false/1/0 in any case."""

    def parse(raw: Any, from_csv: bool) -> bool:
        if from_csv:
            folded = raw.strip().lower()
            if folded in _CSV_TRUE or folded in _CSV_FALSE:
                return folded in _CSV_TRUE
        elif isinstance(raw, bool):
            return raw
        raise FieldError("must be true or false")

    return parse


def iso_date() -> Parser:
    """A calendar date written YYYY-MM-DD; the value stays that text."""

    def parse(raw: Any, _from_csv: bool) -> str:
        value = _string(raw).strip()
        try:
            if _DATE.fullmatch(value):
                date.fromisoformat(value)
                return value
        except ValueError:
            pass
        raise FieldError("must be a date written YYYY-MM-DD")

    return parse


def choice(options: Sequence[str]) -> Parser:
    """One word of a fixed vocabulary, in any case; stored lower-case."""

    def parse(raw: Any, _from_csv: bool) -> str:
        folded = _string(raw).strip().lower()
        if folded not in options:
            raise FieldError(f"must be one of: {', '.join(options)}")
        return folded

    return parse


def state_code() -> Parser:
    """A two-letter jurisdiction code (any case); stored upper-case."""

    def parse(raw: Any, _from_csv: bool) -> str:
        value = _string(raw).strip()
        if len(value) != 2 or not is_jurisdiction(value):
            raise FieldError("must be the two-letter code of a US state, DC or territory")
        return value.upper()

    return parse


def _items(raw: Any, from_csv: bool) -> list[str]:
    if from_csv:
        return [item for item in raw.split(LIST_SEPARATOR) if item.strip()]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise FieldError("must be a JSON array of strings")
    return [_string(item) for item in raw]


def _is_filter_word(word: str) -> bool:
    """True when the API's effect/flavor filter accepts ``word`` exactly as it is stored."""
    try:
        taken = StrainFilters.create(effect=word).effect
    except InvalidParameter:
        return False
    return taken == (word,)


def word_list() -> Parser:
    """Distinct lowercase words such as the effect and flavor filters take; CSV: ``a;b;c``."""

    def parse(raw: Any, from_csv: bool) -> list[str]:
        words = [" ".join(item.split()).lower() for item in _items(raw, from_csv)]
        bad = [word for word in words if not _is_filter_word(word)]
        if bad:
            raise FieldError(
                f"has {bad[0]!r}: each entry must be a word of letters, digits, spaces or "
                "hyphens starting with a letter, at most 40 characters"
            )
        if len(set(words)) != len(words):
            raise FieldError("must not repeat an entry")
        return words

    return parse


def text_list(limit: int) -> Parser:
    """Non-empty strings of at most ``limit`` characters each; CSV: ``a;b;c``."""
    item_parser = text(limit)

    def parse(raw: Any, from_csv: bool) -> list[str]:
        return [item_parser(item, from_csv) for item in _items(raw, from_csv)]

    return parse


def _check_span(day: str, span: Any) -> None:
    # The parser the open/closed answers use (service.hours), so what it reads is what we store.
    try:
        parse_span(span)
    except ValueError as error:
        raise FieldError(f"{day} {error}") from None


def time_zone() -> Parser:
    """An IANA time zone name zoneinfo knows, spelled exactly, such as America/Los_Angeles."""

    def parse(raw: Any, _from_csv: bool) -> str:
        value = _string(raw).strip()
        if not valid_timezone(value):
            raise FieldError(
                "must be an IANA time zone name such as America/Los_Angeles or Pacific/Guam "
                "(leave it out to take the ZIP code's)"
            )
        return value

    return parse


def weekly_hours() -> Parser:
    """Opening hours ``{"mon": "9:00-21:00", ...}``; closed days are left out; a close before
    the open (``"18:00-02:00"``) runs past midnight."""

    def parse(raw: Any, _from_csv: bool) -> dict[str, str]:
        if not isinstance(raw, Mapping):
            raise FieldError('must be an object such as {"mon": "9:00-21:00"}')
        unknown = [day for day in raw if day not in WEEKDAYS]
        if unknown:
            raise FieldError(f"has unknown day {unknown[0]!r}; use {', '.join(WEEKDAYS)}")
        for day, span in raw.items():
            _check_span(day, span)
        return {day: raw[day] for day in WEEKDAYS if day in raw}

    return parse


def unique_list(item: Parser, limit: int) -> Parser:
    """At most ``limit`` distinct values, each read by ``item``; CSV: ``a;b``."""

    def parse(raw: Any, from_csv: bool) -> list[Any]:
        values = []
        for entry in _items(raw, from_csv):
            try:
                values.append(item(entry, from_csv))
            except FieldError as exc:
                raise FieldError(f"has {entry!r}, which {exc}") from None
        if len(values) > limit:
            raise FieldError(f"must have at most {limit} entries")
        if len(set(values)) != len(values):
            raise FieldError("must not repeat an entry")
        return values

    return parse
