"""Prometheus metrics are summed over gunicorn workers: every scrape counts every worker's requests.

gunicorn runs the repository's gunicorn.conf.py with WEB_CONCURRENCY=2 over the shared tiny
dataset (quotas in a throwaway Redis: memory:// is refused with more than one worker), once with
the metrics directory gunicorn.conf.py creates and once with one the operator names (holding a
stale file from an earlier run, which must be cleared). Without the variable each app keeps a
registry of its own, checked in-process.
"""

import contextlib
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.request import Request, urlopen

import pytest
from flask import Flask
from prometheus_client import values
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from tests.backends.test_key_hygiene import (
    GUNICORN_CONF,
    ROOT,
    SOCKET_TIMEOUT_S,
    _gunicorn_command,
    _head,
    _supports_no_control_socket,
    _wait_until_serving,
    get_status,
    occupied_worker,
)
from tests.servers import stop
from web.observability import MULTIPROC_DIR_ENV, init_observability

LAWS_RULE = "/api/v1/laws/<string:state>"
DURATION = "flask_http_request_duration_seconds"  # its _count is labelled by route template
REQUESTS = 40
SCRAPE_ROUNDS = 3
SERVER_LIFETIME_S = 60
SUMMED_IN = "Prometheus metrics are summed over workers in "
METRICS_TOKEN = "multiprocess-scrape-token-42"
SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def laws_count(exposition: str) -> float:
    """Requests counted for the laws route in a /metrics exposition (all methods and statuses)."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name == f"{DURATION}_count" and sample.labels.get("url_rule") == LAWS_RULE
    )


def _get(url: str, headers: dict[str, str]) -> tuple[int, str]:
    """GET on a fresh connection (urllib closes each one); status and body."""
    with urlopen(Request(url, headers=headers), timeout=SOCKET_TIMEOUT_S) as reply:
        return reply.status, reply.read().decode()


def _write_stale_file(directory: Path) -> Path:
    """A histogram file as a worker of an earlier run leaves it: 1000 laws requests."""
    stale = directory / "histogram_999999.db"
    key = mmap_key(
        DURATION,
        f"{DURATION}_bucket",
        ["method", "url_rule", "status", "le"],
        ["GET", LAWS_RULE, "200", "+Inf"],
        "Flask HTTP request duration in seconds",
    )
    file = MmapedDict(str(stale))
    file.write_value(key, 1000.0, 0.0)
    file.close()
    return stale


def scrape_each_worker(port: int) -> list[str]:
    """/metrics from both workers: one is held by an unfinished scrape while the other answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as held:
        held.sendall(_head("/metrics", None, end=False))
        status, on_other = _get(f"http://127.0.0.1:{port}/metrics", SCRAPE)  # no API key needed
        assert status == 200
        held.sendall(f"Authorization: Bearer {METRICS_TOKEN}\r\n\r\n".encode())
        reply = b"".join(iter(lambda: held.recv(65536), b""))
    head, _, on_held = reply.partition(b"\r\n\r\n")
    assert head.split(b"\r\n", 1)[0].split()[1] == b"200", head
    return [on_other, on_held.decode()]


@dataclass
class Gunicorn:
    port: int
    metrics_dir: Path


@contextlib.contextmanager
def gunicorn(
    tmp: Path, database_url: str, storage_uri: str, metrics_dir: Path | None
) -> Iterator[Gunicorn]:
    """gunicorn -c gunicorn.conf.py, 2 sync workers on a port the OS picks; stopped by its pid.

    Quotas are counted in ``storage_uri`` (gunicorn.conf.py refuses memory:// for 2 workers)."""
    command = [*_gunicorn_command(), "-c", str(GUNICORN_CONF)]
    if _supports_no_control_socket():
        command.append("--no-control-socket")
    (tmp / "tmp").mkdir()
    error_log, output_log = tmp / "error.log", tmp / "output.log"
    env = {
        name: value
        for name, value in os.environ.items()
        if name != MULTIPROC_DIR_ENV and not name.startswith("CDS_METRICS_DIR_")
    }
    env |= {
        "DATABASE_URL": database_url,
        "RATELIMIT_STORAGE_URI": storage_uri,
        "BIND": "127.0.0.1:0",
        "WEB_CONCURRENCY": "2",
        "GUNICORN_THREADS": "1",
        "GUNICORN_GRACEFUL_TIMEOUT": "5",
        "GUNICORN_ACCESSLOG": str(tmp / "access.log"),
        "GUNICORN_ERRORLOG": str(error_log),
        "TMPDIR": str(tmp / "tmp"),  # where gunicorn.conf.py creates its metrics directory
        "METRICS_TOKEN": METRICS_TOKEN,
    }
    if metrics_dir is not None:
        env[MULTIPROC_DIR_ENV] = str(metrics_dir)
    with open(output_log, "wb") as output:
        try:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
            )
        except OSError as error:
            pytest.skip(f"gunicorn cannot be started: {error}")
        watchdog = threading.Timer(SERVER_LIFETIME_S, process.kill)
        watchdog.start()
        try:
            port = _wait_until_serving(process, error_log, output_log)
            summed_in = [
                line.split(SUMMED_IN, 1)[1].strip()
                for line in error_log.read_text().splitlines()
                if SUMMED_IN in line
            ]
            assert len(summed_in) == 1, error_log.read_text()
            yield Gunicorn(port, Path(summed_in[0]))
        finally:
            watchdog.cancel()
            stop(process)


def _laws_count_per_file(metrics_dir: Path) -> dict[str, float]:
    """The laws count in each worker's histogram file (named after the worker's pid)."""
    counts = {}
    for path in sorted(metrics_dir.glob("histogram_*.db")):
        metrics = MultiProcessCollector.merge([str(path)], accumulate=True)
        counts[path.stem] = sum(
            sample.value
            for metric in metrics
            for sample in metric.samples
            if sample.name == f"{DURATION}_count" and sample.labels.get("url_rule") == LAWS_RULE
        )
    return counts


@pytest.mark.parametrize("chosen_by", ["gunicorn.conf.py", "operator"])
def test_every_scrape_on_any_worker_counts_the_requests_of_all_workers(
    chosen_by: str, tmp_path: Path, tiny_db_url: str, api_keys: dict[str, str], redis_server
) -> None:
    operator_dir, stale = None, []
    if chosen_by == "operator":
        operator_dir = tmp_path / "metrics"
        operator_dir.mkdir()
        stale.append(_write_stale_file(operator_dir))
    with gunicorn(tmp_path, tiny_db_url, redis_server.url, operator_dir) as server:
        if operator_dir is None:
            assert server.metrics_dir.parent == tmp_path / "tmp"  # created by gunicorn.conf.py
        else:
            assert server.metrics_dir == operator_dir
            assert [path for path in stale if path.exists()] == []  # cleared at start
        key, target = api_keys["enterprise"], "/api/v1/laws/CA"
        # One worker is held by an unfinished request, so the other serves the first half; then
        # the held one serves its request and both share the rest.
        with occupied_worker(server.port, target) as finish_on_held:
            statuses = [get_status(server.port, target, key) for _ in range(REQUESTS // 2)]
            statuses.append(finish_on_held(key))
        with ThreadPoolExecutor(max_workers=4) as pool:
            rest = REQUESTS - len(statuses)
            statuses += pool.map(lambda _: get_status(server.port, target, key), range(rest))
        assert statuses == [200] * REQUESTS

        per_worker = _laws_count_per_file(server.metrics_dir)
        assert sum(per_worker.values()) == REQUESTS
        assert sum(1 for count in per_worker.values() if count > 0) == 2, per_worker

        scrapes = [body for _ in range(SCRAPE_ROUNDS) for body in scrape_each_worker(server.port)]
        assert [laws_count(body) for body in scrapes] == [REQUESTS] * 2 * SCRAPE_ROUNDS
        assert get_status(server.port, "/metrics") == 404  # a scrape without the token
    if operator_dir is None:
        assert not server.metrics_dir.exists()  # removed on exit
    else:
        assert operator_dir.is_dir()  # the operator's directory is left in place


def test_without_multiprocess_dir_each_app_reports_its_own_requests(
    make_app, api_keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MULTIPROC_DIR_ENV, raising=False)
    served = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    idle = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    headers = {"X-API-Key": api_keys["enterprise"]}
    assert [served.get("/api/v1/laws/CA", headers=headers).status_code for _ in range(3)] == [
        200
    ] * 3
    response = served.get("/metrics", headers=SCRAPE)
    assert response.status_code == 200
    assert "X-RateLimit-Limit" not in response.headers
    assert laws_count(response.get_data(as_text=True)) == 3
    assert laws_count(idle.get("/metrics", headers=SCRAPE).get_data(as_text=True)) == 0


def test_a_multiprocess_dir_set_after_prometheus_client_was_imported_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MULTIPROC_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(values, "ValueClass", values.MutexValue)
    with pytest.raises(RuntimeError, match="before prometheus_client is first imported"):
        init_observability(Flask(__name__))
