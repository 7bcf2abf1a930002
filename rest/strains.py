"""GET /api/v1/strains, /api/v1/strains/{slug} (SPEC 4.1, 4.2), where to buy one:
/api/v1/strains/{slug}/dispensaries, and its lineage: /api/v1/strains/{slug}/lineage."""

from typing import Any

from service import dispensary_lists, lineage, strains
from service.filters import DispensaryFilters, StrainFilters
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy
from web.today import request_now

from .args import LineageArgs, StockistArgs, StrainArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import (
    LineageSchema,
    StockistSchema,
    StrainDetailSchema,
    StrainItemSchema,
    detail_envelope,
    page_envelope,
)


@bp.get("/strains", tags=["strains"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(StrainArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(StrainItemSchema, "StrainPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listStrains")
def list_strains(args: tuple[StrainFilters, PageRequest]) -> dict[str, Any]:
    """List strains, filtered by type, effect, flavor, THC and CBD ranges, chemistry and
    parent; by name.

    Chemistry: terpene (among the three leading), dominant_terpene and ratio take words of
    their vocabulary (an unknown one is a 400 listing them); cbg_min, cbn_min, thcv_min and
    cbc_min bound a compound's median (a strain without chemistry never matches them).
    parent: the strains bred from that strain (an unknown slug matches nothing).
    Rules across parameters (a 400 names the parameter): thc_min must not be greater than
    thc_max; cbd_min must not be greater than cbd_max.
    """
    filters, page = args
    return ok_page(strains.list_strains(request_connection(), filters, page))


@bp.get("/strains/<string:slug>", tags=["strains"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(StrainDetailSchema, "StrainDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getStrain")
def get_strain(slug: str) -> dict[str, Any]:
    """One strain with description, terpenes, rating, review count, its typical chemistry
    (null without samples) and its lineage."""
    return ok(strains.get_strain(request_connection(), slug))


@bp.get("/strains/<string:slug>/dispensaries", tags=["strains"])
@route_policy(keyed=True, metered=True, conditional=True, clocked=("open_now",))
@bp.arguments(StockistArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(StockistSchema, "StockistPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listStrainDispensaries")
def list_strain_dispensaries(
    args: tuple[DispensaryFilters, PageRequest], slug: str
) -> dict[str, Any]:
    """Where to buy a strain: the dispensaries whose menu has it, each with the menu item's
    price and unit; every parameter of GET /dispensaries (by name, or nearest first around a
    point). The cheapest item counts when a menu lists the strain more than once.

    404 for an unknown strain. Rules across parameters (a 400 names the parameter): at most one
    of zip, lat/lng and bbox; lat and lng go together; radius needs zip or lat/lng;
    sort=distance needs zip or lat/lng; not both open_now and open_at.
    """
    filters, page = args
    db = request_connection()
    strain = strains.find_strain(db, slug)
    found = dispensary_lists.list_dispensaries(
        db, filters, page, now=request_now, strain_id=strain.id
    )
    return ok_page(found)


@bp.get("/strains/<string:slug>/lineage", tags=["strains"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(LineageArgs(), location="query", as_kwargs=False)
@bp.response(200, detail_envelope(LineageSchema, "LineageDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getStrainLineage")
def get_strain_lineage(args: lineage.LineageRequest, slug: str) -> dict[str, Any]:
    """A strain's ancestors (parents, grandparents...) or descendants to a depth of 1 to 3: the
    strains reached and the parent links between them.

    404 for an unknown strain; 400 for a depth outside 1 to 3 or an unknown direction.
    """
    return ok(lineage.get_lineage(request_connection(), slug, args))
