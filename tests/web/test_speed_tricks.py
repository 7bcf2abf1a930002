"""SPEED_TRICKS=off builds the stock app: none of web.accel's tricks is installed."""

import sys

from flask import Flask

from web.accel.replay import ReplayLane
from web.accel.stack_chunk import _CHUNK_BYTES, FreshStackChunk, _make_trampoline
from web.accel.stack_chunk import APPLIES as FRESH_CHUNK_APPLIES
from web.limits import LIMITER_EXTENSION, QUOTA_EXTENSION
from web.pipeline import HOOK_LISTS


def _app_wide_hooks(app: Flask) -> list:
    return [hook for attribute in HOOK_LISTS.values() for hook in getattr(app, attribute)[None]]


def _from_accel(app: Flask) -> list[str]:
    return [
        f"{hook.__module__}.{hook.__qualname__}"
        for hook in _app_wide_hooks(app)
        if getattr(hook, "__module__", "").startswith("web.accel")
    ]


def test_with_speed_tricks_off_flask_and_its_extensions_run_as_shipped(make_app) -> None:
    app: Flask = make_app(SPEED_TRICKS=False)
    assert app.config["SPEED_TRICKS"] is False
    assert "wsgi_app" not in vars(app)  # no replay lane in front of Flask
    assert "ensure_sync" not in vars(app)  # Flask's own ensure_sync, asked on every request
    assert _from_accel(app) == []
    limiter = app.extensions[LIMITER_EXTENSION]
    assert app.before_request_funcs[None][-1] == limiter._check_request_limit
    teardown = app.teardown_request_funcs[None]
    assert teardown[-1] == limiter._Limiter__release_context
    assert [hook.__name__ for hook in teardown[:-1]] == ["release_heavy_slot"]
    names = [getattr(hook, "__name__", None) for hook in app.after_request_funcs[None]]
    assert "cors_after_request" in names  # flask-cors's own hook
    assert QUOTA_EXTENSION not in app.extensions  # the limiter's hook charges every request


def test_with_speed_tricks_on_each_web_trick_is_installed(make_app) -> None:
    app: Flask = make_app(SPEED_TRICKS=True)
    assert isinstance(app.wsgi_app, ReplayLane)
    if FRESH_CHUNK_APPLIES:  # what Flask serves starts in a fresh stack chunk
        assert isinstance(app.wsgi_app._app, FreshStackChunk)
    assert "ensure_sync" in vars(app)
    assert sorted(_from_accel(app)) == sorted(
        [
            "web.accel.replay.init_replay_store.<locals>.store_for_replay",
            "web.accel.cors.remember_cors_headers.<locals>.cors_headers",
            "web.accel.quota.init_quota.<locals>.charge",
            "web.accel.quota.init_quota.<locals>.quota_headers",
        ]
        + ["web.accel.limiter_hooks._unless_charged.<locals>.skipped_when_charged"] * 3
    )
    assert QUOTA_EXTENSION in app.extensions


def test_speed_tricks_follow_the_environment(make_app, monkeypatch) -> None:
    monkeypatch.setenv("SPEED_TRICKS", "off")
    assert make_app().config["SPEED_TRICKS"] is False
    monkeypatch.setenv("SPEED_TRICKS", "on")
    assert make_app().config["SPEED_TRICKS"] is True


def test_the_trampolines_frame_is_larger_than_a_stack_chunk() -> None:
    enter = _make_trampoline()
    assert enter.__code__.co_nlocals * 8 > _CHUNK_BYTES
    calls = []
    body = enter(lambda environ, start: calls.append(environ) or [b"ok"], {"k": 1}, None)
    assert (list(body), calls) == ([b"ok"], [{"k": 1}])


def test_only_the_deep_paths_take_the_trampoline(make_app) -> None:
    seen: list[tuple[str, str]] = []

    def inner(environ: dict, start_response: object) -> list[bytes]:
        seen.append((environ["PATH_INFO"], sys._getframe(1).f_code.co_name))
        return [b"ok"]

    chunked = FreshStackChunk(inner, {"/graphql"})
    for path in ("/graphql", "/api/v1/laws/CA", "/graphql/schema.graphql"):
        assert list(chunked({"PATH_INFO": path}, None)) == [b"ok"]
    assert seen == [
        ("/graphql", "enter"),  # called from the trampoline's large frame
        ("/api/v1/laws/CA", "__call__"),
        ("/graphql/schema.graphql", "__call__"),
    ]
    if FRESH_CHUNK_APPLIES:  # the app's own middleware knows the GraphQL endpoint as deep
        app: Flask = make_app(SPEED_TRICKS=True)
        assert app.wsgi_app._app.paths == {"/graphql"}


def test_with_speed_tricks_off_requests_enter_flask_directly(make_app) -> None:
    app: Flask = make_app(SPEED_TRICKS=False)
    assert not isinstance(app.wsgi_app, FreshStackChunk)
