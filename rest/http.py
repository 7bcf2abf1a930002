"""HTTP plumbing shared by every route: CORS, compression, safe content-type headers."""

from flask import Flask, Response
from flask_compress import Compress
from flask_cors import CORS

from service.errors import RETRY_AFTER_SECONDS

from .auth import HEADER as KEY_HEADER
from .request_id import HEADER as REQUEST_ID_HEADER

EXPOSED_HEADERS = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
    REQUEST_ID_HEADER,
]
MAX_BODY_BYTES = 64 * 1024  # GraphQL documents; REST takes no body
COMPRESS_MIN_BYTES = 500


def init_http(app: Flask, *, origins: list[str] | str) -> None:
    """CORS for browser clients (no credentials), br/gzip over 500 bytes, nosniff, body cap."""
    if app.config.get("MAX_CONTENT_LENGTH") is None:  # Flask pre-sets the key to None
        app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
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
    CORS(
        app,
        resources={r"/api/v1/*": {}, r"/graphql": {}},
        origins=origins,
        supports_credentials=False,
        allow_headers=[KEY_HEADER, "Content-Type", REQUEST_ID_HEADER],
        expose_headers=EXPOSED_HEADERS,
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        max_age=600,
    )

    @app.after_request
    def no_sniffing(response: Response) -> Response:
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    # Registered before the limiter, so Flask runs it after the limiter's own hook, which adds
    # Retry-After (time to quota reset) to every metered response. A client should read "wait"
    # only on a 429, or on a 503 with the service's own delay.
    @app.after_request
    def retry_after_only_when_waiting(response: Response) -> Response:
        if response.status_code == 503:
            response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        elif response.status_code != 429:
            response.headers.pop("Retry-After", None)
        return response
