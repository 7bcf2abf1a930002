"""GraphQL test helpers: ``gql`` posts an operation to /graphql and decodes the body."""

from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from models import Deal, Dispensary, MenuItem, Review, Strain
from service.dataset import table_sizes
from web.db import SESSIONS_EXTENSION

from .costs import Work

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


@pytest.fixture
def committed(app: Flask) -> Iterator[Session]:
    """A session on the app's database whose commits the app sees and that sees what others
    committed (``crowded``); the ``session`` fixture's writes stay in its own transaction on
    PostgreSQL, and it reads from a snapshot taken before."""
    with app.extensions[SESSIONS_EXTENSION]() as db:
        yield db


@pytest.fixture
def crowded(session: Session, commit_rows, reference_day: date) -> dict[str, Any]:
    """One dispensary with 25 more reviews, 105 more deals and menu items; one strain on all menus.

    Committed to the app's database (and removed afterwards) so every nested list is longer than
    its maximum.
    """
    target = session.scalar(select(Dispensary).order_by(Dispensary.id))
    strain = session.scalar(select(Strain).order_by(Strain.id))
    listing = set(
        session.scalars(select(MenuItem.dispensary_id).where(MenuItem.strain_id == strain.id))
    )
    all_ids = session.scalars(select(Dispensary.id)).all()
    reviews = session.scalars(select(Review).where(Review.dispensary_id == target.id)).all()
    deals = session.scalars(
        select(Deal).where(Deal.dispensary_id == target.id, Deal.expires >= reference_day)
    ).all()
    menu = session.scalars(select(MenuItem).where(MenuItem.dispensary_id == target.id)).all()
    # Positions continue each menu's 0, 1, 2, ... (the models' rule for menu order).
    menu_sizes = dict(
        session.execute(
            select(MenuItem.dispensary_id, func.count()).group_by(MenuItem.dispensary_id)
        ).all()
    )
    added = commit_rows(
        *[
            Review(
                dispensary_id=target.id,
                rating=1 + n % 5,
                text=f"crowded review {n}",
                author=f"crowd{n}",
                date=reference_day - timedelta(days=n),
            )
            for n in range(25)
        ],
        *[
            Deal(
                public_id=f"deal_98{n:04d}",
                dispensary_id=target.id,
                title=f"Crowded deal {n}",
                category="flower",
                discount="5% off",
                expires=reference_day + timedelta(days=n % 9),
            )
            for n in range(105)
        ],
        *[
            MenuItem(
                dispensary_id=target.id,
                position=len(menu) + n,
                name=f"Crowded item {n}",
                category="edibles",
                price=float(n),
                unit="each",
                strain_id=None,
            )
            for n in range(105)
        ],
        *[
            MenuItem(
                dispensary_id=dispensary_id,
                position=menu_sizes.get(dispensary_id, 0)
                + (105 if dispensary_id == target.id else 0),
                name=f"{strain.name} flower",
                category="flower",
                price=9.0,
                unit="g",
                strain_id=strain.id,
            )
            for dispensary_id in all_ids
            if dispensary_id not in listing
        ],
    )
    return {
        "dispensary": target,
        "strain": strain,
        "added": added,
        "reviews": reviews,
        "deals": deals,
        "menu": menu,
    }


@pytest.fixture(scope="session")
def work(engine) -> Work:
    """The estimate's work terms over the shared tiny dataset (tests/graphql/costs.py)."""
    with engine.connect() as conn:
        return Work(table_sizes(conn))


def warm_up(app: Flask, key: str) -> None:
    """One operation on ``app``, so that what a worker reads once per data version (the table
    sizes the cost check weighs rows by) is not counted among a test's statements."""
    response = app.test_client().post(
        GRAPHQL_PATH, json={"query": "{ __typename }"}, headers={"X-API-Key": key}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
