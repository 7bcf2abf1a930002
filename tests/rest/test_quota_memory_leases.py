"""Quota leases on the per-process memory storage: a busy key with a large limit is charged
from a lease without touching the storage, its headers stay exact, and no unit is over-granted."""

from collections.abc import Callable

import pytest
from flask import Flask

from rest.limits import LIMITER_EXTENSION, usage_of
from rest.quota import Quota
from service.keys import KeyIdentity
from tests.faults.test_quota_leases import Clock

BIG = KeyIdentity(id=9101, tier="enterprise", hourly_limit=5_000)  # leases of up to 5 units


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


def test_a_busy_big_key_is_charged_mostly_from_leases_and_admits_exactly_its_limit(
    memory_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _count_takes(memory_app, monkeypatch)
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    admitted = sum(quota.charge(BIG) is not None for _ in range(6_000))
    assert admitted == 5_000
    # About one take per 5 admitted requests, then two tries (a lease, one unit) per refusal.
    assert len(taken) < 1_000 + 2 * 1_000 + 100, len(taken)
    assert max(taken) == 5


def test_with_one_process_the_reported_remaining_counts_down_exactly(
    memory_app: Flask,
) -> None:
    limiter = memory_app.extensions[LIMITER_EXTENSION]
    quota = Quota(limiter, clock=Clock())
    states = [quota.charge(BIG) for _ in range(200)]
    assert [s.remaining for s in states] == list(range(4_999, 4_799, -1))
    # What the storage holds counts the units leased but not yet used as spent.
    assert 4_800 - 5 <= usage_of(limiter, BIG)["remaining"] <= 4_800


def test_near_the_limit_a_lease_shrinks_to_single_units(
    memory_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    for _ in range(4_997):
        assert quota.charge(BIG) is not None
    taken = _count_takes(memory_app, monkeypatch)
    last = [quota.charge(BIG) for _ in range(5)]
    assert [s is not None for s in last] == [True, True, True, False, False]
    assert 1 in taken  # a full lease no longer fits: single units were taken


def test_free_and_pro_keys_never_lease(memory_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _count_takes(memory_app, monkeypatch)
    quota = Quota(memory_app.extensions[LIMITER_EXTENSION], clock=Clock())
    pro = KeyIdentity(id=2, tier="pro", hourly_limit=None)
    states = [quota.charge(pro) for _ in range(5)]
    assert [s.remaining for s in states] == [999, 998, 997, 996, 995]
    assert taken == [1] * 5
