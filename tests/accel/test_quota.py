"""web.accel.quota: on the per-process memory storage no leases, so every admitted request spends
exactly one unit and GET /usage agrees with the headers of the request before it; the window state
it reports is the one limits computes."""

import time
from collections.abc import Callable

import pytest
from flask import Flask
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from service import keys
from service.keys import KeyIdentity
from tests.faults.test_quota_leases import Clock
from web.accel.quota import Quota, window_stats
from web.limits import LIMITER_EXTENSION

BIG = KeyIdentity(id=9101, tier="enterprise", hourly_limit=5_000)  # would lease on Redis


@pytest.fixture
def memory_app(make_app: Callable[..., Flask]) -> Flask:
    return make_app(RATELIMIT_STORAGE_URI="memory://")


def _count_takes(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The amount of every take from the memory storage, recorded as it passes through."""
    storage = app.extensions[LIMITER_EXTENSION].storage
    taken: list[int] = []
    original = storage.acquire_sliding_window_entry

    def recording(key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        taken.append(amount)
        return original(key, limit, expiry, amount)

    monkeypatch.setattr(storage, "acquire_sliding_window_entry", recording)
    return taken


def test_a_busy_big_key_takes_one_unit_per_request_and_admits_exactly_its_limit(
    memory_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _count_takes(memory_app, monkeypatch)
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    admitted = sum(quota.charge(BIG) is not None for _ in range(5_100))
    assert admitted == 5_000
    assert set(taken) == {1}
    assert quota.held(BIG) == 0


def test_sixty_one_enterprise_requests_spend_sixty_one_units(memory_app: Flask) -> None:
    with memory_app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=5_000).plaintext
        db.commit()
    client = memory_app.test_client()
    headers = {"X-API-Key": key}
    remaining = [
        int(client.get("/api/v1/laws/CA", headers=headers).headers["X-RateLimit-Remaining"])
        for _ in range(61)
    ]
    assert remaining == list(range(4_999, 4_938, -1))
    usage = client.get("/api/v1/usage", headers=headers).get_json()["data"]
    assert usage["remaining"] == 4_939 == remaining[-1]


def test_usage_agrees_with_the_previous_headers_after_every_request(memory_app: Flask) -> None:
    with memory_app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=2_000).plaintext
        db.commit()
    client = memory_app.test_client()
    headers = {"X-API-Key": key}
    for path in ("/api/v1/laws/CA", "/api/v1/strains?limit=1", "/api/v1/laws/NY") * 5:
        sent = client.get(path, headers=headers).headers
        usage = client.get("/api/v1/usage", headers=headers).get_json()["data"]
        assert str(usage["remaining"]) == sent["X-RateLimit-Remaining"]
        assert str(usage["reset"]) == sent["X-RateLimit-Reset"]


def test_free_and_pro_keys_take_single_units(
    memory_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _count_takes(memory_app, monkeypatch)
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    pro = KeyIdentity(id=2, tier="pro", hourly_limit=None)
    states = [quota.charge(pro) for _ in range(5)]
    assert [s.remaining for s in states] == [999, 998, 997, 996, 995]
    assert taken == [1] * 5


def test_several_units_are_taken_whole_or_not_at_all(
    memory_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _count_takes(memory_app, monkeypatch)
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    small = KeyIdentity(id=9102, tier="enterprise", hourly_limit=10)
    states = [quota.charge(small, 4) for _ in range(3)]
    assert [s.remaining if s else None for s in states] == [6, 2, None]
    assert quota.charge(small, 2) is not None  # the refused 4 took nothing
    assert quota.charge(small) is None
    assert taken == [4, 4, 4, 2, 1]


START = 1_800_000_000.0  # a fixed clock, one hour boundary plus some


@pytest.mark.parametrize(
    ("limit", "hits_before", "hits_now", "minutes_later"),
    [
        ("100 per hour", 0, 1, 0),
        ("100 per hour", 0, 37, 10),
        ("100 per hour", 60, 20, 70),  # the previous window still weighs in
        ("5 per hour", 5, 0, 59),
        ("1000 per hour", 999, 1, 119),  # the previous window has almost expired
        ("3 per minute", 2, 1, 1),
    ],
)
def test_window_stats_match_the_strategy_for_the_same_window(
    monkeypatch: pytest.MonkeyPatch, limit: str, hits_before: int, hits_now: int, minutes_later: int
) -> None:
    clock = [START]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    storage = MemoryStorage()
    strategy = SlidingWindowCounterRateLimiter(storage)
    item = parse(limit)
    for _ in range(hits_before):
        strategy.hit(item, "key:1", "quota")
    clock[0] += minutes_later * 60
    for _ in range(hits_now):
        strategy.hit(item, "key:1", "quota")
    window = storage.get_sliding_window(item.key_for("key:1", "quota"), item.get_expiry())
    expected = strategy.get_window_stats(item, "key:1", "quota")
    assert window_stats(item, window, clock[0]) == (expected.reset_time, expected.remaining)
