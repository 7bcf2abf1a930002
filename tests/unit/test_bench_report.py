"""The benchmark's target lines, from hand-made runs: what each compares and what a partial run
(--modes, --cases) says instead of a figure."""

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(case: str, mode: str, rps: float, store: str = "redis") -> tuple:
    return (case, "sqlite", mode, store, {"rps": rps, "p50": 1.0, "p99": 2.0, "errors": 0})


def _line(lines: list[str], start: str) -> str:
    (found,) = [line for line in lines if line.startswith(f"sqlite   {start}")]
    return found


def test_a_full_run_reports_every_target_against_the_right_baseline(bench) -> None:
    rows = [_row(case, "warm", 3000) for case in bench.LIST_CASES]
    rows += [_row(case, "cold", 1200) for case in bench.LIST_CASES]
    rows[-1] = _row(bench.LIST_CASES[-1], "cold", 880)  # the slowest cold list
    rows += [
        _row(bench.GRAPHQL_CASE, "warm", 2700),
        _row(bench.GRAPHQL_CASE, "cold", 300),
        # The storages compared with one worker each (memory:// may serve no more).
        _row(bench.QUOTA_CASE, bench.ONE_WORKER_MODE, 3000, store="memory"),
        _row(bench.QUOTA_CASE, bench.ONE_WORKER_MODE, 2000, store="redis"),
        _row(bench.QUOTA_CASE, bench.ONE_WORKER_MODE, 2900, store="redis"),  # the better counts
        _row(bench.QUOTA_CASE, bench.ONE_WORKER_MODE, 1500, store="redis-1"),
    ]
    lines = bench._targets(rows, ["sqlite"], ceiling=4000)

    assert _line(lines, "REST list pages warm") == (
        "sqlite   REST list pages warm: lowest 75% of bare, strains list (filters) (target >= 50%)"
    )
    assert _line(lines, "REST list pages cold") == (
        f"sqlite   REST list pages cold: lowest 22% of bare, {bench.LIST_CASES[-1]} (target >= 25%)"
    )
    assert _line(lines, "GraphQL nested page warm").endswith(
        "90% of the REST strains list (target >= 50%)"
    )
    assert _line(lines, "GraphQL nested page cold").endswith(
        "25% of the REST strains list (for information)"
    )
    assert "cost 3% of memory://" in _line(lines, "Redis quotas (leasing)")
    assert "cost 50% of memory://" in _line(lines, "Redis quotas (one round trip")
    assert not any("nan" in line for line in lines)


def test_a_partial_run_says_what_it_did_not_measure(bench) -> None:
    # Only the cold mode, and not the first list case: a figure from the others, never "nan".
    rows = [_row(case, "cold", 1000 + i) for i, case in enumerate(bench.LIST_CASES[1:])]
    rows.append(_row(bench.GRAPHQL_CASE, "cold", 200))
    lines = bench._targets(rows, ["sqlite"], ceiling=4000)

    assert _line(lines, "REST list pages warm") == (
        "sqlite   REST list pages warm: not measured (target >= 50%)"
    )
    assert _line(lines, "REST list pages cold") == (
        f"sqlite   REST list pages cold: lowest 25% of bare, {bench.LIST_CASES[1]} "
        "(target >= 25%); 1 list case(s) not measured"
    )
    assert "not measured" in _line(lines, "GraphQL nested page cold")
    assert "not measured" in _line(lines, "Redis quotas (leasing)")
    assert not any("nan" in line for line in lines)


def test_open_now_and_mixed_traffic_have_their_target_lines(bench) -> None:
    rows = [
        _row(bench.OPEN_NOW_CASE, "cold", 1100),
        _row(bench.OPEN_EVENING_CASE, "cold", 600),
        _row(bench.MIXED_STEADY, "warm", 1600),
        _row(bench.MIXED_FIRST, "warm", 900),
        _row(bench.MIXED_STEADY, "cold", 560),
        _row(bench.MIXED_FIRST, "cold", 400),
    ]
    # Mixed traffic is compared with bare Flask driven by the same script (2000 req/s here).
    lines = bench._targets(rows, ["sqlite"], ceiling=4000, traced_ceiling=2000)

    assert _line(lines, "open now near a point cold").endswith("28% of bare (target >= 25%)")
    assert "not measured" in _line(lines, "open now near a point warm")
    assert _line(lines, "open now, evening (open_at) cold").endswith("15% of bare (target >= 25%)")
    assert _line(lines, "mixed traffic warm").endswith(
        "steady 80% of bare (target >= 75%); first pass 45% of bare (for information)"
    )
    assert "steady 28% of bare (target >= 25%)" in _line(lines, "mixed traffic cold")


def test_the_lean_app_lines_give_the_services_ratio_to_it(bench) -> None:
    rows = [
        _row("laws", "cold", 1120),
        _row("laws", bench.LEAN_MODE, 1000),
        _row(bench.QUOTA_CASE, "cold", 900),
        _row(bench.QUOTA_CASE, bench.LEAN_MODE, 1200),
        _row(bench.MIXED_STRAINS_STEADY, "cold", 1150),
        _row(bench.MIXED_STRAINS_FIRST, "cold", 420),
        _row(bench.MIXED_STRAINS_STEADY, "warm", 1500),
        _row(bench.MIXED_STRAINS_FIRST, "warm", 360),
        _row(bench.MIXED_STRAINS_STEADY, bench.LEAN_MODE, 1000),
        _row(bench.MIXED_STRAINS_FIRST, bench.LEAN_MODE, 400),
    ]
    lines = bench._targets(rows, ["sqlite"], ceiling=4000)

    # The cold cases the lean app serves are targets.
    assert _line(lines, "laws cold") == "sqlite   laws cold: 1.12x the lean app (target >= 1.00x)"
    assert _line(lines, f"{bench.QUOTA_CASE} cold") == (
        f"sqlite   {bench.QUOTA_CASE} cold: 0.75x the lean app (target >= 1.00x)"
    )
    # The sub-trace, steady and first pass each over the lean app's (which runs cold only).
    assert _line(lines, f"{bench.MIXED_STRAINS} cold") == (
        f"sqlite   {bench.MIXED_STRAINS} cold: steady 1.15x, first pass 1.05x the lean app "
        "(for information)"
    )
    assert _line(lines, f"{bench.MIXED_STRAINS} warm") == (
        f"sqlite   {bench.MIXED_STRAINS} warm: steady 1.50x, first pass 0.90x the lean app "
        "(for information)"
    )
    # The lean app's rows are no mode of the service's: the list targets do not read them.
    assert "not measured" in _line(lines, "REST list pages warm")


def test_without_the_lean_app_its_lines_say_not_measured(bench) -> None:
    rows = [
        _row("laws", "cold", 820),
        _row(bench.MIXED_STRAINS_STEADY, "cold", 600),
        _row(bench.MIXED_STRAINS_FIRST, "cold", 300),
        # The lean app's steady figure without its first pass: a partial pair is not compared.
        _row(bench.MIXED_STRAINS_STEADY, bench.LEAN_MODE, 1000),
    ]
    lines = bench._targets(rows, ["sqlite"], ceiling=4000)

    assert _line(lines, "laws cold") == (
        "sqlite   laws cold: not measured beside the lean app (target >= 1.00x)"
    )
    assert _line(lines, f"{bench.QUOTA_CASE} cold") == (
        f"sqlite   {bench.QUOTA_CASE} cold: not measured beside the lean app (target >= 1.00x)"
    )
    for mode in ("cold", "warm"):
        assert _line(lines, f"{bench.MIXED_STRAINS} {mode}") == (
            f"sqlite   {bench.MIXED_STRAINS} {mode}: not measured beside the lean app "
            "(for information)"
        )
    assert not any("nan" in line for line in lines)


def test_the_strains_sub_trace_keeps_the_lists_in_order(bench) -> None:
    from collections import namedtuple

    request = namedtuple("Request", "method path body")
    trace = [
        request("GET", "/api/v1/strains?type=hybrid", None),
        request("GET", "/api/v1/strains/blue-dream", None),
        request("POST", "/graphql", "{}"),
        request("GET", "/api/v1/strains", None),
        request("GET", "/api/v1/strains?type=hybrid", None),
        request("GET", "/api/v1/strains/blue-dream/dispensaries?limit=5", None),
    ]
    assert bench.strains_lists(trace) == [trace[0], trace[3], trace[4]]
