"""Instants and dates are typed in both contracts: OpenAPI's ``format`` and GraphQL's scalars
describe the same values, and the values served match them."""

import re
from typing import Any

from flask.testing import FlaskClient

INSTANTS = {"next_change", "open_at"}
DATES = {"expires", "updated", "date"}
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def _named(document: Any, names: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every property schema and parameter schema of the document with one of ``names``."""
    found: list[tuple[str, dict[str, Any]]] = []
    for schema in document["components"]["schemas"].values():
        for name, prop in schema.get("properties", {}).items():
            if name in names:
                found.append((name, prop))
    for operations in document["paths"].values():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for parameter in operation.get("parameters", []):
                if parameter["name"] in names:
                    found.append((parameter["name"], parameter["schema"]))
    return found


def test_every_instant_is_a_date_time_and_every_date_a_date(client: FlaskClient) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    instants = _named(document, INSTANTS)
    dates = _named(document, DATES)
    assert len(instants) == 6  # next_change of three schemas, open_at of three operations
    assert len(dates) == 3  # Deal.expires, Law.updated, Review.date
    assert [name for name, schema in instants if schema.get("format") != "date-time"] == []
    assert [name for name, schema in dates if schema.get("format") != "date"] == []


def test_served_next_change_values_are_rfc_3339_date_times(
    client: FlaskClient, api_keys: dict[str, str]
) -> None:
    body = client.get(
        "/api/v1/dispensaries?open_now=false&limit=20", headers={"X-API-Key": api_keys["pro"]}
    ).get_json()
    changes = [item["next_change"] for item in body["data"] if item["next_change"] is not None]
    assert changes
    assert [value for value in changes if not RFC3339.fullmatch(value)] == []
