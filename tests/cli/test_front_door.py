"""The quick start as a newcomer runs it: scripts/serve.sh and the README's commands, each in a
fresh shell (no virtualenv activated, a bare PATH, no package index)."""

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

from tests.servers import LIFETIME_S, START_DEADLINE_S, free_port, http_status, stop

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
STAMP = VENV / ".installed-pyproject"
# A shell as a newcomer opens it: no VIRTUAL_ENV, and pip has no index to reach.
NO_INDEX = {"PIP_NO_INDEX": "1", "PIP_INDEX_URL": "http://127.0.0.1:9/simple"}
CURL_LINE = re.compile(r"^\s+(curl .+)$", re.MULTILINE)


def _fresh_shell(tmp: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp),
        "LANG": "C.UTF-8",
        "DATABASE_URL": f"sqlite:///{tmp / 'front-door.db'}",
        **NO_INDEX,
        **extra,
    }


def _pyproject_hash() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


@pytest.fixture
def installed() -> Iterator[None]:
    """The project's own .venv holds this checkout, installed as serve.sh would leave it.

    A first start installs from the package index, which a test may not reach; what it leaves
    behind is the stamp, written here when this very interpreter is that install."""
    if Path(sys.prefix).resolve() != VENV.resolve():
        pytest.skip("serve.sh runs the project's .venv; this suite runs another interpreter")
    try:
        origin = json.loads(distribution("cannabis-data-service").read_text("direct_url.json"))
    except (PackageNotFoundError, TypeError):
        pytest.skip("the project is not installed in .venv (run ./scripts/test.sh)")
    if origin.get("url") != ROOT.as_uri() or not origin.get("dir_info", {}).get("editable"):
        pytest.skip("the .venv holds another checkout's install")
    before = STAMP.read_text() if STAMP.exists() else None
    STAMP.write_text(_pyproject_hash() + "\n")
    yield
    if before is None:
        STAMP.unlink(missing_ok=True)
    else:
        STAMP.write_text(before)


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _seed_tiny(tmp: Path) -> None:
    """The tiny dataset, with the command docs/operations.md prints (the full one takes 15 s)."""
    if not (VENV / "bin" / "flask").exists():
        pytest.skip("no .venv in this checkout (./scripts/serve.sh or ./scripts/test.sh makes it)")
    seeded = _run([".venv/bin/flask", "--app", "app", "seed", "--scale", "tiny"], _fresh_shell(tmp))
    assert seeded.returncode == 0, seeded.stdout + seeded.stderr


class Start:
    """One run of serve.sh on a free port: what it printed and how long it took to answer."""

    def __init__(self, tmp: Path, name: str) -> None:
        self.port = free_port()
        self.output = tmp / f"{name}.out"
        self.env = _fresh_shell(tmp, PORT=str(self.port))

    def __enter__(self) -> "Start":
        started = time.monotonic()
        with open(self.output, "ab") as sink:
            self.process = subprocess.Popen(
                ["bash", "scripts/serve.sh"],
                cwd=ROOT,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = started + START_DEADLINE_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"serve.sh exited with {self.process.returncode}:\n{self.text()}")
            try:
                if http_status(self.port, "/health", timeout=1) == 200:
                    self.seconds = time.monotonic() - started
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        stop(self.process)
        pytest.fail(f"serve.sh did not answer within {START_DEADLINE_S} s:\n{self.text()}")

    def __exit__(self, *_exc: object) -> None:
        stop(self.process)  # serve.sh execs the server: this pid is the server

    def text(self) -> str:
        return self.output.read_text(errors="replace")


@pytest.mark.usefixtures("installed")
def test_serve_sh_starts_without_an_index_and_prints_a_command_that_works_pasted(
    tmp_path: Path,
) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed: the printed command cannot be run")
    _seed_tiny(tmp_path)
    with Start(tmp_path, "first") as first:
        printed = CURL_LINE.findall(first.text())
        assert len(printed) == 1, first.text()
        command = printed[0]
        key = re.search(r"cds_live_\w+", command)
        assert key is not None, command  # the key it has just created, not a placeholder
        assert f"'http://127.0.0.1:{first.port}/api/v1/strains?limit=2'" in command  # zsh-safe
        pasted = subprocess.run(
            ["bash", "-c", command + " -s -w '\\n%{http_code}'"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        body, status = pasted.stdout.rsplit("\n", 1)
        assert status == "200", pasted.stdout + pasted.stderr
        assert len(json.loads(body)["data"]) == 2
        assert "pip" not in first.text().lower()  # nothing was installed
        assert "The demo key is pro tier: 1,000 requests an hour" in first.text()
    with Start(tmp_path, "second") as second:
        # A restart: no install, no seeding, no new key; the hint says where to put one.
        assert "Seeded" not in second.text()
        assert "already exist" in second.text()
        assert "'X-API-Key: YOUR_KEY'" in second.text()
        # It names the command that rebuilds the data, not a flag the user never typed.
        assert "to rebuild it: .venv/bin/flask --app app seed" in second.text()
        assert "--if-empty" not in second.text()
        assert second.seconds < START_DEADLINE_S
    print(f"first start (tiny data seeded) {first.seconds:.1f} s; second {second.seconds:.1f} s")


@pytest.mark.usefixtures("installed")
def test_serve_sh_installs_again_when_pyproject_changed(tmp_path: Path) -> None:
    STAMP.write_text("an older pyproject.toml\n")
    started = _run(
        ["timeout", str(LIFETIME_S), "bash", "scripts/serve.sh"],
        _fresh_shell(tmp_path, PORT=str(free_port())),
    )
    # With no index the reinstall cannot finish: proof that it was attempted, before serving.
    assert started.returncode != 0
    assert "Serving on" not in started.stdout
    assert STAMP.read_text() == "an older pyproject.toml\n"


def _readme_commands() -> list[str]:
    """Every command line of the README's sh blocks (comments and variables set aside)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", readme, re.DOTALL):
        for line in block.splitlines():
            command = line.split("#", 1)[0].strip()
            if command and not re.match(r"^[A-Z_]+=\S*$", command):
                lines.append(command)
    return lines


def test_every_readme_command_names_a_program_a_fresh_shell_finds() -> None:
    commands = _readme_commands()
    assert "./scripts/serve.sh" in commands
    assert "./scripts/test.sh" in commands
    for command in commands:
        program = shlex.split(command)[0]
        assert program.startswith(("./", ".venv/bin/")) or shutil.which(program, path="/usr/bin"), (
            f"{command!r}: {program} is not found in a fresh shell (is .venv/bin/ missing?)"
        )


def test_the_readmes_key_command_works_as_printed_in_a_fresh_shell(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    printed = re.findall(r"(\.venv/bin/flask --app app keys create[^\n`#]*)", readme)
    assert printed, "the README shows how to create a key"
    _seed_tiny(tmp_path)
    for command in printed:
        created = _run(shlex.split(command), _fresh_shell(tmp_path))
        assert created.returncode == 0, created.stdout + created.stderr
        assert re.fullmatch(r"cds_live_\w{32}", created.stdout.splitlines()[-1])
