"""Heavy work in flight in one process (memory:// quotas): bounds, refusals, expiry."""

import pytest
from flask import Flask

from service.errors import TooManyRequests
from web.concurrency import HEAVY_EXTENSION, HeavyWork
from web.limits import LIMITER_EXTENSION

WHAT = "heavy GraphQL requests"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def app(make_app) -> Flask:
    return make_app(HEAVY_PER_KEY=1, HEAVY_TOTAL=2)


def test_the_app_bounds_heavy_work_by_its_settings(app: Flask) -> None:
    heavy: HeavyWork = app.extensions[HEAVY_EXTENSION]
    assert (heavy.per_key, heavy.total) == (1, 2)


def test_a_keys_second_slot_is_refused_naming_the_per_key_bound(app: Flask) -> None:
    heavy: HeavyWork = app.extensions[HEAVY_EXTENSION]
    first = heavy.acquire(7, what=WHAT)
    with pytest.raises(TooManyRequests) as refused:
        heavy.acquire(7, what=WHAT)
    assert refused.value.code == 429
    assert refused.value.retry_after == 1
    assert refused.value.message == (
        "too many heavy GraphQL requests in flight for this key (at most 1 at a time); "
        "retry when one finishes"
    )
    assert not first.in_redis
    heavy.release(first)
    heavy.release(heavy.acquire(7, what=WHAT))


def test_past_the_total_every_key_is_refused_naming_the_total(app: Flask) -> None:
    heavy: HeavyWork = app.extensions[HEAVY_EXTENSION]
    held = [heavy.acquire(key_id, what=WHAT) for key_id in (1, 2)]
    with pytest.raises(TooManyRequests) as refused:
        heavy.acquire(3, what=WHAT)
    assert refused.value.message == (
        "too many heavy GraphQL requests in flight for all keys together (at most 2 at a time); "
        "retry in a moment"
    )
    heavy.release(held[0])
    heavy.release(heavy.acquire(3, what=WHAT))


def test_a_slot_never_released_lapses_after_the_time_budget_and_margin(app: Flask) -> None:
    clock = Clock()
    limiter = app.extensions[LIMITER_EXTENSION]
    heavy = HeavyWork(limiter, per_key=1, total=1, hold_s=5.0, clock=clock)
    heavy.acquire(7, what=WHAT)  # its worker thread died: never released
    clock.now += 4.9
    with pytest.raises(TooManyRequests):
        heavy.acquire(8, what=WHAT)
    clock.now += 0.1
    assert heavy.acquire(8, what=WHAT).key.endswith(":key:8")
