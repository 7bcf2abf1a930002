"""Throughput benchmark under gunicorn, as ratios to a bare Flask endpoint measured in the same run.

Usage: .venv/bin/python bench/run.py [--seconds 5] [--connections 8] [--backends sqlite,postgres]
Needs `wrk` (Debian package) on PATH; PostgreSQL and Redis at TEST_POSTGRES_URL / REDIS_URL for the
"postgres" backend (default 127.0.0.1). Every server binds 127.0.0.1, every load run is bounded by
--seconds, and every process started here is stopped by its pid.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path
from urllib.request import urlopen

from sqlalchemy import create_engine, make_url

from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service import keys

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
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Gunicorn:
    """gunicorn -c gunicorn.conf.py (2 sync workers, no access log) on a free local port."""

    def __init__(self, env: dict[str, str], app: str | None = None) -> None:
        self.port = _free_port()
        command = [str(GUNICORN), "-c", str(ROOT / "gunicorn.conf.py"), "--no-control-socket"]
        if app:
            command += ["--pythonpath", str(ROOT / "bench"), app]
        full_env = {
            **os.environ,
            **env,
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": "2",
            "GUNICORN_THREADS": "1",
            "GUNICORN_ACCESSLOG": "/dev/null",
        }
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def wait_ready(self, path: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not answer within 30 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def _wrk(url: str, *, key: str | None, body: str | None, seconds: int, connections: int) -> dict:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if key:
        command += ["-H", f"X-API-Key: {key}"]
    script = None
    if body is not None:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
            handle.write(
                'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                f"wrk.body = {json.dumps(body)}\n"
            )
        script = handle.name
        command += ["-s", script]
    try:
        out = subprocess.run(
            [*command, url], capture_output=True, text=True, timeout=seconds + 30, check=True
        ).stdout
    finally:
        if script is not None:
            os.unlink(script)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(re.search(r"50%\s+([\d.]+\w+)", out).group(1)),
        "p99": _ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1)),
        "errors": int(non_2xx.group(1)) if non_2xx else 0,
    }


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk)")
    load = {"seconds": args.seconds, "connections": args.connections}

    bare = Gunicorn({}, app="bare:app")
    try:
        bare.wait_ready("/ping")
        ceiling = _wrk(f"http://127.0.0.1:{bare.port}/ping", key=None, body=None, **load)
    finally:
        bare.stop()
    rows = [("bare Flask (ceiling)", "-", ceiling)]

    workdir = Path(tempfile.mkdtemp())
    for backend in args.backends.split(","):
        cleanup = None
        if backend == "sqlite":
            url = f"sqlite:///{workdir / 'bench.db'}"
            env = {"DATABASE_URL": url, "RATELIMIT_STORAGE_URI": "memory://"}
        else:
            server, name = _postgres_database()
            url = make_url(server).set(database=name).render_as_string(hide_password=False)
            redis = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
            env = {"DATABASE_URL": url, "RATELIMIT_STORAGE_URI": redis}
            cleanup = (server, name)
        key = _seeded(url)
        app = Gunicorn(env)
        try:
            app.wait_ready("/health")
            for case, path, body in CASES:
                result = _wrk(f"http://127.0.0.1:{app.port}{path}", key=key, body=body, **load)
                rows.append((case, backend, result))
        finally:
            app.stop()
            if cleanup:
                _drop_postgres(*cleanup)

    print(
        f"{'case':<28}{'backend':<10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'vs bare':>9}"
        f"{'errors':>8}"
    )
    for case, backend, r in rows:
        ratio = r["rps"] / ceiling["rps"]
        print(
            f"{case:<28}{backend:<10}{r['rps']:>9.0f}{r['p50']:>9.2f}{r['p99']:>9.2f}"
            f"{ratio:>8.0%}{r['errors']:>8}"
        )


if __name__ == "__main__":
    main()
