"""Helpers for list tests at the service boundary: walk every page of a listing, and the
expected window of a list computed in Python."""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from service.paging import Page, PageRequest

T = TypeVar("T")


def walk(fetch: Callable[[PageRequest], Page[T]], *, size: int = 100) -> list[T]:
    """Every item of a listing, page by page; each page must report the same total."""
    items: list[T] = []
    totals = set()
    while True:
        page = fetch(PageRequest.build(size, len(items)))
        totals.add(page.total)
        items.extend(page.items)
        if len(page.items) < size:
            break
    assert totals == {len(items)}, f"totals {sorted(totals)} for {len(items)} items"
    return items


def window(expected: Sequence[Any], limit: int, offset: int) -> list[Any]:
    """The slice of ``expected`` a page of ``limit`` items from ``offset`` holds."""
    return list(expected[offset : offset + limit])
