"""In-process latency per endpoint at full scale: median and p95 over repeated requests.

Usage: .venv/bin/python bench/latency.py [--repeat 200] [--database-url URL]
Without --database-url it builds the full demo dataset into a temporary SQLite file first.
Numbers are wall-clock on a shared machine: compare them with each other, not across machines.
"""

import argparse
import logging
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from app import ENGINE_EXTENSION, create_app
from models.db import make_engine
from rest.db import SESSIONS_EXTENSION
from rest.observability import ACCESS_LOGGER
from seed import generate, load_dataset
from service import keys

CASES = [
    ("strains list (filters)", "/api/v1/strains?type=hybrid&effect=relaxed&thc_min=18&limit=20"),
    ("strain detail", "/api/v1/strains/blue-dream"),
    ("dispensaries by state", "/api/v1/dispensaries?state=CA&limit=20"),
    ("dispensaries by ZIP", "/api/v1/dispensaries?zip=94110&radius=25&limit=20"),
    ("dispensary detail", "/api/v1/dispensaries/disp_1001"),
    ("deals", "/api/v1/deals?state=CA&category=flower&limit=20"),
    ("doctors", "/api/v1/doctors?state=CA&telehealth=true&limit=20"),
    ("laws", "/api/v1/laws/CA"),
    ("search", "/api/v1/search?q=blue&limit=20"),
]
NESTED_QUERY = """{ dispensaries(state: "CO", limit: 20) { total items { id name
  deals(limit: 5) { id title discount expires } menu { name price unit strain { slug thc } }
  law { recreational possessionLimitOz } } } }"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    url = args.database_url
    if url is None:
        path = Path(tempfile.mkdtemp()) / "bench.db"
        url = f"sqlite:///{path}"
        started = time.perf_counter()
        load_dataset(make_engine(url), generate(scale="full", today=date.today()))
        print(f"seeded full dataset in {time.perf_counter() - started:.1f} s")
    app = create_app({"DATABASE_URL": url})
    logging.getLogger(ACCESS_LOGGER).setLevel(logging.WARNING)  # one line per request otherwise
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=10**9, name="bench").plaintext
        db.commit()
    client = app.test_client()
    headers = {"X-API-Key": key}
    print(f"{'case':<26}{'status':>7}{'median ms':>11}{'p95 ms':>9}")
    for name, path in CASES:
        client.get(path, headers=headers)  # warm caches and the connection pool
        samples = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            samples.append((time.perf_counter() - t0) * 1000)
        p95 = statistics.quantiles(samples, n=20)[-1]
        print(f"{name:<26}{response.status_code:>7}{statistics.median(samples):>11.2f}{p95:>9.2f}")
    nested = _median_ms(args.repeat, lambda: _graphql(client, headers, NESTED_QUERY))
    rest_calls = _median_ms(args.repeat // 4 or 1, lambda: _rest_equivalent(client, headers))
    print(f"{'graphql nested page (20)':<26}{200:>7}{nested:>11.2f}")
    print(f"{'same data over REST (22)':<26}{200:>7}{rest_calls:>11.2f}")
    app.extensions[ENGINE_EXTENSION].dispose()


def _median_ms(repeat: int, call) -> float:
    call()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def _graphql(client, headers: dict, query: str) -> None:
    response = client.post("/graphql", json={"query": query}, headers=headers)
    if response.status_code != 200 or "errors" in response.get_json():
        raise RuntimeError(f"GraphQL case failed: {response.get_data(as_text=True)[:300]}")


def _rest_equivalent(client, headers: dict) -> None:
    """The REST calls a client needs for the nested page: list, each detail (menu), the law."""
    page = client.get("/api/v1/dispensaries?state=CO&limit=20", headers=headers).get_json()
    for item in page["data"]:
        assert client.get(f"/api/v1/dispensaries/{item['id']}", headers=headers).status_code == 200
    assert client.get("/api/v1/laws/CO", headers=headers).status_code == 200


if __name__ == "__main__":
    main()
