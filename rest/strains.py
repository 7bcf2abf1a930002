"""GET /api/v1/strains and /api/v1/strains/{slug} (SPEC 4.1, 4.2)."""

from typing import Any

from service import strains
from service.filters import StrainFilters
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy

from .args import StrainArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import StrainDetailSchema, StrainItemSchema, detail_envelope, page_envelope


@bp.get("/strains")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(StrainArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(StrainItemSchema, "StrainPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listStrains")
def list_strains(args: tuple[StrainFilters, PageRequest]) -> dict[str, Any]:
    """List strains, filtered by type, effect, flavor, THC and CBD ranges; by name.

    Rules across parameters (a 400 names the parameter): thc_min must not be greater than
    thc_max; cbd_min must not be greater than cbd_max.
    """
    filters, page = args
    return ok_page(strains.list_strains(request_connection(), filters, page))


@bp.get("/strains/<string:slug>")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(StrainDetailSchema, "StrainDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getStrain")
def get_strain(slug: str) -> dict[str, Any]:
    """One strain with description, terpenes, rating and review count."""
    return ok(strains.get_strain(request_connection(), slug))
