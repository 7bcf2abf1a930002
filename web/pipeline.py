"""The order of the request hooks, as data: :data:`PIPELINE`, outermost stage first.

Flask runs before-request hooks in the order they were registered and after-request hooks in the
reverse order, so registering the stages in this order makes each one wrap those after it, as in
Starlette's middleware stack: its before hook runs before theirs and its after hook after theirs.
Nothing else registers app-wide hooks (tests/web/test_pipeline.py checks both). Each stage, and
each WSGI layer in front of Flask, declares what the replay lane does about it; the lane checks.
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
from .replay import MIRRORED, ReplayTreatment, declined, not_needed
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
    replay: ReplayTreatment  # what the replay lane does about it (web.replay.Replay)
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
    replays = state.replays is not None and state.replays.enabled
    init_conditional(app, limiter=state.limiter, version=state.version.get, replays=replays)


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
    Stage(
        "replay_store",
        _replay_store,
        frozenset({AFTER}),
        not_needed("what the lane replays is stored already"),
        trick=True,
    ),
    # Every later hook, error and log line can name the request.
    Stage("request_id", lambda app, _: init_request_id(app), frozenset({BEFORE, AFTER}), MIRRORED),
    # Times all the rest, and records the response as sent (the headers below included); hides
    # /metrics from requests without the token before anything reads the route.
    Stage("observability", _observability, frozenset({BEFORE, AFTER}), MIRRORED),
    Stage(
        "compress",
        lambda app, _: init_compression(app),
        frozenset({AFTER}),
        not_needed("the body is stored compressed, filed under Accept-Encoding"),
    ),
    Stage(
        "cors",
        _cors,
        frozenset({AFTER}),
        not_needed("its headers are stored, filed under Origin; OPTIONS is never replayed"),
    ),
    Stage(
        "nosniff",
        lambda app, _: init_nosniff(app),
        frozenset({AFTER}),
        not_needed("its header is stored"),
    ),
    # After the limiter's after hook, which adds Retry-After to every metered response.
    Stage(
        "retry_after",
        lambda app, _: init_retry_after(app),
        frozenset({AFTER}),
        not_needed("a replayed 200 has no Retry-After: the lane never stores one"),
    ),
    Stage(
        "links",
        lambda app, _: init_links(app),
        frozenset({AFTER}),
        not_needed("a replay is a 200 without Location, for a path that matched a route"),
    ),
    # The key first: conditional requests, the quota and the limiter all read it.
    Stage("auth", _auth, frozenset({BEFORE}), MIRRORED),
    # Before the quota: a 304 for a tag this worker sent is answered without charge.
    Stage(
        "conditional",
        _conditional,
        frozenset({BEFORE, AFTER}),
        declined("a request with If-None-Match goes to Flask (the ETag itself is stored)"),
    ),
    # Charges an admitted request ahead of the limiter, whose hooks then skip it.
    Stage("quota", _quota, frozenset({BEFORE, AFTER}), MIRRORED, trick=True),
    # Frees the slot a heavy request held (taken by the GraphQL edge once it knows the cost),
    # however the request ended.
    Stage(
        "concurrency",
        _concurrency,
        frozenset({TEARDOWN}),
        not_needed("a replay executes no document, so holds no slot"),
    ),
    # Innermost: Flask-Limiter's own hooks (the 429, its headers, its in-memory fallback).
    Stage(
        "limiter",
        _limiter,
        frozenset({BEFORE, AFTER, TEARDOWN}),
        declined(
            "when the quota does not charge (over the limit, no shared storage) Flask answers"
        ),
    ),
)


@dataclass(frozen=True)
class Layer:
    """A WSGI layer web.wiring may put in front of Flask, besides the replay lane itself."""

    name: str
    replay: ReplayTreatment


WSGI_LAYERS: tuple[Layer, ...] = (
    # web.proxies.trust_proxies, outermost (with TRUSTED_PROXY_HOPS > 0).
    Layer("proxy_fix", not_needed("in front of the lane: replayed requests pass it too")),
    # web.accel.stack_chunk, between the lane and Flask (with tricks on, where it applies).
    Layer("fresh_stack_chunk", not_needed("it only starts what Flask serves")),
)


def replay_declarations() -> dict[str, ReplayTreatment]:
    """What the replay lane does about each stage and WSGI layer, by name (the lane checks it)."""
    declared = {stage.name: stage.replay for stage in PIPELINE}
    return declared | {layer.name: layer.replay for layer in WSGI_LAYERS}


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
