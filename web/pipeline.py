"""The order of the request hooks, as data: :data:`PIPELINE`, outermost stage first.

Flask runs before-request hooks in the order they were registered and after-request hooks in the
reverse order, so registering the stages in this order makes each one wrap those after it, as in
Starlette's middleware stack: its before hook runs before theirs and its after hook after theirs.
Nothing else registers app-wide hooks (tests/web/test_pipeline.py checks both).
"""

from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask

from .accel.cors import remember_cors_headers
from .accel.limiter_hooks import skip_when_charged
from .accel.quota import init_quota
from .accel.replay import init_replay_store
from .auth import init_auth
from .concurrency import init_concurrency
from .conditional import init_conditional
from .http import init_compression, init_cors, init_nosniff, init_retry_after
from .limits import FailedAuthThrottle, init_limits
from .links import init_links
from .observability import init_observability
from .request_id import init_request_id
from .state import WebState

Hook = Callable[..., object]
PIPELINE_EXTENSION = "cds.pipeline"
# Hook kind -> the Flask attribute holding the app-wide hooks of that kind.
HOOK_LISTS = {
    "before": "before_request_funcs",
    "after": "after_request_funcs",
    "teardown": "teardown_request_funcs",
}


@dataclass(frozen=True)
class Stage:
    name: str
    install: Callable[[Flask, WebState], None]
    hooks: frozenset[str]  # the kinds of hook it registers: "before", "after", "teardown"
    trick: bool = False  # a speed trick (web.accel): left out with SPEED_TRICKS off


def _replay_store(app: Flask, state: WebState) -> None:
    if state.replays is None:
        raise RuntimeError("the replay store is a speed trick: SPEED_TRICKS is off")
    init_replay_store(app, state.replays)


def _observability(app: Flask, state: WebState) -> None:
    state.recorder = init_observability(app, log_stream=app.config.get("ACCESS_LOG_STREAM"))


def _cors(app: Flask, state: WebState) -> None:
    init_cors(app, origins=app.config["CORS_ORIGINS"])
    if state.speed_tricks:
        remember_cors_headers(app)


def _auth(app: Flask, state: WebState) -> None:
    init_auth(app, FailedAuthThrottle(state.limiter), key_cache=state.key_cache)


def _conditional(app: Flask, state: WebState) -> None:
    init_conditional(app, limiter=state.limiter, version=state.version.get)


def _quota(app: Flask, state: WebState) -> None:
    if state.quota is None:
        raise RuntimeError("charging ahead is a speed trick: SPEED_TRICKS is off")
    init_quota(app, state.quota)


def _concurrency(app: Flask, state: WebState) -> None:
    init_concurrency(app, state.heavy)


def _limiter(app: Flask, state: WebState) -> None:
    init_limits(app, state.limiter)
    if state.speed_tricks:
        skip_when_charged(app, state.limiter)


BEFORE, AFTER, TEARDOWN = "before", "after", "teardown"

PIPELINE: tuple[Stage, ...] = (
    # Outermost: its after hook runs last and stores the response exactly as it leaves the app
    # (compressed, with CORS headers and ETag) for the replay lane.
    Stage("replay_store", _replay_store, frozenset({AFTER}), trick=True),
    # Every later hook, error and log line can name the request.
    Stage("request_id", lambda app, _: init_request_id(app), frozenset({BEFORE, AFTER})),
    # Times all the rest, and records the response as sent (the headers below included); hides
    # /metrics from requests without the token before anything reads the route.
    Stage("observability", _observability, frozenset({BEFORE, AFTER})),
    Stage("compress", lambda app, _: init_compression(app), frozenset({AFTER})),
    Stage("cors", _cors, frozenset({AFTER})),
    Stage("nosniff", lambda app, _: init_nosniff(app), frozenset({AFTER})),
    # After the limiter's after hook, which adds Retry-After to every metered response.
    Stage("retry_after", lambda app, _: init_retry_after(app), frozenset({AFTER})),
    Stage("links", lambda app, _: init_links(app), frozenset({AFTER})),
    # The key first: conditional requests, the quota and the limiter all read it.
    Stage("auth", _auth, frozenset({BEFORE})),
    # Before the quota: a 304 for a tag this worker sent is answered without charge.
    Stage("conditional", _conditional, frozenset({BEFORE, AFTER})),
    # Charges an admitted request ahead of the limiter, whose hooks then skip it.
    Stage("quota", _quota, frozenset({BEFORE, AFTER}), trick=True),
    # Frees the slot a heavy request held (taken by the GraphQL edge once it knows the cost),
    # however the request ended.
    Stage("concurrency", _concurrency, frozenset({TEARDOWN})),
    # Innermost: Flask-Limiter's own hooks (the 429, its headers, its in-memory fallback).
    Stage("limiter", _limiter, frozenset({BEFORE, AFTER, TEARDOWN})),
)


def stages(speed_tricks: bool) -> tuple[Stage, ...]:
    """The stages installed with speed tricks on or off, in order."""
    return tuple(stage for stage in PIPELINE if speed_tricks or not stage.trick)


def install_pipeline(app: Flask, state: WebState) -> None:
    """Register every stage's hooks in :data:`PIPELINE` order.

    Which stage registered each hook is kept in ``app.extensions[PIPELINE_EXTENSION]`` (kind ->
    [(stage name, hook)]); a stage that registers other kinds of hook than it declares is refused.
    """
    registered: dict[str, list[tuple[str, Hook]]] = {kind: [] for kind in HOOK_LISTS}
    for stage in stages(state.speed_tricks):
        counts = {kind: len(_hooks(app, kind)) for kind in HOOK_LISTS}
        stage.install(app, state)
        for kind in HOOK_LISTS:
            added = _hooks(app, kind)[counts[kind] :]
            if bool(added) != (kind in stage.hooks):
                raise RuntimeError(
                    f"pipeline stage {stage.name!r} registered {len(added)} {kind} hook(s); "
                    f"it declares {sorted(stage.hooks)}"
                )
            registered[kind].extend((stage.name, hook) for hook in added)
    app.extensions[PIPELINE_EXTENSION] = registered


def _hooks(app: Flask, kind: str) -> list[Hook]:
    hooks: list[Hook] = getattr(app, HOOK_LISTS[kind]).get(None, [])
    return hooks
