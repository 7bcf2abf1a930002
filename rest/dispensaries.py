"""GET /api/v1/dispensaries and /api/v1/dispensaries/{id} (SPEC 4.3, 4.4)."""

from typing import Any

from service import dispensaries
from service.filters import DispensaryFilters
from service.paging import PageRequest
from web.db import request_connection, request_session
from web.routes import route_policy

from .args import DispensaryArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import DispensaryDetailSchema, DispensaryHitSchema, detail_envelope, page_envelope


@bp.get("/dispensaries")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(DispensaryArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DispensaryHitSchema, "DispensaryPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listDispensaries")
def list_dispensaries(args: tuple[DispensaryFilters, PageRequest]) -> dict[str, Any]:
    """Search dispensaries by place, type and delivery; nearest first around a ZIP code.

    Rule across parameters (a 400 names the parameter): radius needs zip.
    """
    filters, page = args
    return ok_page(dispensaries.list_dispensaries(request_connection(), filters, page))


@bp.get("/dispensaries/<string:dispensary_id>")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(
    200, detail_envelope(DispensaryDetailSchema, "DispensaryDetail"), headers=SUCCESS_HEADERS
)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getDispensary")
def get_dispensary(dispensary_id: str) -> dict[str, Any]:
    """One dispensary with contact details, menu and newest reviews."""
    return ok(dispensaries.get_dispensary(request_session(), dispensary_id))
