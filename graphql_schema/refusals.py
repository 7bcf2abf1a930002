"""Transport refusals /graphql answers as GraphQL responses (GraphQL over HTTP): a body of
``{"errors": [{"message", "extensions": {"code", ...}}]}`` with the HTTP status kept."""

from typing import Any

import orjson
from flask import Response

from web.errors import docs_link


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
    response = Response(orjson.dumps(body), status=refusal.status, mimetype="application/json")
    response.headers.update(refusal.headers)
    response.headers["Cache-Control"] = "no-store"
    return response
