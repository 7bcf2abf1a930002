"""Shared pieces of the sync tests: a database of their own, a base dataset whose deals are all
live (so the deals list serves every stored deal), the served lists read as a copy would be,
and the client loop of docs/sync.md."""

import os
import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app import create_app, dispose_engines
from models.db import make_engine, make_session_factory
from seed import generate
from seed.generate import Dataset
from seed.load import apply_dataset
from service import keys

ROOT = Path(__file__).resolve().parents[2]
Copy = dict[tuple[str, str], str]
Get = Callable[[str], tuple[int, Any]]
# type -> (list path, page limit, the field holding the id)
LISTS = {
    "law": ("/api/v1/laws", None, "stateCode"),
    "strain": ("/api/v1/strains", 100, "slug"),
    "dispensary": ("/api/v1/dispensaries", 100, "id"),
    "deal": ("/api/v1/deals", 100, "id"),
    "doctor": ("/api/v1/doctors", 50, "id"),
}


@pytest.fixture
def sync_db_url(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """An empty database for this test alone, on the backend the suite runs against."""
    server = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not server:
        return f"sqlite:///{tmp_path / 'sync.db'}"
    monkeypatch.setenv("TEST_POSTGRES_URL", server)
    return request.getfixturevalue("postgres_scratch_url")


def live_dataset(seed: int = 5) -> Dataset:
    """The tiny demo dataset with every deal live for a year to come."""
    today = date.today()
    dataset = generate(scale="tiny", seed=seed, today=today)
    later = today + timedelta(days=365)
    deals = [{**deal, "expires": max(deal["expires"], later)} for deal in dataset.deals]
    return Dataset(**{**dataset.__dict__, "deals": deals})


@pytest.fixture
def sync_app(sync_db_url: str) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE_URL": sync_db_url, "STATE_TTL_MS": 1})
    yield app
    dispose_engines(app)


def load(url: str, dataset: Dataset, *, rebuild: bool = False) -> None:
    """Load ``dataset`` as an import would (``rebuild``: as a seed does), engine disposed."""
    engine = make_engine(url)
    try:
        apply_dataset(engine, dataset, rebuild=rebuild)
    finally:
        engine.dispose()


def new_key(url: str) -> str:
    engine = make_engine(url)
    try:
        with make_session_factory(engine)() as db:
            created = keys.create_key(db, tier="enterprise", name="sync", hourly_limit=100_000)
            db.commit()
    finally:
        engine.dispose()
    return created.plaintext


def client_get(client: FlaskClient, key: str) -> Get:
    """The client loop's ``get`` over Flask's test client."""

    def get(path: str) -> tuple[int, Any]:
        answer = client.get(path, headers={"X-API-Key": key})
        return answer.status_code, answer.get_json()

    return get


def served(get: Get) -> Copy:
    """Every object the lists serve, as a copy holds it: (type, id) -> updated_at."""
    found: Copy = {}
    for kind, (path, limit, id_field) in LISTS.items():
        offset = 0
        while True:
            query = f"?limit={limit}&offset={offset}" if limit else ""
            status, page = get(path + query)
            assert status == 200, page
            for item in page["data"]:
                found[kind, item[id_field]] = item["updated_at"]
            offset += len(page["data"])
            if limit is None or offset >= page["meta"]["total"]:
                break
    return found


def client_loop() -> dict[str, Any]:
    """The Python block of docs/sync.md, run: its ``get`` and ``sync`` (replace ``get``
    to point it elsewhere)."""
    text = (ROOT / "docs" / "sync.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) == 1, "docs/sync.md should hold one Python block, the client loop"
    namespace: dict[str, Any] = {}
    exec(compile(blocks[0], "docs/sync.md", "exec"), namespace)
    return namespace
