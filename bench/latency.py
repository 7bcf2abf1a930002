"""In-process latency per endpoint at full scale: median, p95 and p99 over repeated requests.

Usage: .venv/bin/python bench/latency.py [--repeat 200] [--database-url URL]
Without --database-url (or DATABASE_URL) it builds the full demo dataset into a temporary SQLite
file first. The page cache is off, so every figure is the cost of a cache miss. Search runs one
case per query shape (trigram index, one or two characters, typo fallback); the summary gives
the worst p99 of search, of one-character search, of proximity, of the "near me, open now"
cases (lat/lng, bbox, open_now near a point, where to buy), of the change feed, of the
updated_since lists and of the chemistry and lineage cases. Numbers are wall-clock on a
shared machine: compare them with each other, not across machines.
"""

import argparse
import gc
import os
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from sqlalchemy import func, select

from app import ENGINE_EXTENSION, create_app, dispose_engines
from models import Strain, StrainParent
from models.db import make_engine
from seed import generate, load_dataset
from service import keys
from web.db import SESSIONS_EXTENSION

CASES = [
    ("strains list (filters)", "/api/v1/strains?type=hybrid&effect=relaxed&thc_min=18&limit=20"),
    ("strain detail", "/api/v1/strains/blue-dream"),
    ("dispensaries by state", "/api/v1/dispensaries?state=CA&limit=20"),
    ("dispensaries by ZIP", "/api/v1/dispensaries?zip=94110&radius=25&limit=20"),
    ("dispensary detail", "/api/v1/dispensaries/disp_1001"),
    ("deals", "/api/v1/deals?state=CA&category=flower&limit=20"),
    ("doctors", "/api/v1/doctors?state=CA&telehealth=true&limit=20"),
    ("laws", "/api/v1/laws/CA"),
    ("dispensaries by ZIP 100mi", "/api/v1/dispensaries?zip=10001&radius=100&limit=20"),
    ("search", "/api/v1/search?q=blue&limit=20"),
    ("search 3 chars", "/api/v1/search?q=haz&limit=20"),
    ("search two words", "/api/v1/search?q=blue%20dream&limit=20"),
    ("search strains kush", "/api/v1/search?q=kush&type=strains&limit=20"),
    ("search state deals", "/api/v1/search?q=off&type=deals&state=CA&limit=20"),
    ("search page 5", "/api/v1/search?q=wellness&limit=20&offset=80"),
    ("search typo (fuzzy)", "/api/v1/search?q=blue%20dreem&limit=20"),
    ("search no match", "/api/v1/search?q=zqxjv&limit=20"),
    ("search 2 chars (pairs)", "/api/v1/search?q=og&limit=20"),
    ("search 2 chars, common", "/api/v1/search?q=an&limit=20"),
    ("search 2 chars, no hit", "/api/v1/search?q=og&type=deals&state=CA&limit=20"),
    ("search 1 char, common", "/api/v1/search?q=a&limit=20"),
    ("search 1 char, page 50", "/api/v1/search?q=e&limit=20&offset=1000"),
    ("search 1 char, rare", "/api/v1/search?q=q&limit=20"),
    ("search 1 char, state", "/api/v1/search?q=s&state=CA&limit=20"),
    ("search 1 char, deals CA", "/api/v1/search?q=a&type=deals&state=CA&limit=20"),
    ("search 1 char, symbol", "/api/v1/search?q=%23&limit=20"),
    # Near me, open now: a point in Denver, a box over the Bay Area, a strain's stockists.
    ("near lat/lng 25mi", "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&radius=25&limit=20"),
    ("near lat/lng 500mi", "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&radius=500&limit=20"),
    ("near lat/lng by rating", "/api/v1/dispensaries?lat=34.05&lng=-118.24&sort=-rating&limit=20"),
    ("bbox Bay Area", "/api/v1/dispensaries?bbox=-122.75,37.2,-121.75,38.2&limit=20"),
    ("bbox continental US", "/api/v1/dispensaries?bbox=-125,24,-66,50&limit=20"),
    ("open now near lat/lng", "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&open_now=true"),
    (
        "open now near, 500mi",
        "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&radius=500&open_now=true",
    ),
    # open_now's answer depends on the hour the bench runs (at night in Denver the page is
    # empty); a fixed evening instant measures a full page of open dispensaries every time.
    (
        "open at near, evening",
        "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&open_at=2026-12-04T18:00:00-07:00",
    ),
    (
        "open at near, 500mi evening",
        "/api/v1/dispensaries?lat=39.7392&lng=-104.9903&radius=500"
        "&open_at=2026-12-04T18:00:00-07:00",
    ),
    ("doctors near lat/lng", "/api/v1/doctors?lat=40.7128&lng=-74.006&radius=50&limit=20"),
    ("deals near, open now", "/api/v1/deals?lat=47.6062&lng=-122.3321&open_now=true&limit=20"),
    ("where to buy", "/api/v1/strains/og-kush/dispensaries?limit=20"),
    (
        "where to buy near",
        "/api/v1/strains/og-kush/dispensaries?lat=39.7392&lng=-104.9903&radius=200",
    ),
    (
        "where to buy near, is_open",
        "/api/v1/strains/og-kush/dispensaries?lat=39.7392&lng=-104.9903&radius=200&open_now=false",
    ),
    # Keeping a copy: feed pages of 1,000 (from the start, from a cursor 5,000 changes in, one
    # kind) and lists of what changed since an instant ({since}: the newest stamp, so the
    # lists hold everything stamped by the last load; {cursor} is worked out first).
    ("feed page 1000", "/api/v1/changes?limit=1000"),
    ("feed page 1000, cursor", "/api/v1/changes?limit=1000&since={cursor}"),
    ("feed page 1000, one type", "/api/v1/changes?limit=1000&types=deal"),
    ("changed strains", "/api/v1/strains?updated_since={since}&limit=20"),
    ("changed strains, newest", "/api/v1/strains?updated_since={since}&sort=-updated_at&limit=20"),
    ("changed dispensaries, CA", "/api/v1/dispensaries?updated_since={since}&state=CA&limit=20"),
    ("changed deals", "/api/v1/deals?updated_since={since}&sort=updated_at&limit=20"),
    ("changed doctors", "/api/v1/doctors?updated_since={since}&limit=20"),
    ("changed laws", "/api/v1/laws?updated_since={since}"),
    ("changed stockists", "/api/v1/strains/og-kush/dispensaries?updated_since={since}&limit=20"),
    # Chemistry and lineage: the detail (chemistry, parents, children count), the new strain
    # filters, lineage three generations both ways ({prolific}: the strain with the most
    # children), a strain's shelf by price per gram and by batch THC, the compound list.
    ("chem: strain detail", "/api/v1/strains/wedding-cake"),
    ("chem: terpene", "/api/v1/strains?terpene=limonene,pinene&limit=20"),
    ("chem: dominant terpene", "/api/v1/strains?dominant_terpene=terpinolene&limit=20"),
    ("chem: ratio", "/api/v1/strains?ratio=cbd_dominant&limit=20"),
    ("chem: cbg_min", "/api/v1/strains?cbg_min=1&limit=20"),
    ("chem: thcv_min, sativa", "/api/v1/strains?thcv_min=0.5&type=sativa&limit=20"),
    ("chem: cbn_min, newest", "/api/v1/strains?cbn_min=0.2&sort=-updated_at&limit=20"),
    ("chem: terpene+effect", "/api/v1/strains?terpene=myrcene&effect=sleepy&limit=20"),
    ("chem: children", "/api/v1/strains?parent={prolific}&limit=20"),
    ("chem: ancestors 3", "/api/v1/strains/ice-cream-cake/lineage?depth=3"),
    ("chem: descendants 3", "/api/v1/strains/{prolific}/lineage?direction=descendants&depth=3"),
    ("chem: per gram", "/api/v1/strains/og-kush/dispensaries?sort=price_per_gram&limit=20"),
    ("chem: total_thc_min", "/api/v1/strains/og-kush/dispensaries?total_thc_min=20&limit=20"),
    ("chem: compounds", "/api/v1/compounds"),
]
# Summary lines: the worst p99 over these cases.
SEARCHES = [name for name, _ in CASES if name.startswith("search")]
ONE_CHARACTER = [name for name, _ in CASES if name.startswith("search 1 char")]
PROXIMITY = [name for name, _ in CASES if "ZIP" in name]
NEAR_ME = [name for name, _ in CASES if name.startswith(("near", "bbox", "open", "where"))]
FEED = [name for name, _ in CASES if name.startswith("feed")]
CHANGED_SINCE = [name for name, _ in CASES if name.startswith("changed")]
CHEMISTRY = [name for name, _ in CASES if name.startswith("chem")]
NESTED_QUERY = """{ dispensaries(state: "CO", limit: 20) { total items { id name
  deals(limit: 5) { id title discount expires } menu { name price unit strain { slug thc } }
  law { recreational possessionLimitOz } } } }"""
CHEMISTRY_QUERY = """{ strains(dominantTerpene: MYRCENE, limit: 20) { total items { slug
  chemistry { sampleCount totalThc { p50 formula } terpenes { key p50 } dominantTerpene ratio }
  lineage { origin parents { slug } childrenCount } parents(limit: 2) { items { slug } }
  children(limit: 5) { total items { slug } } } } }"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    url = args.database_url or os.environ.get("DATABASE_URL")
    if url is None:
        path = Path(tempfile.mkdtemp()) / "bench.db"
        url = f"sqlite:///{path}"
        started = time.perf_counter()
        load_dataset(make_engine(url), generate(scale="full", today=date.today()))
        print(f"seeded full dataset in {time.perf_counter() - started:.1f} s")
    # The per-request JSON log line still gets written, to /dev/null instead of the terminal.
    access_log = open(os.devnull, "wb")  # noqa: SIM115 (open for the whole run)
    app = create_app({"DATABASE_URL": url, "PAGE_CACHE_MB": 0, "ACCESS_LOG_STREAM": access_log})
    gc.collect()
    gc.freeze()  # as gunicorn.conf.py does in each worker: no full collections of the app
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=10**9, name="bench").plaintext
        db.commit()
    client = app.test_client()
    headers = {"X-API-Key": key}
    print(f"backend: {app.extensions[ENGINE_EXTENSION].dialect.name}")
    print(f"{'case':<26}{'status':>7}{'median ms':>11}{'p95 ms':>9}{'p99 ms':>9}{'total':>7}")
    p99s = {}
    places = _placeholders(app, client, headers)
    for name, template in CASES:
        path = template.format(**places)
        client.get(path, headers=headers)  # warm caches and the connection pool
        samples = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            response = client.get(path, headers=headers)
            samples.append((time.perf_counter() - t0) * 1000)
        cuts = statistics.quantiles(samples, n=100)
        p99s[name] = cuts[98]
        total = (response.get_json().get("meta") or {}).get("total", "")
        print(
            f"{name:<26}{response.status_code:>7}{statistics.median(samples):>11.2f}"
            f"{cuts[94]:>9.2f}{cuts[98]:>9.2f}{total:>7}"
        )
    summaries = (
        ("search p99 (every shape)", SEARCHES),
        ("search p99 (1 character)", ONE_CHARACTER),
        ("proximity p99", PROXIMITY),
        ("near me, open now p99", NEAR_ME),
        ("feed page of 1000 p99", FEED),
        ("updated_since list p99", CHANGED_SINCE),
        ("chemistry, lineage p99", CHEMISTRY),
    )
    for label, names in summaries:
        worst = max(names, key=p99s.__getitem__)
        print(f"{label:<26}{p99s[worst]:>27.2f} ms (worst: {worst})")
    nested = _median_ms(args.repeat, lambda: _graphql(client, headers, NESTED_QUERY))
    chemistry = _median_ms(args.repeat, lambda: _graphql(client, headers, CHEMISTRY_QUERY))
    rest_calls = _median_ms(args.repeat // 4 or 1, lambda: _rest_equivalent(client, headers))
    print(f"{'graphql nested page (20)':<26}{200:>7}{nested:>11.2f}")
    print(f"{'same data over REST (22)':<26}{200:>7}{rest_calls:>11.2f}")
    print(f"{'graphql chemistry page':<26}{200:>7}{chemistry:>11.2f}")
    dispose_engines(app)
    access_log.close()


def _placeholders(app, client, headers: dict) -> dict[str, str]:
    """{cursor}: the feed's cursor after 5,000 changes; {since}: the newest stamp served;
    {prolific}: the strain with the most children."""
    cursor = ""
    for _ in range(5):
        since = f"&since={cursor}" if cursor else ""
        page = client.get(f"/api/v1/changes?limit=1000{since}", headers=headers)
        cursor = page.get_json()["meta"]["next"]
    newest = client.get("/api/v1/strains?sort=-updated_at&limit=1", headers=headers).get_json()
    return {
        "cursor": cursor,
        "since": newest["data"][0]["updated_at"],
        "prolific": _prolific(app),
    }


def _prolific(app) -> str:
    """The slug of the strain with the most children: the widest descendants walk."""
    counted = (
        select(StrainParent.parent_id, func.count().label("children"))
        .group_by(StrainParent.parent_id)
        .subquery()
    )
    with app.extensions[SESSIONS_EXTENSION]() as db:
        return db.execute(
            select(Strain.slug)
            .join(counted, counted.c.parent_id == Strain.id)
            .order_by(counted.c.children.desc(), Strain.id)
            .limit(1)
        ).scalar_one()


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
