"""Hypothesis fuzz of the list endpoints' query strings, and of each parameter's grammar.

Query strings are built and percent-encoded here, byte by byte, so they can carry what a client
library would refuse to send: NUL, lone surrogates, invalid UTF-8, RTL marks, full-width
digits, huge and negative numbers, unknown and repeated names. Budget: 4 x FUZZ_EXAMPLES per
endpoint and FUZZ_EXAMPLES per documented parameter (default 25); a deeper run::

    FUZZ_EXAMPLES=500 .venv/bin/pytest -p no:cacheprovider tests/fuzz/test_query_fuzz.py
"""

import os
import re
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_from_bytes

import pytest
import werkzeug  # noqa: F401  (registers the "werkzeug.url_quote" codec error handler)
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow.fields import Field

from rest.args import DealArgs, DispensaryArgs, DoctorArgs, LawArgs, SearchArgs, StrainArgs
from rest.openapi import OPENAPI_PATH, SPACE
from rest.parameters import ACCEPTS
from service.bounds import DOCTORS_MAX_LIMIT, MAX_LIMIT
from service.errors import InvalidParameter
from service.geo import zip_point
from tests.fuzz.grammar import grammar_of, is_number, reads, spellings

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
LISTS = {
    "/api/v1/strains": MAX_LIMIT,
    "/api/v1/dispensaries": MAX_LIMIT,
    "/api/v1/deals": MAX_LIMIT,
    "/api/v1/doctors": DOCTORS_MAX_LIMIT,
    "/api/v1/search": MAX_LIMIT,
}
ARGUMENTS = {
    "/api/v1/strains": StrainArgs,
    "/api/v1/dispensaries": DispensaryArgs,
    "/api/v1/deals": DealArgs,
    "/api/v1/doctors": DoctorArgs,
    "/api/v1/search": SearchArgs,
    "/api/v1/laws": LawArgs,
}
# What must be sent beside a parameter for it to be judged on its own: search needs its text,
# radius a ZIP code.
NEEDS = {
    "/api/v1/search": ("q", "kush"),
    "radius": ("zip", "80202"),
    "lat": ("lng", "-104.99"),
    "lng": ("lat", "39.75"),
    "sort": ("zip", "80202"),  # sort=distance needs a point
}
# Documented only in part by a pattern (the rest in prose), so not compared with it exactly:
# a bbox's south must not exceed its north nor its west its east, an instant must exist (and
# updated_since must not be in the future).
PROSE = {"city", "bbox", "open_at", "updated_since"}
NUMBERS = {"thc_min", "thc_max", "cbd_min", "cbd_max", "radius"}

Raw = str | bytes  # a name or value: text (any code point, surrogates too) or raw bytes


def _document(app: Flask) -> dict[str, Any]:
    return app.test_client().get(OPENAPI_PATH).get_json()


def _parameters(app: Flask, path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in _document(app)["paths"][path]["get"]["parameters"]}


def encode(raw: Raw) -> str:
    """Percent-encode every byte: UTF-8 (lone surrogates as their 3 bytes) or the raw bytes."""
    if isinstance(raw, bytes):
        return quote_from_bytes(raw, safe="")
    return quote(raw, safe="", errors="surrogatepass")


def query_string(pairs: list[tuple[Raw, Raw | None]]) -> str:
    """``name=value`` joined by ``&``; a None value sends the bare name."""
    return "&".join(encode(n) if v is None else f"{encode(n)}={encode(v)}" for n, v in pairs)


def as_received(query: str) -> list[tuple[str, str]]:
    """The pairs as the server reads them (Werkzeug keeps invalid UTF-8 percent-encoded)."""
    return parse_qsl(query, keep_blank_values=True, errors="werkzeug.url_quote")


# --- strategies -------------------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=30)  # surrogates included
FULL_WIDTH_DIGITS = st.text(st.characters(min_codepoint=0xFF10, max_codepoint=0xFF19), min_size=1)
NUMERALS = st.one_of(
    st.integers().map(str),
    st.integers(-(10**40), 10**40).map(str),
    st.floats().map(str),  # nan, inf, -0.0, 1e-05, 1.7976931348623157e+308
    st.tuples(st.floats(0, 600), st.integers(0, 15)).map(lambda f: f"{f[0]:.{f[1]}f}"),
    FULL_WIDTH_DIGITS,
)
AWKWARD = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "5\x00",
        "\u202e",  # RIGHT-TO-LEFT OVERRIDE
        "\u200f5",  # RIGHT-TO-LEFT MARK
        "\ud800",  # lone surrogate
        "\ufeff1",  # BYTE ORDER MARK
        "\u0661\u0662",  # ARABIC-INDIC DIGITS
        "1_000",
        "0x10",
        "1e3",
        "-0",
        "00020",
        "TRUE",
        "ca",
        "80202",
        "relaxed",
        "\u212aush",  # KELVIN SIGN
        "pre-rolls",
        "dispensaries",
        "%",
        "&",
        "=",
        "+",
        "a" * 500,
    ]
)
VALUES: st.SearchStrategy[Raw | None] = st.one_of(
    ANY_TEXT, NUMERALS, AWKWARD, st.binary(max_size=12), st.none()
)


def names_for(known: list[str]) -> st.SearchStrategy[Raw]:
    known_names = st.sampled_from([*known, "api_key"])
    return st.one_of(
        known_names,
        known_names,  # twice as likely as any other kind
        known_names.map(str.upper),
        known_names.map(lambda n: n + " "),
        known_names.map(lambda n: "".join(chr(ord(c) + 0xFEE0) if c.isalpha() else c for c in n)),
        ANY_TEXT,
        st.binary(min_size=1, max_size=8),
    )


SEARCH_TEXT = st.one_of(st.sampled_from(["kush", "Blue", "a", " og "]), ANY_TEXT)


@st.composite
def queries(draw: st.DrawFn, known: list[str]) -> list[tuple[Raw, Raw | None]]:
    """Up to eight pairs; often one name again (with the same or another value).

    Where q is known (search), it mostly comes first with a plausible text, so that the other
    parameters get judged too.
    """
    pairs: list[tuple[Raw, Raw | None]] = []
    if "q" in known and draw(st.integers(0, 3)):
        pairs.append(("q", draw(SEARCH_TEXT)))
    pairs += draw(st.lists(st.tuples(names_for(known), VALUES), max_size=8))
    if pairs and draw(st.booleans()):
        name, value = draw(st.sampled_from(pairs))
        pairs.append((name, draw(st.one_of(st.just(value), VALUES))))
    return pairs


# --- every list endpoint: never a 5xx, always the envelope, a 400 names its parameter ---------


def check_envelope(
    response: Any, sent: list[str], known: list[str], path: str, maximum: int
) -> None:
    assert response.status_code in (200, 400), response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert isinstance(body, dict)
    assert body["success"] is (response.status_code == 200)
    if response.status_code == 400:
        error = body["error"]
        assert error["code"] == 400
        assert isinstance(error["message"], str)
        assert error["message"]
        param = error["param"]
        assert isinstance(param, str)
        # It names a parameter that was sent, or the search text that was not.
        assert param in sent or (path == "/api/v1/search" and param == "q"), (param, sent)
        if param not in known:  # a name the operation does not take is refused as such
            assert error["message"].startswith(f"unknown parameter {param!r}"), error
    else:
        data, meta = body["data"], body["meta"]
        assert isinstance(data, list)
        assert len(data) <= meta["limit"] <= maximum
        assert meta["limit"] >= 1


@pytest.mark.parametrize(("path", "maximum"), LISTS.items())
def test_any_query_string_gets_a_200_page_within_its_limit_or_a_400_naming_a_parameter(
    fuzz_app: Flask,
    fuzz_key: str,
    tally: Callable[[str], Any],
    path: str,
    maximum: int,
) -> None:
    client = fuzz_app.test_client()
    counts = tally(f"query fuzz {path}")
    known = list(_parameters(fuzz_app, path))

    @settings(FUZZ, max_examples=4 * EXAMPLES)
    @given(pairs=queries(known))
    def fuzz(pairs: list[tuple[Raw, Raw | None]]) -> None:
        query = query_string(pairs)
        with counts.case():
            response = client.get(f"{path}?{query}", headers={"X-API-Key": fuzz_key})
            sent = [name for name, _ in as_received(query)]
            check_envelope(response, sent, known, path, maximum)
        counts[f"status {response.status_code}"] += 1

    fuzz()


# --- each parameter's grammar matches exactly the values the server accepts -------------------
# The grammar is the published pattern of a string parameter, or for a typed or closed one the
# exact grammar its description states in prose (rest.parameters.ACCEPTS: any case, 1 and 0, leading
# zeros, a limit over its maximum).


def documented_patterns() -> list[tuple[str, str]]:
    """(path, parameter) for every list parameter with a pattern or a stated grammar."""
    return [
        (path, field.data_key or name)
        for path, arguments in ARGUMENTS.items()
        for name, field in arguments().fields.items()
        if (ACCEPTS in field.metadata or "pattern" in field.metadata) and name not in PROSE
    ]


def field_of(path: str, name: str) -> Field:
    return {f.data_key or n: f for n, f in ARGUMENTS[path]().fields.items()}[name]


@st.composite
def near_misses(draw: st.DrawFn, valid: st.SearchStrategy[str]) -> str:
    """A valid value with one character inserted, dropped or changed."""
    value = draw(valid)
    at = draw(st.integers(0, len(value)))
    extra = draw(st.one_of(st.sampled_from("\n\t \x00\u00a0\u3000-.0a\uff10"), st.characters()))
    edits = [value[:at] + extra + value[at:]]
    if at < len(value):
        edits += [value[:at] + value[at + 1 :], value[:at] + extra + value[at + 1 :]]
    return draw(st.sampled_from(edits))


def accepted_by_the_document(name: str, field: Field, value: str) -> bool:
    if not reads(field, value):
        return False
    if name == "zip":  # and, as its description says, a known ZIP code
        try:
            zip_point(value.strip())
        except InvalidParameter:
            return False
    return True


def _takes(path: str, name: str) -> bool:
    """Whether the list at ``path`` takes the parameter ``name``."""
    try:
        field_of(path, name)
    except KeyError:
        return False
    return True


@pytest.mark.parametrize(("path", "name"), documented_patterns())
def test_a_value_is_accepted_exactly_when_it_matches_its_documented_grammar(
    fuzz_app: Flask,
    fuzz_key: str,
    tally: Callable[[str], Any],
    path: str,
    name: str,
) -> None:
    client = fuzz_app.test_client()
    field = field_of(path, name)
    valid = st.from_regex(grammar_of(field), fullmatch=True)
    if is_number(field):  # the grammar alone makes mostly huge numbers: add ones within bounds
        valid = st.one_of(valid, spellings(field))
    counts = tally("documented patterns")

    @settings(FUZZ, max_examples=EXAMPLES)
    @given(value=st.one_of(valid, near_misses(valid), ANY_TEXT))
    def fuzz(value: str) -> None:
        pairs: list[tuple[Raw, Raw | None]] = [(name, value)]
        needs = (NEEDS.get(path), NEEDS.get(name))
        # A need is sent only where the list takes it (strains and laws sort without a point).
        pairs += [n for n in needs if n and n[0] != name and _takes(path, n[0])]
        query = query_string(pairs)
        received = dict(as_received(query))[name]
        expected = 200 if accepted_by_the_document(name, field, received) else 400
        with counts.case():
            response = client.get(f"{path}?{query}", headers={"X-API-Key": fuzz_key})
            assert response.status_code == expected, (received, response.get_json())
            if expected == 400:
                assert response.get_json()["error"]["param"] == name
        counts[f"status {response.status_code}"] += 1

    fuzz()


EVERY_CHARACTER = "".join(map(chr, range(sys.maxunicode + 1)))


def test_the_documented_whitespace_is_exactly_what_str_strip_removes() -> None:
    spaces = "".join(c for c in EVERY_CHARACTER if c.isspace())
    assert "".join(re.findall(SPACE, EVERY_CHARACTER)) == spaces


def test_kelvin_sign_is_the_one_other_character_that_lowers_to_an_ascii_letter() -> None:
    # rest.openapi.any_case() adds it to the class for "k"; any other would need adding too.
    others = {c for c in EVERY_CHARACTER if not c.isascii() and c.lower().isascii()}
    assert {c: c.lower() for c in others if c.lower().isalnum()} == {"\u212a": "k"}


@pytest.mark.parametrize("query", ["limit=5%0A", "offset=0%0A", "thc_min=5%0A", "cbd_max=1.5%0A"])
def test_a_number_followed_by_a_newline_is_refused(
    fuzz_app: Flask, fuzz_key: str, query: str
) -> None:
    response = fuzz_app.test_client().get(
        f"/api/v1/strains?{query}", headers={"X-API-Key": fuzz_key}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["param"] == query.split("=")[0]
