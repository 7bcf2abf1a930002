"""The change feed on each database: a snapshot from the beginning, then exactly what a load
changed, through the service and over REST (PostgreSQL gives its instants back with a zone)."""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import select

from app import create_app, dispose_engines
from models import Law
from seed.load import apply_dataset
from service import keys
from service.changes import instant_text
from tests.conftest import postgres_scratch
from tests.feeds import (
    read_to_end,
    seeded_engine,
    served_ids,
    service_reader,
    tiny_dataset,
    with_changes,
)
from web.db import SESSIONS_EXTENSION

INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@contextmanager
def _database(name: str, tmp_path: Path) -> Iterator[str]:
    if name == "sqlite":
        yield f"sqlite:///{tmp_path / 'feed.db'}"
        return
    with postgres_scratch() as url:
        yield url


@pytest.mark.parametrize("name", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_the_feed_gives_a_snapshot_then_exactly_what_a_load_changed(
    name: str, tmp_path: Path
) -> None:
    dataset = tiny_dataset()
    with _database(name, tmp_path) as url:
        engine = seeded_engine(url, dataset)
        try:
            pages, cursor = read_to_end(service_reader(engine, limit=100))
            entries = [e for page in pages for e in page.items]
            assert [e.seq for e in entries] == list(range(1, 537))
            assert {(e.kind, e.key) for e in entries} == served_ids(dataset)
            with engine.connect() as conn:
                stamp = conn.scalar(select(Law.updated_at).where(Law.state_code == "AK"))
            assert entries[0].at == instant_text(stamp)  # PostgreSQL's in its zone, as UTC
            assert all(INSTANT.fullmatch(e.at) for e in entries)
            changed, upserted, deleted = with_changes(dataset)
            apply_dataset(engine, changed)
            app = create_app({"TESTING": True, "DATABASE_URL": url, "STATE_TTL_MS": 60_000})
            try:
                with app.extensions[SESSIONS_EXTENSION]() as db:
                    key = keys.create_key(db, tier="pro").plaintext
                    db.commit()
                response = app.test_client().get(
                    "/api/v1/changes", query_string={"since": cursor}, headers={"X-API-Key": key}
                )
            finally:
                dispose_engines(app)
            body = response.get_json()
            assert response.status_code == 200, body
            ops = {(i["type"], i["id"]): i["op"] for i in body["data"]}
            assert ops == {**dict.fromkeys(upserted, "upsert"), **dict.fromkeys(deleted, "delete")}
            assert body["meta"]["as_of"] == body["data"][0]["at"]
            assert body["meta"]["as_of"].endswith("Z")
        finally:
            engine.dispose()
