"""``init_web``: the whole platform on an app, in the order its parts depend on each other."""

from flask import Flask

from .accel.replay import ReplayLane
from .accel.stack_chunk import APPLIES as FRESH_CHUNK_APPLIES
from .accel.stack_chunk import FreshStackChunk
from .accel.sync_cache import cache_sync_callables
from .db import REQUEST_ENGINE_EXTENSION
from .errors import init_error_handlers
from .front import init_front_page
from .health import init_health
from .jsonprovider import OrjsonProvider
from .pipeline import install_pipeline, replay_declarations
from .proxies import trust_proxies
from .reference import init_reference
from .routes import deep_paths, number_params
from .state import WebState, make_state


def init_web(app: Flask) -> WebState:
    """Install the platform on ``app`` (after its settings and database): JSON, error envelopes,
    the request hooks in pipeline order, /health, /docs/errors, /, then the WSGI layers in front."""
    app.json = OrjsonProvider(app)  # unsorted keys: SPEC field order, weekday order in hours
    app.logger.setLevel(app.config["LOG_LEVEL"])
    state = make_state(app)
    if state.speed_tricks:
        cache_sync_callables(app)
    init_error_handlers(app)
    install_pipeline(app, state)
    init_health(app, engine=app.extensions[REQUEST_ENGINE_EXTENSION], limiter=state.limiter)
    init_reference(app)
    init_front_page(app)
    if state.speed_tricks and FRESH_CHUNK_APPLIES:
        # Requests to the deep paths start at the same place, a fresh stack chunk (replayed
        # reads, answered in front of it with a shallow stack, do not pay for the trampoline).
        app.wsgi_app = FreshStackChunk(app.wsgi_app, deep_paths(app))  # type: ignore[method-assign]
    if state.speed_tricks:
        _put_replay_lane_in_front(app, state)
    trust_proxies(app)  # outermost: the replay lane sees the resolved client address too
    return state


def _put_replay_lane_in_front(app: Flask, state: WebState) -> None:
    if state.replays is None or state.quota is None or state.recorder is None:
        raise RuntimeError("the replay lane needs the stored responses, the quota and the recorder")
    app.wsgi_app = ReplayLane(  # type: ignore[method-assign]
        app.wsgi_app,
        cache=state.replays,
        version=state.version,
        key_cache=state.key_cache,
        quota=state.quota,
        recorder=state.recorder,
        max_body_bytes=app.config["MAX_CONTENT_LENGTH"],
        numbers=number_params(app),
        declared=replay_declarations(),
    )
