"""Serving helpers: the development server's key-free logs, the check that refuses per-worker
quotas under several gunicorn workers, and the garbage collection schedule gunicorn's sync workers
follow (gunicorn.conf.py).

Werkzeug's default request log prints the raw request line, query string included, and its error
messages quote malformed request lines whole; the handler and server below redact keys from
every line they write (rest/redaction.py).
"""

import gc
import sys
import traceback
from typing import Any

import click
from flask import Flask
from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

from .redaction import redact_query, redact_text


class RedactingRequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler; no key reaches its access or error lines."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # Redacted before Werkzeug decodes the path for display (api%5Fkey would become api_key).
        # The request has been turned into the WSGI environ by now; only the log reads these.
        if hasattr(self, "path"):
            self.path = redact_query(self.path)
        self.requestline = redact_query(getattr(self, "requestline", ""))
        super().log_request(code, size)

    def log(self, type: str, message: str, *args: Any) -> None:
        # Every line goes through here: requests, "code 400, message Bad request syntax (...)".
        super().log(type, "%s", redact_text(message % args if args else message))


class RedactingServer(ThreadedWSGIServer):
    """Werkzeug's threaded server whose own messages (application errors) are redacted too."""

    def log(self, type: str, message: str, *args: Any) -> None:
        super().log(type, "%s", redact_text(message % args if args else message))

    def handle_error(self, request: Any, client_address: Any) -> None:
        # socketserver would print this traceback to stderr as it is.
        trace = traceback.format_exc()
        self.log("error", f"Error handling a request from {client_address}:\n{trace}")


def make_serve_command(app: Flask) -> click.Command:
    """Return ``flask serve``: the development server with key-free logs."""

    @click.command("serve")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", default=5000, show_default=True, type=int)
    def serve(host: str, port: int) -> None:
        """Serve the API for local use (not for production)."""
        server = RedactingServer(host, port, app, handler=RedactingRequestHandler)
        server.log_startup()
        server.log("info", "Press CTRL+C to quit")
        server.serve_forever()

    return serve


def per_worker_quota_problem(storage_uri: str, workers: int) -> str | None:
    """Why quotas counted in ``storage_uri`` cannot serve ``workers`` processes, or None."""
    scheme = (storage_uri.strip() or "memory://").split(":", 1)[0].split("+", 1)[0].lower()
    if scheme != "memory" or workers <= 1:
        return None
    return (
        f"RATELIMIT_STORAGE_URI is {storage_uri.strip() or 'memory:// (the default)'} and gunicorn "
        f"is set to run {workers} workers (WEB_CONCURRENCY or --workers): memory:// counts quotas "
        f"in each worker process, so every key would get up to {workers} times its quota, "
        "counted afresh whenever a worker restarts. Set RATELIMIT_STORAGE_URI=redis://host:6379/0 "
        "(shared by all workers), or run one worker (WEB_CONCURRENCY=1)."
    )


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
