"""Every example in README.md and docs/*.md, run against the full demo dataset seeded on DAY and
read at NOW, answers what the doc shows.

The convention (tests/docs/examples.py reads it):
- A request is a ```sh block of ``curl`` commands to http://127.0.0.1:5000 (``$KEY`` in double
  quotes for the key), or a ```graphql block (POSTed to /graphql with the key).
- Its answer is the ```json block right after it: one JSON value per request, in order. The
  status is 200, or an error envelope's ``error.code``.
- Every key and value shown must be in the answer, in the order shown, and nothing else, but
  for ``...``: where a key would be, keys left out; after a key (``"reset": ...``), a value that
  changes with every request; in a list, items left out; at the end of a string, the rest of
  the text.
- Each example is its key's first request, with a fresh key of the quick start's demo tier.
"""

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from flask import Flask

import web.today
from app import create_app, dispose_engines
from models.db import make_engine
from seed import generate, load_dataset
from service import keys
from tests.docs.examples import KEY_VARIABLE, Example, differences, expected_status, find_in_files
from web.db import SESSIONS_EXTENSION
from web.quickstart import DEMO_KEY_TIER

pytestmark = pytest.mark.full_dataset

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
# The day the docs' dataset was seeded (deal expiry and review dates follow it) and the instant
# their answers were read (what is open now, which deals are active).
DAY = date(2026, 11, 25)
NOW = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
# Problems reading them fail tests/docs/test_convention.py.
FOUND = find_in_files(ROOT, DOCUMENTS)


@pytest.fixture(scope="session")
def docs_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The app on the full demo dataset seeded on DAY, built once per session."""
    url = f"sqlite:///{tmp_path_factory.mktemp('docs') / 'full.db'}"
    engine = make_engine(url)
    load_dataset(engine, generate(scale="full", today=DAY))
    engine.dispose()
    app = create_app({"TESTING": True, "DATABASE_URL": url})
    yield app
    dispose_engines(app)


@pytest.fixture
def at_now(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The clock reads NOW, and the server's local day is UTC's."""
    monkeypatch.setattr(web.today, "_read_clock", lambda: NOW)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _fresh_key(app: Flask) -> str:
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier=DEMO_KEY_TIER, name="docs example").plaintext
        db.commit()
    return key


@pytest.mark.usefixtures("at_now")
@pytest.mark.parametrize("example", FOUND.examples, ids=lambda example: example.name)
def test_the_example_answers_what_the_doc_shows(docs_app: Flask, example: Example) -> None:
    client = docs_app.test_client()
    key = _fresh_key(docs_app)
    problems = []
    for request, shown in zip(example.requests, example.answers, strict=True):
        headers = {
            name: value.replace(KEY_VARIABLE, key) for name, value in request.headers.items()
        }
        response = client.open(
            request.path.replace(KEY_VARIABLE, key),
            method=request.method,
            headers=headers,
            data=request.body,
        )
        where = f"{example.source}:{request.line} ({request.describe()})"
        status = expected_status(shown)
        if response.status_code != status:
            problems.append(f"{where}: status {response.status_code}, the doc implies {status}")
        found = differences(shown, response.get_json())
        problems += [f"{where}, answer at line {example.answer_line}: {p}" for p in found]
    assert not problems, "the doc and the service disagree:\n" + "\n".join(problems)
