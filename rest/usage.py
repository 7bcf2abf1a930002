"""GET /api/v1/usage: the caller's tier and quota, answered without spending quota."""

from flask import current_app, g

from .blueprint import bp
from .envelope import ok
from .limits import LIMITER_EXTENSION, QUOTA_EXTENSION, usage_of
from .openapi import REQUEST_ID_HEADER, errors
from .schemas import UsageSchema, detail_envelope


@bp.get("/usage")
@bp.response(200, detail_envelope(UsageSchema, "UsageDetail"), headers=REQUEST_ID_HEADER)
@errors(bp, 401, 405, 500)
def get_usage():
    """The API key's tier, hourly limit, requests remaining and reset time; not charged."""
    api_key = g.api_key
    extensions = current_app.extensions
    held = extensions[QUOTA_EXTENSION].held(api_key)
    return ok({"tier": api_key.tier, **usage_of(extensions[LIMITER_EXTENSION], api_key, held=held)})
