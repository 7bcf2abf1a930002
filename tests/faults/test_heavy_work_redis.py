"""Heavy work in flight across workers: counted in Redis when the quotas are, crash-safe, and
counted per process while Redis is away."""

import logging

import pytest
import redis
from flask import Flask

from service import keys
from service.errors import TooManyRequests
from web.concurrency import HEAVY_EXTENSION, KEY_PREFIX, HeavyWork
from web.limits import LIMITER_EXTENSION

WHAT = "heavy GraphQL requests"
HEAVY = "{ dispensaries(limit: 100) { items { menu(limit: 100) { name } } } }"  # 20,101
DOWN_WARNING = "heavy-work counter storage unreachable"


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def workers(make_app, redis_server) -> list[Flask]:
    """Two apps on one Redis, as two gunicorn workers."""
    return [
        make_app(RATELIMIT_STORAGE_URI=redis_server.url, HEAVY_PER_KEY=1, HEAVY_TOTAL=2)
        for _ in range(2)
    ]


def _heavy(app: Flask) -> HeavyWork:
    return app.extensions[HEAVY_EXTENSION]


def _members(server) -> dict[str, int]:
    with redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=1) as client:
        return {
            name.decode(): client.zcard(name)
            for name in client.keys(f"{KEY_PREFIX}*")  # a literal: { } are not glob syntax
        }


def test_one_keys_slot_on_one_worker_refuses_its_second_on_the_other(
    workers: list[Flask], redis_server
) -> None:
    first = _heavy(workers[0]).acquire(5, what=WHAT)
    assert first.in_redis
    with pytest.raises(TooManyRequests, match="for this key"):
        _heavy(workers[1]).acquire(5, what=WHAT)
    assert _members(redis_server) == {f"{KEY_PREFIX}:key:5": 1, f"{KEY_PREFIX}:all": 1}
    _heavy(workers[0]).release(first)
    assert _members(redis_server) == {}  # both sets emptied (and so gone)
    _heavy(workers[1]).acquire(5, what=WHAT)


def test_the_total_is_shared_by_every_worker(workers: list[Flask]) -> None:
    _heavy(workers[0]).acquire(1, what=WHAT)
    _heavy(workers[1]).acquire(2, what=WHAT)
    for app in workers:
        with pytest.raises(TooManyRequests, match="for all keys together"):
            _heavy(app).acquire(3, what=WHAT)


def test_a_killed_workers_slots_lapse_at_their_expiry(workers: list[Flask], redis_server) -> None:
    clock = Clock()
    limiters = [app.extensions[LIMITER_EXTENSION] for app in workers]
    killed, alive = (
        HeavyWork(limiter, per_key=1, total=1, hold_s=5.0, clock=clock) for limiter in limiters
    )
    killed.acquire(5, what=WHAT)  # never released
    clock.now += 4.9
    with pytest.raises(TooManyRequests, match="for this key"):
        alive.acquire(5, what=WHAT)
    with pytest.raises(TooManyRequests, match="for all keys together"):
        alive.acquire(6, what=WHAT)
    clock.now += 0.1
    alive.acquire(5, what=WHAT)
    assert _members(redis_server) == {f"{KEY_PREFIX}:key:5": 1, f"{KEY_PREFIX}:all": 1}
    with redis.Redis(host="127.0.0.1", port=redis_server.port, socket_timeout=1) as client:
        # The sets themselves go once their last slot lapses.
        assert 0 < client.pttl(f"{KEY_PREFIX}:all") <= 5_000


def test_a_heavy_request_on_one_worker_is_refused_while_the_key_runs_one_on_another(
    workers: list[Flask], redis_server
) -> None:
    with workers[0].extensions["cds.sessions"]() as db:
        new = keys.create_key(db, tier="enterprise", hourly_limit=1_000)
        db.commit()
        key_id = new.record.id
    headers = {"X-API-Key": new.plaintext}
    client = workers[0].test_client()
    held = _heavy(workers[1]).acquire(key_id, what=WHAT)
    refused = client.post("/graphql", json={"query": HEAVY}, headers=headers)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert "in flight for this key" in refused.get_json()["errors"][0]["message"]
    _heavy(workers[1]).release(held)
    answered = client.post("/graphql", json={"query": HEAVY}, headers=headers)
    assert answered.status_code == 200
    assert _members(redis_server) == {}  # the teardown hook freed its slot


def test_while_redis_is_away_each_process_counts_its_own_with_one_warning(
    workers: list[Flask], redis_server, caplog: pytest.LogCaptureFixture
) -> None:
    app = workers[0]
    heavy = _heavy(app)
    redis_server.stop()
    with app.app_context(), caplog.at_level(logging.WARNING):
        first = heavy.acquire(5, what=WHAT)
        with pytest.raises(TooManyRequests, match="for this key"):
            heavy.acquire(5, what=WHAT)
        heavy.release(first)
        heavy.release(heavy.acquire(5, what=WHAT))
    assert not first.in_redis
    assert caplog.text.count(DOWN_WARNING) == 1
