"""Hostile request bodies on /graphql get a 400 GraphQL response, never a 500 or a traceback."""

import logging

import pytest
from flask.testing import FlaskClient

from tests.graphql_refusals import refusal

DEEP = 10_000  # levels, under the 64 KiB body limit


@pytest.mark.parametrize(
    "body",
    [
        "[" * DEEP + "]" * DEEP,
        '{"query": "{ laws { state } }", "variables": {"a": ' + "[" * DEEP + "]" * DEEP + "}}",
        '{"query": "{ laws { state } }", "extensions": ' + '{"a":' * DEEP + "1" + "}" * DEEP + "}",
    ],
)
def test_a_deeply_nested_json_body_is_a_400(
    client: FlaskClient, api_keys: dict, caplog: pytest.LogCaptureFixture, body: str
) -> None:
    assert len(body.encode()) < 64 * 1024
    with caplog.at_level(logging.INFO):
        response = client.post(
            "/graphql",
            data=body,
            headers={"X-API-Key": api_keys["pro"], "Content-Type": "application/json"},
        )
    assert response.status_code == 400
    assert refusal(response) == {
        "code": 400,
        "message": "JSON in the request is nested too deeply",
        "docs": "/docs/errors#error-400",
    }
    assert not [r for r in caplog.records if r.exc_info]


def test_deeply_nested_variables_in_a_get_are_a_400(client: FlaskClient, api_keys: dict) -> None:
    response = client.get(
        "/graphql",
        query_string={"query": "{ laws { state } }", "variables": "[" * DEEP + "]" * DEEP},
        headers={"X-API-Key": api_keys["pro"]},
    )
    assert response.status_code == 400
    assert refusal(response)["message"] == "JSON in the request is nested too deeply"
