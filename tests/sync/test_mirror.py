"""A copy kept by the client loop of docs/sync.md equals what the service serves, after any
sequence of merges, deletions and full imports, whichever cursor the client last kept."""

from pathlib import Path
from typing import Any

import orjson
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.db import make_engine
from seed.importing.export import dataset_records
from seed.importing.merge import stored_dataset

from .conftest import Copy, client_get, client_loop, live_dataset, load, new_key, served

Records = dict[str, list[dict[str, Any]]]
STEPS = st.lists(st.sampled_from(["merge", "merge", "full", "same"]), min_size=2, max_size=4)


def _stored_records(url: str) -> Records:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return dataset_records(stored_dataset(conn))
    finally:
        engine.dispose()


def _write(directory: Path, files: Records) -> Path:
    directory.mkdir(parents=True)
    for name, records in files.items():
        lines = b"".join(orjson.dumps(record) + b"\n" for record in records)
        (directory / f"{name}.jsonl").write_bytes(lines)
    return directory


def _import(app: Flask, directory: Path, *args: str) -> None:
    result = app.test_cli_runner().invoke(args=["data", "import", str(directory), *args])
    assert result.exit_code == 0, result.output


def _merge_files(data: st.DataObject, now: Records, serial: int) -> Records:
    """A few random edits, inserts and deletions of the stored data, as merge files."""
    files: Records = {}
    deletions: list[dict[str, str]] = []
    taken: set[tuple[str, str]] = set()

    def pick(name: str, key: str) -> dict[str, Any] | None:
        choices = [r for r in now[name] if (name, r[key]) not in taken]
        if not choices:
            return None
        record = data.draw(st.sampled_from(choices))
        taken.add((name, record[key]))
        return dict(record)

    for action in data.draw(st.lists(st.sampled_from(_ACTIONS), min_size=1, max_size=4)):
        if action == "strain" and (r := pick("strains", "slug")):
            # Without its chemistry, whose total THC median its thc would have to match.
            edited = {**r, "thc": round((r["thc"] + 1.5) % 40, 1), "chemistry": None}
            files.setdefault("strains", []).append(edited)
        elif action == "rename" and (r := pick("dispensaries", "id")):
            files.setdefault("dispensaries", []).append({**r, "name": f"{r['name']} {serial}"})
        elif action == "menu" and (r := pick("dispensaries", "id")):
            items = [dict(i) for i in now["menu_items"] if i["dispensary"] == r["id"]]
            if items:
                items[0]["price"] = items[0]["price"] + 1
            files.setdefault("menu_items", []).extend(items)
        elif action == "reviews" and (r := pick("dispensaries", "id")):
            review = {
                "dispensary": r["id"],
                "rating": 4,
                "text": f"Visit {serial}",
                "author": "Sam",
                "date": "2026-11-01",
            }
            files.setdefault("reviews", []).append(review)
        elif action == "new_deal" and now["dispensaries"]:
            shop = data.draw(st.sampled_from(now["dispensaries"]))
            deal = {
                "id": f"deal_{90_000 + serial}",
                "dispensary": shop["id"],
                "title": "New",
                "category": "flower",
                "discount": "5% off",
                "expires": "2030-12-31",
            }
            if ("deals", deal["id"]) not in taken and ("dispensaries", shop["id"]) not in taken:
                taken.add(("deals", deal["id"]))
                files.setdefault("deals", []).append(deal)
        elif action == "same" and (r := pick("doctors", "id")):
            files.setdefault("doctors", []).append(r)
        elif action.startswith("delete "):
            kind, name = action.split()[1:]
            if r := pick(name, "slug" if name == "strains" else "id"):
                deletions.append({"type": kind, "id": r["slug" if name == "strains" else "id"]})
    # A deleted dispensary takes its deals along: leave out the new ones that name it.
    gone = {d["id"] for d in deletions if d["type"] == "dispensary"}
    for name in ("deals", "menu_items", "reviews"):
        if name in files:
            files[name] = [r for r in files[name] if r["dispensary"] not in gone]
    if deletions:
        files["deletions"] = deletions
    return {name: records for name, records in files.items() if records}


_ACTIONS = [
    "strain",
    "rename",
    "menu",
    "reviews",
    "new_deal",
    "same",
    "delete deal deals",
    "delete doctor doctors",
    "delete dispensary dispensaries",
    "delete strain strains",
]


def _full_files(data: st.DataObject, now: Records) -> Records:
    """The stored data with some deals and doctors gone and some strains changed."""
    files = {name: [dict(r) for r in records] for name, records in now.items()}
    for name in ("deals", "doctors"):
        drop = data.draw(st.sets(st.integers(0, max(len(files[name]) - 1, 0)), max_size=3))
        files[name] = [r for i, r in enumerate(files[name]) if i not in drop]
    for index in data.draw(st.sets(st.integers(0, len(files["strains"]) - 1), max_size=3)):
        files["strains"][index]["rating"] = round((files["strains"][index]["rating"] + 1) % 5, 1)
    return files


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), steps=STEPS)
def test_a_copy_following_the_feed_equals_the_served_lists(
    sync_app: Flask, sync_db_url: str, tmp_path_factory: Any, data: st.DataObject, steps: list[str]
) -> None:
    url = sync_db_url
    load(url, live_dataset(), rebuild=True)
    loop = client_loop()
    get = client_get(sync_app.test_client(), new_key(url))
    seen: list[tuple[str, str]] = []

    def recording(path: str) -> tuple[int, Any]:
        status, body = get(path)
        if status == 200:
            seen.extend((c["type"], c["id"]) for c in body["data"])
        return status, body

    loop["get"] = recording

    def sync(copy: Copy, cursor: str | None) -> str:
        seen.clear()
        cursor = loop["sync"](copy, cursor)
        assert len(seen) == len(set(seen)), "a change came twice in one pass"
        return cursor

    copy: Copy = {}
    cursor = sync(copy, None)
    assert copy == served(get)
    history = [(dict(copy), cursor)]
    work = tmp_path_factory.mktemp("steps")
    for serial, step in enumerate(steps):
        now = _stored_records(url)
        if step == "full":
            _import(sync_app, _write(work / f"{serial}", _full_files(data, now)))
        elif step == "same":
            _import(sync_app, _write(work / f"{serial}", {"laws": now["laws"]}), "--merge")
        else:
            files = _merge_files(data, now, serial)
            if files:
                _import(sync_app, _write(work / f"{serial}", files), "--merge")
        expected = served(get)
        cursor = sync(copy, cursor)
        assert copy == expected
        # A client that last synced at some earlier step catches up just the same.
        old_copy, old_cursor = history[data.draw(st.integers(0, len(history) - 1))]
        late = dict(old_copy)
        sync(late, old_cursor)
        assert late == expected
        history.append((dict(copy), cursor))
