"""Composition root: ``create_app`` wires settings, database, the web platform, the two edges and
the CLI together; nothing else imports every package (or seed).

Nothing happens at import time; ``flask --app app ...`` and WSGI servers call ``create_app()``.
"""

from collections.abc import Mapping
from typing import Any

from flask import Flask

from graphql_schema import init_graphql
from rest import init_rest
from seed.cli import make_data_group, make_keys_group, make_seed_command
from service.geo import warm_zip_index
from web.db import (
    ENGINE_EXTENSION,
    REQUEST_ENGINE_EXTENSION,
    SESSIONS_EXTENSION,
    dispose_engines,
    init_database,
)
from web.limits import LIMITER_EXTENSION
from web.quickstart import make_quickstart_command
from web.serving import make_serve_command
from web.settings import configure
from web.wiring import init_web

# Names tests, bench and gunicorn.conf.py use from here.
__all__ = [
    "ENGINE_EXTENSION",
    "LIMITER_EXTENSION",
    "REQUEST_ENGINE_EXTENSION",
    "create_app",
    "dispose_engines",
]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the application; ``config`` overrides settings read from the environment."""
    app = Flask(__name__, instance_relative_config=True)
    configure(app, config)  # settings: domain and web tier from the environment, then ``config``
    init_database(app)  # engines; each request's connection and session, closed at its end
    warm_zip_index()
    init_web(app)  # the HTTP platform: errors, hooks in web.pipeline order, health, replay
    init_rest(app)  # /api/v1 and its OpenAPI document
    init_graphql(app)  # /graphql and GraphiQL
    _init_cli(app)
    return app


def _init_cli(app: Flask) -> None:
    """``flask seed``, ``data ...``, ``keys ...``, ``serve`` and ``quickstart`` (the last three
    in one)."""
    seed = make_seed_command(lambda: app.extensions[ENGINE_EXTENSION])
    keys = make_keys_group(lambda: app.extensions[SESSIONS_EXTENSION])
    serve = make_serve_command(app)
    data = make_data_group(
        lambda: app.extensions[ENGINE_EXTENSION], lambda: app.config["CHANGE_RETENTION_DAYS"]
    )
    for command in (seed, data, keys, serve):
        app.cli.add_command(command)
    app.cli.add_command(make_quickstart_command(seed, keys.commands["create"], serve))
