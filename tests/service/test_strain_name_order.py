"""Strain pages keep name order when ids do not follow it.

The seed numbers strains in name order, so a list ordered by id would pass the other strain
tests. Here the tiny dataset's names are handed out in reverse, so the name order runs against
the ids, and every filter shape is paged against a brute-force answer on SQLite and PostgreSQL.
"""

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection

from models.db import make_engine
from seed import Dataset, generate, load_dataset
from service.filters import StrainFilters
from service.strains import list_strains
from tests.conftest import postgres_scratch
from tests.service.pages import walk
from tests.service.test_strains import _expected, _slugs

SHAPES = [
    {"effect": "relaxed"},
    {"effect": "happy", "type": "indica,hybrid", "thc_min": 15.0},
    {"flavor": "earthy", "thc_max": 22.0},
    {"effect": "uplifted", "flavor": "citrus,sweet"},
    {"flavor": "sweet", "effect": "happy,relaxed", "cbd_min": 0.1},
    {"effect": "aroused,happy"},
]


def _reversed_names(dataset: Dataset) -> Dataset:
    """The dataset with each strain's name and slug swapped with its mirror's (id n+1-i)."""
    strains = dataset.strains
    mirrored = [
        {**strain, "name": mirror["name"], "slug": mirror["slug"]}
        for strain, mirror in zip(strains, reversed(strains), strict=True)
    ]
    return replace(dataset, strains=mirrored)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def mirrored(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Connection, Dataset]]:
    dataset = _reversed_names(generate(scale="tiny", seed=7, today=date(2026, 11, 26)))
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{Path(tmp_path_factory.mktemp('order')) / 'order.db'}"
        else:
            url = stack.enter_context(postgres_scratch())
        engine = make_engine(url)
        stack.callback(engine.dispose)
        load_dataset(engine, dataset)
        with engine.connect() as conn:
            yield conn, dataset


def test_the_names_run_against_the_ids(mirrored: tuple[Connection, Dataset]) -> None:
    _conn, dataset = mirrored
    by_id = [strain["name"].lower() for strain in sorted(dataset.strains, key=lambda s: s["id"])]
    assert by_id == sorted(by_id, reverse=True)


@pytest.mark.parametrize(
    "filters", SHAPES, ids=lambda f: "&".join(f"{k}={v}" for k, v in f.items())
)
@pytest.mark.parametrize("size", [7, 100])
def test_every_page_follows_the_names(
    mirrored: tuple[Connection, Dataset], filters: dict[str, Any], size: int
) -> None:
    conn, dataset = mirrored
    chosen = StrainFilters.create(**filters)
    found = walk(lambda page: list_strains(conn, chosen, page), size=size)
    expected = _slugs(_expected(dataset, **filters))
    assert len(expected) > size // 7, "the shape matches several strains"
    assert _slugs(found) == expected
