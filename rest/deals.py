"""GET /api/v1/deals (SPEC 4.5) and GET /api/v1/deals/{id}."""

from typing import Any

from service import deals
from service.filters import DealFilters
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy
from web.today import request_now, request_today

from .args import DealArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import DealSchema, detail_envelope, page_envelope


@bp.get("/deals", tags=["deals"])
@route_policy(keyed=True, metered=True, conditional=True, clocked=("open_now",))
@bp.arguments(DealArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DealSchema, "DealPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listDeals")
def list_deals(args: tuple[DealFilters, PageRequest]) -> dict[str, Any]:
    """Active deals (expiring today or later) by place and category, near a point, at
    dispensaries open now or at an instant; soonest expiry first, or nearest first.

    Rules across parameters (a 400 names the parameter): at most one of zip and lat/lng; lat
    and lng go together; radius needs zip or lat/lng; sort=distance needs zip or lat/lng; not
    both open_now and open_at.
    """
    filters, page = args
    found = deals.list_deals(
        request_connection(), filters, page, today=request_today(), now=request_now
    )
    return ok_page(found)


@bp.get("/deals/<string:deal_id>", tags=["deals"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(DealSchema, "DealDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getDeal")
def get_deal(deal_id: str) -> dict[str, Any]:
    """One active deal, by the id lists and search give (an expired deal is not found)."""
    return ok(deals.get_deal(request_connection(), deal_id, today=request_today()))
