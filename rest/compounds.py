"""GET /api/v1/compounds: the compounds the service knows (the keys chemistry, lab results and
the strain filters use)."""

from typing import Any

from service import compounds
from service.paging import Page
from web.routes import route_policy

from .blueprint import bp
from .envelope import ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import CompoundSchema, page_envelope


@bp.get("/compounds", tags=["compounds"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, page_envelope(CompoundSchema, "CompoundPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listCompounds")
def list_compounds() -> dict[str, Any]:
    """Every compound the service knows, cannabinoids first, in one page.

    A small fixed vocabulary: no limit or offset (meta.limit is the number of compounds)."""
    found = compounds.list_compounds()
    return ok_page(Page(items=found, total=len(found), limit=len(found), offset=0))
