"""GET /api/v1/laws/{state} (SPEC 4.7) and GET /api/v1/laws."""

from typing import Any

from service import laws
from service.filters import LawFilters
from service.paging import Page
from web.db import request_connection
from web.routes import route_policy

from .args import LawArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import LawSchema, detail_envelope, page_envelope


@bp.get("/laws", tags=["laws"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(LawArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(LawSchema, "LawPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listLaws")
def list_laws(filters: LawFilters) -> dict[str, Any]:
    """Every law record (56 jurisdictions) in one page, by state code.

    Filter by recreational and medical. No limit or offset: meta.limit is the number of records
    served."""
    records = laws.list_laws(request_connection(), filters)
    return ok_page(Page(items=records, total=len(records), limit=len(records), offset=0))


@bp.get("/laws/<string:state>", tags=["laws"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(LawSchema, "LawDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getLaw")
def get_law(state: str) -> dict[str, Any]:
    """The cannabis law record of one state or territory."""
    return ok(laws.get_law(request_connection(), state))
