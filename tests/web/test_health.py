"""/health answers any number of requests with at most one database and one storage check per
second (per app), whatever the rate; its answers are unchanged."""

from dataclasses import dataclass, field

import pytest
from flask import Flask
from sqlalchemy import event

from app import REQUEST_ENGINE_EXTENSION
from web.limits import LIMITER_EXTENSION

OK = {"status": "ok", "checks": {"database": "ok", "rateLimitStorage": "ok"}}


class FakeClock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Checks:
    """How many ``SELECT 1`` the app's request engine ran and storage checks the limiter made."""

    database: int = 0
    storage: int = 0
    storage_answers: list[bool] = field(default_factory=list)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _counted(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Checks:
    checks = Checks()

    def count_select(_conn, _cursor, statement, *_args) -> None:
        if statement.strip().upper() == "SELECT 1":
            checks.database += 1

    engine = app.extensions[REQUEST_ENGINE_EXTENSION]
    event.listen(engine, "before_cursor_execute", count_select)
    storage = app.extensions[LIMITER_EXTENSION].storage
    original = storage.check

    def check() -> bool:
        checks.storage += 1
        return checks.storage_answers.pop(0) if checks.storage_answers else original()

    monkeypatch.setattr(storage, "check", check)
    return checks


@pytest.fixture
def counted_app(
    make_app, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> tuple[Flask, Checks]:
    app = make_app(HEALTH_CLOCK=clock)
    return app, _counted(app, monkeypatch)


def test_many_requests_within_a_second_make_one_check_of_each(counted_app, clock) -> None:
    app, checks = counted_app
    client = app.test_client()
    answers = []
    for _ in range(50):
        response = client.get("/health")
        answers.append((response.status_code, response.get_json()))
        clock.now += 0.019  # 50 requests over 0.95 s
    assert answers == [(200, OK)] * 50
    assert (checks.database, checks.storage) == (1, 1)


def test_after_a_second_the_next_request_checks_again_once(counted_app, clock) -> None:
    app, checks = counted_app
    client = app.test_client()
    assert client.get("/health").status_code == 200
    clock.now += 0.999
    assert client.get("/health").status_code == 200
    assert (checks.database, checks.storage) == (1, 1)
    clock.now += 0.001  # one second after the first check
    for _ in range(10):
        assert client.get("/health").status_code == 200
    assert (checks.database, checks.storage) == (2, 2)


def test_a_failed_check_is_also_reused_for_a_second(counted_app, clock) -> None:
    app, checks = counted_app
    checks.storage_answers.extend([False, True])
    client = app.test_client()
    degraded = [client.get("/health").get_json()["checks"]["rateLimitStorage"] for _ in range(5)]
    assert degraded == ["unavailable (using per-process memory)"] * 5
    clock.now += 1.0
    assert client.get("/health").get_json() == OK
    assert (checks.database, checks.storage) == (2, 2)


def test_each_app_keeps_its_own_answers(make_app, clock, monkeypatch) -> None:
    first, second = make_app(HEALTH_CLOCK=clock), make_app(HEALTH_CLOCK=clock)
    first_checks, second_checks = _counted(first, monkeypatch), _counted(second, monkeypatch)
    for app in (first, second, first, second):
        assert app.test_client().get("/health").status_code == 200
    assert (first_checks.database, first_checks.storage) == (1, 1)
    assert (second_checks.database, second_checks.storage) == (1, 1)


def test_a_ttl_of_zero_checks_on_every_request(make_app, clock, monkeypatch) -> None:
    app = make_app(HEALTH_CLOCK=clock, HEALTH_CHECK_TTL_S=0)
    checks = _counted(app, monkeypatch)
    client = app.test_client()
    assert [client.get("/health").status_code for _ in range(4)] == [200] * 4
    assert (checks.database, checks.storage) == (4, 4)
