"""Heavy work in flight (service.inflight) and quota units by cost (service.quotas)."""

import pytest

from service.inflight import Bound, InFlight, default_heavy_total
from service.quotas import units_for_cost


@pytest.mark.parametrize(
    ("workers", "total"), [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (9, 4), (16, 8)]
)
def test_half_the_workers_may_run_heavy_work_and_at_least_one(workers: int, total: int) -> None:
    assert default_heavy_total(workers) == total


@pytest.mark.parametrize(
    ("cost", "units"),
    [(0, 1), (1, 1), (999, 1), (1_000, 1), (1_001, 2), (2_500, 3), (20_101, 21), (25_000, 25)],
)
def test_a_document_costs_one_unit_per_started_thousand_and_at_least_one(
    cost: int, units: int
) -> None:
    assert units_for_cost(cost) == units


def _take(slots: InFlight, key: str, token: str, *, now: float = 0.0, per_key=1, total=2):
    return slots.acquire(key, token, now=now, expires=now + 5, per_key=per_key, total=total)


def test_a_key_holds_at_most_its_bound_and_other_keys_are_not_affected() -> None:
    slots = InFlight()
    assert _take(slots, "a", "a1") is None
    assert _take(slots, "a", "a2") is Bound.PER_KEY
    assert _take(slots, "b", "b1") is None
    assert (slots.held("a"), slots.held("b"), slots.held()) == (1, 1, 2)


def test_all_keys_together_hold_at_most_the_total() -> None:
    slots = InFlight()
    taken = [
        _take(slots, key, token, per_key=2, total=3)
        for key, token in [("a", "a1"), ("a", "a2"), ("b", "b1")]
    ]
    assert taken == [None] * 3
    assert _take(slots, "c", "c1", per_key=2, total=3) is Bound.TOTAL
    assert slots.held("c") == 0


def test_a_released_slot_is_free_again_and_a_second_release_changes_nothing() -> None:
    slots = InFlight()
    assert _take(slots, "a", "a1") is None
    slots.release("a1")
    slots.release("a1")
    slots.release("never-taken")
    assert slots.held() == 0
    assert _take(slots, "a", "a2") is None


def test_a_slot_never_released_lapses_at_its_expiry() -> None:
    slots = InFlight()
    assert _take(slots, "a", "crashed", now=100.0) is None  # expires at 105
    assert _take(slots, "a", "a2", now=104.9) is Bound.PER_KEY
    assert _take(slots, "a", "a2", now=105.0) is None
    assert slots.held("a") == 1
