"""Quota leases on Redis: busy keys with large limits take units in batches, never too many."""

from collections.abc import Callable

from flask import Flask

from service import keys
from service.keys import KeyIdentity
from web.accel.quota import LEASE_MAX_AGE_S, Quota
from web.limits import LIMITER_EXTENSION, QUOTA_EXTENSION, usage_of

BIG = KeyIdentity(id=9001, tier="enterprise", hourly_limit=5_000)  # leases of up to 5 units


class Clock:
    """Advances by ``step`` seconds each time it is read (a busy key: requests back to back)."""

    def __init__(self, step: float = 0.0001) -> None:
        self.now = 1000.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _redis_app(make_app: Callable[..., Flask], redis_server) -> Flask:
    return make_app(RATELIMIT_STORAGE_URI=redis_server.url)


def test_two_workers_leasing_one_key_admit_exactly_its_limit(
    make_app, redis_server, redis_commands
) -> None:
    apps = [_redis_app(make_app, redis_server) for _ in range(2)]
    workers = [Quota(app.extensions[LIMITER_EXTENSION], clock=Clock()) for app in apps]
    sent = [redis_commands(app) for app in apps]
    admitted = [0, 0]
    for n in range(6_000):
        worker = n % 2
        if workers[worker].charge(BIG) is not None:
            admitted[worker] += 1
    assert sum(admitted) == 5_000
    assert min(admitted) > 2_000  # both workers served, neither starved
    calls = len(sent[0]) + len(sent[1])
    # About one call per 5 admitted requests, and one per refused request once the hour is spent.
    assert calls < 1_000 + 1_000 + 100, calls


def test_the_reported_remaining_is_within_one_lease_of_what_redis_holds(
    make_app, redis_server
) -> None:
    app = _redis_app(make_app, redis_server)
    limiter = app.extensions[LIMITER_EXTENSION]
    quota = Quota(limiter, clock=Clock())
    for _ in range(200):
        state = quota.charge(BIG)
        assert state is not None
        held = usage_of(limiter, BIG)["remaining"]  # leased units count as spent in Redis
        assert held <= state.remaining <= held + 5
    assert usage_of(limiter, BIG)["remaining"] >= 5_000 - 200 - 5


def test_free_and_pro_keys_never_lease_and_report_exact_counts(
    make_app, redis_server, redis_commands
) -> None:
    app = _redis_app(make_app, redis_server)
    quota = Quota(app.extensions[LIMITER_EXTENSION], clock=Clock())
    quota.charge(KeyIdentity(id=1, tier="pro", hourly_limit=None))  # loads the script
    sent = redis_commands(app)
    states = [quota.charge(KeyIdentity(id=1, tier="pro", hourly_limit=None)) for _ in range(5)]
    assert [s.remaining for s in states] == [998, 997, 996, 995, 994]
    assert sent == ["EVALSHA"] * 5


def test_with_leases_turned_off_every_charge_is_counted_in_redis(
    make_app, redis_server, redis_commands
) -> None:
    app = _redis_app(make_app, redis_server)
    quota = Quota(app.extensions[LIMITER_EXTENSION], lease_share=0, clock=Clock())
    quota.charge(BIG)  # loads the script
    sent = redis_commands(app)
    states = [quota.charge(BIG) for _ in range(50)]
    assert [s.remaining for s in states] == list(range(4_998, 4_948, -1))
    assert sent == ["EVALSHA"] * 50


def test_a_lease_is_dropped_once_it_is_older_than_its_maximum_age(
    make_app, redis_server, redis_commands
) -> None:
    app = _redis_app(make_app, redis_server)
    clock = Clock()
    quota = Quota(app.extensions[LIMITER_EXTENSION], clock=clock)
    sent = redis_commands(app)
    for _ in range(20):  # busy: soon a charge is served from a lease, without Redis
        calls = len(sent)
        quota.charge(BIG)
        if len(sent) == calls:
            break
    else:
        raise AssertionError("no charge was served from a lease")
    clock.now += LEASE_MAX_AGE_S
    calls = len(sent)
    quota.charge(BIG)
    assert sent[calls:] == ["EVALSHA"]


def test_usage_agrees_with_the_headers_of_the_request_before_it_while_leasing(
    make_app, redis_server
) -> None:
    app = _redis_app(make_app, redis_server)
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=50_000).plaintext
        db.commit()
    client = app.test_client()
    headers = {"X-API-Key": key}
    quota = app.extensions[QUOTA_EXTENSION]
    leased = 0
    for _ in range(40):
        sent = client.get("/api/v1/laws/CA", headers=headers).headers
        leased = max(leased, quota.held(_identity(app, key)))
        usage = client.get("/api/v1/usage", headers=headers).get_json()["data"]
        assert str(usage["remaining"]) == sent["X-RateLimit-Remaining"]
    assert leased > 0  # the key did lease: Redis alone would have reported fewer units


def _identity(app: Flask, key: str) -> KeyIdentity:
    with app.extensions["cds.sessions"]() as db:
        return keys.authenticate(db, key)


def test_several_units_are_taken_all_or_none_and_never_beyond_the_limit(
    make_app, redis_server
) -> None:
    apps = [_redis_app(make_app, redis_server) for _ in range(2)]
    limiter = apps[0].extensions[LIMITER_EXTENSION]
    workers = [Quota(app.extensions[LIMITER_EXTENSION], clock=Clock()) for app in apps]
    admitted = 0
    for n in range(3_000):  # leasing single units and costly documents of 7, on both workers
        units = 7 if n % 3 == 0 else 1
        if workers[n % 2].charge(BIG, units) is not None:
            admitted += units
    held = sum(worker.held(BIG) for worker in workers)
    spent = 5_000 - usage_of(limiter, BIG)["remaining"]
    assert spent == admitted + held  # every unit Redis counts was admitted or is leased
    assert spent == 5_000
    assert admitted > 5_000 - 2 * 7 - 2 * 5  # at most a short tail and two leases unused
    # Past the limit a costly document is refused whole: nothing of it is taken.
    assert workers[0].charge(BIG, 7) is None
    assert usage_of(limiter, BIG)["remaining"] == 0


def test_several_units_come_from_a_live_lease_first(make_app, redis_server, redis_commands) -> None:
    app = _redis_app(make_app, redis_server)
    quota = Quota(app.extensions[LIMITER_EXTENSION], clock=Clock())
    for _ in range(20):  # busy: the key soon holds a lease of several units
        quota.charge(BIG)
        if quota.held(BIG) >= 2:
            break
    held = quota.held(BIG)
    assert held >= 2
    sent = redis_commands(app)
    state = quota.charge(BIG, held)
    assert sent == []  # served from the lease
    assert quota.held(BIG) == 0
    assert state is not None
    assert state.remaining == usage_of(app.extensions[LIMITER_EXTENSION], BIG)["remaining"]
    # More than the lease holds: the lease's units and the rest from Redis, in one call.
    for _ in range(20):
        quota.charge(BIG)
        if quota.held(BIG) >= 1:
            break
    before = usage_of(app.extensions[LIMITER_EXTENSION], BIG)["remaining"]
    held = quota.held(BIG)
    calls = len(sent)
    state = quota.charge(BIG, held + 3)
    assert sent[calls:] == ["EVALSHA"]
    assert state is not None
    assert state.remaining == before - 3
    # That call took a new lease too (the key is busy here): Redis counts it as spent.
    spare = quota.held(BIG)
    assert 1 <= spare <= 5
    assert usage_of(app.extensions[LIMITER_EXTENSION], BIG)["remaining"] == before - 3 - spare
