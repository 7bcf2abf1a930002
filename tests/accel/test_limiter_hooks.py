"""web.accel.limiter_hooks: a request the quota already charged skips Flask-Limiter's hooks."""

import pytest
from flask import Flask, request
from flask_limiter import Limiter

from service import keys
from web.db import SESSIONS_EXTENSION


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
