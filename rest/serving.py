"""Serving helpers: the development server's key-free access log, and the garbage collection
schedule gunicorn's sync workers follow (gunicorn.conf.py).

Werkzeug's default request log prints the raw request line, query string included, so a key
sent as ``?api_key=`` would land in the log; this handler redacts it first.
"""

import gc
import re
import sys

import click
from flask import Flask
from werkzeug.serving import WSGIRequestHandler, run_simple

_KEY_PARAM = re.compile(r"(?i)([?&]api_key=)[^&\s]*")


def redact_query(text: str) -> str:
    """Replace the value of every api_key query parameter in ``text``."""
    return _KEY_PARAM.sub(r"\1[redacted]", text)


class RedactingRequestHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # The request has been turned into the WSGI environ by now; only the log reads these.
        if hasattr(self, "path"):
            self.path = redact_query(self.path)
        self.requestline = redact_query(getattr(self, "requestline", ""))
        super().log_request(code, size)


def make_serve_command(app: Flask) -> click.Command:
    """Return ``flask serve``: the development server with key-free access logs."""

    @click.command("serve")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", default=5000, show_default=True, type=int)
    def serve(host: str, port: int) -> None:
        """Serve the API for local use (not for production)."""
        run_simple(host, port, app, request_handler=RedactingRequestHandler, threaded=True)

    return serve


class CollectBetweenRequests:
    """Run the garbage collector after a response instead of in the middle of one.

    CPython collects its youngest generation every 700 new container objects, on whichever line
    of a request that falls; a page that builds a few thousand objects (a nested GraphQL page
    builds tens of thousands) walks its own still-live objects again at each of those
    collections, and again when they are promoted. A sync worker runs one request at a time, so
    the collections can wait for its end, when the request's objects are gone: the automatic
    trigger moves up to ``ceiling`` new objects (a safety net for one very large request), and
    ``after_request`` applies CPython's own generational schedule to what is left (without
    its check that skips a full collection while few objects were promoted since the last:
    after ``gc.freeze()`` a full collection walks only what was created since).

    Only for the three-generation collector of Python 3.11-3.13 (``APPLIES``); 3.14's is
    incremental, with other meanings for the thresholds and counts.
    """

    APPLIES = sys.version_info < (3, 14)

    def __init__(self, ceiling: int = 100_000) -> None:
        self.thresholds = gc.get_threshold()
        gc.set_threshold(ceiling, *self.thresholds[1:])

    def after_request(self) -> int | None:
        """Collect as CPython would have by now; the generation collected, or None.

        CPython's rule: once more than ``threshold0`` new objects are tracked, collect the oldest
        generation whose count exceeds its threshold (a generation's count is the number of
        collections of the next younger one since its own last collection)."""
        young, middle, old = gc.get_count()
        every_young, every_middle, every_old = self.thresholds
        if young <= every_young:
            return None
        if old > every_old:
            generation = 2
        elif middle > every_middle:
            generation = 1
        else:
            generation = 0
        gc.collect(generation)
        return generation

    def stop(self) -> None:
        """Restore the thresholds found at the start."""
        gc.set_threshold(*self.thresholds)
