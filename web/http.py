"""HTTP plumbing shared by every route: compression, CORS, nosniff and when Retry-After is sent.

Each piece registers one after-request hook; web.pipeline decides their order.
"""

from flask import Flask, Response, g
from flask_compress import Compress
from flask_cors import CORS

from service.errors import RETRY_AFTER_SECONDS

from .auth import AUTHORIZATION
from .auth import HEADER as KEY_HEADER
from .errors import RETRY_AFTER
from .request_id import HEADER as REQUEST_ID_HEADER

EXPOSED_HEADERS = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
    REQUEST_ID_HEADER,
]
COMPRESS_MIN_BYTES = 500


def init_compression(app: Flask) -> None:
    """br or gzip for bodies over 500 bytes of the text types the service sends."""
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", COMPRESS_MIN_BYTES)
    # Stream compression of static files leaks their file handles when a client goes away;
    # API bodies are not streamed, so they are still compressed.
    app.config.setdefault("COMPRESS_STREAMS", False)
    app.config.setdefault(
        "COMPRESS_MIMETYPES",
        ["application/json", "text/html", "text/css", "text/javascript", "application/javascript"],
    )
    Compress(app)


def init_cors(app: Flask, *, origins: list[str] | str) -> None:
    """CORS for browser clients of both edges (no credentials), exposing the quota headers."""
    CORS(
        app,
        resources={r"/api/v1/*": {}, r"/graphql": {}, r"/graphql/schema.graphql": {}},
        origins=origins,
        supports_credentials=False,
        allow_headers=[KEY_HEADER, AUTHORIZATION, "Content-Type", REQUEST_ID_HEADER],
        expose_headers=EXPOSED_HEADERS,
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        max_age=600,
    )


def init_nosniff(app: Flask) -> None:
    """X-Content-Type-Options: nosniff on every response."""

    @app.after_request
    def no_sniffing(response: Response) -> Response:
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def init_retry_after(app: Flask) -> None:
    """Retry-After only where a client should wait: on a 429, or a 503 with the service's delay.

    web.pipeline runs this after the limiter's own after hook, which adds Retry-After (time to
    quota reset) to every metered response: a refusal that said when to retry (a
    service.errors.TooManyRequests) gets its own value back.
    """

    @app.after_request
    def retry_after_only_when_waiting(response: Response) -> Response:
        if response.status_code == 503:
            response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        elif response.status_code != 429:
            response.headers.pop("Retry-After", None)
        elif (wait := g.get(RETRY_AFTER)) is not None:
            response.headers["Retry-After"] = str(wait)
        return response
