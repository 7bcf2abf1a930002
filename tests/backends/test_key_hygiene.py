"""Key hygiene: only hashes are stored, plaintext keys never reach logs, revocation is immediate.

The dump test runs on SQLite and PostgreSQL. The log and revocation tests run the real thing:
gunicorn with 2 sync workers and access logs on, serving a seeded scratch SQLite file with quotas
in a throwaway Redis (skipped without redis-server: memory:// is refused with more than one
worker), bounded by a 30-second watchdog and stopped by the pid this module started. The
failed-authentication throttle (60 per hour per address, then 429 with Retry-After) is covered
in-process by tests/web/test_auth.py and not repeated here.
"""

import contextlib
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from app import create_app, dispose_engines
from models.db import make_engine, make_session_factory
from seed import Dataset, load_dataset
from service import keys
from service.keys import NewKey
from tests.servers import redis_server, stop

STATE_TTL_MS = 200  # the served app's key cache: revocations reach every worker within this

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "gunicorn.conf.py"
SERVER_LIFETIME_S = 30
START_DEADLINE_S = 20
SOCKET_TIMEOUT_S = 5
LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")
BOOTED = "Booting worker with pid"


# A database dump holds megabytes of arbitrary bytes (pages, hashes, free space), in which some
# 5-character piece of a random key turns up by chance in roughly one run in a thousand; an
# 8-character piece (62**8 = 2e14 of them) would take millions of runs.
DUMP_FRAGMENT = 8


def leaked_fragments(plaintext: str, haystack: str, *, size: int = 5) -> list[str]:
    """Pieces of ``plaintext``'s secret part, ``size`` characters long, found in ``haystack``.

    A log line may show the prefix and the last 4 characters; any 5 consecutive characters of
    the secret part is more than that.
    """
    secret = plaintext.removeprefix(keys.KEY_PREFIX)
    windows = {secret[i : i + size] for i in range(len(secret) - size + 1)}
    return sorted(w for w in windows if w in haystack)


# ---- (a) the database holds hashes only -----------------------------------------------------


def _sqlite_dump(path: Path) -> str:
    """``iterdump`` of the database, plus the raw bytes of its files (WAL included)."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        dump = "\n".join(conn.iterdump())
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    raw = b"".join(p.read_bytes() for p in files if p.exists())
    return dump + "\n" + raw.decode("latin-1")


def _postgres_dump(backend: Any) -> tuple[str, str]:
    """(how, text): pg_dump's output when pg_dump is on PATH and works, plus every column of
    every table cast to text."""
    how, parts = "SELECT t::text of every table", []
    pg_dump = shutil.which("pg_dump")
    if pg_dump is not None:
        done = subprocess.run(
            [pg_dump, "--no-owner", "--dbname", backend.libpq_dsn],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode == 0:
            how = "pg_dump and " + how
            parts.append(done.stdout)
    with backend.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            rows = conn.execute(text(f'SELECT t::text FROM "{table}" AS t')).scalars()
            parts.append(f"-- {table}\n" + "\n".join(rows))
    return how, "\n".join(parts)


def test_a_database_dump_holds_each_key_hash_once_and_its_plaintext_never(backend) -> None:
    client = backend.app.test_client()
    with backend.sessions() as db:
        created = [
            keys.create_key(db, tier="free", name="dump free"),
            keys.create_key(db, tier="pro", name="dump pro"),
            keys.create_key(db, tier="enterprise", name="dump ent", hourly_limit=50),
        ]
        db.commit()
        revoked = created[0]
        plaintexts = [new.plaintext for new in created]
    statuses = []
    for plaintext in plaintexts:
        for kwargs in (
            {"headers": {"X-API-Key": plaintext}},
            {"query_string": {"api_key": plaintext}},
        ):
            response = client.get("/api/v1/laws/CA", **kwargs)
            statuses.append(response.status_code)
            response.close()
    with backend.sessions() as db:
        keys.revoke_key(db, revoked.record.id)
        db.commit()
    response = client.get("/api/v1/laws/CA", headers={"X-API-Key": revoked.plaintext})
    statuses.append(response.status_code)
    response.close()
    assert statuses == [200] * 6 + [401]

    if backend.name == "sqlite":
        how, dump = "iterdump and raw files", _sqlite_dump(backend.sqlite_path)
    else:
        how, dump = _postgres_dump(backend)
    for plaintext in plaintexts:
        assert dump.count(plaintext) == 0, how
        assert dump.count(plaintext.removeprefix(keys.KEY_PREFIX)) == 0, how
        assert leaked_fragments(plaintext, dump, size=DUMP_FRAGMENT) == [], how
        assert dump.count(keys.hash_key(plaintext)) >= 1, how  # the dump really has the keys


# ---- gunicorn -------------------------------------------------------------------------------


def _gunicorn_command() -> list[str]:
    beside_python = Path(sys.executable).parent / "gunicorn"
    found = str(beside_python) if beside_python.exists() else shutil.which("gunicorn")
    if found is None:
        pytest.skip("gunicorn is not installed (it is a project dependency: pip install -e .)")
    return [found]


def _supports_no_control_socket() -> bool:
    try:
        from gunicorn.config import KNOWN_SETTINGS
    except ImportError:
        return False
    return any(setting.name == "control_socket_disable" for setting in KNOWN_SETTINGS)


def _head(target: str, key: str | None, *, end: bool = True) -> bytes:
    lines = [f"GET {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    if key is not None:
        lines.append(f"X-API-Key: {key}")
    return ("\r\n".join(lines) + "\r\n" + ("\r\n" if end else "")).encode()


def _read_status(sock: socket.socket) -> int:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    status_line = b"".join(chunks).split(b"\r\n", 1)[0]
    return int(status_line.split()[1])


def get_status(port: int, target: str, key: str | None = None) -> int:
    """GET ``target`` (key in X-API-Key when given) on a fresh connection; the HTTP status."""
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as sock:
        sock.sendall(_head(target, key))
        return _read_status(sock)


@contextlib.contextmanager
def occupied_worker(port: int, target: str) -> Iterator[Callable[[str], int]]:
    """Occupy one sync worker with a request whose headers are not finished yet.

    A sync worker serves one connection at a time and the accept queue is first in, first
    out, so while this block runs every other request is served by another worker. Calling
    the yielded function finishes the request with the given key and returns its status.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as sock:
        sock.sendall(_head(target, None, end=False))

        def finish(key: str) -> int:
            sock.sendall(f"X-API-Key: {key}\r\n\r\n".encode())
            return _read_status(sock)

        yield finish


@dataclass
class Server:
    port: int
    database_url: str
    access_log: Path
    error_log: Path
    output_log: Path
    issued: dict[str, NewKey] = field(default_factory=dict)

    def plaintexts(self) -> list[str]:
        return [new.plaintext for new in self.issued.values()]


def _wait_until_serving(process: subprocess.Popen, error_log: Path, output_log: Path) -> int:
    """Poll (bounded) until gunicorn listens with both workers booted and answers; the port."""
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"gunicorn exited with {process.returncode}:\n"
                f"{error_log.read_text(errors='replace')}\n{output_log.read_text(errors='replace')}"
            )
        log = error_log.read_text(errors="replace") if error_log.exists() else ""
        found = LISTENING.search(log)
        if found and log.count(BOOTED) >= 2:
            port = int(found.group(1))
            with contextlib.suppress(OSError):
                if get_status(port, "/docs/errors") == 200:
                    return port
        time.sleep(0.05)
    pytest.fail(f"gunicorn did not serve within {START_DEADLINE_S} s:\n{error_log.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, tiny_dataset: Dataset) -> Iterator[Server]:
    """gunicorn, 2 sync workers, access and error logs on, over a seeded scratch SQLite file."""
    command = _gunicorn_command()
    tmp = tmp_path_factory.mktemp("gunicorn")
    database_url = f"sqlite:///{tmp / 'served.db'}"
    engine = make_engine(database_url)
    try:
        load_dataset(engine, tiny_dataset)
        with make_session_factory(engine)() as db:
            created = {
                "query": keys.create_key(db, tier="pro", name="sent as ?api_key="),
                "header": keys.create_key(db, tier="pro", name="sent as X-API-Key"),
                "revoked": keys.create_key(db, tier="free", name="revoked mid-test"),
            }
            db.commit()
    finally:
        engine.dispose()
    paths = {name: tmp / f"{name}.log" for name in ("access", "error", "output")}
    command += [
        "--chdir", str(ROOT),
        "--bind", "127.0.0.1:0",
        "--workers", "2",
        "--worker-class", "sync",
        "--timeout", "20",
        "--graceful-timeout", "5",
        "--access-logfile", str(paths["access"]),
        "--error-logfile", str(paths["error"]),
    ]  # fmt: skip
    if _supports_no_control_socket():
        command.append("--no-control-socket")
    command += ["--config", str(GUNICORN_CONF)]  # the repository's production configuration
    command.append("app:create_app()")
    with redis_server("2 gunicorn workers need quotas in Redis") as redis:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "RATELIMIT_STORAGE_URI": redis.url,
            "LOG_LEVEL": "INFO",
            "STATE_TTL_MS": str(STATE_TTL_MS),
        }
        with open(paths["output"], "wb") as output:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
            )
            watchdog = threading.Timer(SERVER_LIFETIME_S, process.kill)
            watchdog.start()
            try:
                port = _wait_until_serving(process, paths["error"], paths["output"])
                yield Server(
                    port=port,
                    database_url=database_url,
                    access_log=paths["access"],
                    error_log=paths["error"],
                    output_log=paths["output"],
                    issued=created,
                )
            finally:
                watchdog.cancel()
                stop(process)


# ---- (b) plaintext keys never reach gunicorn's logs -----------------------------------------


@dataclass
class Served:
    statuses: list[int]
    expected: list[int]
    probes: list[str]
    access: str
    everything_else: str
    stranger: str  # well-formed, sent, never issued


@pytest.fixture(scope="module")
def served(server: Server) -> Served:
    """Requests carrying keys both ways (and a never-issued one); then the logs' text."""
    query_key = server.issued["query"].plaintext
    header_key = server.issued["header"].plaintext
    stranger = keys.generate_plaintext()  # well-formed, never stored
    plan: list[tuple[str, str | None, int]] = [
        (f"/api/v1/laws/CA?api_key={query_key}", None, 200),
        (f"/api/v1/strains?limit=2&api_key={query_key}", None, 200),
        (f"/api/v1/strains?api_key={query_key}&limit=abc", None, 400),
        (f"/api/v1/strains/no-such-strain?api_key={query_key}", None, 404),
        (f"/graphql?query=%7Blaws%7BstateCode%7D%7D&api_key={query_key}", None, 200),
        ("/api/v1/laws/CA", header_key, 200),
        ("/api/v1/doctors?limit=1", header_key, 200),
        (f"/api/v1/laws/CA?api_key={query_key}", header_key, 200),  # the header wins
        (f"/api/v1/laws/CA?api_key={stranger}", None, 401),
        ("/api/v1/laws/CA", stranger, 401),
    ]
    statuses, probes = [], []
    for number, (target, key, _expected) in enumerate(plan):
        probe = f"_=log{number}"  # the cache-buster: allowed on every operation
        probes.append(probe)
        path, _, query = target.partition("?")
        statuses.append(get_status(server.port, f"{path}?{probe}&{query}".rstrip("&"), key))
    # Each response ends when the worker closes the connection, after it wrote the access line.
    return Served(
        statuses=statuses,
        expected=[expected for _target, _key, expected in plan],
        probes=probes,
        access=server.access_log.read_text(errors="replace"),
        everything_else=server.error_log.read_text(errors="replace")
        + server.output_log.read_text(errors="replace"),
        stranger=stranger,
    )


def test_requests_through_gunicorn_get_their_statuses(served: Served) -> None:
    assert served.statuses == served.expected


def test_gunicorn_access_log_has_one_line_per_request(served: Served) -> None:
    lines = served.access.splitlines()
    counts = [
        sum(1 for line in lines if re.search(rf"\?{probe}[& ]", line)) for probe in served.probes
    ]
    assert counts == [1] * len(served.probes)


def test_gunicorn_access_log_never_shows_a_plaintext_key(server: Server, served: Served) -> None:
    for plaintext in [*server.plaintexts(), served.stranger]:
        assert served.access.count(plaintext) == 0
        assert leaked_fragments(plaintext, served.access) == []


def test_gunicorn_error_log_and_app_output_never_show_a_plaintext_key(
    server: Server, served: Served
) -> None:
    assert BOOTED in served.everything_else  # the error log really was written
    for plaintext in [*server.plaintexts(), served.stranger]:
        assert served.everything_else.count(plaintext) == 0
        assert leaked_fragments(plaintext, served.everything_else) == []


# ---- (c) revocation reaches every worker on the next request --------------------------------


def _both_workers(port: int, key: str) -> list[int]:
    """The statuses of one request served by each of the two workers."""
    with occupied_worker(port, "/api/v1/laws/CA") as finish_on_first:
        on_second = get_status(port, "/api/v1/laws/CA", key)
        on_first = finish_on_first(key)
    return [on_first, on_second]


def test_a_revoked_key_fails_in_every_worker_once_the_state_ttl_passes(server: Server) -> None:
    doomed = server.issued["revoked"]
    warm = [status for _ in range(3) for status in _both_workers(server.port, doomed.plaintext)]
    assert warm == [200] * 6

    operator_app = create_app({"DATABASE_URL": server.database_url})
    try:
        result = operator_app.test_cli_runner().invoke(
            args=["keys", "revoke", str(doomed.record.id)]
        )
    finally:
        dispose_engines(operator_app)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"Revoked key #{doomed.record.id}."

    time.sleep(2 * STATE_TTL_MS / 1000)  # each worker reuses a verified key this long at most
    assert _both_workers(server.port, doomed.plaintext) == [401, 401]
    later = [get_status(server.port, "/api/v1/laws/CA", doomed.plaintext) for _ in range(10)]
    assert later == [401] * 10
    # The other keys are untouched.
    assert get_status(server.port, "/api/v1/laws/CA", server.issued["header"].plaintext) == 200
