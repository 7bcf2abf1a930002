"""The client loop of docs/sync.md, run as written against a live server: a first pass copies
every object, and after a merge a second pass from its cursor brings the copy level again."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers import flask_serve

from .conftest import client_loop, live_dataset, load, new_key, served


def test_the_documented_loop_keeps_a_copy_equal_to_the_service(
    sync_db_url: str, tmp_path: Path
) -> None:
    load(sync_db_url, live_dataset(), rebuild=True)
    key = new_key(sync_db_url)
    env = {"DATABASE_URL": sync_db_url, "STATE_TTL_MS": "1"}
    with flask_serve(tmp_path, env) as server:
        loop = client_loop()
        loop["BASE"], loop["KEY"] = f"http://127.0.0.1:{server.port}", key
        copy: dict[tuple[str, str], str] = {}
        cursor = loop["sync"](copy)
        assert copy == served(loop["get"])
        assert len(copy) > 400

        merge = tmp_path / "merge"
        merge.mkdir()
        doctor = next(k for k in copy if k[0] == "doctor")[1]
        (merge / "deletions.jsonl").write_text(json.dumps({"type": "doctor", "id": doctor}))
        flask = Path(sys.executable).with_name("flask")
        done = subprocess.run(
            [str(flask), "--app", "app", "data", "import", str(merge), "--merge"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        before = dict(copy)
        loop["sync"](copy, cursor)
        assert ("doctor", doctor) in before
        assert ("doctor", doctor) not in copy
        assert copy == served(loop["get"])
