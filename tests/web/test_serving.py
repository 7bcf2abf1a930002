"""The development server's access log without keys, and the check that refuses per-worker quotas
under several gunicorn workers (web.serving)."""

import logging
import threading
from pathlib import Path
from urllib.request import urlopen

import pytest
from werkzeug.serving import make_server

from web.serving import RedactingRequestHandler, per_worker_quota_problem

GUNICORN_CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def test_dev_server_access_log_never_shows_the_key(app, api_keys, caplog) -> None:
    key = api_keys["free"]
    server = make_server("127.0.0.1", 0, app, request_handler=RedactingRequestHandler)
    worker = threading.Thread(target=server.handle_request, daemon=True)
    worker.start()
    try:
        url = f"http://127.0.0.1:{server.port}/api/v1/laws/CA?api_key={key}&_=1"
        with caplog.at_level(logging.INFO, logger="werkzeug"), urlopen(url, timeout=10) as reply:
            assert reply.status == 200
            worker.join(timeout=10)
    finally:
        server.server_close()
    assert "GET /api/v1/laws/CA?api_key=[redacted]&_=1" in caplog.text
    assert key not in caplog.text


@pytest.mark.parametrize(
    ("storage", "workers", "refused"),
    [
        ("memory://", 2, True),
        ("", 3, True),  # the default storage is memory://
        ("MEMORY://", 2, True),
        ("memory://", 1, False),
        ("redis://127.0.0.1:6379/0", 8, False),
        ("rediss://cache:6380/1", 2, False),
    ],
)
def test_memory_quotas_are_refused_with_more_than_one_worker(
    storage: str, workers: int, refused: bool
) -> None:
    problem = per_worker_quota_problem(storage, workers)
    if not refused:
        assert problem is None
        return
    assert problem is not None
    for named in ("RATELIMIT_STORAGE_URI", "WEB_CONCURRENCY", "--workers", "redis://"):
        assert named in problem
    assert f"up to {workers} times its quota" in problem
