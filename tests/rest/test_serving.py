import logging
import threading
from urllib.request import urlopen

import pytest
from werkzeug.serving import make_server

from rest.serving import RedactingRequestHandler, redact_query


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "GET /api/v1/strains?api_key=cds_live_abc123&limit=2 HTTP/1.1",
            "GET /api/v1/strains?api_key=[redacted]&limit=2 HTTP/1.1",
        ),
        (
            "GET /api/v1/strains?limit=2&API_KEY=cds_live_abc HTTP/1.1",
            "GET /api/v1/strains?limit=2&API_KEY=[redacted] HTTP/1.1",
        ),
        ("GET /api/v1/laws/CA HTTP/1.1", "GET /api/v1/laws/CA HTTP/1.1"),
    ],
)
def test_api_key_values_are_redacted_from_request_lines(line: str, expected: str) -> None:
    assert redact_query(line) == expected


def test_dev_server_access_log_never_shows_the_key(app, api_keys, caplog) -> None:
    key = api_keys["free"]
    server = make_server("127.0.0.1", 0, app, request_handler=RedactingRequestHandler)
    worker = threading.Thread(target=server.handle_request, daemon=True)
    worker.start()
    try:
        url = f"http://127.0.0.1:{server.port}/api/v1/laws/CA?api_key={key}&x=1"
        with caplog.at_level(logging.INFO, logger="werkzeug"), urlopen(url, timeout=10) as reply:
            assert reply.status == 200
            worker.join(timeout=10)
    finally:
        server.server_close()
    assert "GET /api/v1/laws/CA?api_key=[redacted]&x=1" in caplog.text
    assert key not in caplog.text
