"""``flask data import PATH --merge``, deletions files, and stamps that move only for what changed.

Every test starts from the example set imported in full (data version 1) into an empty
database of its own, once on SQLite and once on a scratch PostgreSQL database (skipped when no
server answers), and checks the change log's invariants after every load.
"""

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result
from flask import Flask
from sqlalchemy import Connection, select

import seed
import seed.cli
from models import Base, Change, DatasetInfo, FeedState
from seed.feed import KINDS
from seed.importing import build_dataset, read_directory, validate
from seed.importing.export import dataset_records
from seed.importing.merge import merge_dataset, stored_dataset, stored_ids
from seed.load import apply_dataset
from service import keys
from web.db import ENGINE_EXTENSION

EXAMPLES = Path(seed.__file__).parent / "examples"
OUTCOMES = ("inserted", "replaced", "deleted", "unchanged")
# Parts of an object: their own updated_at is no object's stamp (see seed.load).
PART_TABLES = (
    "strain_effects",
    "strain_flavors",
    "strain_terpenes",
    "strain_parents",
    "menu_items",
    "reviews",
)

Key = tuple[str, str]  # (kind, public id)


# --- helpers -------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database for this test alone, on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'merge.db'}"
    return request.getfixturevalue("postgres_scratch_url")


@pytest.fixture
def app(db_url: str, make_app: Callable[..., Flask]) -> Flask:
    """An app whose database holds the example set, imported in full (data version 1)."""
    app = make_app(DATABASE_URL=db_url)
    result = _run(app, EXAMPLES)
    assert result.exit_code == 0, result.output
    _check_log(app)
    return app


@cache
def _examples() -> dict[str, list[dict[str, Any]]]:
    """The example set's records, resource -> records with the field names an import reads."""
    dataset = build_dataset(validate(read_directory(EXAMPLES)), today=date.today())
    return dataset_records(dataset)


def _record(resource: str, key: str, **changes: Any) -> dict[str, Any]:
    """An example record by its id (a law's stateCode, a strain's slug), with ``changes``."""
    field = {"laws": "stateCode", "strains": "slug"}.get(resource, "id")
    found = next(r for r in _examples()[resource] if r[field] == key)
    return {**found, **changes}


def _write(directory: Path, files: dict[str, Any]) -> Path:
    """Write ``files`` into ``directory``: a list of records as JSON lines, a str as it is."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, str):
            (directory / name).write_text(content, encoding="utf-8")
        else:
            lines = b"".join(orjson.dumps(record) + b"\n" for record in content)
            (directory / name).write_bytes(lines)
    return directory


def _run(app: Flask, path: Path, *args: str) -> Result:
    return app.test_cli_runner().invoke(args=["data", "import", str(path), *args])


def _merge(app: Flask, tmp_path: Path, files: dict[str, Any], *args: str) -> Result:
    """Merge ``files`` (written into a fresh directory) into the app's database."""
    directory = _write(tmp_path / f"merge{len(list(tmp_path.iterdir()))}", files)
    return _run(app, directory, "--merge", *args)


def _table(output: str) -> dict[str, dict[str, int]]:
    """The printed outcome table: resource -> outcome -> count."""
    found = {}
    for resource in ("laws", "strains", "dispensaries", "deals", "doctors"):
        match = re.search(rf"^  {resource} +([\d,]+) +([\d,]+) +([\d,]+) +([\d,]+)$", output, re.M)
        assert match, output
        found[resource] = dict(
            zip(OUTCOMES, (int(n.replace(",", "")) for n in match.groups()), strict=True)
        )
    return found


def _counts(**given: dict[str, int]) -> dict[str, dict[str, int]]:
    """The table every resource shows: their example counts unchanged, except ``given``."""
    sizes = {name: len(records) for name, records in _examples().items()}
    return {
        name: {"inserted": 0, "replaced": 0, "deleted": 0, "unchanged": sizes[name]}
        | given.get(name, {})
        for name in ("laws", "strains", "dispensaries", "deals", "doctors")
    }


def _utc(value: datetime | None) -> datetime | None:
    # SQLite gives stored UTC stamps back without their zone; PostgreSQL in the session's zone.
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _connect(app: Flask) -> Any:
    return app.extensions[ENGINE_EXTENSION].connect()


def _rows(conn: Connection) -> dict[str, dict[Any, dict[str, Any]]]:
    """Every data table's rows by primary key (a part's own updated_at left out)."""
    found: dict[str, dict[Any, dict[str, Any]]] = {}
    for name in (*KINDS_TABLES, *PART_TABLES):
        table = Base.metadata.tables[name]
        columns = [c for c in table.c if not (name in PART_TABLES and c.name == "updated_at")]
        found[name] = {
            tuple(row._mapping[c.name] for c in table.primary_key.columns): {
                k: _utc(v) if isinstance(v, datetime) else v for k, v in row._mapping.items()
            }
            for row in conn.execute(select(*columns))
        }
    return found


KINDS_TABLES = tuple(table.name for table, _ in KINDS.values())


def _stamps(conn: Connection) -> dict[Key, tuple[datetime, datetime | None]]:
    """Every stored object's (updated_at, menu_updated_at or None)."""
    stamps = {}
    for kind, (table, key) in KINDS.items():
        menu = table.c.menu_updated_at if kind == "dispensary" else None
        columns = [table.c[key], table.c.updated_at, *([menu] if menu is not None else [])]
        for public, updated, *rest in conn.execute(select(*columns)):
            stamps[(kind, public)] = (_utc(updated), _utc(rest[0]) if rest else None)
    return stamps  # type: ignore[return-value]


def _log(conn: Connection) -> dict[Key, tuple[int, str, datetime, datetime | None]]:
    """Every change entry: (kind, key) -> (seq, op, at, menu_at)."""
    c = Change.__table__.c
    return {
        (kind, key): (seq, op, _utc(at), _utc(menu_at))
        for seq, kind, key, op, at, menu_at in conn.execute(
            select(c.seq, c.kind, c.key, c.op, c.at, c.menu_at)
        )
    }  # type: ignore[misc]


def _snapshot(app: Flask) -> dict[str, Any]:
    """Rows, stamps, change log, feed state and data version."""
    with _connect(app) as conn:
        return {
            "rows": _rows(conn),
            "stamps": _stamps(conn),
            "log": _log(conn),
            "last_seq": conn.scalar(select(FeedState.last_seq)),
            "version": conn.scalar(
                select(DatasetInfo.version).order_by(DatasetInfo.version.desc())
            ),
        }


def _check_log(app: Flask) -> dict[Key, tuple[int, str, datetime, datetime | None]]:
    """The log's invariants: every stored object has one upsert whose ``at`` is its
    updated_at (and ``menu_at`` a dispensary's menu_updated_at); every other entry is a
    deletion; stamps are whole milliseconds; last_seq is the highest seq. Returns the log."""
    with _connect(app) as conn:
        stamps, log = _stamps(conn), _log(conn)
        last_seq = conn.scalar(select(FeedState.last_seq))
    for key, (updated, menu) in stamps.items():
        _, op, at, menu_at = log[key]
        assert (op, at, menu_at) == ("upsert", updated, menu), key
        for stamp in (updated, menu):
            assert stamp is None or stamp.microsecond % 1000 == 0, (key, stamp)
    for key, (_, op, at, _) in log.items():
        assert key in stamps or op == "delete", key
        assert at.microsecond % 1000 == 0
    assert last_seq == max(seq for seq, *_ in log.values())
    return log


def _moved(before: dict[str, Any], after: dict[str, Any]) -> dict[Key, tuple[bool, bool]]:
    """Objects whose stamps moved: key -> (updated_at moved, menu_updated_at moved)."""
    moved = {}
    for key, (updated, menu) in after["stamps"].items():
        old = before["stamps"].get(key)
        if old is None:
            continue
        if old != (updated, menu):
            moved[key] = (old[0] != updated, old[1] != menu)
    return moved


def _new_entries(before: dict[str, Any], after: dict[str, Any]) -> dict[Key, str]:
    """Change entries a load wrote: key -> op; their seqs all above the previous last_seq."""
    new = {k: v for k, v in after["log"].items() if before["log"].get(k) != v}
    assert all(seq > before["last_seq"] for seq, *_ in new.values())
    return {key: op for key, (_, op, _, _) in new.items()}


def _same_except(
    before: dict[str, Any], after: dict[str, Any], table: str, changed: set[Any]
) -> None:
    """Every row of ``table`` outside the primary keys ``changed`` is exactly as before."""
    old = {k: v for k, v in before["rows"][table].items() if k not in changed}
    new = {k: v for k, v in after["rows"][table].items() if k not in changed}
    assert new == old, table


def _ids(snapshot: dict[str, Any], table: str, key: str) -> dict[str, Any]:
    """Public id -> primary key, for ``table``."""
    return {row[key]: pk for pk, row in snapshot["rows"][table].items()}


def _row(snapshot: dict[str, Any], table: str, key: str, public: str) -> dict[str, Any]:
    return next(row for row in snapshot["rows"][table].values() if row[key] == public)


def _menu(snapshot: dict[str, Any], shop: str) -> list[tuple[str, float, int | None]]:
    """A dispensary's menu in order: (name, price, strain_id)."""
    shop_id = _row(snapshot, "dispensaries", "public_id", shop)["id"]
    items = [r for r in snapshot["rows"]["menu_items"].values() if r["dispensary_id"] == shop_id]
    return [
        (r["name"], r["price"], r["strain_id"]) for r in sorted(items, key=lambda r: r["position"])
    ]


# --- inserting and replacing by public id --------------------------------------------------


def test_a_merge_inserts_new_objects_and_replaces_stored_ones_by_public_id(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    washington = _record("laws", "CA", stateCode="WA", state="Washington")
    files = {
        "laws.jsonl": [_record("laws", "CO", possession_limit_oz=3), washington],
        "strains.jsonl": [
            # Without its chemistry, whose median THC its thc would have to match.
            _record("strains", "blue-dream", thc=19.5, chemistry=None),
            _record("strains", "harlequin", slug="new-kush", name="New Kush"),
        ],
        "dispensaries.jsonl": [
            _record("dispensaries", "disp_1004", phone="(503) 555-0199"),
            _record("dispensaries", "disp_1002", id="disp_2001", name="Second Leaf"),
        ],
        # Both deals name stored dispensaries that the merge leaves out.
        "deals.jsonl": [
            _record("deals", "deal_1003", title="$12 off any cartridge"),
            _record("deals", "deal_1004", id="deal_2001", dispensary="disp_1005"),
        ],
        "doctors.jsonl": [
            _record("doctors", "doc_1002", price=129.0),
            _record("doctors", "doc_1001", id="doc_2001", name="Dr. Ada Novak"),
        ],
    }

    result = _merge(app, tmp_path, files)

    assert result.exit_code == 0, result.output
    assert "(data version 2)" in result.output
    replaced_one = {"inserted": 1, "replaced": 1}
    assert _table(result.output) == _counts(
        laws=replaced_one | {"unchanged": 4},
        strains=replaced_one | {"unchanged": 5},
        dispensaries=replaced_one | {"unchanged": 5},
        deals=replaced_one | {"unchanged": 4},
        doctors=replaced_one | {"unchanged": 3},
    )
    _check_log(app)
    after = _snapshot(app)
    assert after["version"] == 2
    touched = {
        ("law", "CO"),
        ("strain", "blue-dream"),
        ("dispensary", "disp_1004"),
        ("deal", "deal_1003"),
        ("doctor", "doc_1002"),
    }
    inserted = {
        ("law", "WA"),
        ("strain", "new-kush"),
        ("dispensary", "disp_2001"),
        ("deal", "deal_2001"),
        ("doctor", "doc_2001"),
    }
    assert set(_moved(before, after)) == touched
    assert set(after["stamps"]) == set(before["stamps"]) | inserted
    assert _new_entries(before, after) == {key: "upsert" for key in touched | inserted}
    assert {after["stamps"][key][0] for key in touched | inserted} == {
        after["log"][("law", "WA")][2]
    }
    assert _row(after, "laws", "state_code", "CO")["possession_limit_oz"] == 3
    assert _row(after, "strains", "slug", "blue-dream")["thc"] == 19.5
    assert _row(after, "dispensaries", "public_id", "disp_1004")["phone"] == "(503) 555-0199"
    assert _row(after, "deals", "public_id", "deal_1003")["title"] == "$12 off any cartridge"
    assert _row(after, "doctors", "public_id", "doc_1002")["price"] == 129.0
    new_deal = _row(after, "deals", "public_id", "deal_2001")
    assert new_deal["dispensary_id"] == _ids(after, "dispensaries", "public_id")["disp_1005"][0]
    # Everything else: the same rows, internal ids and stamps included.
    for table, key in (
        ("laws", "state_code"),
        ("strains", "slug"),
        ("dispensaries", "public_id"),
        ("deals", "public_id"),
        ("doctors", "public_id"),
    ):
        kind = next(k for k, (t, _) in KINDS.items() if t.name == table)
        ids = _ids(after, table, key)
        changed = {pk for public, pk in ids.items() if (kind, public) in touched | inserted}
        _same_except(before, after, table, changed)
    for table in ("menu_items", "reviews"):
        _same_except(before, after, table, set())  # no menu or reviews file: all kept
    assert _menu(after, "disp_1004") == _menu(before, "disp_1004")
    assert (
        after["stamps"][("dispensary", "disp_1004")][1]
        == before["stamps"][("dispensary", "disp_1004")][1]
    )


def test_a_menu_file_replaces_the_whole_menu_of_each_dispensary_it_names(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    menu = [
        {"dispensary": "disp_1003", "name": "Relief Balm", "category": "topicals", "price": 30.0,
         "unit": "1 oz"},
        {"dispensary": "disp_1001", "name": "Blue Dream", "category": "flower", "price": 40.0,
         "unit": "3.5g", "strain": "blue-dream"},
        {"dispensary": "disp_1001", "name": "Shatter", "category": "concentrates", "price": 20.0,
         "unit": "1g"},
    ]  # fmt: skip

    result = _merge(app, tmp_path, {"menu_items.jsonl": menu})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(dispensaries={"replaced": 2, "unchanged": 4})
    _check_log(app)
    after = _snapshot(app)
    blue_dream = _ids(after, "strains", "slug")["blue-dream"][0]
    assert _menu(after, "disp_1001") == [("Blue Dream", 40.0, blue_dream), ("Shatter", 20.0, None)]
    assert _menu(after, "disp_1003") == [("Relief Balm", 30.0, None)]
    for shop in ("disp_1002", "disp_1004", "disp_1005", "disp_1006"):
        assert _menu(after, shop) == _menu(before, shop)
    shops = _ids(after, "dispensaries", "public_id")
    named = {shops["disp_1001"][0], shops["disp_1003"][0]}
    kept = {pk for pk, r in before["rows"]["menu_items"].items() if r["dispensary_id"] not in named}
    assert {pk: after["rows"]["menu_items"][pk] for pk in kept} == {
        pk: before["rows"]["menu_items"][pk] for pk in kept
    }
    assert _moved(before, after) == {
        ("dispensary", "disp_1001"): (True, True),
        ("dispensary", "disp_1003"): (True, True),
    }


def test_a_reviews_file_replaces_the_reviews_of_each_dispensary_it_names(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    reviews = [
        {"dispensary": "disp_1002", "rating": 2, "text": "Out of stock twice.", "author": "Ben",
         "date": "2026-03-01"},
        {"dispensary": "disp_1002", "rating": 5, "text": "Back to great.", "author": "Ben",
         "date": "2026-04-01"},
    ]  # fmt: skip

    result = _merge(app, tmp_path, {"reviews.jsonl": reviews})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(dispensaries={"replaced": 1, "unchanged": 5})
    _check_log(app)
    after = _snapshot(app)
    shop_id = _ids(after, "dispensaries", "public_id")["disp_1002"][0]
    texts = [r["text"] for r in after["rows"]["reviews"].values() if r["dispensary_id"] == shop_id]
    assert sorted(texts) == ["Back to great.", "Out of stock twice."]
    others = {pk for pk, r in before["rows"]["reviews"].items() if r["dispensary_id"] != shop_id}
    assert {pk: after["rows"]["reviews"][pk] for pk in others} == {
        pk: before["rows"]["reviews"][pk] for pk in others
    }
    assert _moved(before, after) == {("dispensary", "disp_1002"): (True, False)}


# --- deletions -----------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["jsonl", "csv"])
def test_a_deletions_file_deletes_deals_doctors_strains_and_laws(
    app: Flask, tmp_path: Path, form: str
) -> None:
    before = _snapshot(app)
    deletions = [
        ("deal", "deal_1002"),
        ("doctor", "doc_1003"),
        ("strain", "harlequin"),  # on no menu
        ("dispensary", "disp_1005"),
        ("law", "MA"),  # its only dispensary goes in the same merge
    ]
    if form == "jsonl":
        files: dict[str, Any] = {
            "deletions.jsonl": [{"type": kind, "id": key} for kind, key in deletions]
        }
    else:
        files = {"deletions.csv": "type,id\n" + "".join(f"{k},{i}\n" for k, i in deletions)}

    result = _merge(app, tmp_path, files)

    assert result.exit_code == 0, result.output
    gone = {"deleted": 1}
    assert _table(result.output) == _counts(
        laws=gone | {"unchanged": 4},
        strains=gone | {"unchanged": 5},
        dispensaries=gone | {"unchanged": 5},
        deals=gone | {"unchanged": 4},
        doctors=gone | {"unchanged": 3},
    )
    _check_log(app)
    after = _snapshot(app)
    assert set(before["stamps"]) - set(after["stamps"]) == set(deletions)
    assert _new_entries(before, after) == {key: "delete" for key in deletions}
    assert _moved(before, after) == {}
    shop_id = _ids(before, "dispensaries", "public_id")["disp_1005"][0]
    for table in ("menu_items", "reviews"):
        assert not [r for r in after["rows"][table].values() if r["dispensary_id"] == shop_id]


def test_deleting_a_dispensary_deletes_its_menu_reviews_and_deals_each_in_the_log(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)

    result = _merge(app, tmp_path, {"deletions.jsonl": [{"type": "dispensary", "id": "disp_1001"}]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(
        dispensaries={"deleted": 1, "unchanged": 5}, deals={"deleted": 2, "unchanged": 3}
    )
    _check_log(app)
    after = _snapshot(app)
    deleted = {("dispensary", "disp_1001"), ("deal", "deal_1001"), ("deal", "deal_1002")}
    assert _new_entries(before, after) == {key: "delete" for key in deleted}
    assert len({after["log"][key][0] for key in deleted}) == 3  # a seq each
    assert set(before["stamps"]) - set(after["stamps"]) == deleted
    shop_id = _ids(before, "dispensaries", "public_id")["disp_1001"][0]
    for table in ("menu_items", "reviews", "deals"):
        assert [r for r in before["rows"][table].values() if r["dispensary_id"] == shop_id]
        assert not [r for r in after["rows"][table].values() if r["dispensary_id"] == shop_id]
    assert _moved(before, after) == {}


def test_deleting_a_strain_leaves_its_menu_items_without_one_and_moves_those_menus(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)

    result = _merge(app, tmp_path, {"deletions.jsonl": [{"type": "strain", "id": "sour-diesel"}]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(
        strains={"deleted": 1, "unchanged": 5}, dispensaries={"replaced": 2, "unchanged": 4}
    )
    _check_log(app)
    after = _snapshot(app)
    blue_dream = _ids(after, "strains", "slug")["blue-dream"][0]
    assert _menu(after, "disp_1001")[:2] == [
        ("Blue Dream", 42.0, blue_dream),
        ("Sour Diesel", 12.5, None),
    ]
    assert _menu(after, "disp_1004")[0] == ("Sour Diesel", 30.0, None)
    assert _moved(before, after) == {
        ("dispensary", "disp_1001"): (True, True),
        ("dispensary", "disp_1004"): (True, True),
    }
    assert _new_entries(before, after) == {
        ("strain", "sour-diesel"): "delete",
        ("dispensary", "disp_1001"): "upsert",
        ("dispensary", "disp_1004"): "upsert",
    }


def _refused(app: Flask, tmp_path: Path, files: dict[str, Any], expected: str) -> None:
    """The merge fails naming ``expected`` (a line of its output) and nothing changes."""
    before = _snapshot(app)
    result = _merge(app, tmp_path, files)
    assert result.exit_code == 1, result.output
    assert expected in result.output.splitlines(), result.output
    assert "nothing was imported" in result.output
    assert _snapshot(app) == before


def test_deleting_an_unknown_id_names_the_line_and_changes_nothing(
    app: Flask, tmp_path: Path
) -> None:
    deletions = [{"type": "deal", "id": "deal_1001"}, {"type": "deal", "id": "deal_9999"}]
    _refused(
        app,
        tmp_path,
        {"deletions.jsonl": deletions},
        "deletions.jsonl:2: no deal deal_9999 is stored",
    )


def test_deleting_and_replacing_the_same_id_is_refused(app: Flask, tmp_path: Path) -> None:
    files = {
        "deals.jsonl": [_record("deals", "deal_1001", title="Changed")],
        "deletions.csv": "type,id\ndeal,deal_1001\n",
    }
    expected = (
        "deletions.csv:2: deal deal_1001 is also in deals.jsonl: a merge either replaces or "
        "deletes it"
    )
    _refused(app, tmp_path, files, expected)


def test_deleting_a_law_that_dispensaries_need_names_the_deletion_line(
    app: Flask, tmp_path: Path
) -> None:
    deletions = [{"type": "deal", "id": "deal_1001"}, {"type": "law", "id": "CO"}]
    expected = (
        "deletions.jsonl:2: law CO still has dispensaries or doctors; delete or move them too"
    )
    _refused(app, tmp_path, {"deletions.jsonl": deletions}, expected)


def test_a_deletions_file_in_a_full_import_is_refused(app: Flask, tmp_path: Path) -> None:
    before = _snapshot(app)
    directory = tmp_path / "full"
    directory.mkdir()
    for path in EXAMPLES.iterdir():
        (directory / path.name).write_bytes(path.read_bytes())
    _write(directory, {"deletions.jsonl": [{"type": "deal", "id": "deal_1001"}]})

    result = _run(app, directory)

    assert result.exit_code == 1, result.output
    assert "deletions.jsonl: deletions are read only by a merge (--merge)" in result.output
    assert _snapshot(app) == before


# --- references ----------------------------------------------------------------------------


def test_a_reference_to_an_id_neither_stored_nor_given_is_refused(
    app: Flask, tmp_path: Path
) -> None:
    deal = _record("deals", "deal_1001", id="deal_2001", dispensary="disp_9999")
    expected = "deals.jsonl:1: dispensary disp_9999 is not stored (or is deleted by this merge)"
    _refused(app, tmp_path, {"deals.jsonl": [deal]}, expected)


def test_a_reference_to_a_dispensary_deleted_by_the_same_merge_is_refused(
    app: Flask, tmp_path: Path
) -> None:
    files = {
        "deals.jsonl": [_record("deals", "deal_1001", id="deal_2001", dispensary="disp_1002")],
        "deletions.jsonl": [{"type": "dispensary", "id": "disp_1002"}],
    }
    expected = "deals.jsonl:1: dispensary disp_1002 is not stored (or is deleted by this merge)"
    _refused(app, tmp_path, files, expected)


def test_skip_invalid_in_a_merge_skips_only_the_bad_records(app: Flask, tmp_path: Path) -> None:
    before = _snapshot(app)
    deals = [
        _record("deals", "deal_1001", id="deal_2001", dispensary="disp_9999"),
        _record("deals", "deal_1001", id="deal_2002", dispensary="disp_1002"),
        _record("deals", "deal_1003", title="$15 off any cartridge"),
    ]

    deletions = "type,id\ndoctor,doc_9999\ndoctor,doc_1004\n"
    files = {"deals.jsonl": deals, "deletions.csv": deletions}

    result = _merge(app, tmp_path, files, "--skip-invalid")

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "deletions.csv:2: no doctor doc_9999 is stored" in lines
    assert "Skipped 1 of 3 records in deals.jsonl." in lines
    assert "Skipped 1 of 2 records in deletions.csv." in lines
    assert _table(result.output) == _counts(
        deals={"inserted": 1, "replaced": 1, "unchanged": 4},
        doctors={"deleted": 1, "unchanged": 3},
    )
    _check_log(app)
    after = _snapshot(app)
    assert _new_entries(before, after) == {
        ("deal", "deal_2002"): "upsert",
        ("deal", "deal_1003"): "upsert",
        ("doctor", "doc_1004"): "delete",
    }
    assert ("deal", "deal_2001") not in after["stamps"]


# --- identical records change nothing ------------------------------------------------------


def test_merging_records_identical_to_the_stored_ones_changes_nothing(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    files = {f"{name}.jsonl": records for name, records in _examples().items()}

    result = _merge(app, tmp_path, files)

    assert result.exit_code == 0, result.output
    assert "nothing changed (data version 1 stays)" in result.output
    assert _table(result.output) == _counts()
    after = _snapshot(app)
    assert after["stamps"] == before["stamps"]
    assert after["log"] == before["log"]
    assert (after["last_seq"], after["version"]) == (before["last_seq"], 1)
    for table in KINDS_TABLES:
        assert after["rows"][table] == before["rows"][table]


def test_a_merge_changing_one_record_among_identical_ones_stamps_only_that_one(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    files = {f"{name}.jsonl": records for name, records in _examples().items()}
    files["doctors.jsonl"] = [
        {**r, "price": 89.0} if r["id"] == "doc_1003" else r for r in _examples()["doctors"]
    ]

    result = _merge(app, tmp_path, files)

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(doctors={"replaced": 1, "unchanged": 3})
    _check_log(app)
    after = _snapshot(app)
    assert _moved(before, after) == {("doctor", "doc_1003"): (True, False)}
    assert _new_entries(before, after) == {("doctor", "doc_1003"): "upsert"}
    assert after["version"] == 2


def test_a_full_import_of_the_same_files_reports_no_change_and_keeps_the_version(
    app: Flask,
) -> None:
    before = _snapshot(app)

    result = _run(app, EXAMPLES)

    assert result.exit_code == 0, result.output
    assert "nothing changed (data version 1 stays)" in result.output
    assert _table(result.output) == _counts()
    assert _snapshot(app) == before


def test_a_full_import_deletes_what_is_gone_and_stamps_only_what_changed(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    directory = tmp_path / "full"
    directory.mkdir()
    for path in EXAMPLES.iterdir():
        (directory / path.name).write_bytes(path.read_bytes())
    doctors = (directory / "doctors.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (directory / "doctors.jsonl").write_text("".join(doctors[:-1]), encoding="utf-8")  # doc_1004
    deals = (directory / "deals.jsonl").read_text(encoding="utf-8")
    (directory / "deals.jsonl").write_text(deals.replace("20% off all", "25% off all"), "utf-8")

    result = _run(app, directory)

    assert result.exit_code == 0, result.output
    assert "(data version 2)" in result.output
    assert _table(result.output) == _counts(
        deals={"replaced": 1, "unchanged": 4}, doctors={"deleted": 1, "unchanged": 3}
    )
    _check_log(app)
    after = _snapshot(app)
    assert _moved(before, after) == {("deal", "deal_1001"): (True, False)}
    assert _new_entries(before, after) == {
        ("deal", "deal_1001"): "upsert",
        ("doctor", "doc_1004"): "delete",
    }


# --- stamps move only for what changed -----------------------------------------------------


def test_a_menu_price_change_moves_only_that_dispensarys_stamps(app: Flask, tmp_path: Path) -> None:
    before = _snapshot(app)
    menu = [r for r in _examples()["menu_items"] if r["dispensary"] == "disp_1004"]
    menu[1] = {**menu[1], "price": 27.5}

    result = _merge(app, tmp_path, {"menu_items.jsonl": menu})

    assert result.exit_code == 0, result.output
    _check_log(app)
    after = _snapshot(app)
    assert _moved(before, after) == {("dispensary", "disp_1004"): (True, True)}
    assert set(after["stamps"]) == set(before["stamps"])
    assert _new_entries(before, after) == {("dispensary", "disp_1004"): "upsert"}
    assert _menu(after, "disp_1004")[1][:2] == ("Shatter", 27.5)


def test_renaming_a_dispensary_moves_its_deals_stamps_but_not_other_deals(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    shop = _record("dispensaries", "disp_1001", name="Mile High Glasshouse")

    result = _merge(app, tmp_path, {"dispensaries.jsonl": [shop]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(
        dispensaries={"replaced": 1, "unchanged": 5}, deals={"replaced": 2, "unchanged": 3}
    )
    _check_log(app)
    after = _snapshot(app)
    assert _moved(before, after) == {
        ("dispensary", "disp_1001"): (True, False),  # the menu did not change
        ("deal", "deal_1001"): (True, False),
        ("deal", "deal_1002"): (True, False),
    }


def test_a_review_change_moves_updated_at_but_not_menu_updated_at(
    app: Flask, tmp_path: Path
) -> None:
    before = _snapshot(app)
    reviews = [r for r in _examples()["reviews"] if r["dispensary"] == "disp_1003"]
    reviews[0] = {**reviews[0], "text": "Decent selection; the wait is shorter now."}

    result = _merge(app, tmp_path, {"reviews.jsonl": reviews})

    assert result.exit_code == 0, result.output
    _check_log(app)
    after = _snapshot(app)
    assert _moved(before, after) == {("dispensary", "disp_1003"): (True, False)}


def test_each_load_stamps_in_utc_milliseconds_and_numbers_its_changes_above_the_last(
    app: Flask, tmp_path: Path
) -> None:
    seqs = [_check_log(app)]
    for price in (41.0, 40.0, 39.0):
        menu = [r for r in _examples()["menu_items"] if r["dispensary"] == "disp_1002"]
        menu[0] = {**menu[0], "price": price}
        started = datetime.now(UTC) - timedelta(milliseconds=1)
        result = _merge(app, tmp_path, {"menu_items.jsonl": menu})
        assert result.exit_code == 0, result.output
        log = _check_log(app)
        seq, _, at, menu_at = log[("dispensary", "disp_1002")]
        assert seq > max(s for s, *_ in seqs[-1].values())
        assert started <= at <= datetime.now(UTC)
        assert at.utcoffset() == timedelta(0)
        assert menu_at == at
        seqs.append(log)
    with _connect(app) as conn:
        assert conn.scalar(select(FeedState.last_seq)) == max(s for s, *_ in seqs[-1].values())


def test_a_new_strain_taking_a_stored_strains_name_is_refused(app: Flask, tmp_path: Path) -> None:
    strain = _record("strains", "harlequin", slug="blue-dream-2", name="Blue Dream")
    expected = "strains.jsonl:1: strain name 'Blue Dream' is already used by blue-dream"
    _refused(app, tmp_path, {"strains.jsonl": [strain]}, expected)


def test_a_merge_into_an_empty_database_is_refused(
    db_url: str, make_app: Callable[..., Flask], tmp_path: Path
) -> None:
    result = _merge(make_app(DATABASE_URL=db_url), tmp_path, {"deals.jsonl": []})
    assert result.exit_code == 1
    assert "nothing is stored to merge into; import or seed first" in result.output


def test_deletions_older_than_the_retention_setting_leave_the_log_on_the_next_load(
    db_url: str, make_app: Callable[..., Flask], tmp_path: Path
) -> None:
    app = make_app(DATABASE_URL=db_url, CHANGE_RETENTION_DAYS=5)
    assert _run(app, EXAMPLES).exit_code == 0
    deletions = [{"type": "doctor", "id": "doc_1001"}, {"type": "doctor", "id": "doc_1002"}]
    assert _merge(app, tmp_path, {"deletions.jsonl": deletions}).exit_code == 0
    table = Change.__table__
    with app.extensions[ENGINE_EXTENSION].begin() as conn:
        aged = datetime.now(UTC) - timedelta(days=6)
        conn.execute(table.update().where(table.c.key == "doc_1001").values(at=aged))
        old_seq = conn.scalar(select(table.c.seq).where(table.c.key == "doc_1001"))

    deal = _record("deals", "deal_1001", title="30% off all flower")
    assert _merge(app, tmp_path, {"deals.jsonl": [deal]}).exit_code == 0

    log = _check_log(app)
    assert ("doctor", "doc_1001") not in log
    assert log[("doctor", "doc_1002")][1] == "delete"  # deleted a moment ago: kept
    with _connect(app) as conn:
        assert conn.scalar(select(FeedState.horizon)) == old_seq


def test_a_merge_whose_stored_ids_changed_after_its_checks_is_refused(
    app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = seed.cli._validate_import

    def check_then_delete_elsewhere(*args: Any, **kwargs: Any) -> Any:
        # Another import commits between this merge's checks and its load.
        report = checked(*args, **kwargs)
        deletion = {"deletions.jsonl": [{"type": "dispensary", "id": "disp_1005"}]}
        directory = _write(tmp_path / "elsewhere", deletion)
        report_elsewhere = validate(read_directory(directory), stored=_stored_ids(app))
        apply_dataset(
            app.extensions[ENGINE_EXTENSION],
            lambda conn: merge_dataset(stored_dataset(conn), report_elsewhere),
            source="import",
        )
        return report

    deal = _record("deals", "deal_1004", id="deal_2001", dispensary="disp_1005")
    monkeypatch.setattr(seed.cli, "_validate_import", check_then_delete_elsewhere)
    result = _merge(app, tmp_path, {"deals.jsonl": [deal]})

    assert result.exit_code == 1, result.output
    assert "another import changed the stored ids" in result.output
    _check_log(app)
    after = _snapshot(app)
    assert ("dispensary", "disp_1005") not in after["stamps"]
    assert ("deal", "deal_2001") not in after["stamps"]


def _stored_ids(app: Flask) -> dict[str, set[str]]:
    with _connect(app) as conn:
        return stored_ids(conn)


def test_deleting_the_same_id_twice_names_the_second_line(app: Flask, tmp_path: Path) -> None:
    deletions = "type,id\ndoctor,doc_1001\ndoctor,doc_1001\n"
    expected = "deletions.csv:3: doctor doc_1001 is deleted twice"
    _refused(app, tmp_path, {"deletions.csv": deletions}, expected)


def test_an_id_deleted_then_merged_again_is_inserted_with_a_new_upsert_entry(
    app: Flask, tmp_path: Path
) -> None:
    deletion = {"deletions.jsonl": [{"type": "dispensary", "id": "disp_1006"}]}
    assert _merge(app, tmp_path, deletion).exit_code == 0
    deleted = _snapshot(app)
    assert deleted["log"][("dispensary", "disp_1006")][1] == "delete"
    files = {
        "dispensaries.jsonl": [_record("dispensaries", "disp_1006")],
        "menu_items.jsonl": [
            r for r in _examples()["menu_items"] if r["dispensary"] == "disp_1006"
        ],
    }

    result = _merge(app, tmp_path, files)

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(
        dispensaries={"inserted": 1, "unchanged": 5}, deals={"unchanged": 4}
    )
    _check_log(app)
    after = _snapshot(app)
    assert _new_entries(deleted, after) == {("dispensary", "disp_1006"): "upsert"}
    updated, menu = after["stamps"][("dispensary", "disp_1006")]
    assert menu == updated > deleted["log"][("dispensary", "disp_1006")][2]
    assert _menu(after, "disp_1006")[1][:2] == ("1:1 Tincture", 59.0)


# --- chemistry, lineage and lab batches ---------------------------------------------------


def _feed_cursor(app: Flask) -> tuple[str, Any]:
    """(an API key, the feed's cursor after every change so far)."""
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="pro", name="merge tests").plaintext
        db.commit()
    cursor = None
    while True:
        query = "/api/v1/changes?limit=1000" + (f"&since={cursor}" if cursor else "")
        body = app.test_client().get(query, headers={"X-API-Key": key}).get_json()
        cursor = body["meta"]["next"]
        if not body["meta"]["has_more"]:
            return key, cursor


def _feed_since(app: Flask, key: str, cursor: Any) -> list[tuple[str, str, str]]:
    """The feed's (type, id, op) after ``cursor``."""
    body = app.test_client().get(
        f"/api/v1/changes?limit=1000&since={cursor}", headers={"X-API-Key": key}
    )
    return [(i["type"], i["id"], i["op"]) for i in body.get_json()["data"]]


def _edges(snapshot: dict[str, Any]) -> list[tuple[str, str, int]]:
    """The lineage as (child slug, parent slug, position)."""
    slugs = {row["id"]: row["slug"] for row in snapshot["rows"]["strains"].values()}
    return sorted(
        (slugs[e["strain_id"]], slugs[e["parent_id"]], e["position"])
        for e in snapshot["rows"]["strain_parents"].values()
    )


NEW_SAMPLES = [{"thca": 24.0, "delta_9_thc": 0.5, "myrcene": 0.9, "pinene": 0.3}]


def test_changing_a_strains_chemistry_puts_that_strain_alone_in_the_feed(
    app: Flask, tmp_path: Path
) -> None:
    key, cursor = _feed_cursor(app)
    before = _snapshot(app)
    chemistry = {"samples": NEW_SAMPLES, "source": "retest"}
    record = _record("strains", "blue-dream", thc=None, cbd=None, chemistry=chemistry)

    result = _merge(app, tmp_path, {"strains.jsonl": [record]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(strains={"replaced": 1, "unchanged": 5})
    _check_log(app)
    assert _feed_since(app, key, cursor) == [("strain", "blue-dream", "upsert")]
    after = _snapshot(app)
    row = _row(after, "strains", "slug", "blue-dream")
    # 0.5 + 0.877 * 24.0 = 21.548, stored as the median 21.55; thc is that to one decimal.
    assert row["chemistry"]["total_thc"]["p50"] == 21.55
    assert (row["thc"], row["chemistry"]["sample_count"], row["chemistry"]["source"]) == (
        21.6,
        1,
        "retest",
    )
    assert (row["dominant_terpene"], row["ratio"]) == ("myrcene", "thc_dominant")
    assert set(_moved(before, after)) == {("strain", "blue-dream")}


def test_giving_a_strain_parents_puts_that_strain_alone_in_the_feed(
    app: Flask, tmp_path: Path
) -> None:
    key, cursor = _feed_cursor(app)
    record = _record("strains", "harlequin", parents=["charlottes-web", "blue-dream"])

    result = _merge(app, tmp_path, {"strains.jsonl": [record]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(strains={"replaced": 1, "unchanged": 5})
    _check_log(app)
    assert _feed_since(app, key, cursor) == [("strain", "harlequin", "upsert")]
    assert _edges(_snapshot(app)) == [
        ("harlequin", "blue-dream", 1),
        ("harlequin", "charlottes-web", 0),
    ]
    # The same parents again change nothing.
    again = _merge(app, tmp_path, {"strains.jsonl": [record]})
    assert "nothing changed" in again.output, again.output


def test_a_merge_closing_a_cycle_through_stored_parents_is_refused_naming_it(
    app: Flask, tmp_path: Path
) -> None:
    first = _merge(
        app,
        tmp_path,
        {
            "strains.jsonl": [
                _record("strains", "harlequin", parents=["sour-diesel"]),
                _record("strains", "sour-diesel", parents=["northern-lights"]),
            ]
        },
    )
    assert first.exit_code == 0, first.output
    cycle = _record("strains", "northern-lights", parents=["harlequin"])
    _refused(
        app,
        tmp_path,
        {"strains.jsonl": [_record("strains", "granddaddy-purple"), cycle]},
        "strains.jsonl:2: parents form a cycle: northern-lights -> harlequin -> sour-diesel -> "
        "northern-lights (each strain has the next as a parent); a strain cannot be its own "
        "ancestor",
    )


def test_deleting_a_parent_drops_its_edges_and_moves_its_children_only(
    app: Flask, tmp_path: Path
) -> None:
    parents = {"parents": ["sour-diesel", "blue-dream"]}
    given = _merge(app, tmp_path, {"strains.jsonl": [_record("strains", "harlequin", **parents)]})
    assert given.exit_code == 0, given.output
    key, cursor = _feed_cursor(app)
    before = _snapshot(app)

    result = _merge(app, tmp_path, {"deletions.jsonl": [{"type": "strain", "id": "sour-diesel"}]})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(
        strains={"deleted": 1, "replaced": 1, "unchanged": 4},
        dispensaries={"replaced": 2, "unchanged": 4},
    )
    _check_log(app)
    after = _snapshot(app)
    # The child keeps its other parent, first now.
    assert _edges(after) == [("harlequin", "blue-dream", 0)]
    assert sorted(_feed_since(app, key, cursor)) == [
        ("dispensary", "disp_1001", "upsert"),
        ("dispensary", "disp_1004", "upsert"),
        ("strain", "harlequin", "upsert"),
        ("strain", "sour-diesel", "delete"),
    ]
    assert _row(after, "strains", "slug", "harlequin") == {
        **_row(before, "strains", "slug", "harlequin"),
        "updated_at": after["stamps"][("strain", "harlequin")][0],
    }


def test_a_new_lab_batch_moves_only_its_dispensarys_menu(app: Flask, tmp_path: Path) -> None:
    key, cursor = _feed_cursor(app)
    before = _snapshot(app)
    menu = [dict(r) for r in _examples()["menu_items"] if r["dispensary"] == "disp_1004"]
    menu[0]["lab"] = {
        "batch_id": "SD-0007",
        "tested_at": "2025-09-30",
        "lab": "Rose City Labs",
        "results": [
            {"key": "thca", "value": 23.0},
            {"key": "cbd", "value": None, "qualifier": "nd"},
        ],
    }

    result = _merge(app, tmp_path, {"menu_items.jsonl": menu})

    assert result.exit_code == 0, result.output
    assert _table(result.output) == _counts(dispensaries={"replaced": 1, "unchanged": 5})
    _check_log(app)
    assert _feed_since(app, key, cursor) == [("dispensary", "disp_1004", "upsert")]
    after = _snapshot(app)
    assert _moved(before, after) == {("dispensary", "disp_1004"): (True, True)}
    shop = _ids(after, "dispensaries", "public_id")["disp_1004"][0]
    item = next(
        r
        for r in after["rows"]["menu_items"].values()
        if r["dispensary_id"] == shop and r["position"] == 0
    )
    assert (item["lab"]["batch_id"], item["total_thc"], item["total_cbd"]) == ("SD-0007", 20.2, 0.0)
    assert item["price_per_gram"] == round(30.0 / 3.5, 2)
