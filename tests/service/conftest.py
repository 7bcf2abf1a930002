"""Fixtures for tests at the service boundary: the shared tiny dataset as the generator made it
(the source of every expected value) and one read connection to the database it was loaded into.
"""

from collections.abc import Iterator
from datetime import date

import pytest
from sqlalchemy import Connection, Engine

from seed import Dataset, generate
from tests.conftest import TINY_SEED


@pytest.fixture(scope="session")
def dataset(reference_day: date) -> Dataset:
    """The rows the shared tiny database holds, regenerated in memory (same seed, same day)."""
    return generate(scale="tiny", seed=TINY_SEED, today=reference_day)


@pytest.fixture(scope="module")
def db(engine: Engine) -> Iterator[Connection]:
    """One connection per test module; service list functions only read through it."""
    with engine.connect() as conn:
        yield conn
        conn.rollback()
