"""The quota state the replay lane reports is the one limits itself computes."""

import time

import pytest
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from web.accel.quota import window_stats

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
