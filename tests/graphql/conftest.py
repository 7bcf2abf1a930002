"""GraphQL test helpers: ``gql`` posts an operation to /graphql and decodes the body."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from web.db import SESSIONS_EXTENSION

GRAPHQL_PATH = "/graphql"


class Gql:
    """POST ``{"query", "variables"}`` to /graphql with a key (pro by default).

    ``gql(query)`` asserts the HTTP status (200 unless told) and returns the decoded body;
    ``gql.data(query)`` also asserts there are no errors and returns ``body["data"]``;
    ``gql.errors(query)`` asserts there are errors and returns them.
    ``key=""`` sends no key at all.
    """

    def __init__(self, client: FlaskClient, key: str) -> None:
        self.client = client
        self.key = key

    def post(
        self, query: str, variables: dict[str, Any] | None = None, *, key: str | None = None
    ) -> TestResponse:
        key = self.key if key is None else key
        headers = {"X-API-Key": key} if key else {}
        payload: dict[str, Any] = {"query": query}
        if variables is not None:
            payload["variables"] = variables
        return self.client.post(GRAPHQL_PATH, json=payload, headers=headers)

    def __call__(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        *,
        key: str | None = None,
        status: int = 200,
    ) -> dict[str, Any]:
        response = self.post(query, variables, key=key)
        assert response.status_code == status, response.get_data(as_text=True)
        body = response.get_json()
        assert isinstance(body, dict), response.get_data(as_text=True)
        return body

    def data(self, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> Any:
        body = self(query, variables, **kw)
        assert "errors" not in body, body["errors"]
        return body["data"]

    def errors(self, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> list:
        body = self(query, variables, **kw)
        assert body.get("errors"), body
        return body["errors"]


@pytest.fixture
def gql(client: FlaskClient, api_keys: dict[str, str]) -> Gql:
    return Gql(client, api_keys["pro"])


@pytest.fixture
def commit_rows(app: Flask) -> Iterator[Callable[..., list[Any]]]:
    """Add rows to the app's database (visible to requests); they are deleted after the test.

    Rows are deleted in reverse order of addition, so add parents before children.
    """
    added: list[Any] = []
    with app.extensions[SESSIONS_EXTENSION]() as db:

        def add(*rows: Any) -> list[Any]:
            db.add_all(rows)
            db.commit()
            added.extend(rows)
            return list(rows)

        try:
            yield add
        finally:
            db.rollback()
            for row in reversed(added):
                db.delete(row)
                db.flush()
            db.commit()
