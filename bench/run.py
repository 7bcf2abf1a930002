"""Throughput benchmark under gunicorn, as ratios to a bare Flask endpoint measured in the same run.

Usage: .venv/bin/python bench/run.py [--seconds 5] [--warmup 1] [--connections 8]
       [--backends sqlite,postgres] [--modes warm,cold] [--cases NAME,...] [--no-new]
Needs `wrk` on PATH, Redis at REDIS_URL (two workers count quotas there) and, for the "postgres"
backend, PostgreSQL at TEST_POSTGRES_URL (default 127.0.0.1). Servers bind 127.0.0.1; each run
lasts --seconds after an unrecorded --warmup run of the same case (first requests compile
statements, open connections and fill the replay store); every process started here is stopped
by its pid.

The "mixed traffic" case replays a trace of many distinct requests over every endpoint (bench/
traffic.py, Zipf-popular, seed 22) through bench/mixed.lua: each mode first replays the distinct
requests once and exits non-zero unless every one answers 200 (GraphQL without errors), then
measures STEADY cycling for --seconds (after a warm-up of six passes over the trace warm, two
cold, at most 90 s) and, on a freshly started server whose workers have all started and sit
idle, a FIRST PASS: exactly one walk over the trace, the wrk threads splitting it (the best of
FIRST_PASSES, each on a fresh server). --no-new
leaves out the requests of traffic.NEW_FEATURES.

Beside the service, each backend's run serves bench/lean.py (the lean app: the same answers
byte for byte over a minimal platform) in the cold mode's settings and measures on it the cases
of LEAN_CASES and the "mixed, strains lists" sub-trace: the trace's GET /api/v1/strains lists,
in its order, measured as mixed traffic is, STEADY and FIRST PASS (on the service in each mode
too). The targets section gives the service's ratio to the lean app for each: the cold LEAN_CASES
are targets (at least 1.00x), the sub-trace is for information, cold and warm.
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import date
from http.client import HTTPConnection
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.request import Request as UrlRequest
from urllib.request import urlopen

from sqlalchemy import create_engine, make_url

from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service import keys

# bench/traffic.py is imported where it is used: bench/ is on sys.path when this file runs as a
# script, not when tests load it by path for its report lines.
if TYPE_CHECKING:
    from traffic import Request

ROOT = Path(__file__).resolve().parents[1]
GUNICORN = Path(sys.executable).with_name("gunicorn")
NESTED = (
    '{ dispensaries(state: "CO", limit: 20) { total items { id name deals(limit: 5) '
    "{ title discount } menu { name price strain { slug } } law { recreational } } } }"
)
CASES = [
    ("strains list (filters)", "/api/v1/strains?type=hybrid&effect=relaxed&thc_min=18", None),
    ("dispensaries by state", "/api/v1/dispensaries?state=CA", None),
    ("ZIP proximity", "/api/v1/dispensaries?zip=94110&radius=25", None),
    ("search", "/api/v1/search?q=blue", None),
    ("strain detail", "/api/v1/strains/blue-dream", None),
    ("laws", "/api/v1/laws/CA", None),
    ("GraphQL nested page (20)", "/graphql", json.dumps({"query": NESTED})),
    (
        "open now near a point",
        "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&open_now=true&limit=20",
        None,
    ),
    # The same question at a fixed evening instant: open now's page is empty at night in
    # Denver and full by day, so its figure moves with the hour of the run.
    (
        "open now, evening (open_at)",
        "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&open_at=2026-12-04T18:00:00-07:00&limit=20",
        None,
    ),
]
OPEN_NOW_CASE = "open now near a point"
OPEN_EVENING_CASE = "open now, evening (open_at)"
WRK_THREADS = 2
# The mixed-traffic case (bench/traffic.py's trace through bench/mixed.lua), matched by --cases
# like the others; its rows are the two below.
MIXED_CASE = "mixed traffic"
MIXED_FIRST = f"{MIXED_CASE} (first pass)"
MIXED_STEADY = f"{MIXED_CASE} (steady)"
MIXED_SCRIPT = ROOT / "bench" / "mixed.lua"
FIRST_PASS_LIMIT = 300  # seconds; a first pass still running then is cut short (and says so)
STEADY_WARMUP_PASSES = 6  # passes over the trace before steady cycling is measured (warm)
COLD_WARMUP_PASSES = 2  # the same, cold
STEADY_WARMUP_LIMIT = 90  # seconds: the most that warm-up may take
# First passes, each on a freshly started server; the best counts. A pass of a few hundred
# requests lasts under a second, and now and then connections wait a second or two on loopback
# (sync workers close every connection, so a run opens hundreds of thousands): one such wait can
# decide a pass.
FIRST_PASSES = 3
# The lean reference app (bench/lean.py), the cases it serves, its rows' mode, and the sub-trace
# of mixed traffic it serves: the trace's strains lists (a case of its own for --cases).
LEAN_APP = "lean:app"
LEAN_CASES = ("strains list (filters)", "laws")
LEAN_MODE = "lean"
LEAN_TARGET = 1.0  # the service's least req/s over the lean app's on LEAN_CASES, cold
MIXED_STRAINS = "mixed, strains lists"
MIXED_STRAINS_FIRST = f"{MIXED_STRAINS} (first pass)"
MIXED_STRAINS_STEADY = f"{MIXED_STRAINS} (steady)"
STRAINS_PATH = "/api/v1/strains"
LEAN_READY = "/api/v1/laws/CA"  # the lean app answers keyed requests only


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _cpu_ticks(pid: str) -> int:
    """User and system CPU time of process ``pid`` in clock ticks (-1 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return -1
    return int(fields[11]) + int(fields[12])


class Gunicorn:
    """gunicorn -c gunicorn.conf.py (2 sync workers unless told, its default of no gunicorn
    access log; the app's JSON request log goes to /dev/null) on a free local port."""

    def __init__(self, env: dict[str, str], app: str | None = None, workers: int = 2) -> None:
        self.port = _free_port()
        self.workers = workers
        command = [str(GUNICORN), "-c", str(ROOT / "gunicorn.conf.py"), "--no-control-socket"]
        if app:
            command += ["--pythonpath", str(ROOT / "bench"), app]
        full_env = {
            **os.environ,
            **env,
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": str(workers),
            "GUNICORN_THREADS": "1",
        }
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def wait_ready(self, path: str, key: str | None = None) -> None:
        deadline = time.monotonic() + 30
        headers = {"X-API-Key": key} if key else {}
        while time.monotonic() < deadline:
            try:
                ready = UrlRequest(f"http://127.0.0.1:{self.port}{path}", headers=headers)
                with urlopen(ready, timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not answer within 30 s")
        self._wait_workers_idle(deadline)

    def _wait_workers_idle(self, deadline: float) -> None:
        """Until every worker has started and sits idle (its CPU time still over 0.2 s): one
        worker answers while another may still be importing the app, which a first pass would
        otherwise wait for."""
        previous: dict[str, int] | None = None
        while time.monotonic() < deadline:
            found = subprocess.run(
                ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True
            ).stdout.split()
            ticks = {pid: _cpu_ticks(pid) for pid in found}
            if len(ticks) == self.workers and ticks == previous:
                return
            previous = ticks
            time.sleep(0.2)
        raise RuntimeError("gunicorn's workers were not all idle within 30 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def _measure(
    url: str, *, key: str | None, body: str | None, load: dict, lua: list[str] | None = None
) -> dict:
    """One case: ``load["warmup"]`` seconds of load whose figures are dropped, then the run."""
    connections = load["connections"]
    if load["warmup"] > 0:
        _wrk(url, key=key, body=body, seconds=load["warmup"], connections=connections, lua=lua)
    return _wrk(url, key=key, body=body, seconds=load["seconds"], connections=connections, lua=lua)


def _wrk(
    url: str,
    *,
    key: str | None,
    body: str | None,
    seconds: int,
    connections: int,
    lua: list[str] | None = None,
) -> dict:
    """wrk's figures for ``url``; ``lua`` is a script of ours and its arguments (then no body)."""
    command = _wrk_command(key=key, seconds=seconds, connections=connections)
    script = None
    if lua:
        command += ["-s", lua[0], url, "--", *lua[1:]]
    else:
        if body is not None:
            with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
                handle.write(
                    'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                    f"wrk.body = {json.dumps(body)}\n"
                )
            script = handle.name
            command += ["-s", script]
        command.append(url)
    try:
        out = subprocess.run(
            command, capture_output=True, text=True, timeout=seconds + 30, check=True
        ).stdout
    finally:
        if script is not None:
            os.unlink(script)
    return _figures(out)


def _wrk_command(*, key: str | None, seconds: int, connections: int) -> list[str]:
    command = ["wrk", f"-t{WRK_THREADS}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    return [*command, "-H", f"X-API-Key: {key}"] if key else command


def _figures(out: str) -> dict:
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(re.search(r"50%\s+([\d.]+\w+)", out).group(1)),
        "p99": _ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1)),
        "errors": int(non_2xx.group(1)) if non_2xx else 0,
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
    }


def _first_pass(url: str, *, key: str, lua: list[str], connections: int) -> dict:
    """One pass over a trace with bench/mixed.lua: each wrk thread notes in a file when its
    share has been answered, and once all have, wrk is interrupted (SIGINT: it stops and
    reports, over the time it ran). Its -d, FIRST_PASS_LIMIT, only bounds a pass that hangs."""
    command = _wrk_command(key=key, seconds=FIRST_PASS_LIMIT, connections=connections)
    with tempfile.TemporaryDirectory() as scratch:
        done = Path(scratch) / "done"
        command += ["-s", lua[0], url, "--", *lua[1:], "once", str(done)]
        wrk = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while wrk.poll() is None and _lines(done) < WRK_THREADS:
                time.sleep(0.005)
            if wrk.poll() is None:
                wrk.send_signal(signal.SIGINT)
            out, err = wrk.communicate(timeout=30)
        finally:
            if wrk.poll() is None:
                wrk.kill()
                wrk.wait()
    if wrk.returncode:
        raise RuntimeError(f"wrk exited with {wrk.returncode}: {err}")
    return _figures(out)


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def _seeded(url: str) -> str:
    engine = make_engine(url)
    load_dataset(engine, generate(scale="full", today=date.today()))
    with make_session_factory(engine)() as session:
        key = keys.create_key(session, tier="enterprise", hourly_limit=10**9, name="bench")
        session.commit()
    engine.dispose()
    return key.plaintext


def _postgres_database() -> tuple[str, str]:
    server = make_url(
        os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    )
    name = f"cds_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return server.render_as_string(hide_password=False), name


def _drop_postgres(server: str, name: str) -> None:
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


MODES = {
    # warm: the page/result cache on (repeated reads); cold: off, every request runs SQL.
    "warm": {},
    "cold": {"PAGE_CACHE_MB": "0"},
}
# The quota storages are compared warm with one worker each: memory:// may serve no more.
ONE_WORKER_MODE = "warm1w"
LIST_CASES = ("strains list (filters)", "dispensaries by state", "ZIP proximity", "search")
GRAPHQL_CASE = "GraphQL nested page (20)"
QUOTA_CASE = "strains list (filters)"  # measured with every quota storage for the Redis cost
DEFAULT_STORE = "redis"  # what the two-worker runs count quotas in, on both backends


def _redis_url() -> str:
    return os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")


def _storages() -> dict[str, dict[str, str]]:
    """Quota storages by label: memory, Redis (busy keys lease), Redis counting every request."""
    redis = _redis_url()
    return {
        "memory": {"RATELIMIT_STORAGE_URI": "memory://"},
        "redis": {"RATELIMIT_STORAGE_URI": redis},
        "redis-1": {"RATELIMIT_STORAGE_URI": redis, "QUOTA_LEASE_SHARE": "0"},
    }


def _measure_backend(
    backend: str,
    workdir: Path,
    load: dict,
    modes: list[str],
    cases: list[tuple],
    mixed: dict | None = None,
    lists: dict | None = None,
) -> list[tuple]:
    """Every case in each mode (two workers, quotas in Redis), plus the quota case with one
    worker on each limiter storage; with ``mixed`` (build_trace's keywords) the mixed traffic
    in each mode too; with ``lists`` (the same keywords) the trace's strains lists in each mode,
    steady and first pass. And the lean app with the cold mode's settings, right after the cold
    mode (else last): its cases of LEAN_CASES and, with ``lists``, the strains lists."""
    cleanup = None
    if backend == "sqlite":
        url = f"sqlite:///{workdir / 'bench.db'}"
    else:
        server, name = _postgres_database()
        url = make_url(server).set(database=name).render_as_string(hide_password=False)
        cleanup = (server, name)
    rows = []
    try:
        key = _seeded(url)
        if mixed is not None or lists is not None:
            trace = _trace(url, backend, mixed or lists)
            trace_file = _trace_file(workdir / f"trace-{backend}.tsv", trace)
            listed = strains_lists(trace)
            listed_file = _trace_file(workdir / f"trace-{backend}-strains.tsv", listed)
        sub_trace = (listed, listed_file) if lists is not None else None
        lean_cases = [c for c in cases if c[0] in LEAN_CASES]
        lean_measured = False
        storages = _storages()
        runs = [(mode, DEFAULT_STORE, cases) for mode in modes]
        if "warm" in modes and any(c[0] == QUOTA_CASE for c in cases):
            # Each storage is measured twice, alternating, and the comparison takes each one's
            # better run: a burst of noise from the rest of the machine then cannot decide
            # which storage looks dearer.
            quota_case = [c for c in cases if c[0] == QUOTA_CASE]
            runs += [(ONE_WORKER_MODE, store, quota_case) for store in [*storages, *storages]]
        for mode, store, cases in runs:
            one_worker = mode == ONE_WORKER_MODE
            env = {"DATABASE_URL": url, **storages[store], **MODES["warm" if one_worker else mode]}
            if cases:
                found = _measure_cases(env, 1 if one_worker else 2, key, cases, load)
                rows += [(case, backend, mode, store, result) for case, result in found]
            label = f"{backend} {mode}"
            if mixed is not None and not one_worker:
                found = _measure_trace(env, key, MIXED_CASE, trace, trace_file, load, label)
                rows += [(case, backend, mode, store, result) for case, result in found]
            if lists is not None and not one_worker:
                found = _measure_trace(env, key, MIXED_STRAINS, listed, listed_file, load, label)
                rows += [(case, backend, mode, store, result) for case, result in found]
            # The lean app right after the cold mode it is compared with (or after every mode).
            if mode == "cold" and (lean_cases or sub_trace):
                rows += _measure_lean(url, key, lean_cases, sub_trace, load, backend)
                lean_measured = True
        if not lean_measured and (lean_cases or sub_trace):
            rows += _measure_lean(url, key, lean_cases, sub_trace, load, backend)
    finally:
        if cleanup:
            _drop_postgres(*cleanup)
    return rows


def _measure_lean(
    url: str,
    key: str,
    cases: list[tuple],
    sub_trace: tuple[list["Request"], Path] | None,
    load: dict,
    backend: str,
) -> list[tuple]:
    """The lean app (bench/lean.py) on the database at ``url`` with the cold mode's settings:
    ``cases``, then the strains-list ``sub_trace`` (its requests and their file) STEADY and
    FIRST PASS, as on the service."""
    env = {"DATABASE_URL": url, **_storages()[DEFAULT_STORE], **MODES["cold"]}
    rows = []
    if cases:
        app = Gunicorn(env, app=LEAN_APP)
        try:
            app.wait_ready(LEAN_READY, key)
            for case, path, body in cases:
                case_url = f"http://127.0.0.1:{app.port}{path}"
                found = _measure(case_url, key=key, body=body, load=load)
                rows.append((case, backend, LEAN_MODE, DEFAULT_STORE, found))
        finally:
            app.stop()
    if sub_trace is not None:
        label = f"{backend} {LEAN_MODE}"
        ready = (LEAN_READY, key)
        found = _measure_trace(env, key, MIXED_STRAINS, *sub_trace, load, label, LEAN_APP, ready)
        rows += [(case, backend, LEAN_MODE, DEFAULT_STORE, result) for case, result in found]
    return rows


def _measure_cases(
    env: dict[str, str], workers: int, key: str, cases: list[tuple], load: dict
) -> list[tuple[str, dict]]:
    """Each case in turn on one server started for them."""
    app = Gunicorn(env, workers=workers)
    try:
        app.wait_ready("/health")
        return [
            (case, _measure(f"http://127.0.0.1:{app.port}{path}", key=key, body=body, load=load))
            for case, path, body in cases
        ]
    finally:
        app.stop()


def _trace_file(path: Path, trace: list["Request"]) -> Path:
    """``trace`` written for bench/mixed.lua: METHOD, PATH and BODY a line, tab-separated."""
    path.write_text("".join(f"{r.method}\t{r.path}\t{r.body or ''}\n" for r in trace))
    return path


def strains_lists(trace: list["Request"]) -> list["Request"]:
    """The trace's GET /api/v1/strains lists (not /strains/{slug}), in order, repeats kept."""
    return [r for r in trace if r.method == "GET" and r.path.partition("?")[0] == STRAINS_PATH]


def _trace(url: str, backend: str, settings: dict) -> list["Request"]:
    from traffic import build_trace, endpoint

    engine = make_engine(url)
    try:
        trace = build_trace(engine, **settings)
    finally:
        engine.dispose()
    covered = {endpoint(request) for request in trace}
    print(
        f"{MIXED_CASE} trace ({backend}): {len(trace)} requests, {len(set(trace))} distinct, "
        f"{len(covered)} endpoints, new features {'on' if settings['new_features'] else 'off'}",
        flush=True,
    )
    return trace


def _measure_trace(
    env: dict[str, str],
    key: str,
    case: str,
    trace: list["Request"],
    trace_file: Path,
    load: dict,
    label: str,
    app: str | None = None,
    ready: tuple[str, str | None] = ("/health", None),
) -> list[tuple[str, dict]]:
    """The distinct requests replayed once (all must answer 200) and STEADY cycling on one
    server, then FIRST_PASSES first passes over the trace, each on a freshly started one
    (nothing cached or compiled in its workers), the best kept: wrk stops each thread once its
    share has been answered. The
    server is the service unless ``app`` names another (answering ``ready``: path and key)."""
    lua = [str(MIXED_SCRIPT), str(trace_file), str(WRK_THREADS)]
    cold = env.get("PAGE_CACHE_MB") == "0"
    server = Gunicorn(env, app=app)
    try:
        server.wait_ready(*ready)
        steady = _steady(server, key, trace, trace_file, load, f"{case} {label}", cold=cold)
    finally:
        server.stop()
    passes = []
    for _ in range(FIRST_PASSES):
        server = Gunicorn(env, app=app)
        try:
            server.wait_ready(*ready)
            url = f"http://127.0.0.1:{server.port}/"
            passes.append(_first_pass(url, key=key, lua=lua, connections=load["connections"]))
        finally:
            server.stop()
    first = max(passes, key=lambda figures: figures["rps"])
    if first["requests"] < len(trace):
        cut = f"first pass cut short at {first['requests']} of {len(trace)} requests"
        print(f"{case} {label}: {cut}")
    return [(f"{case} (first pass)", first), (f"{case} (steady)", steady)]


def _steady(
    app: Gunicorn,
    key: str,
    trace: list["Request"],
    trace_file: Path,
    load: dict,
    label: str,
    *,
    cold: bool,
) -> dict:
    """The distinct requests of ``trace`` replayed once on ``app`` (all must answer 200), then
    the trace cycled through bench/mixed.lua after a warm-up of a few passes."""
    lua = [str(MIXED_SCRIPT), str(trace_file), str(WRK_THREADS)]
    _check_replay(app.port, key, list(dict.fromkeys(trace)), label)
    url = f"http://127.0.0.1:{app.port}/"
    # Steady means every worker has met every request of the trace: each of the two
    # workers gets a share of the connections, so a request seen once a pass reaches a
    # given worker about every other pass. The warm-up cycles for STEADY_WARMUP_PASSES
    # warm (the replay store and page cache fill) and COLD_WARMUP_PASSES cold (each
    # worker's connection prepares a statement on its second run, models.db, and the
    # trace's statements are far fewer than its requests).
    passes = COLD_WARMUP_PASSES if cold else STEADY_WARMUP_PASSES
    seconds = passes * len(trace) / _rough_rps(url, key, [*lua, "cycle"])
    steady_load = {**load, "warmup": min(math.ceil(seconds), STEADY_WARMUP_LIMIT)}
    return _measure(url, key=key, body=None, load=steady_load, lua=[*lua, "cycle"])


def _rough_rps(url: str, key: str, lua: list[str]) -> float:
    """A first guess of the server's rate over the trace (two seconds of it), to size the
    warm-up in seconds; at least 100 requests a second."""
    figures = _wrk(url, key=key, body=None, seconds=2, connections=8, lua=lua)
    return max(figures["rps"], 100.0)


def _check_replay(port: int, key: str, requests: list["Request"], label: str) -> None:
    """Send each request once and print how many answered each status; exit non-zero, naming
    the first failures, unless every one answered 200 (and GraphQL without errors)."""
    counts: Counter[str] = Counter()
    failures = []
    connection = HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        for request in requests:
            headers = {"X-API-Key": key}
            if request.body is not None:
                headers["Content-Type"] = "application/json"
            connection.request(request.method, request.path, body=request.body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            status = str(response.status)
            if request.body is not None and status == "200" and "errors" in json.loads(payload):
                status = "200 with GraphQL errors"
            counts[status] += 1
            if status != "200":
                failures.append(
                    f"  {status}: {request.method} {request.path} {request.body or ''}"
                    f" -> {payload[:200].decode(errors='replace')}"
                )
    finally:
        connection.close()
    summary = ", ".join(f"{count} x {status}" for status, count in sorted(counts.items()))
    print(f"{label}: {len(requests)} distinct requests replayed: {summary}", flush=True)
    if failures:
        sys.exit(
            "\n".join(
                [f"{len(failures)} request(s) of the trace did not answer 200:", *failures[:20]]
            )
        )


def _rps(
    rows: list[tuple], case: str, backend: str, mode: str, store: str | None = None
) -> float | None:
    """The best req/s of the matching runs (a case measured more than once counts its best), or
    None when the run did not measure it."""
    found = [
        result["rps"]
        for row_case, row_backend, row_mode, row_store, result in rows
        if (row_case, row_backend, row_mode) == (case, backend, mode) and store in (None, row_store)
    ]
    return max(found, default=None)


def _targets(
    rows: list[tuple], backends: list[str], ceiling: float, traced_ceiling: float | None = None
) -> list[str]:
    """One line per target; a target whose cases this run left out (--modes, --cases) says so.
    Mixed traffic is compared with ``traced_ceiling``: bare Flask driven by the same wrk script."""
    lines = []
    for backend in backends:
        for mode, target in (("warm", 0.50), ("cold", 0.25)):
            measured = {
                case: rps
                for case in LIST_CASES
                if (rps := _rps(rows, case, backend, mode, DEFAULT_STORE)) is not None
            }
            head = f"{backend:<9}REST list pages {mode}: "
            if not measured:
                lines.append(f"{head}not measured (target >= {target:.0%})")
                continue
            case = min(measured, key=measured.get)
            missing = len(LIST_CASES) - len(measured)
            lines.append(
                f"{head}lowest {measured[case] / ceiling:.0%} of bare, {case} "
                f"(target >= {target:.0%})"
                + (f"; {missing} list case(s) not measured" if missing else "")
            )
        # The GraphQL target is read in the serving configuration (warm); cold is for information.
        for mode, goal in (("warm", "target >= 50%"), ("cold", "for information")):
            graphql = _rps(rows, GRAPHQL_CASE, backend, mode, DEFAULT_STORE)
            rest = _rps(rows, QUOTA_CASE, backend, mode, DEFAULT_STORE)
            head = f"{backend:<9}GraphQL nested page {mode}: "
            if graphql is None or rest is None:
                lines.append(f"{head}not measured (needs both it and the strains list)")
            else:
                lines.append(f"{head}{graphql / rest:.0%} of the REST strains list ({goal})")
        memory = _rps(rows, QUOTA_CASE, backend, ONE_WORKER_MODE, "memory")
        for store, how in (("redis", "leasing"), ("redis-1", "one round trip per request")):
            redis = _rps(rows, QUOTA_CASE, backend, ONE_WORKER_MODE, store)
            head = f"{backend:<9}Redis quotas ({how}) "
            if memory is None or redis is None:
                lines.append(f"{head}not measured (needs the warm strains list)")
            else:
                lines.append(
                    f"{head}cost {1 - redis / memory:.0%} of memory:// throughput on the warm "
                    "strains list, one worker each (target <= 15%)"
                )
        for case in (OPEN_NOW_CASE, OPEN_EVENING_CASE):
            for mode, goal in (("cold", "target >= 25%"), ("warm", "for information")):
                near = _rps(rows, case, backend, mode, DEFAULT_STORE)
                head = f"{backend:<9}{case} {mode}: "
                lines.append(
                    f"{head}not measured ({goal})"
                    if near is None
                    else f"{head}{near / ceiling:.0%} of bare ({goal})"
                )
        lines += _mixed_targets(rows, backend, traced_ceiling or ceiling)
        lines += _lean_targets(rows, backend)
    return lines


def _lean_targets(rows: list[tuple], backend: str) -> list[str]:
    """The service's req/s over the lean app's: for each case the lean app serves, cold (a
    target), and for the strains-list sub-trace, steady and first pass, cold and warm."""
    lines = []
    for case in LEAN_CASES:
        service = _rps(rows, case, backend, "cold", DEFAULT_STORE)
        lean = _rps(rows, case, backend, LEAN_MODE, DEFAULT_STORE)
        head = f"{backend:<9}{case} cold: "
        goal = f"(target >= {LEAN_TARGET:.2f}x)"
        if service is None or lean is None:
            lines.append(f"{head}not measured beside the lean app {goal}")
        else:
            lines.append(f"{head}{service / lean:.2f}x the lean app {goal}")
    # The lean app runs with the cold mode's settings only: the service warm is compared with
    # the same lean figures as the service cold.
    lean_steady = _rps(rows, MIXED_STRAINS_STEADY, backend, LEAN_MODE, DEFAULT_STORE)
    lean_first = _rps(rows, MIXED_STRAINS_FIRST, backend, LEAN_MODE, DEFAULT_STORE)
    for mode in ("cold", "warm"):
        steady = _rps(rows, MIXED_STRAINS_STEADY, backend, mode, DEFAULT_STORE)
        first = _rps(rows, MIXED_STRAINS_FIRST, backend, mode, DEFAULT_STORE)
        head = f"{backend:<9}{MIXED_STRAINS} {mode}: "
        if None in (steady, first, lean_steady, lean_first):
            lines.append(f"{head}not measured beside the lean app (for information)")
        else:
            lines.append(
                f"{head}steady {steady / lean_steady:.2f}x, first pass {first / lean_first:.2f}x "
                "the lean app (for information)"
            )
    return lines


def _mixed_targets(rows: list[tuple], backend: str, ceiling: float) -> list[str]:
    lines = []
    for mode, target in (("warm", 0.75), ("cold", 0.25)):
        steady = _rps(rows, MIXED_STEADY, backend, mode, DEFAULT_STORE)
        first = _rps(rows, MIXED_FIRST, backend, mode, DEFAULT_STORE)
        head = f"{backend:<9}{MIXED_CASE} {mode}: "
        if steady is None or first is None:
            lines.append(f"{head}not measured (target >= {target:.0%})")
        else:
            lines.append(
                f"{head}steady {steady / ceiling:.0%} of bare (target >= {target:.0%}); "
                f"first pass {first / ceiling:.0%} of bare (for information)"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1, help="unrecorded seconds before each run")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--modes", default=",".join(MODES), help="warm, cold or both")
    parser.add_argument(
        "--cases", default="", help="only the cases whose name contains one of these (comma list)"
    )
    from traffic import NEW_FEATURES

    parser.add_argument(
        "--new",
        action=argparse.BooleanOptionalAction,
        default=NEW_FEATURES,
        help="mixed traffic with the requests of traffic.NEW_FEATURES (--no-new: without them)",
    )
    args = parser.parse_args()
    modes = args.modes.split(",")
    wanted = [word for word in args.cases.split(",") if word]
    cases = [c for c in CASES if not wanted or any(word in c[0] for word in wanted)]
    mixed = {"new_features": args.new}
    if wanted and not any(word in MIXED_CASE for word in wanted):
        mixed = None
    lists = {"new_features": args.new}
    if wanted and not any(word in MIXED_STRAINS for word in wanted):
        lists = None
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk)")
    load = {"seconds": args.seconds, "warmup": args.warmup, "connections": args.connections}
    backends = args.backends.split(",")

    # The ceiling is measured before and after the app cases; ratios use the mean of the two.
    # Mixed traffic is driven by a Lua script whose work shares the machine with the server, so
    # its ceiling is bare Flask driven by the same script (a trace of one request).
    workdir = Path(tempfile.mkdtemp())
    before = _bare(load)
    traced = [_bare(load, traced=workdir)] if mixed is not None else []
    rows = []
    for backend in backends:
        rows += _measure_backend(backend, workdir, load, modes, cases, mixed, lists)
    after = _bare(load)
    traced += [_bare(load, traced=workdir)] if mixed is not None else []
    ceiling = (before["rps"] + after["rps"]) / 2
    traced_ceiling = sum(r["rps"] for r in traced) / len(traced) if traced else None

    bare_rows = [("bare Flask (before)", before), ("bare Flask (after)", after)]
    bare_rows += [(f"bare Flask, trace script {i}", r) for i, r in enumerate(traced, 1)]
    # The case column fits the longest label (the sub-trace's rows are the longest).
    width = max(28, *(len(label) + 1 for label, _ in bare_rows), *(len(r[0]) + 1 for r in rows))
    print(
        f"{'case':<{width}}{'backend':<10}{'mode':<8}{'quotas':<8}{'req/s':>8}{'p50 ms':>8}"
        f"{'p99 ms':>8}{'vs bare':>8}{'errors':>7}"
    )
    for label, result in bare_rows:
        print(
            f"{label:<{width}}{'-':<10}{'-':<8}{'-':<8}{result['rps']:>8.0f}{result['p50']:>8.2f}"
            f"{result['p99']:>8.2f}{result['rps'] / ceiling:>8.0%}{result['errors']:>7}"
        )
    for case, backend, mode, store, r in rows:
        print(
            f"{case:<{width}}{backend:<10}{mode:<8}{store:<8}{r['rps']:>8.0f}{r['p50']:>8.2f}"
            f"{r['p99']:>8.2f}{r['rps'] / ceiling:>8.0%}{r['errors']:>7}"
        )
    print()
    print("\n".join(_targets(rows, backends, ceiling, traced_ceiling)))


def _bare(load: dict, traced: Path | None = None) -> dict:
    """Bare Flask's figures; with ``traced`` (a scratch folder) driven by bench/mixed.lua over
    a trace of its one request, as mixed traffic is driven."""
    # The bare app counts no quotas, but the configuration it shares must be a valid one.
    bare = Gunicorn({"RATELIMIT_STORAGE_URI": _redis_url()}, app="bare:app")
    try:
        bare.wait_ready("/ping")
        url = f"http://127.0.0.1:{bare.port}/ping"
        if traced is None:
            return _measure(url, key=None, body=None, load=load)
        trace = traced / "trace-bare.tsv"
        trace.write_text("GET\t/ping\t\n")
        lua = [str(MIXED_SCRIPT), str(trace), str(WRK_THREADS), "cycle"]
        return _measure(f"http://127.0.0.1:{bare.port}/", key=None, body=None, load=load, lua=lua)
    finally:
        bare.stop()


if __name__ == "__main__":
    main()
