"""Quotas are exact across processes: 2 gunicorn workers sharing Redis admit exactly the limit."""

import os
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from models.db import make_engine, make_session_factory
from seed import generate, load_dataset
from service import keys

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _status(url: str, key: str) -> int:
    try:
        with urlopen(Request(url, headers={"X-API-Key": key}), timeout=20) as reply:
            return reply.status
    except HTTPError as error:
        error.close()
        return error.code


@pytest.fixture
def gunicorn_on_redis(tmp_path: Path, redis_server):
    if not GUNICORN.exists() or shutil.which("redis-server") is None:
        pytest.skip("gunicorn or redis-server is not installed")
    db = f"sqlite:///{tmp_path / 'quota.db'}"
    engine = make_engine(db)
    load_dataset(engine, generate(scale="tiny", seed=7, today=date.today()))
    with make_session_factory(engine)() as session:
        key = keys.create_key(session, tier="free", name="exactness").plaintext
        session.commit()
    engine.dispose()
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": db,
        "RATELIMIT_STORAGE_URI": redis_server.url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "GUNICORN_ACCESSLOG": str(tmp_path / "access.log"),
        "GUNICORN_ERRORLOG": str(tmp_path / "error.log"),
    }
    server = subprocess.Popen(
        [str(GUNICORN), "-c", str(ROOT / "gunicorn.conf.py"), "--no-control-socket"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urlopen(f"{base}/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, (tmp_path / "error.log").read_text()
            assert time.monotonic() < deadline, "gunicorn did not become healthy within 30 s"
            time.sleep(0.1)
        yield base, key
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def test_two_workers_on_redis_admit_exactly_100_of_1000_concurrent_requests(
    gunicorn_on_redis,
) -> None:
    base, key = gunicorn_on_redis
    url = f"{base}/api/v1/laws/CA"
    with ThreadPoolExecutor(max_workers=32) as pool:
        statuses = list(pool.map(lambda _: _status(url, key), range(1000)))
    assert statuses.count(200) == 100
    assert statuses.count(429) == 900
