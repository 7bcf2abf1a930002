"""GraphQL charges the shared quota by cost: one unit per started 1,000 of the estimate, at
least 1; a refused document costs 1; replayed and cached answers cost what the fresh one did."""

import json
from typing import Any

import pytest
from flask import Flask

from service import keys
from service.quotas import units_for_cost
from tests.graphql_refusals import refusal

# 1 + n x (1 + 2m): dispensaries 1, each of n items 1 + its menu of m items x (1 + name 1); and
# the work: the list, and the menus of its n dispensaries.
PRICED = (
    "query($n: Int!, $m: Int!) { dispensaries(limit: $n) { items { menu(limit: $m) { name } } } }"
)
HEAVY = {"n": 80, "m": 100}  # 16,001 values and the work of 80 menus: about 19 units
BUDGET = 25_000


def _estimate(work, n: int, m: int) -> int:
    worked = work.field("Query", "dispensaries", limit=n) + work.field("Dispensary", "menu", n)
    return 1 + n * (1 + 2 * m) + worked


TRICKS = pytest.mark.parametrize(
    "tricks", [True, False], ids=["speed tricks on", "speed tricks off"]
)


def _key(app: Flask, limit: int = 1_000) -> dict[str, str]:
    with app.extensions["cds.sessions"]() as db:
        plaintext = keys.create_key(db, tier="enterprise", hourly_limit=limit).plaintext
        db.commit()
    return {"X-API-Key": plaintext}


def _post(app: Flask, headers: dict[str, str], query: str = PRICED, **variables: int) -> Any:
    payload: dict[str, Any] = {"query": query}
    if variables:
        payload["variables"] = variables
    return app.test_client().post("/graphql", json=payload, headers=headers)


def _remaining(response: Any) -> int:
    return int(response.headers["X-RateLimit-Remaining"])


@TRICKS
@pytest.mark.parametrize(("n", "m", "units"), [(1, 1, 1), (10, 20, 2), (20, 30, 3), (80, 100, 19)])
def test_a_document_costs_one_unit_per_started_thousand_of_its_estimate(
    make_app, work, tricks: bool, n: int, m: int, units: int
) -> None:
    estimate = _estimate(work, n, m)
    assert units_for_cost(estimate) == units
    app = make_app(SPEED_TRICKS=tricks)
    answer = _post(app, _key(app), n=n, m=m)
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["extensions"]["cost"] == {"requested": estimate, "budget": BUDGET, "charged": units}
    assert _remaining(answer) == 1_000 - units
    assert body["extensions"]["rateLimit"]["remaining"] == 1_000 - units
    assert body["extensions"]["rateLimit"]["reset"] == int(answer.headers["X-RateLimit-Reset"])


@TRICKS
def test_one_bucket_holds_both_edges_charges(make_app, tricks: bool) -> None:
    app = make_app(SPEED_TRICKS=tricks)
    headers = _key(app)
    graphql = _post(app, headers, n=20, m=30)  # 3 units
    rest = app.test_client().get("/api/v1/laws/CA", headers=headers)
    usage = app.test_client().get("/api/v1/usage", headers=headers).get_json()["data"]
    assert [_remaining(graphql), _remaining(rest), usage["remaining"]] == [997, 996, 996]


@TRICKS
def test_a_refused_document_costs_one_unit(make_app, work, tricks: bool) -> None:
    app = make_app(SPEED_TRICKS=tricks)
    headers = _key(app)
    over_budget = _post(app, headers, n=100, m=200, query=PRICED.replace("name", "name id"))
    too_deep = _post(app, headers, query="{ " + "strains { items { " * 6 + "name" + " }" * 13)
    invalid = _post(app, headers, query='{ law(state: "CA") { nope } }')
    refused = [over_budget, too_deep, invalid]
    assert [r.status_code for r in refused] == [200, 200, 200]
    assert [r.get_json()["data"] for r in refused] == [None, None, None]
    messages = [r.get_json()["errors"][0]["message"] for r in refused]
    over = _estimate(work, 100, 100) + 100 * 100  # menus of 100 items with two fields each
    assert messages[0].startswith(f"Estimated query cost {over} exceeds the budget of 25000")
    assert messages[1] == "'anonymous' exceeds maximum operation depth of 10"
    assert messages[2] == "Cannot query field 'nope' on type 'Law'."
    assert [_remaining(r) for r in refused] == [999, 998, 997]


@TRICKS
def test_a_document_the_quota_cannot_cover_is_refused_for_one_unit(
    make_app, work, tricks: bool
) -> None:
    app = make_app(SPEED_TRICKS=tricks)
    estimate = _estimate(work, **HEAVY)
    units = units_for_cost(estimate)
    headers = _key(app, limit=units + 4)
    first = _post(app, headers, **HEAVY)
    refused = _post(app, headers, **HEAVY)
    cheap = _post(app, headers, n=1, m=1)
    assert [r.status_code for r in (first, refused, cheap)] == [200, 429, 200]
    assert [_remaining(r) for r in (first, refused, cheap)] == [4, 3, 2]
    assert refusal(refused) == {
        "code": 429,
        "message": f"this GraphQL document (estimated cost {estimate:,}) costs {units} quota "
        "units and this API key has 3 left: it was not run (the request cost 1 unit); wait for "
        "the time in Retry-After, or ask for less",
        "docs": "/docs/errors#error-429",
    }
    # Until the window next counts down, rounded up to the second as every reset is reported.
    assert 1 <= int(refused.headers["Retry-After"]) <= 3_601


@pytest.mark.usefixtures("speed_tricks")  # the replay lane and the result cache are tricks
def test_replayed_and_cached_answers_cost_what_the_fresh_one_did(
    make_app, count_statements, work
) -> None:
    units = units_for_cost(_estimate(work, **HEAVY))
    app = make_app(STATE_TTL_MS=60_000)
    headers = _key(app)
    first = _post(app, headers, **HEAVY)
    with count_statements(app) as seen:
        replayed = _post(app, headers, **HEAVY)
    assert seen == []  # answered in front of Flask
    newcomer = _key(app)  # a key this worker has not verified: Flask, from its result cache
    with count_statements(app) as seen:
        cached = _post(app, newcomer, **HEAVY)
    assert not [statement for statement in seen if "menu" in statement]
    expected = [1_000 - units, 1_000 - 2 * units, 1_000 - units]
    assert [_remaining(r) for r in (first, replayed, cached)] == expected
    for answer in (first, replayed, cached):
        body = json.loads(answer.data)
        assert body["extensions"]["cost"]["charged"] == units
        assert body["extensions"]["rateLimit"]["remaining"] == _remaining(answer)


@pytest.mark.usefixtures("speed_tricks")
def test_a_replay_the_quota_cannot_cover_is_refused_as_a_fresh_answer_would_be(
    make_app, work
) -> None:
    units = units_for_cost(_estimate(work, **HEAVY))
    app = make_app(STATE_TTL_MS=60_000)
    headers = _key(app, limit=units + 9)
    first = _post(app, headers, **HEAVY)
    refused = _post(app, headers, **HEAVY)  # the lane declines; Flask's result cache refuses
    assert [r.status_code for r in (first, refused)] == [200, 429]
    assert [_remaining(r) for r in (first, refused)] == [9, 8]
    assert f"costs {units} quota units and this API key has 8 left" in (refusal(refused)["message"])
