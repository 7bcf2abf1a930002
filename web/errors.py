"""App-wide error handlers: every failure becomes an error answer with status = its code.

Both edges share them. The answer is the SPEC 7 envelope unless the request's route declares
another renderer (web.routes): /graphql answers its HTTP-level failures (401, 405, 413, 429,
503, ...) as GraphQL responses, with the same status, message, docs link and headers.
"""

from typing import Any

from flask import Flask, Response, current_app, g, jsonify, request
from flask_limiter import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from service.errors import (
    UNAVAILABLE_MESSAGE,
    ServiceError,
    TooManyRequests,
    is_database_unavailable,
)

from .links import public_link
from .routes import request_policy

RETRY_AFTER = "retry_after"  # g attribute: the Retry-After of a refusal (web.http keeps it)


def error_body(
    code: int, message: str, docs: str, param: str | None = None, reason: str | None = None
) -> dict[str, Any]:
    """Error envelope: success false, error.code equal to the HTTP status, message, docs link;
    the parameter at fault and a reason word (cursor_expired) when there are."""
    error: dict[str, Any] = {"code": code, "message": message, "docs": docs}
    if param is not None:
        error["param"] = param
    if reason is not None:
        error["reason"] = reason
    return {"success": False, "error": error}


def docs_link(code: int) -> str:
    """Link to the documentation of error ``code``: under PUBLIC_BASE_URL when that is set,
    else relative (never built from the request's Host header)."""
    base = current_app.config["DOCS_URL"]
    if base.startswith("/"):
        base = public_link(base)
    return f"{base}#error-{code}"


def envelope_response(code: int, message: str, docs: str, param: str | None) -> Response:
    """The error envelope (every route that declares no other renderer)."""
    return jsonify(error_body(code, message, docs, param))


def error_response(
    code: int,
    message: str,
    *,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    reason: str | None = None,
) -> Response:
    """Render the error with HTTP status ``code``, as the request's route renders errors (a
    ``reason`` only in the envelope: no route with another renderer raises one)."""
    render = request_policy().render_error
    if render is None:
        response = jsonify(error_body(code, message, docs_link(code), param, reason))
    else:
        response = render(code, message, docs_link(code), param)
    response.status_code = code
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _http_message(error: HTTPException) -> str:
    if error.code == 404:
        return f"no such endpoint: {request.path}; the endpoints are listed at /api/v1/docs"
    if error.code == 405:
        return f"method {request.method} is not allowed on {request.path}"
    if error.code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return f"request body too large: at most {limit} bytes"
    return error.description or error.name


def http_error_response(error: HTTPException) -> Response:
    """The envelope for a werkzeug HTTP error (404, 405, a webargs 422 turned 400, ...)."""
    code = error.code or 500
    # Keep the exception's own headers (Allow on 405) but not its HTML content type.
    headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
    return error_response(code, _http_message(error), headers=headers)


def init_error_handlers(app: Flask) -> None:
    """Register the handlers that turn every exception into an envelope."""

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Response:
        if isinstance(error, TooManyRequests):
            setattr(g, RETRY_AFTER, error.retry_after)
        return error_response(error.code, error.message, param=error.param, reason=error.reason)

    @app.errorhandler(RateLimitExceeded)
    def rate_limited(error: RateLimitExceeded) -> Response:
        return error_response(
            429,
            f"rate limit of {error.limit.limit} exceeded for this API key; wait for the time "
            "in Retry-After, then retry with exponential backoff",
        )

    app.register_error_handler(HTTPException, http_error_response)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        if is_database_unavailable(error):
            current_app.logger.warning(
                "database unavailable on %s %s: %s",
                request.method,
                request.path,
                type(error.__cause__ or error).__name__,
            )
            return error_response(503, UNAVAILABLE_MESSAGE)
        current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "internal error; it has been logged")
