"""API keys out of log text: every spelling the app accepts a key in, removed before a line is
written by the development server or gunicorn (web/serving.py, gunicorn.conf.py).

The app reads the key from the X-API-Key header or from the ``api_key`` query parameter as
Werkzeug decodes it, so ``api%5Fkey=``, ``%61pi_key=`` and the like name the same parameter:
each parameter name is decoded before it is compared. Anything shaped like one of our keys
(``cds_live_...``) is removed wherever it stands, whatever it was sent as.
"""

import logging
import re
from urllib.parse import unquote_plus

from service.keys import KEY_PREFIX

REDACTED = "[redacted]"
QUERY_PARAMETER = "api_key"

# A query: from "?" to the next whitespace (a request line, a URL in a message), less the quote
# (and parenthesis) that closes a message's quoted request line.
_QUERY = re.compile(r"\?(\S*?)((?:['\"]\)?)?(?:\s|$))")
# The header, however a message spells it: "X-API-Key: v", "x-api-key v", ('X-API-Key', 'v'),
# HTTP_X_API_KEY=v. The value runs to a quote or the end of the line.
_HEADER = re.compile(r"(?i)((?:http_)?x[-_]api[-_]key['\"]?\s*[:=,]?\s*['\"]?)[^\r\n'\"]+")
_KEY_SHAPED = re.compile(rf"{re.escape(KEY_PREFIX)}[A-Za-z0-9]+")


def _names_the_key(name: str) -> bool:
    # As Werkzeug reads it ("+" is a space, %XX decoded); the case is ignored to be safe.
    return unquote_plus(name, errors="replace").lower() == QUERY_PARAMETER


def redact_params(query: str) -> str:
    """A query string (no "?") with the value of every parameter naming the key replaced."""
    parts = query.split("&")
    for number, part in enumerate(parts):
        name, equals, _value = part.partition("=")
        if equals and _names_the_key(name):
            parts[number] = f"{name}={REDACTED}"
    return "&".join(parts)


def redact_query(text: str) -> str:
    """``text`` with the key's value removed from every query in it (request lines, URLs)."""
    return _QUERY.sub(lambda found: f"?{redact_params(found.group(1))}{found.group(2)}", text)


def redact_text(text: str) -> str:
    """``text`` without keys: query parameters, X-API-Key header values and key-shaped words."""
    text = redact_query(text)
    text = _HEADER.sub(lambda found: found.group(1) + REDACTED, text)
    return _KEY_SHAPED.sub(KEY_PREFIX + REDACTED, text)


class RedactingFilter(logging.Filter):
    """Formats each record's message (and traceback) and removes keys from the result."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError, KeyError):  # arguments that do not fit the format
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = redact_text(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


def add_redacting_filter(logger: logging.Logger) -> None:
    """Make ``logger`` redact every record it writes (once, however often it is called)."""
    if not any(isinstance(known, RedactingFilter) for known in logger.filters):
        logger.addFilter(RedactingFilter())
