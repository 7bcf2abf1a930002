"""Real servers for tests: a throwaway redis-server, gunicorn with the repository's
gunicorn.conf.py, ``flask serve`` and Debian's nginx with the files in deploy/nginx.

Each binds 127.0.0.1 on a port the OS picked, writes its output (stdout and stderr) to one file,
is killed by a watchdog after a bounded lifetime and is stopped by the pid started here.
"""

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from gunicorn.config import KNOWN_SETTINGS

ROOT = Path(__file__).resolve().parents[1]
GUNICORN_CONF = ROOT / "gunicorn.conf.py"
NGINX_FILES = ROOT / "deploy" / "nginx"
NGINX = Path("/usr/sbin/nginx")  # Debian's package; .ci/run installs it
START_DEADLINE_S = 20
LIFETIME_S = 90
LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")
BOOTED = "Booting worker with pid"
# Environment a parent gunicorn leaves behind, which would change how a child one starts.
_INHERITED_GUNICORN_ENV = ("PROMETHEUS_MULTIPROC_DIR", "CDS_METRICS_DIR_")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_status(port: int, target: str, *, timeout: float = 5, key: str | None = None) -> int:
    """GET ``target`` on a fresh connection (key in X-API-Key when given); the status."""
    head = f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if key is not None:
        head += f"X-API-Key: {key}\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall((head + "\r\n").encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return int(reply.split(b"\r\n", 1)[0].split()[1])


def stop(process: subprocess.Popen) -> None:
    """Stop a process started here: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@dataclass
class Running:
    """A server started here: its port and the file that holds everything it printed."""

    port: int
    process: subprocess.Popen
    output: Path

    def text(self) -> str:
        return self.output.read_text(errors="replace")


@contextlib.contextmanager
def _supervised(command: list[str], output: Path, **popen) -> Iterator[subprocess.Popen]:
    # Appending: the server's stdout and stderr share the file and its own log files may reopen
    # /dev/stdout; each write then lands at the end instead of over another.
    with open(output, "ab") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, **popen)
    watchdog = threading.Timer(LIFETIME_S, process.kill)
    watchdog.start()
    try:
        yield process
    finally:
        watchdog.cancel()
        stop(process)


def _wait_for(
    process: subprocess.Popen, output: Path, ready, what: str, *, status: int = 200
) -> int:
    """Poll (bounded) until ``ready(log_text)`` gives a port that answers /docs/errors (with
    ``status``)."""
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        text = output.read_text(errors="replace") if output.exists() else ""
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}:\n{text}")
        port = ready(text)
        if port is not None:
            with contextlib.suppress(OSError, IndexError, ValueError):
                if http_status(port, "/docs/errors", timeout=2) == status:
                    return port
        time.sleep(0.05)
    pytest.fail(f"{what} did not serve within {START_DEADLINE_S} s:\n{output.read_text()}")


def server_env(overrides: Mapping[str, str]) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(_INHERITED_GUNICORN_ENV)
    }
    return env | dict(overrides)


def gunicorn_command() -> list[str]:
    """gunicorn beside this Python (or on PATH) with the repository's configuration."""
    beside = Path(sys.executable).with_name("gunicorn")
    found = str(beside) if beside.exists() else shutil.which("gunicorn")
    if found is None:
        pytest.skip("gunicorn is not installed (it is a project dependency: pip install -e .)")
    command = [found, "-c", str(GUNICORN_CONF)]
    if any(setting.name == "control_socket_disable" for setting in KNOWN_SETTINGS):
        command.append("--no-control-socket")  # gunicorn 27 would open one in the cwd
    return command


@contextlib.contextmanager
def gunicorn(tmp: Path, env: Mapping[str, str], *, workers: int) -> Iterator[Running]:
    """``gunicorn -c gunicorn.conf.py`` with ``workers`` sync workers; its error log (and the
    access log, when GUNICORN_ACCESSLOG=- is in ``env``) and the app's output in one file."""
    output = tmp / "gunicorn.out"
    overrides = {
        "BIND": "127.0.0.1:0",
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_THREADS": "1",
        "GUNICORN_GRACEFUL_TIMEOUT": "5",
        "GUNICORN_ERRORLOG": "-",
        "TMPDIR": str(tmp),
        **env,
    }

    def ready(text: str) -> int | None:
        found = LISTENING.search(text)
        return int(found.group(1)) if found and text.count(BOOTED) >= workers else None

    command = gunicorn_command()
    with _supervised(command, output, cwd=ROOT, env=server_env(overrides)) as process:
        yield Running(_wait_for(process, output, ready, "gunicorn"), process, output)


@contextlib.contextmanager
def flask_serve(tmp: Path, env: Mapping[str, str]) -> Iterator[Running]:
    """``flask --app app serve`` (the development server) on a free port."""
    output = tmp / "flask-serve.out"
    port = free_port()
    flask = Path(sys.executable).with_name("flask")
    command = [str(flask), "--app", "app", "serve", "--port", str(port)]
    with _supervised(command, output, cwd=ROOT, env=server_env(env)) as process:
        yield Running(
            _wait_for(process, output, lambda _text: port, "flask serve"), process, output
        )


def nginx_config(tmp: Path, *, port: int, upstream_port: int) -> str:
    """A whole nginx.conf around the repository's logging.conf, limits.conf and proxy.conf,
    included as they are: the upstream is gunicorn on ``upstream_port``, logs go to stdout and
    stderr."""
    temp_paths = "\n".join(
        f"    {kind}_temp_path {tmp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root the workers would switch to "nobody", who cannot enter pytest's private tmp dirs.
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""{user}
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log stderr notice;
events {{ worker_connections 256; }}
http {{
{temp_paths}
    include {NGINX_FILES / "logging.conf"};
    include {NGINX_FILES / "limits.conf"};
    upstream cds_app {{ server 127.0.0.1:{upstream_port}; }}
    server {{
        listen 127.0.0.1:{port};
        include {NGINX_FILES / "proxy.conf"};
    }}
}}
"""


@contextlib.contextmanager
def nginx(tmp: Path, upstream_port: int, *, status: int = 200) -> Iterator[Running]:
    """Debian's nginx (skipped when absent) in front of 127.0.0.1:``upstream_port``; ready when
    it answers a request with ``status`` (503 when nothing listens there)."""
    if not NGINX.exists():
        pytest.skip(f"nginx is not installed at {NGINX} (apt-get install nginx; .ci/run does)")
    output, config = tmp / "nginx.out", tmp / "nginx.conf"
    port = free_port()
    config.write_text(nginx_config(tmp, port=port, upstream_port=upstream_port))
    command = [str(NGINX), "-p", str(tmp), "-e", "stderr", "-c", str(config), "-g", "daemon off;"]
    with _supervised(command, output, cwd=tmp) as process:
        found = _wait_for(process, output, lambda _text: port, "nginx", status=status)
        yield Running(found, process, output)


class RedisServer:
    """A throwaway redis-server on a free port, started and stopped by its own pid."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start within 10 s")

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@contextlib.contextmanager
def redis_server(why: str) -> Iterator[RedisServer]:
    """A throwaway redis-server; skips the test, saying ``why`` it needs one, when absent."""
    if shutil.which("redis-server") is None:
        pytest.skip(f"redis-server is not installed; {why}")
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
