"""GET /api/v1/doctors (SPEC 4.6) and GET /api/v1/doctors/{id}."""

from typing import Any

from service import doctors
from service.filters import DoctorFilters
from service.paging import PageRequest
from web.db import request_connection
from web.routes import route_policy

from .args import DoctorArgs
from .blueprint import bp
from .envelope import ok, ok_page
from .openapi import SUCCESS_HEADERS, errors, not_modified, operation_id
from .schemas import DoctorSchema, detail_envelope, page_envelope


@bp.get("/doctors", tags=["doctors"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.arguments(DoctorArgs(), location="query", as_kwargs=False)
@bp.response(200, page_envelope(DoctorSchema, "DoctorPage"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "listDoctors")
def list_doctors(args: tuple[DoctorFilters, PageRequest]) -> dict[str, Any]:
    """Medical marijuana doctors by state, city and telehealth, near a point or in a map box;
    by name, distance or rating.

    Rules across parameters (a 400 names the parameter): at most one of zip, lat/lng and bbox;
    lat and lng go together; radius needs zip or lat/lng; sort=distance needs zip or lat/lng.
    """
    filters, page = args
    return ok_page(doctors.list_doctors(request_connection(), filters, page))


@bp.get("/doctors/<string:doctor_id>", tags=["doctors"])
@route_policy(keyed=True, metered=True, conditional=True)
@bp.response(200, detail_envelope(DoctorSchema, "DoctorDetail"), headers=SUCCESS_HEADERS)
@errors(bp, 400, 401, 404, 405, 429, 500, 503)
@not_modified(bp)
@operation_id(bp, "getDoctor")
def get_doctor(doctor_id: str) -> dict[str, Any]:
    """One doctor, by the id lists and search give."""
    return ok(doctors.get_doctor(request_connection(), doctor_id))
