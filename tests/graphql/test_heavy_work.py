"""Heavy GraphQL documents in flight (one process, memory:// quotas): a key's second one, or one
past the total, is refused at once with a 429 envelope; the slot is freed however the request
ends; cheap documents, REST pages and cached answers are never refused for it."""

from typing import Any

import pytest
from flask import Flask

import graphql_schema.deadline
from graphql_schema.view import ApiGraphQLView
from service import keys
from service.quotas import units_for_cost
from tests.graphql_refusals import refusal, refusal_body
from web.concurrency import HEAVY_EXTENSION, HeavyWork, Slot

# Heavy (over GRAPHQL_HEAVY_COST, 20,000): 1 + 100 x (1 + 100 x 2) values, the list and 100 menus.
HEAVY = "{ dispensaries(limit: 100) { items { menu(limit: 100) { name } } } }"
CHEAP = "{ dispensaries(limit: 20) { items { menu(limit: 20) { name } } } }"  # 820 values
WHAT = "heavy GraphQL requests"
BUDGET = 25_000  # GRAPHQL_COST_BUDGET's default
PER_KEY_MESSAGE = (
    "too many heavy GraphQL requests in flight for this key (at most 1 at a time); "
    "retry when one finishes"
)
TRICKS = pytest.mark.parametrize(
    "tricks", [True, False], ids=["speed tricks on", "speed tricks off"]
)


def _key(app: Flask, limit: int = 1_000) -> tuple[dict[str, str], int]:
    """A fresh enterprise key: its headers and its id."""
    with app.extensions["cds.sessions"]() as db:
        new = keys.create_key(db, tier="enterprise", hourly_limit=limit)
        db.commit()
        return {"X-API-Key": new.plaintext}, new.record.id


def _heavy(app: Flask) -> HeavyWork:
    return app.extensions[HEAVY_EXTENSION]


def _post(app: Flask, query: str, headers: dict[str, str]) -> Any:
    return app.test_client().post("/graphql", json={"query": query}, headers=headers)


def _released(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[Slot]:
    """The slots the app's teardown hook releases, recorded as they pass."""
    heavy = _heavy(app)
    released: list[Slot] = []
    original = heavy.release

    def recording(slot: Slot) -> None:
        released.append(slot)
        original(slot)

    monkeypatch.setattr(heavy, "release", recording)
    return released


@TRICKS
def test_a_keys_second_heavy_document_is_refused_at_once_and_costs_one_unit(
    make_app, tricks: bool
) -> None:
    app = make_app(SPEED_TRICKS=tricks, HEAVY_PER_KEY=1, HEAVY_TOTAL=2)
    headers, key_id = _key(app)
    _heavy(app).acquire(key_id, what=WHAT)  # its first, still running on another worker
    refused = _post(app, HEAVY, headers)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert refused.headers["X-RateLimit-Remaining"] == "999"
    assert refused.get_json() == refusal_body(429, PER_KEY_MESSAGE)


@TRICKS
def test_past_the_total_a_heavy_document_of_any_key_is_refused(make_app, tricks: bool) -> None:
    app = make_app(SPEED_TRICKS=tricks, HEAVY_PER_KEY=1, HEAVY_TOTAL=2)
    headers, _key_id = _key(app)
    for other in (990_001, 990_002):
        _heavy(app).acquire(other, what=WHAT)
    refused = _post(app, HEAVY, headers)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert refusal(refused)["message"] == (
        "too many heavy GraphQL requests in flight for all keys together (at most 2 at a time); "
        "retry in a moment"
    )


def _estimate(work, n: int, m: int) -> int:
    worked = work.field("Query", "dispensaries", limit=n) + work.field("Dispensary", "menu", n)
    return 1 + n * (1 + 2 * m) + worked


def test_the_documents_here_are_heavy_and_cheap(work) -> None:
    assert BUDGET >= _estimate(work, 100, 100) >= 20_000 > _estimate(work, 20, 20)


def test_cheap_documents_and_rest_pages_are_never_refused_for_concurrency(make_app, work) -> None:
    app = make_app(HEAVY_PER_KEY=1, HEAVY_TOTAL=1)
    headers, key_id = _key(app)
    _heavy(app).acquire(key_id, what=WHAT)  # the key's one slot, and the only one
    client = app.test_client()
    answers = [
        client.post("/graphql", json={"query": CHEAP}, headers=headers),
        client.get("/api/v1/strains?limit=100", headers=headers),
        client.get("/graphql", query_string={"query": "{ laws { state } }"}, headers=headers),
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert answers[0].get_json()["extensions"]["cost"]["requested"] == _estimate(work, 20, 20)


def test_the_heavy_cost_setting_moves_the_line(make_app, work) -> None:
    app = make_app(GRAPHQL_HEAVY_COST=_estimate(work, 100, 100) + 1, HEAVY_TOTAL=1)
    headers, key_id = _key(app)
    _heavy(app).acquire(key_id, what=WHAT)
    assert _post(app, HEAVY, headers).status_code == 200  # just under the line: not heavy


@TRICKS
def test_the_slot_is_freed_when_the_request_ends(
    make_app, monkeypatch: pytest.MonkeyPatch, tricks: bool
) -> None:
    app = make_app(SPEED_TRICKS=tricks, PAGE_CACHE_MB=0, HEAVY_TOTAL=1)
    headers, key_id = _key(app)
    released = _released(app, monkeypatch)
    assert [_post(app, HEAVY, headers).status_code for _ in range(3)] == [200, 200, 200]
    assert [slot.key for slot in released] == [f"{{cds:heavy}}:key:{key_id}"] * 3
    assert len({slot.token for slot in released}) == 3
    assert _post(app, CHEAP, headers).status_code == 200
    assert len(released) == 3  # a cheap document holds none


def test_the_slot_is_freed_after_an_unexpected_error(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(PAGE_CACHE_MB=0, HEAVY_TOTAL=1)
    headers, _key_id = _key(app)
    released = _released(app, monkeypatch)

    def broken(*_args: Any) -> Any:
        raise RuntimeError("a bug after execution")

    monkeypatch.setattr(ApiGraphQLView, "process_result", broken)
    failed = _post(app, HEAVY, headers)
    assert failed.status_code == 500
    assert len(released) == 1
    monkeypatch.undo()
    assert _post(app, HEAVY, headers).status_code == 200


@TRICKS
def test_the_slot_is_freed_after_the_time_budget_503(
    make_app, monkeypatch: pytest.MonkeyPatch, tricks: bool
) -> None:
    app = make_app(SPEED_TRICKS=tricks, PAGE_CACHE_MB=0, HEAVY_TOTAL=1)
    headers, _key_id = _key(app)
    released = _released(app, monkeypatch)
    real = graphql_schema.deadline.monotonic
    monkeypatch.setattr(graphql_schema.deadline, "monotonic", lambda: real() + 3_600)
    stopped = _post(app, HEAVY, headers)
    assert stopped.status_code == 503
    assert len(released) == 1
    monkeypatch.setattr(graphql_schema.deadline, "monotonic", real)
    assert _post(app, HEAVY, headers).status_code == 200


@TRICKS
def test_the_slot_is_freed_when_the_quota_cannot_cover_the_document(
    make_app, monkeypatch: pytest.MonkeyPatch, work, tricks: bool
) -> None:
    app = make_app(SPEED_TRICKS=tricks, HEAVY_TOTAL=1)
    headers, key_id = _key(app, limit=10)
    released = _released(app, monkeypatch)
    refused = _post(app, HEAVY, headers)
    assert refused.status_code == 429
    units = units_for_cost(_estimate(work, 100, 100))
    assert f"costs {units} quota units" in refusal(refused)["message"]
    assert len(released) == 1
    _heavy(app).release(_heavy(app).acquire(key_id, what=WHAT))  # free for the key again


@pytest.mark.usefixtures("speed_tricks")  # the replay lane and the result cache are tricks
def test_replayed_and_cached_answers_hold_no_slot(make_app, count_statements) -> None:
    app = make_app(STATE_TTL_MS=60_000, HEAVY_TOTAL=1)
    headers, key_id = _key(app)
    first = _post(app, HEAVY, headers)
    _heavy(app).acquire(key_id, what=WHAT)  # the key's one slot is taken meanwhile
    with count_statements(app) as seen:
        again = _post(app, HEAVY, headers)
    assert seen == []  # replayed in front of Flask
    newcomer, _newcomer_id = _key(app)  # not verified by this worker: Flask's result cache
    cached = _post(app, HEAVY, newcomer)
    assert [r.status_code for r in (first, again, cached)] == [200, 200, 200]
    assert cached.get_json()["data"] == first.get_json()["data"]
