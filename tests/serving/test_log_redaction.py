"""No key reaches a log: ``flask serve`` and gunicorn (access log on), sent hostile requests.

Each server runs on the shared tiny dataset and is sent the same requests on raw sockets: a
valid key and a key of the wrong format (a client's mistake is still a secret) in every
spelling the app accepts (``api_key=``, percent-encoded names, repeated parameters, the header),
inside malformed request lines, over-long lines and bad header lines, and in headers a log format
may print (Referer, User-Agent). Everything the server printed is then searched for the keys.
"""

import re
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from service import keys
from tests.servers import Running, flask_serve, gunicorn

SOCKET_TIMEOUT_S = 5


@dataclass(frozen=True)
class Keys:
    valid: str
    fake: str  # not our format: only the parameter and header rules can find it
    stranger: str  # our format, never issued

    def secrets(self) -> list[str]:
        return [self.valid, self.fake, self.stranger, self.valid.removeprefix(keys.KEY_PREFIX)]


def hostile_requests(k: Keys) -> list[bytes]:
    """Raw requests, each marked with ``_=probe<n>`` (the cache-buster every operation allows)
    so the logs can be shown to record it."""
    heads = [
        f"GET /api/v1/laws/CA?_=probe0&api_key={k.valid} HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe1&api%5Fkey={k.valid} HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe2&%61pi_key={k.valid} HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe3&api_%6Bey={k.valid} HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe4&%61%70%69%5f%6b%65%79={k.fake} HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe5&api_key={k.fake}&api%5Fkey={k.valid} HTTP/1.1",
        f"GET /api/v1/strains?_=probe6&api_key={k.valid}&limit=abc HTTP/1.1",
        f"GET /api/v1/laws/CA?_=probe7&api%5Fkey={k.stranger} HTTP/1.1",
        f"GET /graphql?_=probe8&query=%7Blaws%7BstateCode%7D%7D&API_%4Bey={k.fake} HTTP/1.1",
        f"GET http://127.0.0.1/api/v1/laws/CA?_=probe9&api%5fkey={k.fake} HTTP/1.1",
        f"GET /no-such-page?_=probe10&api_key={k.fake} HTTP/1.1",
    ]
    lines = [f"{head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" for head in heads]
    lines += [
        # The key in the header, and in headers a log format may print.
        f"GET /api/v1/laws/CA?_=probe11 HTTP/1.1\r\nHost: h\r\nX-API-Key: {k.fake}\r\n"
        f"Referer: http://shop.example/?api%5Fkey={k.fake}&x=1\r\nUser-Agent: bot {k.valid}\r\n"
        "Connection: close\r\n\r\n",
        f"GET /api/v1/laws/CA?_=probe12 HTTP/1.1\r\nHost: h\r\nx-api-key: {k.valid}\r\n"
        "Connection: close\r\n\r\n",
        # Malformed request lines, quoted whole in the servers' complaints.
        f"GET /api/v1/laws/CA?_=probe13&api_key={k.fake} HTTP/1.1 extra\r\nHost: h\r\n\r\n",
        f"GET /api/v1/laws/CA?_=probe14&api%5Fkey={k.fake}\r\nHost: h\r\n\r\n",
        f"G\x01T /x?_=probe15&%61pi_key={k.fake} HTTP/1.1\r\nHost: h\r\n\r\n",
        f"GET /x?_=probe16&api_key={k.fake} HTTP/9.9\r\nHost: h\r\n\r\n",
        f"GET /x?_=probe17&api_key={k.fake}\x00 HTTP/1.1\r\nHost: h\r\n\r\n",
        # Over-long request line (gunicorn: 8190 bytes at most) and bad header lines.
        f"GET /api/v1/laws/CA?_=probe18&api_key={k.fake}&_={'x' * 9000} HTTP/1.1\r\n"
        "Host: h\r\nConnection: close\r\n\r\n",
        f"GET /api/v1/laws/CA?_=probe19 HTTP/1.1\r\nHost: h\r\nX-API-Key {k.fake}\r\n\r\n",
        f"GET /api/v1/laws/CA?_=probe20 HTTP/1.1\r\nHost: h\r\nX-API-Key\x01: {k.fake}\r\n\r\n",
        f"GET /api/v1/laws/CA?_=probe21 HTTP/1.1\r\nHost: h\r\nX-API-Key: a\r\n {k.fake}\r\n\r\n",
    ]
    return [line.encode("latin-1") for line in lines]


def send_raw(port: int, request: bytes) -> bytes:
    """Send ``request`` and read until the server closes (or the timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return reply


def statuses(port: int, requests: list[bytes]) -> list[int | None]:
    found = []
    for request in requests:
        reply = send_raw(port, request)
        first = reply.split(b"\r\n", 1)[0].split()
        found.append(int(first[1]) if len(first) > 1 and first[1].isdigit() else None)
    return found


@pytest.fixture(scope="module")
def sent_keys(api_keys: dict[str, str]) -> Keys:
    return Keys(
        valid=api_keys["pro"],
        fake=f"Sekret{secrets.token_hex(12)}",
        stranger=keys.generate_plaintext(),
    )


@dataclass
class Logged:
    statuses: list[int | None]
    text: str


def _served(server: Running, sent_keys: Keys) -> Logged:
    found = statuses(server.port, hostile_requests(sent_keys))
    return Logged(found, server.text())


@pytest.fixture(scope="module")
def flask_serve_logs(
    tmp_path_factory: pytest.TempPathFactory, tiny_db_url: str, sent_keys: Keys
) -> Iterator[Logged]:
    tmp = tmp_path_factory.mktemp("flask-serve")
    env = {"DATABASE_URL": tiny_db_url, "RATELIMIT_STORAGE_URI": "memory://"}
    with flask_serve(tmp, env) as server:
        yield _served(server, sent_keys)


@pytest.fixture(scope="module")
def gunicorn_logs(
    tmp_path_factory: pytest.TempPathFactory, tiny_db_url: str, sent_keys: Keys
) -> Iterator[Logged]:
    tmp = tmp_path_factory.mktemp("gunicorn")
    env = {
        "DATABASE_URL": tiny_db_url,
        "RATELIMIT_STORAGE_URI": "memory://",  # one worker: enough to read its logs
        "GUNICORN_ACCESSLOG": "-",
    }
    with gunicorn(tmp, env, workers=1) as server:
        yield _served(server, sent_keys)


# What each request gets: the key found and valid (200), refused (401), a bad parameter (400),
# no such page (404). The rest are malformed and answered 400 or otherwise by each server.
SERVED = [200, 200, 200, 200, 401, 401, 400, 401, 401, 401, 404, 401, 200]
MALFORMED = range(len(SERVED), 22)


def _hits(text: str, sent: Keys) -> dict[str, int]:
    """How often each secret (the valid key, its secret part, the fake, the stranger) occurs."""
    return {secret[:12]: text.count(secret) for secret in sent.secrets()}


def _none(sent: Keys) -> dict[str, int]:
    return {secret[:12]: 0 for secret in sent.secrets()}


def test_flask_serve_logs_every_request(flask_serve_logs: Logged) -> None:
    assert flask_serve_logs.statuses[: len(SERVED)] == SERVED
    missing = [n for n in range(22) if not re.search(rf"_=probe{n}[& ]", flask_serve_logs.text)]
    assert missing == []  # the malformed lines too, in Werkzeug's access line


def test_flask_serve_logs_no_key(flask_serve_logs: Logged, sent_keys: Keys) -> None:
    assert _hits(flask_serve_logs.text, sent_keys) == _none(sent_keys)


def test_gunicorn_logs_every_request(gunicorn_logs: Logged) -> None:
    assert gunicorn_logs.statuses[: len(SERVED)] == SERVED
    lines = gunicorn_logs.text.splitlines()
    access = [
        sum(1 for line in lines if re.search(rf'\?_=probe{n}[& ]\S*.*HTTP/1\.1" {status} ', line))
        for n, status in enumerate(SERVED)
    ]
    assert access == [1] * len(SERVED)  # one access line each, with its status
    # Malformed requests get no access line but one warning each; two of them quote the query.
    warned = [line for line in lines if "Invalid request from ip=127.0.0.1" in line]
    assert len(warned) == len(MALFORMED)
    assert [n for n in MALFORMED if any(f"_=probe{n}&" in line for line in warned)] == [14, 17]


def test_gunicorn_logs_no_key(gunicorn_logs: Logged, sent_keys: Keys) -> None:
    assert _hits(gunicorn_logs.text, sent_keys) == _none(sent_keys)
