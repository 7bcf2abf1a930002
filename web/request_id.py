"""X-Request-ID on every response: the client's own (when sane) or a fresh one."""

import random
import re

from flask import Flask, Response

from .context import current_g, current_request

HEADER = "X-Request-ID"
_SANE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def request_id_for(sent: str | None) -> str:
    """The id of a request whose X-Request-ID header is ``sent``: kept when sane, else new."""
    return sent if sent and _SANE.fullmatch(sent) else new_request_id()


def new_request_id() -> str:
    """128 random bits in hex, like a uuid4 without its syscall: an id names a request in the
    logs and needs no secrecy (``random`` is reseeded in each forked worker)."""
    return f"{random.getrandbits(128):032x}"


def init_request_id(app: Flask) -> None:
    """Assign each request an id early and echo it on the response."""

    @app.before_request
    def assign() -> None:
        current_g().request_id = request_id_for(current_request().headers.get(HEADER))

    @app.after_request
    def echo(response: Response) -> Response:
        response.headers[HEADER] = current_g().get("request_id") or new_request_id()
        return response
