"""Development server with an access log that never shows API keys.

Werkzeug's default request log prints the raw request line, query string included, so a key
sent as ``?api_key=`` would land in the log; this handler redacts it first.
"""

import re

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
