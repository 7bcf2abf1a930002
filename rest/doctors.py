"""GET /api/v1/doctors (SPEC 4.6)."""

from service import doctors
from web.db import request_connection
from web.routes import route_policy

from .args import DoctorArgs
from .blueprint import bp
from .envelope import ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified
from .schemas import DoctorSchema, page_envelope


@bp.get("/doctors")
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(DoctorArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DoctorSchema, "DoctorPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500)
@not_modified(bp)
def list_doctors(args):
    """Medical marijuana doctors by state, city and telehealth; by name."""
    filters, page = args
    return ok_page(doctors.list_doctors(request_connection(), filters, page))
