"""Reading /graphql's HTTP-level refusals (401, 429, 400, ...): GraphQL responses whose one error
carries what the REST envelope does."""

from typing import Any

from werkzeug.test import TestResponse


def refusal(response: TestResponse) -> dict[str, Any]:
    """The refusal's error as the REST envelope would have it (code, message, docs, param),
    after checking the GraphQL response shape: no data, one error, code = HTTP status."""
    body = response.get_json()
    assert set(body) == {"errors"}, body
    [error] = body["errors"]
    assert set(error) == {"message", "extensions"}, error
    extensions = error["extensions"]
    assert extensions["code"] == response.status_code
    assert response.mimetype in ("application/json", "application/graphql-response+json")
    return {"code": extensions["code"], "message": error["message"], **extensions}


def refusal_body(code: int, message: str, param: str | None = None) -> dict[str, Any]:
    """The whole body of a refusal with ``code`` and ``message`` (and ``param``)."""
    extensions: dict[str, Any] = {"code": code, "docs": f"/docs/errors#error-{code}"}
    if param is not None:
        extensions["param"] = param
    return {"errors": [{"message": message, "extensions": extensions}]}
