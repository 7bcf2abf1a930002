"""Fault fixtures: a TCP forwarder to cut and restore a database, and a Redis server we own."""

import contextlib
import os
import shutil
import socket
import threading
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import make_url

from tests.servers import RedisServer, free_port

POSTGRES_URL = make_url(
    os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
)
POSTGRES_HOST, POSTGRES_PORT = POSTGRES_URL.host or "127.0.0.1", POSTGRES_URL.port or 5432


class Forwarder:
    """Forwards 127.0.0.1:<port> to an upstream; ``cut`` drops every connection, ``restore``
    listens again on the same port. Stands in for a database that goes away and comes back."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None

    @property
    def url(self) -> str:
        """The PostgreSQL URL for reaching the upstream database through this forwarder."""
        through = POSTGRES_URL.set(host="127.0.0.1", port=self.port)
        return through.render_as_string(hide_password=False)

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            doomed, self._sockets = self._sockets, []
            listener, self._listener = self._listener, None
        for sock in [*doomed, *([listener] if listener else [])]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=3)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def postgres_available() -> bool:
    try:
        psycopg.connect(
            host=POSTGRES_HOST,
            port=POSTGRES_PORT,
            user=POSTGRES_URL.username,
            password=POSTGRES_URL.password,
            dbname=POSTGRES_URL.database,
            connect_timeout=3,
        ).close()
    except psycopg.Error:
        return False
    return True


@pytest.fixture
def postgres_forwarder() -> Iterator[Forwarder]:
    if not postgres_available():
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_HOST}:{POSTGRES_PORT}")
    forwarder = Forwarder((POSTGRES_HOST, POSTGRES_PORT))
    forwarder.restore()
    yield forwarder
    forwarder.cut()


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_commands(monkeypatch: pytest.MonkeyPatch):
    """``redis_commands(app)``: from now on, the name of every command the app's quota storage
    sends to Redis is appended to the list returned (put back after the test)."""

    def record(app) -> list[str]:
        connection = app.extensions["cds.limiter"].storage.get_connection()
        sent: list[str] = []
        original = connection.execute_command

        def counted(*args, **kwargs):
            sent.append(str(args[0]))
            return original(*args, **kwargs)

        monkeypatch.setattr(connection, "execute_command", counted)
        return sent

    return record
