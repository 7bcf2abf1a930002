"""GET /api/v1/dispensaries and /api/v1/dispensaries/{id} (SPEC 4.3, 4.4)."""

from typing import Any

from service import dispensaries, dispensary_lists
from service.filters import DispensaryFilters
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy
from web.today import request_now

from .args import DispensaryArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import DispensaryDetailSchema, DispensaryHitSchema, detail_envelope, page_envelope


@bp.get("/dispensaries", tags=["dispensaries"])
@route_policy(keyed=True, metered=True, conditional=True, clocked=("open_now",))
@bp.arguments(DispensaryArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DispensaryHitSchema, "DispensaryPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listDispensaries")
def list_dispensaries(args: tuple[DispensaryFilters, PageRequest]) -> dict[str, Any]:
    """Find dispensaries by place, type and delivery, near a point or in a map box, open now
    or at an instant; by name, distance or rating.

    Rules across parameters (a 400 names the parameter): at most one of zip, lat/lng and bbox;
    lat and lng go together; radius needs zip or lat/lng; sort=distance needs zip or lat/lng;
    not both open_now and open_at.
    """
    filters, page = args
    return ok_page(
        dispensary_lists.list_dispensaries(request_connection(), filters, page, now=request_now)
    )


@bp.get("/dispensaries/<string:dispensary_id>", tags=["dispensaries"])
@route_policy(keyed=True, metered=True, conditional=True, clocked=True)
@bp.response(
    200, detail_envelope(DispensaryDetailSchema, "DispensaryDetail"), headers=SUCCESS_HEADERS
)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getDispensary")
def get_dispensary(dispensary_id: str) -> dict[str, Any]:
    """One dispensary with contact details, menu, newest reviews, and whether it is open now."""
    return ok(dispensaries.get_dispensary(request_connection(), dispensary_id, now=request_now))
