"""Lists by name with ``updated_since``: the plan that sorts the few stamped rows and the one that
walks the name index (service.paging.pick_listing) give the same pages, with stamps that differ.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, select, update

from models import Dispensary, Strain
from service import dispensary_lists, paging, strains
from service.filters import DispensaryFilters, StrainFilters
from service.paging import PageRequest
from service.places import locate

BASE = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def stamped(engine: Engine) -> Iterator[Connection]:
    """A connection whose transaction (rolled back after) stamps a seventh of the strains and
    dispensaries BASE + 1 ms to BASE + 3 ms and the others BASE."""
    with engine.connect() as conn:
        for model in (Strain, Dispensary):
            conn.execute(update(model).values(updated_at=BASE))
            ids = conn.scalars(select(model.id).order_by(model.id)).all()
            for position, pk in enumerate(ids[::7]):
                stamp = BASE + timedelta(milliseconds=1 + position % 3)
                conn.execute(update(model).where(model.id == pk).values(updated_at=stamp))
        yield conn
        conn.rollback()


def _pages(list_page: Any, filters: Any, size: int) -> list[tuple[list[Any], int]]:
    """Every page of ``size`` (each item's key and the page's total), until one is short."""
    pages = []
    offset = 0
    while True:
        page = list_page(filters, PageRequest(limit=size, offset=offset))
        pages.append(
            ([getattr(item, "slug", None) or item.public_id for item in page.items], page.total)
        )
        if len(page.items) < size:
            return pages
        offset += size


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"type": "hybrid"},
        {"thc_min": 15.0},
    ],
)
def test_strains_by_name_since_an_instant_are_the_same_by_either_plan(
    stamped: Connection, monkeypatch: pytest.MonkeyPatch, filters: dict[str, Any]
) -> None:
    given = StrainFilters.create(updated_since=BASE + timedelta(milliseconds=2), **filters)

    def list_page(f: StrainFilters, page: PageRequest) -> Any:
        return strains.list_strains(stamped, f, page)

    sorted_ = _pages(list_page, given, 4)
    monkeypatch.setattr(paging, "SORTED_MAX", -1)  # every count is above it: the walk
    walked = _pages(list_page, given, 4)
    assert walked == sorted_
    everyone = [
        strain
        for offset in (0, 100)
        for strain in strains.list_strains(
            stamped, StrainFilters.create(**filters), PageRequest(limit=100, offset=offset)
        ).items
    ]
    expected = [s.slug for s in everyone if s.updated_at.replace(tzinfo=UTC) >= given.updated_since]
    assert [slug for keys, _ in sorted_ for slug in keys] == expected
    assert sorted_[0][1] == len(expected) > 0


@pytest.mark.parametrize(
    "where",
    [None, locate(bbox="-125,24,-66,50")],  # anywhere, and a box wide enough to walk
)
def test_dispensaries_by_name_since_an_instant_are_the_same_by_either_plan(
    stamped: Connection, monkeypatch: pytest.MonkeyPatch, where: Any
) -> None:
    given = DispensaryFilters.create(
        updated_since=BASE + timedelta(milliseconds=1), where=where, delivery=True
    )

    def list_page(f: DispensaryFilters, page: PageRequest) -> Any:
        return dispensary_lists.list_dispensaries(stamped, f, page)

    sorted_ = _pages(list_page, given, 3)
    monkeypatch.setattr(paging, "SORTED_MAX", -1)
    assert _pages(list_page, given, 3) == sorted_
    assert sorted_[0][1] > 3
