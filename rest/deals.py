"""GET /api/v1/deals (SPEC 4.5)."""

from service import deals
from web.db import request_connection
from web.routes import route_policy
from web.today import request_today

from .args import DealArgs
from .blueprint import bp
from .envelope import ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified
from .schemas import DealSchema, page_envelope


@bp.get("/deals")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(DealArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DealSchema, "DealPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500)
@not_modified(bp)
def list_deals(args):
    """Active deals (expiring today or later), soonest expiry first."""
    filters, page = args
    return ok_page(deals.list_deals(request_connection(), filters, page, today=request_today()))
