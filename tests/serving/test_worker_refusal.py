"""gunicorn refuses quotas counted in memory:// by more than one worker, however the count is set.

Each worker would keep its own counters: a key would get the quota once per worker, afresh
whenever a worker restarts. The refusal names the settings to change; one worker, or Redis,
starts.
"""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.servers import ROOT, gunicorn, gunicorn_command, http_status, redis_server, server_env

REFUSAL_DEADLINE_S = 30
NAMED = ("RATELIMIT_STORAGE_URI", "WEB_CONCURRENCY", "--workers", "redis://")


def _refused(tmp: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    overrides = {"BIND": "127.0.0.1:0", "TMPDIR": str(tmp), "GUNICORN_ERRORLOG": "-", **env}
    return subprocess.run(
        [*gunicorn_command(), *args],
        cwd=ROOT,
        env=server_env(overrides),
        capture_output=True,
        text=True,
        timeout=REFUSAL_DEADLINE_S,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "args"),
    [
        ({"WEB_CONCURRENCY": "2", "RATELIMIT_STORAGE_URI": "memory://"}, ()),
        ({"WEB_CONCURRENCY": "2"}, ()),  # memory:// is the default
        ({"WEB_CONCURRENCY": "1", "RATELIMIT_STORAGE_URI": "memory://"}, ("--workers", "3")),
        (
            {"WEB_CONCURRENCY": "2", "RATELIMIT_STORAGE_URI": "redis://x"},
            ("-e", "RATELIMIT_STORAGE_URI=memory://"),
        ),
    ],
    ids=["environment", "default storage", "--workers", "--env"],
)
def test_several_workers_counting_quotas_in_memory_do_not_start(
    tmp_path: Path, tiny_db_url: str, env: dict[str, str], args: tuple[str, ...]
) -> None:
    env = {"DATABASE_URL": tiny_db_url, **env}
    if "RATELIMIT_STORAGE_URI" not in env:
        env["RATELIMIT_STORAGE_URI"] = ""
    done = _refused(tmp_path, env, *args)
    assert done.returncode == 1, done.stderr
    (message,) = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    for named in NAMED:
        assert named in message
    assert "times its quota" in message
    assert "Listening at" not in done.stderr  # refused before binding
    assert list(tmp_path.glob("cds-metrics-*")) == []  # the metrics directory made is removed


def test_one_worker_with_memory_quotas_starts_and_stays_at_one(
    tmp_path: Path, tiny_db_url: str
) -> None:
    env = {"DATABASE_URL": tiny_db_url, "RATELIMIT_STORAGE_URI": "memory://"}
    with gunicorn(tmp_path, env, workers=1) as server:
        assert http_status(server.port, "/docs/errors") == 200
        os.kill(server.process.pid, signal.SIGTTIN)  # ask the master for one more worker
        deadline = time.monotonic() + REFUSAL_DEADLINE_S
        while "Keeping 1 worker(s)" not in server.text():
            assert time.monotonic() < deadline, server.text()
            time.sleep(0.05)
        assert http_status(server.port, "/docs/errors") == 200
        assert server.text().count("Booting worker with pid") == 1


def test_several_workers_with_redis_quotas_start(tmp_path: Path, tiny_db_url: str) -> None:
    with redis_server("the shared storage several workers need") as redis:
        env = {"DATABASE_URL": tiny_db_url, "RATELIMIT_STORAGE_URI": redis.url}
        with gunicorn(tmp_path, env, workers=2) as server:
            assert http_status(server.port, "/docs/errors") == 200
            assert "RATELIMIT_STORAGE_URI" not in server.text()
