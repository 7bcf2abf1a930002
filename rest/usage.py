"""GET /api/v1/usage: the caller's tier and quota, answered without spending quota."""

from typing import Any

from flask import current_app, g

from web.limits import LIMITER_EXTENSION, held_units, usage_of
from web.routes import route_policy

from .blueprint import bp
from .envelope import ok
from .openapi import REQUEST_ID_HEADER, errors, operation_id
from .schemas import UsageSchema, detail_envelope


@bp.get("/usage", tags=["usage"])
@route_policy(keyed=True, metered=False, conditional=False)
@bp.response(200, detail_envelope(UsageSchema, "UsageDetail"), headers=REQUEST_ID_HEADER)
@errors(bp, 400, 401, 405, 429, 500, 503, metered=False)
@operation_id(bp, "getUsage")
def get_usage() -> dict[str, Any]:
    """The API key's tier, hourly limit, requests remaining and reset time; not charged."""
    api_key = g.api_key
    limiter = current_app.extensions[LIMITER_EXTENSION]
    return ok({"tier": api_key.tier, **usage_of(limiter, api_key, held=held_units(api_key))})
