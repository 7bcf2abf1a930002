"""On PostgreSQL a client may page the feed while an import is committing: it sees the data as
it was until the commit, then exactly the import's changes, none skipped or repeated."""

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

import seed.load
from app import create_app, dispose_engines
from models.db import make_engine
from seed.generate import Dataset
from seed.load import apply_dataset

from .conftest import client_get, client_loop, live_dataset, new_key, served

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_app(postgres_scratch_url: str) -> Iterator[Flask]:
    # A long-lived key and version cache: requests during the import read neither table the
    # import rebuilds, as a busy server's would not.
    app = create_app(
        {"TESTING": True, "DATABASE_URL": postgres_scratch_url, "STATE_TTL_MS": 600_000}
    )
    yield app
    dispose_engines(app)


def _changed(dataset: Dataset) -> Dataset:
    """Some strains changed, a few deals and a dispensary's deals gone."""
    strains = [
        {**s, "thc": round(s["thc"] + 1, 1)} if s["id"] % 7 == 0 else s for s in dataset.strains
    ]
    deals = [d for d in dataset.deals if d["id"] % 11 != 0]
    return Dataset(**{**dataset.__dict__, "strains": strains, "deals": deals})


def test_paging_through_an_import_that_commits_midway(
    pg_app: Flask, postgres_scratch_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = postgres_scratch_url
    base = live_dataset()
    apply_dataset(make_engine(url), base, rebuild=True)
    loop = client_loop()
    get = client_get(pg_app.test_client(), new_key(url))
    loop["get"] = get
    copy: dict[tuple[str, str], str] = {}
    cursor = loop["sync"](copy)
    assert copy == served(get)

    written, release = threading.Event(), threading.Event()
    original = seed.load.write_log

    def write_then_wait(*args: Any, **kwargs: Any) -> None:
        original(*args, **kwargs)
        written.set()  # the log is written, the transaction still open
        assert release.wait(60)

    monkeypatch.setattr(seed.load, "write_log", write_then_wait)
    errors: list[BaseException] = []

    def run_import() -> None:
        try:
            apply_dataset(make_engine(url), _changed(base))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            written.set()

    importer = threading.Thread(target=run_import)
    importer.start()
    try:
        assert written.wait(60)
        # Mid-import: the feed shows nothing new yet, page after page.
        during = dict(copy)
        mid_cursor = loop["sync"](during, cursor)
        assert during == copy
    finally:
        release.set()
        importer.join(60)
    assert not errors, errors
    # The feed reads its position afresh on every request, whatever the version cache holds.
    loop["sync"](copy, mid_cursor)
    assert copy != during
    fresh = create_app({"TESTING": True, "DATABASE_URL": url})
    try:
        assert copy == served(client_get(fresh.test_client(), new_key(url)))
    finally:
        dispose_engines(fresh)
