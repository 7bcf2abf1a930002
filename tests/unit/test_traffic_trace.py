"""The mixed-traffic trace of bench/traffic.py, built from the shared tiny dataset: the same for
the same seed, Zipf-popular, over every endpoint, and made only of requests that answer 200."""

import importlib.util
import json
import statistics
from collections import Counter
from datetime import date
from pathlib import Path
from types import ModuleType

import pytest
from flask import Flask
from sqlalchemy import Engine

TRAFFIC = Path(__file__).resolve().parents[2] / "bench" / "traffic.py"
REQUESTS, DISTINCT, S = 2000, 500, 1.1
TODAY_ENDPOINTS = {
    "GET /api/v1/strains",
    "GET /api/v1/strains/{slug}",
    "GET /api/v1/dispensaries",
    "GET /api/v1/dispensaries/{id}",
    "GET /api/v1/deals",
    "GET /api/v1/deals/{id}",
    "GET /api/v1/doctors",
    "GET /api/v1/doctors/{id}",
    "GET /api/v1/laws",
    "GET /api/v1/laws/{state}",
    "GET /api/v1/search",
    "POST /graphql",
}
# Without and with the requests of traffic.NEW_FEATURES; the second runs once it is switched on.
FEATURE_SETS = [pytest.param(False, id="today"), pytest.param(True, id="new-features")]


@pytest.fixture(scope="module")
def traffic() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_traffic", TRAFFIC)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=FEATURE_SETS)
def new_features(request: pytest.FixtureRequest, traffic: ModuleType) -> bool:
    if request.param and not traffic.NEW_FEATURES:
        pytest.skip("traffic.NEW_FEATURES is off: the new endpoints have not landed")
    return request.param


def _trace(traffic: ModuleType, engine: Engine, day: date, *, new: bool, seed: int = 22) -> list:
    return traffic.build_trace(
        engine,
        seed=seed,
        requests=REQUESTS,
        distinct=DISTINCT,
        s=S,
        new_features=new,
        today=day,
    )


def test_the_same_seed_gives_the_same_trace_and_another_seed_another(
    traffic: ModuleType, engine: Engine, reference_day: date
) -> None:
    first = _trace(traffic, engine, reference_day, new=False)
    again = _trace(traffic, engine, reference_day, new=False)
    other = _trace(traffic, engine, reference_day, new=False, seed=23)

    assert again == first
    assert other != first


def test_a_trace_holds_the_requested_length_with_each_distinct_request_in_it(
    traffic: ModuleType, engine: Engine, reference_day: date, new_features: bool
) -> None:
    trace = _trace(traffic, engine, reference_day, new=new_features)

    assert len(trace) == REQUESTS
    assert len(set(trace)) >= DISTINCT


def test_popularity_falls_off_like_zipf(
    traffic: ModuleType, engine: Engine, reference_day: date
) -> None:
    counts = sorted(Counter(_trace(traffic, engine, reference_day, new=False)).values())
    distinct = len(counts)
    harmonic = sum(1 / rank**S for rank in range(1, distinct + 1))
    # Each request once, then REQUESTS - distinct draws, rank r with probability r**-S / harmonic.
    expected_top = 1 + (REQUESTS - distinct) / harmonic
    expected_median = 1 + (REQUESTS - distinct) * (distinct / 2) ** -S / harmonic

    assert 0.6 * expected_top <= counts[-1] <= 1.5 * expected_top
    assert statistics.median(counts) <= round(expected_median) + 1
    assert counts[-1] / statistics.median(counts) > 100
    # Rank 2 weighs 2**-1.1 of rank 1, rank 10 about 8% of it: a steep head, a long tail.
    assert counts[-10] < counts[-1] / 4


def test_every_endpoint_appears_in_a_trace(
    traffic: ModuleType, engine: Engine, reference_day: date, new_features: bool
) -> None:
    trace = _trace(traffic, engine, reference_day, new=new_features)

    covered = {traffic.endpoint(request) for request in trace}

    assert covered == traffic.endpoints(new_features=new_features)
    assert covered >= TODAY_ENDPOINTS
    if new_features:
        assert "GET /api/v1/strains/{slug}/dispensaries" in covered
    assert not any(request.path.startswith("/api/v1/usage") for request in trace)


def test_graphql_documents_come_with_several_variable_sets_each(
    traffic: ModuleType, engine: Engine, reference_day: date, new_features: bool
) -> None:
    trace = _trace(traffic, engine, reference_day, new=new_features)
    variables: dict[str, set[str]] = {}
    for request in set(trace):
        if request.method == "POST":
            body = json.loads(request.body)
            variables.setdefault(body["operationName"], set()).add(json.dumps(body["variables"]))

    shapes = [
        name
        for name, _, features in traffic.GRAPHQL_SHAPES
        if traffic.applies(features, new_features)
    ]
    assert sorted(variables) == sorted(shapes)
    assert all(len(sets) >= 2 for sets in variables.values()), variables


def test_every_distinct_request_of_a_trace_answers_200(
    traffic: ModuleType,
    engine: Engine,
    reference_day: date,
    app: Flask,
    api_keys: dict[str, str],
) -> None:
    # The app serves one schema: the trace with NEW_FEATURES as set, as bench/run.py sends it.
    new_features = traffic.NEW_FEATURES
    client = app.test_client()
    headers = {"X-API-Key": api_keys["enterprise"]}
    failures = []
    for request in dict.fromkeys(_trace(traffic, engine, reference_day, new=new_features)):
        if request.method == "GET":
            response = client.get(request.path, headers=headers)
        else:
            response = client.post(
                request.path, data=request.body, headers=headers, content_type="application/json"
            )
        body = response.get_json()
        if response.status_code != 200 or "errors" in body:
            failures.append((request.path, request.body, response.status_code, body))

    assert failures == []
