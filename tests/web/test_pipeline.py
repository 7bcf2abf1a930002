"""The request hooks are registered, and run, in the order web.pipeline lists them."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask

from web.pipeline import HOOK_LISTS, PIPELINE, PIPELINE_EXTENSION, stages

# Outermost first. Flask runs before hooks in this order and after hooks in the reverse order.
BEFORE = ["request_id", "observability", "auth", "conditional", "quota", "limiter"]
AFTER = [
    "replay_store",
    "request_id",
    "observability",
    "compress",
    "cors",
    "nosniff",
    "retry_after",
    "links",
    "conditional",
    "quota",
    "limiter",
]
TEARDOWN = ["concurrency", "limiter"]
TRICKS = {"replay_store", "quota"}  # stages left out with SPEED_TRICKS off


def _without_tricks(names: list[str]) -> list[str]:
    return [name for name in names if name not in TRICKS]


def test_the_pipeline_lists_the_stages_in_this_order() -> None:
    assert [stage.name for stage in PIPELINE if "before" in stage.hooks] == BEFORE
    assert [stage.name for stage in PIPELINE if "after" in stage.hooks] == AFTER
    assert [stage.name for stage in PIPELINE if "teardown" in stage.hooks] == TEARDOWN
    assert {stage.name for stage in PIPELINE if stage.trick} == TRICKS


@pytest.mark.parametrize("tricks", [True, False], ids=["speed tricks on", "speed tricks off"])
def test_the_app_wide_hooks_are_exactly_the_pipelines_in_its_order(make_app, tricks: bool) -> None:
    app: Flask = make_app(SPEED_TRICKS=tricks)
    registered = app.extensions[PIPELINE_EXTENSION]
    for kind, attribute in HOOK_LISTS.items():
        # Every app-wide hook came from a stage (the edges register none), in stage order.
        assert [hook for _stage, hook in registered[kind]] == getattr(app, attribute)[None]
    expected = {"before": BEFORE, "after": AFTER, "teardown": TEARDOWN}
    for kind, names in expected.items():
        wanted = names if tricks else _without_tricks(names)
        assert [stage for stage, _hook in registered[kind]] == wanted
        assert [stage.name for stage in stages(tricks) if kind in stage.hooks] == wanted


def _record_calls(app: Flask, kind: str, calls: list[str]) -> None:
    """Wrap each app-wide hook of ``kind`` so that running it appends its stage's name."""
    hooks = getattr(app, HOOK_LISTS[kind])[None]
    for position, (stage, hook) in enumerate(app.extensions[PIPELINE_EXTENSION][kind]):

        def recorded(*args: Any, _stage: str = stage, _hook: Callable = hook) -> Any:
            calls.append(_stage)
            return _hook(*args)

        hooks[position] = recorded


@pytest.mark.parametrize("tricks", [True, False], ids=["speed tricks on", "speed tricks off"])
def test_a_keyed_read_runs_the_before_hooks_in_order_and_the_after_hooks_in_reverse(
    make_app, api_keys: dict, tricks: bool
) -> None:
    app: Flask = make_app(SPEED_TRICKS=tricks, PAGE_CACHE_MB=0)
    before: list[str] = []
    after: list[str] = []
    _record_calls(app, "before", before)
    _record_calls(app, "after", after)
    response = app.test_client().get("/api/v1/laws/CA", headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 200
    assert before == (BEFORE if tricks else _without_tricks(BEFORE))
    assert after == list(reversed(AFTER if tricks else _without_tricks(AFTER)))


def test_a_stage_that_registers_an_undeclared_kind_of_hook_is_refused(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    def links_and_a_before_hook(app: Flask, state: Any) -> None:
        links.install(app, state)
        app.before_request(lambda: None)

    links = next(stage for stage in PIPELINE if stage.name == "links")
    changed = tuple(
        replace(stage, install=links_and_a_before_hook) if stage is links else stage
        for stage in PIPELINE
    )
    monkeypatch.setattr("web.pipeline.PIPELINE", changed)
    with pytest.raises(RuntimeError, match="'links' registered 1 before hook"):
        make_app()
