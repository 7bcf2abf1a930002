"""GET /api/v1/search (SPEC 4.8)."""

from typing import Any

from service import search as search_service
from service.filters import SearchQuery
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy
from web.today import request_today

from .args import SearchArgs
from .blueprint import bp
from .envelope import ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import SearchHitSchema, page_envelope


@bp.get("/search", tags=["search"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(SearchArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(SearchHitSchema, "SearchPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "search")
def search(args: tuple[SearchQuery, PageRequest]) -> dict[str, Any]:
    """Ranked search across strains, dispensaries, doctors and deals."""
    query, page = args
    return ok_page(search_service.search(request_connection(), query, page, today=request_today()))
