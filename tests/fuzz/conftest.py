"""Shared fuzzing fixtures: one app per module, keys whose quota never runs out, a tally.

Each module's example budget comes from FUZZ_EXAMPLES (default 25 per operation, endpoint or
parameter; the query-string fuzz runs four times that), so CI stays fast and a deeper run is one
environment variable away::

    FUZZ_EXAMPLES=500 .venv/bin/pytest -p no:cacheprovider tests/fuzz

The terminal summary reports, per run, the cases sent and the failures seen.
"""

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from flask import Flask

from app import create_app, dispose_engines
from service import keys
from web.db import SESSIONS_EXTENSION

UNLIMITED = 10**9
_TALLIES: dict[str, "Tally"] = {}


@pytest.fixture(scope="module")
def fuzz_app(tiny_db_url: str) -> Iterator[Flask]:
    """An app for a whole module: its in-memory quota counters live as long as the module.

    Schemathesis expects every schema-valid document to be answered; the GraphQL cost budget
    refuses some (nested limits near 2^31, clamped to 100, multiply), as tests/graphql/test_cost
    checks, so here it is lifted and the fuzzing looks for crashes alone."""
    app = create_app(
        {"TESTING": True, "DATABASE_URL": tiny_db_url, "GRAPHQL_COST_BUDGET": UNLIMITED}
    )
    yield app
    dispose_engines(app)


@pytest.fixture(scope="module")
def grant_key(fuzz_app: Flask) -> Callable[[str], str]:
    """Store ``plaintext`` as an enterprise key allowed a billion requests an hour.

    Schemathesis builds its coverage cases, credentials included, while collecting, before any
    fixture runs; so those modules choose their key's plaintext at import time and grant it here.
    """

    def grant(plaintext: str) -> str:
        with fuzz_app.extensions[SESSIONS_EXTENSION]() as db:
            new = keys.create_key(db, tier="enterprise", name="fuzz", hourly_limit=UNLIMITED)
            new.record.key_hash = keys.hash_key(plaintext)
            new.record.last4 = plaintext[-4:]
            db.commit()
        return plaintext

    return grant


@pytest.fixture(scope="module")
def fuzz_key(grant_key: Callable[[str], str]) -> str:
    """Plaintext of a fresh enterprise key allowed a billion requests an hour."""
    return grant_key(keys.generate_plaintext())


class Tally(Counter[str]):
    """Counts of one fuzz run: cases sent, failures seen (shrinking repeats them), statuses."""

    @contextmanager
    def case(self) -> Iterator[None]:
        """Count a case, and a failure if the block raises."""
        self["cases"] += 1
        try:
            yield
        except Exception:
            self["failures"] += 1
            raise


@pytest.fixture(scope="session")
def tally() -> Callable[[str], Tally]:
    """``tally(run)``: the counts reported for ``run`` in the terminal summary."""
    return lambda run: _TALLIES.setdefault(run, Tally(failures=0))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _TALLIES:
        return
    terminalreporter.section("fuzz tally")
    for run, counts in sorted(_TALLIES.items()):
        details = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
        terminalreporter.write_line(f"{run}: {details}")
