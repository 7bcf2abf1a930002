"""Garbage collection between requests in gunicorn's sync workers (web.accel.gc_schedule), as
gunicorn.conf.py installs it."""

import gc
import os
import runpy
from collections.abc import Iterator
from pathlib import Path

import pytest
from gunicorn.workers.gthread import ThreadWorker
from gunicorn.workers.sync import SyncWorker

from web.accel.gc_schedule import CollectBetweenRequests

GUNICORN_CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"

THREE_GENERATIONS = pytest.mark.skipif(
    not CollectBetweenRequests.APPLIES, reason="Python 3.14's collector is incremental"
)


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """The process's collector thresholds, put back (and collection re-enabled) afterwards."""
    found = gc.get_threshold()
    gc.collect()
    yield found
    gc.set_threshold(*found)
    gc.enable()


def _young_objects(count: int) -> list[list[int]]:
    """At least ``count`` new container objects (more: the first few may come from a free list
    of recycled lists, which the collector's count does not see)."""
    return [[n] for n in range(count + 200)]


@THREE_GENERATIONS
def test_collection_waits_for_the_end_of_the_request(thresholds) -> None:
    collector = CollectBetweenRequests(ceiling=50_000)
    assert gc.get_threshold() == (50_000, *thresholds[1:])
    gc.collect()
    before = gc.get_stats()[0]["collections"]
    during = _young_objects(5 * thresholds[0])  # five collections' worth under the default
    assert gc.get_stats()[0]["collections"] == before  # none ran while the "request" allocated
    del during
    kept = _young_objects(thresholds[0])  # survivors of the request (a cache entry, say)
    assert collector.after_request() == 0
    assert gc.get_count()[0] < thresholds[0]
    assert collector.after_request() is None  # nothing new since: nothing to do
    collector.stop()
    assert gc.get_threshold() == thresholds
    assert kept[-1] == [thresholds[0] + 199]


@THREE_GENERATIONS
def test_older_generations_follow_cpythons_schedule(thresholds) -> None:
    collector = CollectBetweenRequests()
    every_young, every_middle, every_old = thresholds
    gc.collect()
    collected = []
    # One more than every_middle young collections, then one of the middle generation; one more
    # than every_old of those, then a full collection.
    cycle = every_middle + 2
    for _ in range(cycle * (every_old + 1) + 1):
        kept = _young_objects(every_young)
        collected.append(collector.after_request())
        del kept
    collector.stop()
    assert collected[: every_middle + 1] == [0] * (every_middle + 1)
    assert [n for n, generation in enumerate(collected) if generation == 1] == [
        every_middle + 1 + cycle * k for k in range(every_old + 1)
    ]
    assert [n for n, generation in enumerate(collected) if generation == 2] == [
        cycle * (every_old + 1)
    ]
    assert None not in collected


@THREE_GENERATIONS
def test_a_huge_request_still_collects_at_the_ceiling(thresholds) -> None:
    collector = CollectBetweenRequests(ceiling=2_000)
    gc.collect()
    before = gc.get_stats()[0]["collections"]
    during = _young_objects(10_000)
    assert gc.get_stats()[0]["collections"] > before
    assert gc.get_count()[0] < 2_000
    collector.stop()
    del during


@pytest.fixture
def hooks(monkeypatch: pytest.MonkeyPatch) -> dict:
    """gunicorn.conf.py's functions, read for one worker (more would make a metrics directory
    and point PROMETHEUS_MULTIPROC_DIR at it for the rest of the process)."""
    monkeypatch.setenv("WEB_CONCURRENCY", "1")
    for name in ("PROMETHEUS_MULTIPROC_DIR", "CDS_METRICS_DIR_PREPARED", "CDS_METRICS_DIR_CREATED"):
        monkeypatch.delenv(name, raising=False)
    found = runpy.run_path(str(GUNICORN_CONF))
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    return found


@THREE_GENERATIONS
def test_gunicorn_sync_workers_collect_between_requests(thresholds, hooks: dict) -> None:
    worker = SyncWorker.__new__(SyncWorker)  # the hooks only ask which kind of worker it is
    hooks["post_worker_init"](worker)
    try:
        assert gc.get_threshold()[0] == 100_000
        gc.collect()
        kept = _young_objects(thresholds[0])
        hooks["post_request"](worker, None, {}, None)
        assert gc.get_count()[0] < thresholds[0]
        assert kept
    finally:
        gc.unfreeze()


def test_gunicorn_thread_workers_keep_the_default_schedule(thresholds, hooks: dict) -> None:
    worker = ThreadWorker.__new__(ThreadWorker)
    hooks["post_worker_init"](worker)
    try:
        assert gc.get_threshold() == thresholds  # requests overlap: no "between" to wait for
        hooks["post_request"](worker, None, {}, None)
    finally:
        gc.unfreeze()
