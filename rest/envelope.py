"""The success envelope (SPEC 2.1): every successful body the API sends is built here.

Error bodies (SPEC 7) are rendered app-wide by web.errors, for both edges.
"""

from typing import Any

from service.changes import ChangePage
from service.paging import Page


def ok(data: Any) -> dict[str, Any]:
    """Success envelope for a single object (no meta)."""
    return {"success": True, "data": data}


def ok_page(page: Page[Any]) -> dict[str, Any]:
    """Success envelope for a list: data plus meta (total, limit in effect, offset)."""
    return {"success": True, "data": page.items, "meta": page}


def ok_feed(page: ChangePage, items: list[Any]) -> dict[str, Any]:
    """Success envelope for a page of the change feed: its ``items`` (page.items as the edge
    renders them) plus meta (next, has_more, as_of, retention_days)."""
    return {"success": True, "data": items, "meta": page}
