"""Keys leave no trace in log text, whichever spelling the app would accept them in."""

import logging
import sys
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

from web.redaction import RedactingFilter, redact_params, redact_query, redact_text

KEY = "cds_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
FAKE = "hunter2-not-our-format"  # a client's mistake is still a secret when sent as the key


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            f"GET /api/v1/strains?api_key={FAKE}&limit=2 HTTP/1.1",
            "GET /api/v1/strains?api_key=[redacted]&limit=2 HTTP/1.1",
        ),
        (f"GET /x?api%5Fkey={FAKE} HTTP/1.1", "GET /x?api%5Fkey=[redacted] HTTP/1.1"),
        (f"GET /x?api%5fkey={FAKE} HTTP/1.1", "GET /x?api%5fkey=[redacted] HTTP/1.1"),
        (f"GET /x?%61pi_key={FAKE} HTTP/1.1", "GET /x?%61pi_key=[redacted] HTTP/1.1"),
        (f"GET /x?api_%6Bey={FAKE} HTTP/1.1", "GET /x?api_%6Bey=[redacted] HTTP/1.1"),
        (
            f"GET /x?%61%70%69%5F%6B%65%79={FAKE} HTTP/1.1",
            "GET /x?%61%70%69%5F%6B%65%79=[redacted] HTTP/1.1",
        ),
        (
            f"GET /x?api_key=a&q=1&api_key={FAKE} HTTP/1.1",
            "GET /x?api_key=[redacted]&q=1&api_key=[redacted] HTTP/1.1",
        ),
        (f"GET /x?API_KEY={FAKE} HTTP/1.1", "GET /x?API_KEY=[redacted] HTTP/1.1"),
        (
            f"GET http://h/x?api_key={FAKE}#frag HTTP/1.1",
            "GET http://h/x?api_key=[redacted] HTTP/1.1",
        ),
        # gunicorn's and Werkzeug's complaints about a malformed request line quote it whole.
        (
            f"Invalid request from ip=127.0.0.1: Invalid HTTP request line: "
            f"'GET /x?api%5Fkey={FAKE} HTTP/1.1 extra'",
            "Invalid request from ip=127.0.0.1: Invalid HTTP request line: "
            "'GET /x?api%5Fkey=[redacted] HTTP/1.1 extra'",
        ),
        (
            f"code 400, message Bad request syntax ('GET /x?api_key={FAKE} HTTP/1.1 x')",
            "code 400, message Bad request syntax ('GET /x?api_key=[redacted] HTTP/1.1 x')",
        ),
        ("GET /api/v1/laws/CA HTTP/1.1", "GET /api/v1/laws/CA HTTP/1.1"),
        (
            "GET /x?api_keys=1&xapi_key=2&api+key=3 HTTP/1.1",
            "GET /x?api_keys=1&xapi_key=2&api+key=3 HTTP/1.1",
        ),
    ],
)
def test_every_spelling_of_the_key_parameter_is_redacted(line: str, expected: str) -> None:
    assert redact_text(line) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Invalid HTTP Header: 'X-API-Key {FAKE}'", "Invalid HTTP Header: 'X-API-Key [redacted]'"),
        (f"X-API-Key: {FAKE}", "X-API-Key: [redacted]"),
        (
            f"[('x-api-key', '{FAKE}'), ('Host', 'h')]",
            "[('x-api-key', '[redacted]'), ('Host', 'h')]",
        ),
        (f"'HTTP_X_API_KEY': '{FAKE}'", "'HTTP_X_API_KEY': '[redacted]'"),
        (f"curl/8.0 {KEY}", "curl/8.0 cds_live_[redacted]"),
        (f"/x;api_key={KEY}", "/x;api_key=cds_live_[redacted]"),
    ],
)
def test_the_key_header_and_key_shaped_words_are_redacted(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_a_bare_query_string_is_redacted_by_parameter() -> None:
    assert redact_params(f"a=1&%61pi_key={FAKE}&b") == "a=1&%61pi_key=[redacted]&b"
    assert redact_query(f"no query here: api_key={FAKE}") == f"no query here: api_key={FAKE}"


def _spelling(encoded: list[bool], upper: bool) -> str:
    """``api_key`` with the characters flagged in ``encoded`` written as %XX."""
    return "".join(
        (f"%{ord(char):02X}" if upper else f"%{ord(char):02x}") if flag else char
        for char, flag in zip("api_key", encoded, strict=True)
    )


@given(
    params=st.lists(
        st.tuples(
            st.one_of(
                st.builds(
                    _spelling,
                    st.lists(st.booleans(), min_size=7, max_size=7),
                    st.booleans(),
                ),
                st.sampled_from(["q", "limit", "api", "key", "api_keyx"]),
            ),
            st.text(
                alphabet=st.characters(codec="ascii", exclude_characters="&# \r\n"), max_size=20
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_whatever_the_app_would_read_as_the_key_is_redacted(params: list[tuple[str, str]]) -> None:
    query = "&".join(f"{name}={value}" for name, value in params)
    redacted = redact_params(query)
    # Parsed as Werkzeug parses request.args: every api_key value is gone, every other kept.
    before = parse_qsl(query, keep_blank_values=True)
    after = parse_qsl(redacted, keep_blank_values=True)
    assert len(after) == len(before)
    for (name, value), (name_after, value_after) in zip(before, after, strict=True):
        assert name_after == name
        assert value_after == ("[redacted]" if name == "api_key" else value)


def test_the_logging_filter_redacts_the_formatted_message_and_the_traceback() -> None:
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        record = logging.LogRecord(
            "gunicorn.error",
            logging.WARNING,
            __file__,
            1,
            "Invalid request: %r",
            (f"/x?api_key={FAKE}",),
            sys.exc_info(),
        )
    assert RedactingFilter().filter(record) is True
    line = logging.Formatter().format(record)
    assert FAKE not in line
    assert KEY not in line
    assert "Invalid request: '/x?api_key=[redacted]'" in line
    assert "ValueError: bad key cds_live_[redacted]" in line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "GET /api/v1/strains?api_key=cds_live_abc123&limit=2 HTTP/1.1",
            "GET /api/v1/strains?api_key=[redacted]&limit=2 HTTP/1.1",
        ),
        (
            "GET /api/v1/strains?limit=2&API_KEY=cds_live_abc HTTP/1.1",
            "GET /api/v1/strains?limit=2&API_KEY=[redacted] HTTP/1.1",
        ),
        ("GET /api/v1/laws/CA HTTP/1.1", "GET /api/v1/laws/CA HTTP/1.1"),
    ],
)
def test_api_key_values_are_redacted_from_request_lines(line: str, expected: str) -> None:
    assert redact_query(line) == expected
