"""Transport refusals /graphql answers as GraphQL responses (GraphQL over HTTP): a body of
``{"errors": [{"message", "extensions": {"code", ...}}]}`` with the HTTP status kept."""

from typing import Any

import orjson
from flask import Response, current_app, request

from web.errors import docs_link

# GraphQL over HTTP's media type for responses; application/json for clients that do not ask for it.
GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json"
JSON_TYPE = "application/json"


class TransportRefusal(Exception):
    """The request is answered with ``message`` and ``status`` before anything runs.

    ``code`` is ``extensions.code``: the status (as in the REST envelope) unless a protocol names
    its own (Apollo's ``PERSISTED_QUERY_NOT_FOUND``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: int | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code: int | str = status if code is None else code
        self.headers = headers or {}


def refusal_response(refusal: TransportRefusal) -> Response:
    """The GraphQL-shaped response for ``refusal``; never stored or revalidated."""
    extensions: dict[str, Any] = {"code": refusal.code}
    if isinstance(refusal.code, int):
        extensions["docs"] = docs_link(refusal.code)
    body = {"errors": [{"message": refusal.message, "extensions": extensions}]}
    response = Response(orjson.dumps(body), status=refusal.status, mimetype=response_media_type())
    response.vary.add("Accept")
    response.headers.update(refusal.headers)
    response.headers["Cache-Control"] = "no-store"
    return response


def response_media_type() -> str:
    """``application/graphql-response+json`` when the request's Accept lists it (at least as
    high as ``application/json``), else ``application/json`` (GraphQL over HTTP, legacy clients).
    """
    listed = {value.lower(): quality for value, quality in request.accept_mimetypes}
    wanted = listed.get(GRAPHQL_RESPONSE_TYPE, 0)
    return GRAPHQL_RESPONSE_TYPE if wanted > 0 and wanted >= listed.get(JSON_TYPE, 0) else JSON_TYPE


def graphql_error_response(code: int, message: str, docs: str, param: str | None) -> Response:
    """An HTTP-level refusal of /graphql (no key, quota spent, bad request, ...) as a GraphQL
    response: one error, whose ``extensions`` carry what the REST envelope does (code = HTTP
    status, docs link, param). web.errors sets the status and headers (Retry-After, ...)."""
    extensions: dict[str, Any] = {"code": code, "docs": docs}
    if param is not None:
        extensions["param"] = param
    body = {"errors": [{"message": message, "extensions": extensions}]}
    response = Response(current_app.json.dumps(body))
    response.mimetype = response_media_type()
    response.vary.add("Accept")
    return response
