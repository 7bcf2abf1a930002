"""web.accel.sync_cache: the app asks once, not on every request, whether a hook is a coroutine."""

import flask.app
import pytest


@pytest.mark.usefixtures("speed_tricks")
def test_the_app_asks_once_whether_each_hook_is_a_coroutine(
    api, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.json("/api/v1/laws/CA")
    asked = []
    original = flask.app.iscoroutinefunction
    monkeypatch.setattr(flask.app, "iscoroutinefunction", lambda f: asked.append(f) or original(f))
    api.json("/api/v1/laws/CA")
    assert asked == []
