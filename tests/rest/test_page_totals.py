"""Per-request work: a list page and its total come from one statement (a window past the end
counts apart), hooks are not re-inspected, and a charged request skips the limiter's hook."""

import flask.app
import pytest
from flask import Flask, request
from flask_limiter import Limiter

from service import keys
from web.db import SESSIONS_EXTENSION

CASES = [
    ("/api/v1/strains", {}),
    ("/api/v1/strains", {"type": "indica"}),
    ("/api/v1/strains", {"effect": "relaxed", "thc_min": "15"}),
    ("/api/v1/dispensaries", {"state": "CA"}),
]


@pytest.mark.parametrize(("path", "params"), CASES)
def test_a_full_page_and_its_total_take_one_statement(
    make_app, api_keys: dict, count_statements, path: str, params: dict
) -> None:
    app: Flask = make_app(PAGE_CACHE_MB=0)  # no stored pages: every request runs its SQL
    client = app.test_client()
    query = {**params, "limit": 2}
    headers = {"X-API-Key": api_keys["pro"]}
    client.get(path, query_string=query, headers=headers)  # the key and version are now known
    with count_statements(app) as seen:
        body = client.get(path, query_string=query, headers=headers).get_json()
    assert len(body["data"]) == 2
    # The page with its count (and, for strains, each strain's effects and flavors).
    assert len(seen) == 1, seen


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


@pytest.mark.usefixtures("speed_tricks")
@pytest.mark.parametrize(
    "hook", ["_check_request_limit", "_Limiter__inject_headers", "_Limiter__release_context"]
)
def test_the_limiter_hooks_run_only_for_requests_the_quota_did_not_charge(
    make_app, monkeypatch: pytest.MonkeyPatch, hook: str
) -> None:
    entered = []
    original = getattr(Limiter, hook)

    def spy(self, *args, **kwargs):
        entered.append(request.path)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Limiter, hook, spy)
    app: Flask = make_app(PAGE_CACHE_MB=0)
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=1).plaintext
        db.commit()
    client = app.test_client()
    first = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert (first.status_code, entered) == (200, [])  # charged ahead: the hook is skipped
    second = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert (second.status_code, entered) == (429, ["/api/v1/laws/CA"])  # the limiter refuses it
    assert second.headers["Retry-After"]  # with the limiter's own headers
