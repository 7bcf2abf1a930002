"""HTTP plumbing shared by every route: CORS, compression, safe content-type headers."""

from flask import Flask, Response, request
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
    _remember_cors_headers(app)

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


# Distinct (route, Origin) pairs whose CORS headers are kept; others are worked out each time.
CORS_MEMORY = 256


def _remember_cors_headers(app: Flask) -> None:
    """Wrap flask-cors's after-request hook so that each (route, Origin) pair has its headers
    worked out once. For a request that is not a preflight (and asks nothing of private
    networks), the headers flask-cors appends depend only on the resource the path falls under,
    which a route decides, and on the Origin header; matching the path against its resources
    and the origin against the allowed ones on every request cost more than all the app's
    other response hooks together. Anything else still goes to flask-cors itself."""
    hooks = app.after_request_funcs[None]
    original = next(
        (hook for hook in hooks if getattr(hook, "__name__", None) == "cors_after_request"), None
    )
    if original is None:
        return
    known: dict[tuple[str, str | None], list[tuple[str, str]]] = {}

    def cors_headers(response: Response) -> Response:
        rule = request.url_rule
        if (
            rule is None
            or request.method == "OPTIONS"
            or PRIVATE_NETWORK_REQUEST in request.headers
            or ALLOW_ORIGIN in response.headers
        ):
            return original(response)
        key = (rule.rule, request.headers.get("Origin"))
        added = known.get(key)
        if added is None:
            blank = Response()
            present = len(blank.headers)
            original(blank)  # flask-cors appends its headers to the ones a response starts with
            added = list(blank.headers)[present:]
            if len(known) < CORS_MEMORY:
                known[key] = added
        for name, value in added:
            response.headers.add(name, value)
        return response

    hooks[hooks.index(original)] = cors_headers


ALLOW_ORIGIN = "Access-Control-Allow-Origin"
PRIVATE_NETWORK_REQUEST = "Access-Control-Request-Private-Network"
