"""Composition root: ``create_app`` wires settings, database, edges and CLI together.

Nothing happens at import time; ``flask --app app ...`` and WSGI servers call ``create_app()``.
"""

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, g

from models.db import make_engine, make_session_factory
from seed.cli import make_keys_group, make_seed_command
from service.config import Settings

SESSIONS = "cds.sessions"
ENGINE = "cds.engine"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application; ``config`` overrides settings read from the environment."""
    app = Flask(__name__, instance_relative_config=True)
    settings = Settings.from_env(instance_path=app.instance_path)
    app.config.update(
        DATABASE_URL=settings.database_url,
        RATELIMIT_STORAGE_URI=settings.ratelimit_storage_uri,
        DOCS_URL=settings.docs_url,
        LOG_LEVEL=settings.log_level,
    )
    if config:
        app.config.update(config)

    _init_database(app)
    app.cli.add_command(make_seed_command(lambda: app.extensions[ENGINE]))
    app.cli.add_command(make_keys_group(lambda: app.extensions[SESSIONS]))
    return app


def _init_database(app: Flask) -> None:
    url = app.config["DATABASE_URL"]
    if url.startswith(f"sqlite:///{app.instance_path}"):
        # The default database file lives in the instance folder, which may not exist yet.
        os.makedirs(app.instance_path, exist_ok=True)
    engine = make_engine(url)
    app.extensions[ENGINE] = engine
    app.extensions[SESSIONS] = make_session_factory(engine)

    @app.teardown_appcontext
    def close_session(_exc: BaseException | None) -> None:
        session = g.pop("db_session", None)
        if session is not None:
            session.close()
