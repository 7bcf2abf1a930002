"""Every pipeline stage and WSGI layer declares what the replay lane does about it; the lane
refuses to be built when its own steps and the stages declared mirrored disagree."""

from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from web.accel.replay import MIRRORS, ReplayLane, check_declarations
from web.accel.stack_chunk import FreshStackChunk
from web.pipeline import PIPELINE, WSGI_LAYERS, Stage, replay_declarations
from web.proxies import ForwardedAddressChecked
from web.replay import MIRRORED, Replay, ReplayTreatment, declined, not_needed

# The WSGI middleware classes web.wiring may put in front of Flask, by declared layer name.
LAYER_CLASSES: dict[type, str] = {
    ProxyFix: "proxy_fix",
    ForwardedAddressChecked: "proxy_fix",
    FreshStackChunk: "fresh_stack_chunk",
}


@pytest.mark.parametrize("part", [*PIPELINE, *WSGI_LAYERS], ids=lambda part: part.name)
def test_each_stage_and_layer_declares_its_replay_treatment(part: Any) -> None:
    treatment = part.replay
    assert isinstance(treatment, ReplayTreatment)
    assert isinstance(treatment.replay, Replay)
    if treatment.replay is Replay.MIRRORED:
        assert part.name in MIRRORS
    else:
        assert len(treatment.reason) >= 10, f"{part.name}: say why not needed or how declined"
        assert part.name not in MIRRORS


def test_a_stage_without_a_declaration_cannot_be_made() -> None:
    with pytest.raises(TypeError, match="replay"):
        Stage("new", lambda app, state: None, frozenset({"after"}))  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "make",
    [
        lambda: ReplayTreatment(Replay.NOT_NEEDED),
        lambda: ReplayTreatment(Replay.DECLINED),
        lambda: ReplayTreatment(Replay.MIRRORED, "a reason where the step is named instead"),
        lambda: not_needed(""),
        lambda: declined(""),
    ],
)
def test_a_reason_goes_with_not_needed_and_declined_only(make: Any) -> None:
    with pytest.raises(ValueError, match="reason"):
        make()


def test_the_lane_mirrors_auth_quota_request_id_and_observability() -> None:
    mirrored = {name for name, t in replay_declarations().items() if t.replay is Replay.MIRRORED}
    assert mirrored == {"auth", "quota", "request_id", "observability"} == set(MIRRORS)
    check_declarations(replay_declarations())
    assert all(callable(getattr(ReplayLane, step)) for step in MIRRORS.values())


def _declare(monkeypatch: pytest.MonkeyPatch, name: str, treatment: ReplayTreatment) -> None:
    changed = tuple(
        replace(stage, replay=treatment) if stage.name == name else stage for stage in PIPELINE
    )
    monkeypatch.setattr("web.pipeline.PIPELINE", changed)


def test_a_stage_declared_mirrored_without_a_lane_step_stops_the_app(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    _declare(monkeypatch, "nosniff", MIRRORED)
    with pytest.raises(RuntimeError, match=r"mirrored with no replay lane step: \['nosniff'\]"):
        make_app(SPEED_TRICKS=True)


def test_a_lane_step_for_a_stage_not_declared_mirrored_stops_the_app(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    _declare(monkeypatch, "quota", not_needed("pretending the lane need not charge"))
    with pytest.raises(RuntimeError, match=r"steps for no stage declared mirrored: \['quota'\]"):
        make_app(SPEED_TRICKS=True)


def test_a_lane_step_naming_no_stage_or_no_method_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    declared = replay_declarations()
    monkeypatch.setitem(MIRRORS, "no_such_stage", "__call__")
    with pytest.raises(RuntimeError, match=r"declared mirrored: \['no_such_stage'\]"):
        check_declarations(declared)
    monkeypatch.delitem(MIRRORS, "no_such_stage")
    monkeypatch.setitem(MIRRORS, "auth", "_no_such_method")
    with pytest.raises(RuntimeError, match="no method"):
        check_declarations(declared)


def test_with_speed_tricks_off_there_is_no_lane_to_check(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    _declare(monkeypatch, "nosniff", MIRRORED)
    assert not isinstance(make_app(SPEED_TRICKS=False).wsgi_app, ReplayLane)


def _wsgi_chain(app: Flask) -> list[type]:
    """The classes of the WSGI layers in front of Flask's own wsgi_app, outermost first."""
    chain = []
    layer: Any = app.wsgi_app
    while getattr(layer, "__self__", None) is not app:
        chain.append(type(layer))
        layer = layer.app if hasattr(layer, "app") else layer._app
    return chain


def test_every_wsgi_layer_in_front_of_flask_is_declared(make_app) -> None:
    app: Flask = make_app(SPEED_TRICKS=True, TRUSTED_PROXY_HOPS=1)
    chain = _wsgi_chain(app)
    assert chain[:3] == [ProxyFix, ForwardedAddressChecked, ReplayLane]
    undeclared = [kind for kind in chain if kind is not ReplayLane and kind not in LAYER_CLASSES]
    assert undeclared == []
    assert {LAYER_CLASSES[kind] for kind in chain if kind is not ReplayLane} <= {
        layer.name for layer in WSGI_LAYERS
    }
