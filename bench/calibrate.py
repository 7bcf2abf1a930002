"""Calibration of the GraphQL cost estimate: does each document's time follow its estimate?

Usage: .venv/bin/python bench/calibrate.py [--count 360] [--seed 33] [--repeat 3]
       [--database-url URL] [--worst 12] [--json FILE]

Generates documents (bench/documents.py), estimates each with the served schema's cost check,
and times every admitted one in-process on the full demo dataset (built into a temporary SQLite
file unless --database-url or DATABASE_URL names one), with no response or result cache: the
fastest of --repeat runs after two unrecorded ones, garbage collected between runs. It reports
the time per unit of estimate, the worst documents against the median, and the two lines the
estimate is held to: among documents estimated at GROUP_FROM or more, none over SPREAD times the
group's median time per unit; and no admitted document over LONGEST_MS.
"""

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from documents import Document, generate

from app import create_app, dispose_engines
from models.db import make_engine
from seed import generate as generate_dataset
from seed import load_dataset
from service import keys
from web.db import SESSIONS_EXTENSION

GROUP_FROM = 1_000  # below this, a request's fixed cost dominates its time
SPREAD = 10.0  # the most a document of the group may take per unit, in group medians
LONGEST_MS = 250.0


def _client(url: str) -> tuple[Any, str, Any, int]:
    access_log = open(os.devnull, "wb")  # noqa: SIM115 (open for the whole run)
    app = create_app(
        {
            "DATABASE_URL": url,
            "PAGE_CACHE_MB": 0,
            "ACCESS_LOG_STREAM": access_log,
            # Long documents run to their end: the time budget would cut the measurement.
            "GRAPHQL_TIME_BUDGET_MS": 120_000,
        }
    )
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=10**9, name="calibrate")
        db.commit()
    return app, key.plaintext, access_log, app.config["GRAPHQL_COST_BUDGET"]


def measure(documents: list[Document], url: str, repeat: int) -> list[dict[str, Any]]:
    """Each document's estimate, and for admitted ones its fastest time in milliseconds."""
    app, key, access_log, budget = _client(url)
    client = app.test_client()
    gc.collect()
    gc.freeze()
    results = []
    for document in documents:
        payload = {"query": document.query, "variables": document.variables}

        def post(payload: dict[str, Any] = payload) -> dict[str, Any]:
            response = client.post("/graphql", json=payload, headers={"X-API-Key": key})
            return {"status": response.status_code, "body": response.get_json()}

        first = post()
        post()  # a second unrecorded run: statements and caches of a new shape settle
        body = first["body"] or {}
        cost = (body.get("extensions") or {}).get("cost") or {}
        errors = body.get("errors") or []
        row: dict[str, Any] = {
            "name": document.name,
            "query": document.query,
            "variables": document.variables,
            "status": first["status"],
            "estimate": cost.get("requested"),
            "errors": [e.get("message", "") for e in errors],
        }
        if first["status"] == 200 and body.get("data") is not None and row["estimate"]:
            samples = []
            for _ in range(repeat):
                # Collected between requests, as gunicorn's sync workers do (web.accel.gc_schedule).
                gc.collect()
                gc.disable()
                started = time.perf_counter()
                post()
                samples.append((time.perf_counter() - started) * 1000)
                gc.enable()
            row["ms"] = min(samples)
        results.append(row)
    dispose_engines(app)
    access_log.close()
    print(f"cost budget {budget:,}; {len(documents)} documents; the fastest of {repeat} runs each")
    return results


def report(results: list[dict[str, Any]], worst: int) -> bool:
    """Print the distribution and the verdicts; True when both lines hold."""
    timed = [r for r in results if "ms" in r and not r["errors"]]
    refused = [r for r in results if r["estimate"] is None or "ms" not in r]
    with_errors = [r for r in results if "ms" in r and r["errors"]]
    for row in timed:
        row["per_unit_us"] = row["ms"] * 1000 / row["estimate"]
    group = [r for r in timed if r["estimate"] >= GROUP_FROM]
    print(
        f"admitted and answered without errors: {len(timed)}; with some errors: "
        f"{len(with_errors)}; refused or failed: {len(refused)}"
    )
    if not group:
        print("no admitted document is estimated at {GROUP_FROM:,} or more")
        return False
    median = statistics.median(r["per_unit_us"] for r in group)
    spread = max(r["per_unit_us"] for r in group) / median
    longest = max(timed, key=lambda r: r["ms"])
    print(
        f"estimated >= {GROUP_FROM:,}: {len(group)} documents, median {median:.2f} us per unit "
        f"(all admitted: median {statistics.median(r['per_unit_us'] for r in timed):.2f})"
    )
    print(f"\nworst {worst} documents of the group by time per unit (x the group's median):")
    for row in sorted(group, key=lambda r: -r["per_unit_us"])[:worst]:
        _line(row, median)
    print(f"\nlongest {worst} admitted documents:")
    for row in sorted(timed, key=lambda r: -r["ms"])[:worst]:
        _line(row, median)
    spread_ok = spread <= SPREAD
    longest_ok = longest["ms"] <= LONGEST_MS
    print(
        f"\nworst time per unit in the group: {spread:.1f} x the median "
        f"(line: at most {SPREAD:g}): {'met' if spread_ok else 'NOT MET'}"
    )
    print(
        f"longest admitted document: {longest['ms']:.0f} ms, {longest['name']} "
        f"(line: at most {LONGEST_MS:g} ms): {'met' if longest_ok else 'NOT MET'}"
    )
    return spread_ok and longest_ok


def _line(row: dict[str, Any], median: float) -> None:
    text = " ".join(row["query"].split())
    print(
        f"  {row['name']:>5} {row['estimate']:>7,} {row['ms']:>8.1f} ms "
        f"{row['per_unit_us']:>8.1f} us/unit {row['per_unit_us'] / median:>6.1f}x  {text[:150]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=360)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worst", type=int, default=12)
    parser.add_argument("--database-url")
    parser.add_argument("--json", help="write every document's figures to this file")
    args = parser.parse_args()
    url = args.database_url or os.environ.get("DATABASE_URL")
    if url is None:
        url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'calibrate.db'}"
        started = time.perf_counter()
        load_dataset(make_engine(url), generate_dataset(scale="full", today=date.today()))
        print(f"seeded the full dataset in {time.perf_counter() - started:.1f} s")
    results = measure(generate(args.count, args.seed), url, args.repeat)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    sys.exit(0 if report(results, args.worst) else 1)


if __name__ == "__main__":
    main()
