"""Serving helpers: the development server's key-free logs and the check that refuses per-worker
quotas under several gunicorn workers (gunicorn.conf.py).

Werkzeug's default request log prints the raw request line, query string included, and its error
messages quote malformed request lines whole; the handler and server below redact keys from
every line they write (web/redaction.py).
"""

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
