"""Work shared by a field's siblings (``graphql_schema/accel/nodes.py``) against the stock path.

With the tricks on, a menu field's selection is read once per request for all its dispensaries;
with them off, once per dispensary. The answers are the same.
"""

import json
from datetime import date
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

import graphql_schema.menu_item
from graphql_schema import make_schema
from graphql_schema.context import Context

TWO_MENUS = (
    "query Q($limit: Int!) { dispensaries(limit: $limit) { items {"
    " plain: menu { name } linked: menu { strain { slug } } } } }"
)
ONE_MENU = "query Q($limit: Int!) { dispensaries(limit: $limit) { items { menu { name } } } }"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry each time a menu field's selection is read."""
    read: list[int] = []
    real = graphql_schema.menu_item._selects_strain
    monkeypatch.setattr(
        graphql_schema.menu_item, "_selects_strain", lambda fields: read.append(1) or real(fields)
    )
    return read


def _post(app: Flask, key: str, query: str, limit: int) -> dict[str, Any]:
    response = app.test_client().post(
        "/graphql",
        json={"query": query, "variables": {"limit": limit}},
        headers={"X-API-Key": key},
    )
    assert response.status_code == 200
    body = response.get_json()
    assert "errors" not in body, body.get("errors")
    return body["data"]


def test_a_menu_fields_selection_is_read_once_for_all_its_dispensaries(
    make_app, api_keys: dict, reads: list[int]
) -> None:
    app = make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, SPEED_TRICKS=True)
    data = _post(app, api_keys["enterprise"], TWO_MENUS, 20)
    assert len(data["dispensaries"]["items"]) == 20
    assert len(reads) == 2  # once per menu field of the query, not once per dispensary
    _post(app, api_keys["enterprise"], ONE_MENU, 20)
    assert len(reads) == 3  # and afresh for the next request


def test_without_speed_tricks_the_selection_is_read_for_every_dispensary(
    make_app, api_keys: dict, reads: list[int]
) -> None:
    app = make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, SPEED_TRICKS=False)
    data = _post(app, api_keys["enterprise"], TWO_MENUS, 20)
    assert len(data["dispensaries"]["items"]) == 20
    assert len(reads) == 40


def test_shared_and_stock_reads_give_the_same_answer(
    session: Session, reference_day: date, reads: list[int]
) -> None:
    answers = []
    for stock in (False, True):
        context = Context(connections=session.connection, today=reference_day)
        result = make_schema(stock=stock).execute_sync(
            TWO_MENUS, variable_values={"limit": 7}, context_value=context
        )
        assert result.errors is None
        answers.append(json.dumps(result.data))
    assert answers[0] == answers[1]
    assert '"strain": {"slug": ' in answers[0]  # some item is linked to a strain
    assert len(reads) == 2 + 2 * 7  # shared by the fast run; per dispensary in the stock run
