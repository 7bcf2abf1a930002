"""The response envelope (SPEC 2.1 and 7): every body the API sends is built here."""

from typing import Any

from service.paging import Page


def ok(data: Any) -> dict[str, Any]:
    """Success envelope for a single object (no meta)."""
    return {"success": True, "data": data}


def ok_page(page: Page[Any]) -> dict[str, Any]:
    """Success envelope for a list: data plus meta (total, limit in effect, offset)."""
    return {"success": True, "data": page.items, "meta": page}


def error_body(code: int, message: str, docs: str, param: str | None = None) -> dict[str, Any]:
    """Error envelope: success false, error.code equal to the HTTP status, message, docs link."""
    error: dict[str, Any] = {"code": code, "message": message, "docs": docs}
    if param is not None:
        error["param"] = param
    return {"success": False, "error": error}
