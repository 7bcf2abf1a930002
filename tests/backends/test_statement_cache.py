"""SQLite request connections keep every statement the API sends compiled."""

from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from app import REQUEST_ENGINE_EXTENSION, create_app, dispose_engines
from models.db import SQLITE_CACHED_STATEMENTS

SQLITE_DEFAULT = 128  # what Python's sqlite3 keeps when not told


def test_sqlite_connections_keep_hundreds_of_compiled_statements(tmp_path: Path) -> None:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'cache.db'}"})
    engine = app.extensions[REQUEST_ENGINE_EXTENSION]
    opened: list[dict[str, Any]] = []

    @event.listens_for(engine, "do_connect")
    def seen(_dialect, _record, _cargs, cparams) -> None:  # type: ignore[no-untyped-def]
        opened.append(dict(cparams))

    try:
        engine.dispose()
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        dispose_engines(app)
    assert [params.get("cached_statements") for params in opened] == [SQLITE_CACHED_STATEMENTS]
    assert SQLITE_CACHED_STATEMENTS > SQLITE_DEFAULT
