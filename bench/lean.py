"""A lean reference for bench/run.py: the ceiling Flask allows for two of the project's answers.

``GET /api/v1/laws/<state>`` and ``GET /api/v1/strains`` (the parameters the benchmark sends:
type, effect and flavor, one value or several separated by commas, thc_min, thc_max, cbd_min,
cbd_max, limit, offset) answer with the service's own bytes: the same service functions, filter
objects built by hand from the query string, the rest/ output schemas with their compiled dumps
(as the service runs them with SPEED_TRICKS on) and the same orjson provider. Around them, the
platform's essentials done the cheapest sensible way, in one before/after hook pair: a key looked
up by its SHA-256 hash (kept in a small dict), an hourly quota in Redis (one pipelined INCR and
EXPIRE per request), an ETag hashed from the body with 304, CORS, X-Request-ID, a JSON access
line per request and per-route counters. The benchmark's ratio of the service to this app is the
cost of the rest of its platform.

Settings: DATABASE_URL, RATELIMIT_STORAGE_URI (redis://...), CORS_ORIGINS ("*" by default) and
LEAN_ACCESS_LOG (a file for the access lines; standard error by default). Served as ``lean:app``
with ``--pythonpath bench``; tests/unit/test_lean_reference.py checks the bytes.
"""

import hashlib
import os
import sys
import time
from typing import Any

import orjson
import redis
from flask import Flask, Response, g, request
from sqlalchemy import select

from models import ApiKey
from models.db import make_engines
from rest.accel.dumping import compile_dumps
from rest.envelope import ok, ok_page
from rest.schemas import LawSchema, Output, StrainItemSchema, detail_envelope, page_envelope
from service import bounds, laws, numbers, strains
from service.errors import InvalidParameter, ServiceError
from service.filters import StrainFilters
from service.keys import hash_key, is_well_formed
from service.paging import PageRequest
from service.quotas import hourly_limit
from web.jsonprovider import OrjsonProvider
from web.request_id import request_id_for

WINDOW_S = 3600  # the quota's window: one clock hour
KEY_CACHE_LIMIT = 1024  # verified keys kept per worker (the dict is emptied when full)
STRAIN_NUMBERS = ("thc_min", "thc_max", "cbd_min", "cbd_max")
STRAIN_PARAMS = frozenset({"type", "effect", "flavor", *STRAIN_NUMBERS, "limit", "offset"})

compile_dumps(Output)
STRAIN_PAGE = page_envelope(StrainItemSchema, "StrainPage")()
LAW_DETAIL = detail_envelope(LawSchema, "LawDetail")()

app = Flask(__name__)
app.json = OrjsonProvider(app)
ENGINE = make_engines(os.environ.get("DATABASE_URL", "sqlite:///instance/cds.db"))[1]
QUOTAS = redis.Redis.from_url(os.environ.get("RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6379/0"))
ORIGINS = {o.strip().rstrip("/") for o in os.environ.get("CORS_ORIGINS", "*").split(",")} - {""}
_log_path = os.environ.get("LEAN_ACCESS_LOG")
LOG = open(_log_path, "ab") if _log_path else sys.stderr.buffer  # noqa: SIM115  (kept open)
KEYS: dict[str, tuple[int, int]] = {}  # key hash -> (key id, hourly limit)
ROUTES: dict[str, list[float]] = {}  # route -> [requests, seconds spent]


def refusal(code: int, message: str, param: str | None = None) -> Response:
    error = {"code": code, "message": message, **({"param": param} if param else {})}
    response = app.json.response({"success": False, "error": error})
    response.status_code = code
    return response


@app.errorhandler(ServiceError)
def service_error(error: ServiceError) -> Response:
    return refusal(error.code, error.message, error.param)


def known_key(presented: str) -> tuple[int, int] | None:
    """(id, hourly limit) of the live key ``presented``, from the dict or the database."""
    digest = hash_key(presented)
    found = KEYS.get(digest)
    if found is None and is_well_formed(presented):
        columns = (ApiKey.id, ApiKey.tier, ApiKey.hourly_limit)
        wanted = (ApiKey.key_hash == digest) & ApiKey.revoked_at.is_(None)
        with ENGINE.connect() as db:
            row = db.execute(select(*columns).where(wanted)).first()
        if row is not None:
            if len(KEYS) >= KEY_CACHE_LIMIT:
                KEYS.clear()
            found = KEYS[digest] = (row.id, hourly_limit(row))
    return found


@app.before_request
def admit() -> Response | None:
    """Clock, request id, key and quota: a refusal ends the request here."""
    g.started = time.perf_counter()
    g.request_id = request_id_for(request.headers.get("X-Request-ID"))
    g.key_id = g.quota = None
    presented = request.headers.get("X-API-Key") or request.args.get("api_key")
    if not presented:
        return refusal(401, "API key missing: send it in the X-API-Key header")
    found = known_key(presented)
    if found is None:
        return refusal(401, "API key invalid")
    g.key_id, limit = found
    window = int(time.time()) // WINDOW_S
    counter = f"lean:quota:{g.key_id}:{window}"
    pipe = QUOTAS.pipeline(transaction=False)
    pipe.incr(counter)
    pipe.expire(counter, WINDOW_S)
    used = pipe.execute()[0]
    g.quota = (str(limit), str(max(0, limit - used)), str((window + 1) * WINDOW_S))
    if used > limit:
        return refusal(429, f"quota of {limit} requests per hour exceeded")
    return None


@app.after_request
def finish(response: Response) -> Response:
    """Headers every answer carries (CORS: "*", or an allowed Origin echoed), then the access
    line and the route's counters."""
    headers = response.headers
    headers["X-Request-ID"] = g.request_id
    if g.quota is not None:
        limit, remaining, reset = g.quota
        headers["X-RateLimit-Limit"] = limit
        headers["X-RateLimit-Remaining"] = remaining
        headers["X-RateLimit-Reset"] = reset
    headers["Cache-Control"] = "private, no-cache"
    headers["X-Content-Type-Options"] = "nosniff"
    if "*" in ORIGINS:
        headers["Access-Control-Allow-Origin"] = "*"
    elif (origin := request.headers.get("Origin")) in ORIGINS:
        headers["Access-Control-Allow-Origin"] = origin
        headers["Vary"] = "Origin"
    duration = time.perf_counter() - g.started
    route = request.url_rule.rule if request.url_rule else "unrouted"
    line = {
        "event": "request",
        "request_id": g.request_id,
        "method": request.method,
        "path": request.path,
        "route": route,
        "status": response.status_code,
        "duration_ms": round(duration * 1000, 2),
        "key_id": g.key_id,
    }
    LOG.write(orjson.dumps(line) + b"\n")
    LOG.flush()
    counts = ROUTES.setdefault(route, [0, 0.0])
    counts[0] += 1
    counts[1] += duration
    return response


def answer(dumped: dict[str, Any]) -> Response:
    """The JSON answer with an ETag hashed from its bytes; 304 when the client has them."""
    response = app.json.response(dumped)
    tag = f'"{hashlib.blake2b(response.get_data(), digest_size=16).hexdigest()}"'
    held = request.headers.get("If-None-Match")
    if held and (
        held.strip() == "*" or tag in (t.strip().removeprefix("W/") for t in held.split(","))
    ):
        return Response(status=304, headers={"ETag": tag})
    response.headers["ETag"] = tag
    return response


def number(name: str, read: Any) -> Any:
    """The query parameter ``name`` read by ``read`` (service.numbers); None when absent."""
    text = request.args.get(name)
    if text is None:
        return None
    try:
        value = read(text)
    except numbers.OutOfRange:
        value = None
    if value is None:
        raise InvalidParameter(f"{name} must be a number", param=name)
    return value


@app.get("/api/v1/strains")
def list_strains() -> Response:
    args = request.args
    unknown = set(args) - STRAIN_PARAMS - {"api_key"}
    if unknown:
        name = min(unknown)
        raise InvalidParameter(f"unknown parameter {name}", param=name)
    page = PageRequest.within(
        bounds.STRAINS,
        number("limit", numbers.read_integer),
        number("offset", numbers.read_integer),
    )
    filters = StrainFilters.create(
        type=args.get("type"),
        effect=args.get("effect"),
        flavor=args.get("flavor"),
        **{name: number(name, numbers.read_float) for name in STRAIN_NUMBERS},
    )
    with ENGINE.connect() as db:
        found = strains.list_strains(db, filters, page)
    return answer(STRAIN_PAGE.dump(ok_page(found)))


@app.get("/api/v1/laws/<state>")
def get_law(state: str) -> Response:
    with ENGINE.connect() as db:
        found = laws.get_law(db, state)
    return answer(LAW_DETAIL.dump(ok(found)))
