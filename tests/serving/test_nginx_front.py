"""The production front: Debian's nginx with deploy/nginx's files, in front of gunicorn.

gunicorn's sync workers give each connection a worker from its first byte to its last, so
clients that never finish their headers take every worker. Through nginx, which reads each
request whole before passing it on, 20 such clients leave a normal request unaffected; aimed at
gunicorn directly, the same 20 make it wait past the second this test grants (the contrast
shows the test can fail). One address with more requests in flight than nginx allows gets the
API's 429 envelope at once. Skipped, saying why, where nginx is not installed.
"""

import contextlib
import json
import re
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.graphql_refusals import refusal_body
from tests.servers import NGINX_FILES, Running, free_port, gunicorn, nginx, redis_server
from web.reference import ERROR_DOCS

SLOW_CLIENTS = 20
PATIENCE_S = 1.0  # a normal request must be answered within this
CONNECTIONS_PER_ADDRESS = 16  # deploy/nginx/proxy.conf's limit_conn


@dataclass
class Stack:
    app: Running  # gunicorn
    front: Running  # nginx
    workers: int


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, tiny_db_url: str) -> Iterator[Stack]:
    with contextlib.ExitStack() as started:
        env = {
            "DATABASE_URL": tiny_db_url,
            "STATE_TTL_MS": "60000",  # what a worker verified stays known for the whole test
            "TRUSTED_PROXY_HOPS": "1",
        }
        # Two workers need Redis-backed quotas; without redis-server, one worker and memory://.
        workers = 2 if shutil.which("redis-server") else 1
        if workers == 2:
            redis = started.enter_context(redis_server("two workers need it"))
            env["RATELIMIT_STORAGE_URI"] = redis.url
        else:
            env["RATELIMIT_STORAGE_URI"] = "memory://"
        app = started.enter_context(gunicorn(tmp_path_factory.mktemp("app"), env, workers=workers))
        front = started.enter_context(nginx(tmp_path_factory.mktemp("nginx"), app.port))
        yield Stack(app, front, workers)


@contextlib.contextmanager
def slow_clients(port: int, count: int = SLOW_CLIENTS) -> Iterator[None]:
    """``count`` connections that start a request and never finish its headers."""
    opened = []
    try:
        for number in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            opened.append(sock)
            sock.sendall(
                f"GET /api/v1/laws/CA?slow={number} HTTP/1.1\r\nHost: h\r\nX-Wait: ".encode()
            )
        yield
    finally:
        for sock in opened:
            sock.close()


def answer(port: int, head: str, *, body: bytes = b"") -> tuple[int, bytes]:
    """Send a request, wait at most PATIENCE_S for the response; its status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S) as sock:
        sock.sendall(head.encode() + body)
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.endswith(b"}"):
            chunk = sock.recv(65536)  # TimeoutError after PATIENCE_S without a byte
            if not chunk:
                break
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def normal_request(key: str) -> str:
    return (
        f"GET /api/v1/laws/CA HTTP/1.1\r\nHost: h\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n"
    )


def test_slow_clients_do_not_delay_a_request_through_nginx(stack: Stack, api_keys: dict) -> None:
    with slow_clients(stack.front.port):
        started = time.monotonic()
        status, body = answer(stack.front.port, normal_request(api_keys["pro"]))
        waited = time.monotonic() - started
    assert status == 200, body
    assert b'"success":true' in body
    assert waited < PATIENCE_S


def test_the_same_slow_clients_stall_gunicorn_without_nginx(stack: Stack, api_keys: dict) -> None:
    with slow_clients(stack.app.port), pytest.raises(TimeoutError):
        answer(stack.app.port, normal_request(api_keys["pro"]))
    # Once they are gone the workers serve again (each drops its slow client on EOF).
    deadline = time.monotonic() + 10
    while True:
        with contextlib.suppress(TimeoutError):
            if answer(stack.app.port, normal_request(api_keys["pro"]))[0] == 200:
                break
        assert time.monotonic() < deadline


@pytest.mark.parametrize("path", ["/graphql", "/api/v1/laws"])
def test_nginx_refuses_a_body_over_64_kib_as_the_app_would(stack: Stack, path: str) -> None:
    """The envelope, and on /graphql a GraphQL response, worded as the app words it."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
        f"Content-Length: {64 * 1024 + 1}\r\nConnection: close\r\n\r\n"
    )
    status, body = answer(stack.front.port, head)
    assert status == 413
    assert json.loads(body) == _refusal(path, 413, "request body too large: at most 65536 bytes")


def _refusal(path: str, code: int, message: str) -> dict:
    """What the app answers for a refusal on ``path``: on /graphql a GraphQL response."""
    if path == "/graphql":
        return refusal_body(code, message)
    return {
        "success": False,
        "error": {"code": code, "message": message, "docs": f"/docs/errors#error-{code}"},
    }


@pytest.mark.parametrize("path", ["/api/v1/laws/CA", "/graphql"])
def test_nginx_answers_a_503_while_the_app_is_down(tmp_path: Path, path: str) -> None:
    with nginx(tmp_path, free_port(), status=503) as front:
        head = f"GET {path}?query=%7Bx%7D HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        with socket.create_connection(("127.0.0.1", front.port), timeout=5) as sock:
            sock.sendall(head.encode())
            reply = b"".join(iter(lambda: sock.recv(65536), b""))
    headers, _, body = reply.partition(b"\r\n\r\n")
    assert headers.split(b"\r\n")[0] == b"HTTP/1.1 503 Service Temporarily Unavailable"
    assert b"Content-Type: application/json" in headers.split(b"\r\n")
    assert b"Retry-After: 5" in headers.split(b"\r\n")
    assert json.loads(body) == _refusal(
        path.partition("?")[0], 503, "the service is unavailable; retry in a few seconds"
    )


class FakeUpstream:
    """Stands in for gunicorn: keeps the heads it was sent and answers each with 200; with
    ``stall``, like busy workers, only once released (the readiness probe's /docs/errors at
    once)."""

    def __init__(self, *, stall: bool = False) -> None:
        self.heads: list[str] = []
        self.arrived = threading.Semaphore(0)
        self.release = threading.Event()
        if not stall:
            self.release.set()
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(client,), daemon=True).start()

    def _answer(self, client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            client.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head and (chunk := client.recv(65536)):
                head += chunk
            self.heads.append(head.decode("latin-1"))
            if not head.startswith(b"GET /docs/errors"):
                self.arrived.release()
                self.release.wait(10)
            client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    def close(self) -> None:
        self.release.set()
        self._listener.close()


def test_nginx_passes_the_client_address_it_saw_never_a_forged_one(
    tmp_path: Path,
) -> None:
    upstream = FakeUpstream()
    try:
        with nginx(tmp_path, upstream.port) as front:
            head = (
                "GET /api/v1/laws/CA?x=1 HTTP/1.1\r\nHost: api.example\r\n"
                "X-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Host: evil.example\r\n"
                "Connection: close\r\n\r\n"
            )
            assert answer(front.port, head)[0] == 200
    finally:
        upstream.close()
    forwarded = upstream.heads[-1].split("\r\n")
    assert forwarded[0] == "GET /api/v1/laws/CA?x=1 HTTP/1.0"
    # The app trusts one hop (TRUSTED_PROXY_HOPS=1): the value nginx wrote, alone.
    assert [line for line in forwarded if line.lower().startswith("x-forwarded-")] == [
        "X-Forwarded-For: 127.0.0.1",
        "X-Forwarded-Proto: http",
        "X-Forwarded-Host: api.example",
    ]
    assert "Host: api.example" in forwarded


@contextlib.contextmanager
def held_worker(port: int) -> Iterator[Callable[[str], int]]:
    """Hold one sync worker with unfinished headers (the others serve meanwhile); the function
    yielded finishes that request with a key and returns its status."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /api/v1/laws/CA HTTP/1.1\r\nHost: h\r\nConnection: close\r\n")

        def finish(key: str) -> int:
            sock.sendall(f"X-API-Key: {key}\r\n\r\n".encode())
            return int(sock.recv(65536).split(b"\r\n", 1)[0].split()[1])

        yield finish


def test_a_keyless_slow_post_is_refused_at_once_by_gunicorn(stack: Stack, api_keys: dict) -> None:
    """The replay lane reads no body before the key is known valid, so a request that announces
    60,000 bytes and sends one is answered (401) instead of holding a worker."""
    # Every worker has verified a key and read the data version: its replay lane is live.
    key = api_keys["pro"]
    if stack.workers == 1:
        assert answer(stack.app.port, normal_request(key))[0] == 200
    else:
        with held_worker(stack.app.port) as finish_on_held:
            assert answer(stack.app.port, normal_request(key))[0] == 200  # the other worker
            assert finish_on_held(key) == 200
    head = (
        "POST /graphql HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
        "Content-Length: 60000\r\nConnection: close\r\n\r\n"
    )
    status, body = answer(stack.app.port, head, body=b"{")
    assert status == 401
    assert b'"code":401' in body


def test_no_key_reaches_nginx_logs(stack: Stack, api_keys: dict) -> None:
    key = api_keys["pro"]
    target = f"/api/v1/laws/CA?api%5Fkey={key}&_=nginx"
    head = f"GET {target} HTTP/1.1\r\nHost: h\r\nReferer: http://x/?api_key={key}\r\n"
    assert answer(stack.front.port, head + "Connection: close\r\n\r\n")[0] == 200
    too_large = (
        f"POST /graphql?api_key={key} HTTP/1.1\r\nHost: h\r\nContent-Length: 70000\r\n"
        "Connection: close\r\n\r\n"
    )
    assert answer(stack.front.port, too_large)[0] == 413
    logged = stack.front.text()
    assert '"GET /api/v1/laws/CA HTTP/1.1" 200' in logged  # the path, never the query
    assert '"POST /graphql HTTP/1.1" 413' in logged
    assert logged.count(key) == 0


# The longest request line nginx takes: one of its 8 KiB header buffers, less the CRLF.
LONGEST_LINE = 8190


def padded_graphql_get(length: int, key: str, *, extra: str = "") -> str:
    """A GraphQL GET whose request line is ``length`` bytes: a document padded with commas,
    which GraphQL ignores."""
    target = "/graphql?query=" + quote('{ law(state: "CA") { state } }', safe="")
    line = f"GET {target} HTTP/1.1"
    target += "," * (length - len(line))
    return (
        f"GET {target} HTTP/1.1\r\nHost: h\r\nX-API-Key: {key}\r\n{extra}Connection: close\r\n\r\n"
    )


@pytest.mark.parametrize("length", [5_000, 7_000, LONGEST_LINE])
@pytest.mark.parametrize("through", ["nginx", "gunicorn"])
def test_a_request_line_nginx_takes_is_served_by_the_app(
    stack: Stack, api_keys: dict, length: int, through: str
) -> None:
    port = stack.front.port if through == "nginx" else stack.app.port
    status, body = answer(port, padded_graphql_get(length, api_keys["pro"]))
    assert status == 200, body[:300]
    assert json.loads(body)["data"] == {"law": {"state": "California"}}


def test_a_long_request_line_the_app_refuses_is_its_json_envelope(
    stack: Stack, api_keys: dict
) -> None:
    target = "/api/v1/laws/CA?pad=" + "x" * 7_000
    head = f"GET {target} HTTP/1.1\r\nHost: h\r\nX-API-Key: {api_keys['pro']}\r\n"
    status, body = answer(stack.front.port, head + "Connection: close\r\n\r\n")
    assert status == 400
    assert json.loads(body)["error"]["param"] == "pad"


@pytest.mark.parametrize("length", [LONGEST_LINE + 1, 10_000])
def test_a_longer_request_line_is_nginx_s_414_envelope(
    stack: Stack, api_keys: dict, length: int
) -> None:
    status, body = answer(stack.front.port, padded_graphql_get(length, api_keys["pro"]))
    assert status == 414
    assert json.loads(body) == {
        "success": False,
        "error": {
            "code": 414,
            "message": "request line too long: at most 8190 bytes; "
            "send a long GraphQL document in the body of a POST",
            "docs": "/docs/errors#error-414",
        },
    }


def test_without_nginx_a_longer_request_line_is_gunicorn_s_own_414(
    stack: Stack, api_keys: dict
) -> None:
    status, body = answer(stack.app.port, padded_graphql_get(LONGEST_LINE + 1, api_keys["pro"]))
    assert status == 414
    assert body.startswith(b"<html>")


HEADERS_TOO_LARGE = {
    "success": False,
    "error": {
        "code": 431,
        "message": "request headers too large: at most 100 fields, each line at most 8190 bytes",
        "docs": "/docs/errors#error-431",
    },
}


@pytest.mark.parametrize("separator", [": ", ":"])
def test_the_longest_header_line_nginx_takes_reaches_the_app(
    stack: Stack, api_keys: dict, separator: str
) -> None:
    # nginx passes "Name: value" on: one byte more than a "Name:value" it was sent.
    name = "X-Pad"
    line = name + separator + "v" * (LONGEST_LINE - len(name) - len(separator))
    head = padded_graphql_get(200, api_keys["pro"], extra=line + "\r\n")
    assert answer(stack.front.port, head)[0] == 200


@pytest.mark.parametrize(
    "extra",
    [
        "X-Pad: " + "v" * LONGEST_LINE + "\r\n",  # one line over nginx's buffer
        "".join(f"X-Pad-{n}: {'v' * 7_000}\r\n" for n in range(5)),  # over its 4 buffers
        "".join(f"X-Pad-{n}: v\r\n" for n in range(100)),  # over gunicorn's field count
    ],
    ids=["long line", "many long lines", "many fields"],
)
def test_headers_too_large_are_a_431(stack: Stack, api_keys: dict, extra: str) -> None:
    status, body = answer(stack.front.port, padded_graphql_get(200, api_keys["pro"], extra=extra))
    assert status == 431
    # On /graphql, a GraphQL response; elsewhere the envelope.
    assert json.loads(body) == refusal_body(431, HEADERS_TOO_LARGE["error"]["message"])
    rest = f"GET /api/v1/laws/CA HTTP/1.1\r\nHost: h\r\n{extra}Connection: close\r\n\r\n"
    status, body = answer(stack.front.port, rest)
    assert status == 431
    assert json.loads(body) == HEADERS_TOO_LARGE


def test_the_path_of_nginx_s_414_page_is_the_app_s_for_a_client(
    stack: Stack, api_keys: dict
) -> None:
    head = (
        f"GET /_nginx/line-too-long HTTP/1.1\r\nHost: h\r\nX-API-Key: {api_keys['pro']}\r\n"
        "Connection: close\r\n\r\n"
    )
    status, body = answer(stack.front.port, head)
    assert status == 404
    assert json.loads(body)["error"]["message"].startswith("no such endpoint: /_nginx/")


def test_every_envelope_nginx_writes_is_json_linking_a_documented_error() -> None:
    config = (NGINX_FILES / "proxy.conf").read_text()
    found = [json.loads(body) for body in re.findall(r"return \d+ '(.*)';", config)]
    bodies = [body for body in found if "success" in body]
    assert sorted(body["error"]["code"] for body in bodies) == [413, 414, 429, 431, 503]
    # The same refusals on /graphql (but the 414, which has no path), as GraphQL responses.
    graphql = {body["errors"][0]["extensions"]["code"]: body for body in found if "errors" in body}
    assert len(found) == len(bodies) + len(graphql)
    assert sorted(graphql) == [413, 429, 431, 503]
    for code, body in graphql.items():
        [envelope] = [e for e in bodies if e["error"]["code"] == code]
        assert body == refusal_body(code, envelope["error"]["message"])
    for body in bodies:
        code = body["error"]["code"]
        assert code in ERROR_DOCS
        assert body == {
            "success": False,
            "error": {**body["error"], "docs": f"/docs/errors#error-{code}"},
        }


def test_nginx_refuses_requests_past_its_limit_per_address_with_the_api_envelope(
    tmp_path: Path,
) -> None:
    upstream = FakeUpstream(stall=True)
    opened: list[socket.socket] = []
    try:
        with nginx(tmp_path, upstream.port) as front:
            for number in range(CONNECTIONS_PER_ADDRESS):
                sock = socket.create_connection(("127.0.0.1", front.port), timeout=5)
                opened.append(sock)
                sock.sendall(f"GET /api/v1/laws/CA?n={number} HTTP/1.1\r\nHost: h\r\n\r\n".encode())
            for _ in range(CONNECTIONS_PER_ADDRESS):  # all in flight, waiting for a worker
                assert upstream.arrived.acquire(timeout=5)
            head = "GET /api/v1/laws/CA HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
            with socket.create_connection(("127.0.0.1", front.port), timeout=5) as sock:
                sock.sendall(head.encode())
                reply = b"".join(iter(lambda: sock.recv(65536), b""))
            upstream.release.set()
            served = [int(sock.recv(65536).split(b" ", 2)[1]) for sock in opened]
    finally:
        upstream.close()
        for sock in opened:
            sock.close()
    headers, _, body = reply.partition(b"\r\n\r\n")
    lines = headers.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 429 Too Many Requests"
    assert b"Content-Type: application/json" in lines
    assert b"Retry-After: 1" in lines
    assert json.loads(body) == {
        "success": False,
        "error": {
            "code": 429,
            "message": "too many requests in flight from this address (at most 16 at a time); "
            "retry when one finishes",
            "docs": "/docs/errors#error-429",
        },
    }
    assert served == [200] * CONNECTIONS_PER_ADDRESS  # the ones in flight were served
