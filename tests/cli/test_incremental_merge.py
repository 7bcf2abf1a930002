"""The fast merge (seed.incremental) against the full one: same rows, same log, same search.

Two databases get the same import, then the same random merges: one through
seed.incremental.apply_merge, the other through the full path (the merged whole Dataset loaded by
seed.load.apply_dataset, which rebuilds every table and the search index). Every served table
is compared row by row, internal ids included, as are the change log and search answers.
Both instants of a round are the same fixed stamp, so stamps compare exactly.
"""

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

import models.search.incremental
import models.search.rebuild
import seed.incremental
import seed.load
from models import Base
from models.db import make_engine
from seed.generate import generate
from seed.importing import build_dataset, read_directory, validate
from seed.importing.export import write_import_files
from seed.importing.merge import merge_dataset, stored_dataset, stored_ids
from seed.incremental import apply_merge
from seed.load import apply_dataset
from service.filters import SearchQuery
from service.paging import PageRequest
from service.search import search
from tests.conftest import postgres_scratch

TODAY = date(2026, 6, 1)
ROUNDS = 4
RETENTION = timedelta(days=30)
# Columns a full load stamps anew on every part row (a merge leaves untouched parts alone).
_PART_STAMPS = {"menu_items": {"updated_at"}, "reviews": {"updated_at"}}
_SKIPPED = {"feed_state": {"epoch"}}  # each database's log starts an epoch of its own
SEARCHES = [
    ("a", None, None),
    ("e", "deals", None),
    ("o", None, "CA"),
    ("th", None, None),
    ("er", "strains", None),
    ("in", "dispensaries", "CO"),
    ("kush", None, None),
    ("off", "deals", None),
    ("green", None, None),
    ("dr.", "doctors", None),
    ("merged", None, None),
    ("zzqx", None, None),
    ("blu drem", None, None),
]


def _read(directory: Path, name: str) -> list[dict[str, Any]]:
    path = directory / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(directory: Path, name: str, rows: list[dict[str, Any]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _random_merge(current: Path, out: Path, rng: random.Random, round_no: int) -> None:
    """A merge of edits, renames, new objects, replaced menus and reviews, and deletions
    (a dispensary, a strain, deals, a doctor) over the records in ``current``; ``current``
    is updated to the merged records, so the next round builds on it."""
    strains = _read(current, "strains")
    shops = _read(current, "dispensaries")
    deals = _read(current, "deals")
    doctors = _read(current, "doctors")
    menus = _read(current, "menu_items")
    reviews = _read(current, "reviews")
    tag = f"r{round_no}"

    gone_shop = rng.choice(shops)["id"]
    menu_strains = {m["strain"] for m in menus if m["strain"]}
    # A strain on menus, and some strain's parent when one is (its children lose it).
    parented = {p for s in strains for p in s.get("parents") or []}
    on_menus = [s for s in strains if s["slug"] in menu_strains]
    gone_strain = rng.choice([s for s in on_menus if s["slug"] in parented] or on_menus)["slug"]
    # Menus and reviews replaced for a few shops (never naming the deleted strain or shop).
    others = [s for s in shops if s["id"] != gone_shop]
    replaced_shops = [s["id"] for s in rng.sample(others, 4)]
    new_menu = []
    for shop in replaced_shops[:3]:
        own = [m for m in menus if m["dispensary"] == shop and m["strain"] != gone_strain]
        rng.shuffle(own)
        own = [
            *own[1:],
            {
                "dispensary": shop,
                "name": f"Merged item {tag}",
                "category": "flower",
                "price": 9.5,
                "unit": "1g",
                "strain": None,
                "lab": {
                    "batch_id": f"M-{tag}",
                    "tested_at": "2026-05-20",
                    "lab": "Merge Labs",
                    "results": [
                        {"key": "thca", "value": rng.choice([18.2, 22.4])},
                        {"key": "cbn", "value": None, "qualifier": "nd"},
                    ],
                },
            },
        ]
        new_menu.extend(own)
    new_menu.extend(
        m for m in menus if m["dispensary"] == replaced_shops[3] and m["strain"] != gone_strain
    )
    new_reviews = []
    for shop in replaced_shops[1:]:
        own = [r for r in reviews if r["dispensary"] == shop][:2]
        new_reviews.extend({**r, "rating": rng.randint(1, 5)} for r in own)

    edited_strains = [s for s in rng.sample(strains, 8) if s["slug"] != gone_strain]
    for n, s in enumerate(edited_strains):
        if n % 3 == 0:
            s["name"] = f"{s['name']} Merged {tag}"  # moves in search order
        elif n % 3 == 1:
            s["effects"] = list(reversed(s["effects"]))
        elif n % 2:
            s["thc"] = round(min(s["thc"] + 1.5, 40), 1)
            s["chemistry"] = None  # else thc must match its median
        else:  # new chemistry, thc and cbd its medians
            samples = [{"thca": 15.0 + n, "myrcene": 0.5}, {"thca": 19.0, "limonene": 0.7}]
            s.update(chemistry={"samples": samples}, thc=None, cbd=None, terpenes=[])
    unchanged = rng.choice(
        [s for s in strains if s["slug"] != gone_strain and s not in edited_strains]
    )
    # New strains (no strain has them as parents, so theirs close no cycle): one of two
    # stored parents, one of the last round's new strain and a stored one.
    alive = [s["slug"] for s in strains if s["slug"] != gone_strain]
    earlier = [slug for slug in alive if slug.startswith(f"merged-r{round_no - 1}-")]
    lineages = [rng.sample(alive, 2), [*earlier[:1], rng.choice(alive)], []]
    new_strains = [
        {
            **strains[n],
            "slug": f"merged-{tag}-{n}",
            "name": f"Merged {tag} Strain {n}",
            "origin": "cross" if lineages[n] else "unknown",
            "parents": list(dict.fromkeys(lineages[n])),
        }
        for n in range(3)
    ]
    edited_shops = [s for s in rng.sample(others, 6)]
    for n, s in enumerate(edited_shops):
        if n % 2 == 0:
            s["name"] = f"{s['name']} {tag}"  # a new name for its deals too
        else:
            s["phone"] = "(555) 555-0199"
    new_shops = [
        {**others[n], "id": f"disp_9{round_no}{n}0", "name": f"Merged Shop {tag} {n}"}
        for n in range(2)
    ]
    live_deals = [d for d in deals if d["dispensary"] != gone_shop]
    gone_deals = [d["id"] for d in rng.sample(live_deals, 3)]
    kept = [d for d in live_deals if d["id"] not in gone_deals]
    edited_deals = rng.sample(kept, 6)
    for n, d in enumerate(edited_deals):
        if n % 2 == 0:
            d["title"] = f"Merged {tag}: {d['title']}"
        else:
            d["discount"] = "33% off"
    new_deals = [
        {
            **kept[0],
            "id": f"deal_9{round_no}{n}0",
            "dispensary": new_shops[n % 2]["id"],
            "title": f"New deal {tag} {n}",
        }
        for n in range(2)
    ]
    gone_doctor = rng.choice(doctors)["id"]
    edited_doctors = [d for d in rng.sample(doctors, 4) if d["id"] != gone_doctor]
    for d in edited_doctors:
        d["price"] = d["price"] + 5
    new_doctors = [{**doctors[0], "id": f"doc_9{round_no}00", "name": f"Dr. Merged {tag}"}]

    _write(out, "strains", [*edited_strains, unchanged, *new_strains])
    _write(out, "dispensaries", [*edited_shops, *new_shops])
    _write(out, "menu_items", new_menu)
    _write(out, "reviews", new_reviews)
    _write(out, "deals", [*edited_deals, *new_deals])
    _write(out, "doctors", [*edited_doctors, *new_doctors])
    deletions = [
        {"type": "dispensary", "id": gone_shop},
        {"type": "strain", "id": gone_strain},
        *({"type": "deal", "id": d} for d in gone_deals),
        {"type": "doctor", "id": gone_doctor},
    ]
    _write(out, "deletions", deletions)

    # The records as they stand after the merge, for the next round.
    def merged(
        rows: list[dict[str, Any]], new: list[dict[str, Any]], key: str, gone: set[str]
    ) -> list[dict[str, Any]]:
        by_key = {r[key]: r for r in rows}
        by_key.update({r[key]: r for r in new})
        return [r for k, r in by_key.items() if k not in gone]

    after = merged(strains, [*edited_strains, *new_strains], "slug", {gone_strain})
    for s in after:  # a deleted strain leaves its children's parents
        s["parents"] = [p for p in s.get("parents") or [] if p != gone_strain]
    _write(current, "strains", after)
    _write(current, "dispensaries", merged(shops, [*edited_shops, *new_shops], "id", {gone_shop}))
    _write(
        current,
        "deals",
        [
            d
            for d in merged(deals, [*edited_deals, *new_deals], "id", set(gone_deals))
            if d["dispensary"] != gone_shop
        ],
    )
    _write(
        current, "doctors", merged(doctors, [*edited_doctors, *new_doctors], "id", {gone_doctor})
    )
    menu_kept = [m for m in menus if m["dispensary"] not in {gone_shop, *replaced_shops}]
    _write(
        current,
        "menu_items",
        [{**m, "strain": None} if m["strain"] == gone_strain else m for m in menu_kept] + new_menu,
    )
    reviewed = set(replaced_shops[1:])
    _write(
        current,
        "reviews",
        [r for r in reviews if r["dispensary"] not in {gone_shop, *reviewed}] + new_reviews,
    )


def _rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every served table (and the change log), row by row in key order."""
    found = {}
    names = [t.name for t in seed.load._data_tables()] + ["changes", "feed_state"]
    with engine.connect() as conn:
        for name in names:
            table = Base.metadata.tables[name]
            left_out = _PART_STAMPS.get(name, set()) | _SKIPPED.get(name, set())
            columns = [c for c in table.c if c.name not in left_out]
            if name.startswith("search_"):
                continue
            statement = select(*columns).order_by(*table.primary_key.columns)
            found[name] = [tuple(row) for row in conn.execute(statement)]
    return found


def _searches(engine: Engine) -> list[Any]:
    answers = []
    with Session(engine) as db:
        for q, kind, state in SEARCHES:
            for page in (PageRequest(limit=20, offset=0), PageRequest(limit=5, offset=37)):
                hits = search(db, SearchQuery(q=q, type=kind, state=state), page, today=TODAY)
                answers.append((q, kind, state, page.offset, hits.total, hits.items))
    return answers


@contextmanager
def _databases(backend: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'fast.db'}", f"sqlite:///{tmp_path / 'full.db'}"
        return
    with postgres_scratch() as fast, postgres_scratch() as full:
        yield fast, full


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_fast_merges_equal_full_merges(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _compare_merges(backend, tmp_path, monkeypatch) == 0  # every merge found gaps


def test_fast_merges_refill_the_pairs_when_no_position_is_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positions one apart (as a database loaded before positions were spaced has them):
    every new place falls back to a refill of the pairs, with the same answers."""
    monkeypatch.setattr(models.search.rebuild, "_WIDEST_GAP", 1)
    assert _compare_merges("sqlite", tmp_path, monkeypatch) == ROUNDS


def _compare_merges(backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run ROUNDS random merges both ways and compare; return how many refilled the pairs."""
    refills = []
    refill = models.search.incremental.refill_search_pairs
    monkeypatch.setattr(
        models.search.incremental,
        "refill_search_pairs",
        lambda conn: (refills.append(1), refill(conn)),
    )
    records = tmp_path / "records"
    write_import_files(generate(scale="tiny", seed=11, today=TODAY), records)
    with _databases(backend, tmp_path) as (fast_url, full_url):
        fast, full = make_engine(fast_url), make_engine(full_url)
        try:
            dataset = build_dataset(validate(read_directory(records)), today=TODAY)
            loaded = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
            monkeypatch.setattr(seed.load, "stamp_now", lambda: loaded)
            for engine in (fast, full):
                apply_dataset(engine, dataset, source="import", rebuild=True)
            rng = random.Random(7)
            for round_no in range(ROUNDS):
                now = datetime(2026, 6, 2, 12, round_no, tzinfo=UTC)
                monkeypatch.setattr(seed.incremental, "stamp_now", lambda now=now: now)
                monkeypatch.setattr(seed.load, "stamp_now", lambda now=now: now)
                # Every other round, PostgreSQL drops pair rows in one pass, not key by key.
                scan_from = 0 if round_no % 2 else 10**9
                monkeypatch.setattr(models.search.incremental, "_PG_SCAN_FROM", scan_from)
                directory = tmp_path / f"merge{round_no}"
                _random_merge(records, directory, rng, round_no)
                with fast.connect() as conn:
                    report = validate(read_directory(directory), stored=stored_ids(conn))
                assert not report.issues(), report.issues()
                quick = apply_merge(fast, report, retention=RETENTION)
                whole = apply_dataset(
                    full,
                    lambda conn, report=report: merge_dataset(stored_dataset(conn), report),
                    source="import",
                    retention=RETENTION,
                )
                assert quick is not None
                assert quick.changed
                assert whole.changed
                assert quick.version == whole.version
                assert {k: dict(v) for k, v in quick.changes.items()} == {
                    k: dict(v) for k, v in whole.changes.items()
                }
                assert quick.counts == whole.counts
                fast_rows, full_rows = _rows(fast), _rows(full)
                for name in full_rows:
                    assert fast_rows[name] == full_rows[name], f"round {round_no}: {name}"
                assert _searches(fast) == _searches(full), f"round {round_no}: search"
            # Records identical to the stored ones change nothing, on either path.
            same = tmp_path / "same"
            same.mkdir()
            for name in ("strains", "deals"):
                (same / f"{name}.jsonl").write_bytes((directory / f"{name}.jsonl").read_bytes())
            with fast.connect() as conn:
                report = validate(read_directory(same), stored=stored_ids(conn))
            again = apply_merge(fast, report, retention=RETENTION)
            assert again is not None
            assert not again.changed
            assert _rows(fast) == fast_rows
        finally:
            fast.dispose()
            full.dispose()
    return len(refills)
