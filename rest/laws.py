"""GET /api/v1/laws/{state} (SPEC 4.7)."""

from service import laws
from web.db import request_connection
from web.routes import route_policy

from .blueprint import bp
from .envelope import ok
from .openapi import SUCCESS_HEADERS, errors, not_modified
from .schemas import LawSchema, detail_envelope


@bp.get("/laws/<string:state>")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(LawSchema, "LawDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 401, 404, 405, 429, 500)
@not_modified(bp)
def get_law(state: str):
    """The cannabis law record of one state or territory."""
    return ok(laws.get_law(request_connection(), state))
