"""``flask data import PATH``: the example set, every kind of bad record, --skip-invalid, atomicity.

Each database test works on an empty database of its own (a SQLite file, or with
TEST_DATABASE_URL a scratch PostgreSQL database), never on the shared tiny dataset.
"""

import csv
import dataclasses
import json
import os
import re
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from flask import Flask
from sqlalchemy import func, select

import seed
import seed.cli
from models import DatasetInfo, Dispensary, Law, MenuItem, Strain
from seed.importing import RESOURCES, build_dataset, read_directory, validate
from seed.importing.export import chemistry_record
from seed.importing.validate import ImportReport
from service import keys
from service.vocab import WEEKDAYS

EXAMPLES = Path(seed.__file__).parent / "examples"
EXAMPLE_COUNTS = {
    "laws": 5,
    "strains": 6,
    "dispensaries": 6,
    "menu_items": 14,
    "reviews": 8,
    "deals": 5,
    "doctors": 4,
}

# --- helpers -------------------------------------------------------------------------------


@pytest.fixture
def db_url(tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """An empty database for this test alone, on the backend the suite runs against."""
    server = os.environ.get("TEST_DATABASE_URL", "").strip()
    if not server:
        return f"sqlite:///{tmp_path / 'import.db'}"
    monkeypatch.setenv("TEST_POSTGRES_URL", server)
    return request.getfixturevalue("postgres_scratch_url")


@pytest.fixture
def new_app(db_url: str, make_app: Callable[..., Flask]) -> Callable[[], Flask]:
    """Build an app on this test's database (engines are disposed by make_app)."""
    return lambda: make_app(DATABASE_URL=db_url)


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A writable copy of the example files."""
    return Path(shutil.copytree(EXAMPLES, tmp_path / "data"))


def _import(app: Flask, path: Path, *args: str) -> Result:
    return app.test_cli_runner().invoke(args=["data", "import", str(path), *args])


def _state(app: Flask) -> dict[str, Any]:
    """What the database serves: version, source and row counts of a few tables."""
    with app.extensions["cds.sessions"]() as db:
        info = db.scalar(select(DatasetInfo).order_by(DatasetInfo.version.desc()).limit(1))
        counts = {
            model.__tablename__: db.scalar(select(func.count()).select_from(model))
            for model in (Law, Strain, Dispensary, MenuItem)
        }
    return {"version": info.version, "source": info.source, **counts}


def _create_key(app: Flask) -> str:
    with app.extensions["cds.sessions"]() as db:
        plaintext = keys.create_key(db, tier="pro", name="import tests").plaintext
        db.commit()
    return plaintext


def _get(app: Flask, key: str, path: str) -> tuple[int, Any, str | None]:
    """GET ``path`` with ``key``: (status, decoded JSON body, ETag); the response is closed."""
    with app.test_client().get(path, headers={"X-API-Key": key}) as response:
        return response.status_code, response.get_json(), response.headers.get("ETag")


def _edit(directory: Path, file: str, old: str | None, new: str) -> None:
    """Replace the first ``old`` in ``file`` by ``new``; with ``old`` None, write a new file."""
    path = directory / file
    if old is None:
        path.write_text(new, encoding="utf-8")
        return
    content = path.read_text(encoding="utf-8")
    assert old in content, f"{old!r} not in {file}"
    path.write_text(content.replace(old, new, 1), encoding="utf-8")


def _check(directory: Path) -> ImportReport:
    return validate(read_directory(directory))


# --- importing the example set -------------------------------------------------------------


def test_example_set_imports_and_the_api_serves_it(
    new_app: Callable[[], Flask], examples: Path
) -> None:
    before = new_app()
    seeded = before.test_cli_runner().invoke(args=["seed", "--scale", "tiny", "--seed", "3"])
    assert seeded.exit_code == 0, seeded.output
    key = _create_key(before)
    _, _, old_tag = _get(before, key, "/api/v1/strains")

    result = _import(before, examples)

    assert result.exit_code == 0, result.output
    assert "(data version 2)" in result.output
    assert re.search(r"^  menu_items +14$", result.output, re.MULTILINE)
    after = new_app()
    assert _state(after) == {
        "version": 2,
        "source": "import",
        "laws": 5,
        "strains": 6,
        "dispensaries": 6,
        "menu_items": 14,
    }
    with after.extensions["cds.sessions"]() as db:
        info = db.scalar(select(DatasetInfo).where(DatasetInfo.version == 2))
        assert (info.seed, info.reference_day) == (None, date.today())
        # Each menu numbered 0, 1, 2, ... in file order: the API reads its first N as position < N.
        positions = db.execute(
            select(Dispensary.public_id, MenuItem.position)
            .join(Dispensary, Dispensary.id == MenuItem.dispensary_id)
            .order_by(MenuItem.id)
        ).all()
        per_shop: dict[str, list[int]] = {}
        for shop, position in positions:
            per_shop.setdefault(shop, []).append(position)
        assert all(found == list(range(len(found))) for found in per_shop.values())
        assert len(per_shop["disp_1001"]) == 4

    status, body, new_tag = _get(after, key, "/api/v1/strains")  # the key survived the import
    assert status == 200
    assert body["meta"]["total"] == 6
    assert new_tag != old_tag
    status, body, _ = _get(after, key, "/api/v1/strains/blue-dream")
    assert status == 200
    assert body["data"]["description"].startswith("Blue Dream is a balanced hybrid, typically")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["data"]["updated_at"])
    chemistry = body["data"].pop("chemistry")
    assert (chemistry["sample_count"], chemistry["source"]) == (4, "import")
    assert round(chemistry["total_thc"]["p50"], 1) == 18.5  # the given thc agrees with it
    assert body["data"].pop("lineage") == {"origin": "cross", "parents": [], "children_count": 0}
    assert (body["data"].pop("dominant_terpene"), body["data"].pop("ratio")) == (
        "myrcene",
        "thc_dominant",
    )
    assert body["data"] | {"description": "…", "updated_at": "…"} == {
        "slug": "blue-dream",
        "name": "Blue Dream",
        "type": "hybrid",
        "thc": 18.5,
        "cbd": 0.1,
        "effects": ["euphoric", "happy", "creative"],
        "flavors": ["berry", "sweet", "earthy"],
        "description": "…",
        "terpenes": ["myrcene", "pinene"],
        "rating": 4.4,
        "reviewCount": 1250,
        "updated_at": "…",
    }
    status, body, _ = _get(after, key, "/api/v1/dispensaries/disp_1001")
    assert status == 200
    shop = body["data"]
    assert shop["address"] == "1520 Blake St, Denver, CO 80202"
    assert (shop["rating"], shop["reviewCount"]) == (4.5, 2)  # worked out from reviews.csv
    assert shop["hours"]["sun"] == "10:00-20:00"
    assert [item.get("strain") for item in shop["menu"]] == [
        "blue-dream",
        "sour-diesel",
        None,
        None,
    ]
    status, body, _ = _get(after, key, "/api/v1/dispensaries/disp_1002")
    assert "sun" not in body["data"]["hours"]  # an empty weekday cell means closed
    status, body, _ = _get(after, key, "/api/v1/deals?limit=100")
    assert sorted(d["id"] for d in body["data"]) == [f"deal_100{n}" for n in (1, 2, 3, 4)]
    assert _get(after, key, "/api/v1/laws/CO")[0] == 200
    assert _get(after, key, "/api/v1/laws/TX")[0] == 404  # a laws file replaces the bundled laws
    status, body, _ = _get(after, key, "/api/v1/doctors?state=OR")
    assert [d["id"] for d in body["data"]] == ["doc_1004"]


def test_an_import_prints_what_it_inserted_replaced_deleted_and_left_unchanged(
    new_app: Callable[[], Flask], examples: Path
) -> None:
    app = new_app()
    first = _import(app, examples)
    _edit(examples, "deals.jsonl", "20% off all flower", "25% off all flower")
    (examples / "doctors.jsonl").write_text(
        "".join((examples / "doctors.jsonl").read_text(encoding="utf-8").splitlines(True)[:-1]),
        encoding="utf-8",
    )
    second = _import(app, examples)

    header = "                   inserted   replaced    deleted  unchanged"
    assert first.output.splitlines()[2:8] == [
        header,
        "  laws                    5          0          0          0",
        "  strains                 6          0          0          0",
        "  dispensaries            6          0          0          0",
        "  deals                   5          0          0          0",
        "  doctors                 4          0          0          0",
    ]
    assert second.output.splitlines()[2:8] == [
        header,
        "  laws                    0          0          0          5",
        "  strains                 0          0          0          6",
        "  dispensaries            0          0          0          6",
        "  deals                   0          1          0          4",
        "  doctors                 0          0          1          3",
    ]
    assert "(data version 2)" in second.output


def test_examples_mix_both_formats() -> None:
    suffixes = {path.suffix for path in EXAMPLES.iterdir()}
    assert suffixes == {".jsonl", ".csv"}
    assert sorted(path.stem for path in EXAMPLES.iterdir()) == sorted(r.name for r in RESOURCES)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    lines = [json.dumps({k: v for k, v in row.items() if v is not None}) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _csv_cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(value)
    if isinstance(value, dict):  # chemistry, a lab batch: the JSON object as text
        return json.dumps(value)
    return "" if value is None else str(value)


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = None
        for row in rows:
            flat = {k: _csv_cell(v) for k, v in row.items() if k != "hours"}
            if "hours" in row:
                flat |= {day: row["hours"].get(day, "") for day in WEEKDAYS}
            if writer is None:
                writer = csv.DictWriter(stream, fieldnames=list(flat))
                writer.writeheader()
            writer.writerow(flat)


def test_every_resource_reads_the_same_from_jsonl_and_csv(tmp_path: Path) -> None:
    report = _check(EXAMPLES)
    flipped = tmp_path / "flipped"
    flipped.mkdir()
    for name, file_name in report.files.items():
        rows = report.accepted(name)
        if name == "strains":  # a chemistry as read is a stored one: write it as export does
            rows = [{**row, "chemistry": chemistry_record(row["chemistry"])} for row in rows]
        if file_name.endswith(".csv"):
            _write_jsonl(flipped / f"{name}.jsonl", rows)
        else:
            _write_csv(flipped / f"{name}.csv", rows)
    again = _check(flipped)
    assert again.issues() == []
    assert {Path(f).suffix for f in again.files.values()} == {".jsonl", ".csv"}
    today = date(2026, 3, 1)
    assert build_dataset(again, today=today) == build_dataset(report, today=today)


def test_hours_past_midnight_are_accepted_as_written(examples: Path) -> None:
    _edit(examples, "dispensaries.csv", "9:00-22:00", "18:00-02:00")  # disp_1001's Monday
    dataset = build_dataset(_check(examples), today=date(2026, 3, 1))
    hours = {row["public_id"]: row["hours"] for row in dataset.dispensaries}
    assert hours["disp_1001"]["mon"] == "18:00-02:00"
    assert (hours["disp_1003"]["fri"], hours["disp_1003"]["sat"]) == ("8:00-02:00", "8:00-02:00")


def test_a_time_zone_left_out_comes_from_the_zip_code_and_a_given_one_is_kept(
    examples: Path,
) -> None:
    _edit(examples, "doctors.jsonl", '"lng": -81.3727,', '"lng": -81.3727, "timezone": "UTC",')
    dataset = build_dataset(_check(examples), today=date(2026, 3, 1))
    shops = {row["public_id"]: row["timezone"] for row in dataset.dispensaries}
    doctors = {row["public_id"]: row["timezone"] for row in dataset.doctors}
    assert shops == {
        "disp_1001": "America/Denver",
        "disp_1002": "America/Denver",
        "disp_1003": "America/Los_Angeles",  # given in the file
        "disp_1004": "America/Los_Angeles",
        "disp_1005": "America/New_York",
        "disp_1006": "America/New_York",
    }
    assert doctors == {
        "doc_1001": "America/Denver",
        "doc_1002": "UTC",  # given: kept even where the ZIP code says otherwise
        "doc_1003": "America/Los_Angeles",
        "doc_1004": "America/Los_Angeles",
    }


def test_a_missing_laws_file_falls_back_to_the_bundled_laws(examples: Path) -> None:
    (examples / "laws.jsonl").unlink()
    report = _check(examples)
    assert report.issues() == []
    dataset = build_dataset(report, today=date(2026, 3, 1))
    assert len(dataset.laws) == 56
    assert dataset.counts()["dispensaries"] == EXAMPLE_COUNTS["dispensaries"]
    assert (dataset.seed, dataset.reference_day) == (None, date(2026, 3, 1))


def test_other_missing_files_mean_empty_resources(examples: Path) -> None:
    for name in ("deals.jsonl", "doctors.jsonl", "menu_items.jsonl", "reviews.csv"):
        (examples / name).unlink()
    dataset = build_dataset(_check(examples), today=date(2026, 3, 1))
    counts = dataset.counts()
    assert (counts["deals"], counts["doctors"], counts["menu_items"], counts["reviews"]) == (
        0,
        0,
        0,
        0,
    )
    assert dataset.dispensaries[0]["rating"] == 0.0  # no reviews, no rating given: 0


def test_a_reference_into_a_missing_file_is_reported(examples: Path) -> None:
    (examples / "dispensaries.csv").unlink()
    issues = [str(issue) for issue in _check(examples).issues()]
    assert (
        "deals.jsonl:1: dispensary disp_1001 does not exist: no dispensaries file was given"
        in issues
    )


def test_a_directory_without_resource_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes", encoding="utf-8")
    source = read_directory(tmp_path)
    assert [issue.reason.split(":")[0] for issue in source.problems] == ["no resource files"]


# --- bad records ---------------------------------------------------------------------------

TX_DOCTOR = (
    '{"id": "doc_1001", "name": "Dr. Helen Park", "city": "Austin", "state": "TX", '
    '"zip": "78701", "lat": 30.2713, "lng": -97.7426, "telehealth": true, "price": 99.0}'
)
DOC_1001 = EXAMPLES.joinpath("doctors.jsonl").read_text(encoding="utf-8").splitlines()[0]
LONG_NAME = "Mile High " + "x" * 151

# (id, edits as (file, old text or None for a new file, new text), expected report line)
BAD_RECORDS: list[tuple[str, list[tuple[str, str | None, str]], str]] = [
    (
        "bad id format",
        [("dispensaries.csv", "disp_1001,Mile", "dispensary-1001,Mile")],
        "dispensaries.csv:2: id must look like disp_1001",
    ),
    (
        "bad slug",
        [("strains.csv", "blue-dream,Blue", "Blue Dream,Blue")],
        "strains.csv:2: slug must be a lowercase slug such as blue-dream",
    ),
    (
        "duplicate id",
        [("deals.jsonl", '"deal_1002"', '"deal_1001"')],
        "deals.jsonl:2: duplicate id 'deal_1001' (first on line 1)",
    ),
    (
        "duplicate strain name",
        [("strains.csv", "sour-diesel,Sour Diesel", "sour-diesel,Blue Dream")],
        "strains.csv:3: duplicate name 'Blue Dream' (first on line 2)",
    ),
    (
        "missing required field",
        [("doctors.jsonl", '"price": 99.0, ', "")],
        "doctors.jsonl:1: price is required",
    ),
    (
        "empty required cell",
        [("reviews.csv", "Maria G.", "")],
        "reviews.csv:2: author is required",
    ),
    (
        "wrong type",
        [("doctors.jsonl", '"telehealth": true', '"telehealth": "yes"')],
        "doctors.jsonl:1: telehealth must be true or false",
    ),
    (
        "number as a JSON string",
        [("menu_items.jsonl", '"price": 42.0', '"price": "42.0"')],
        "menu_items.jsonl:1: price must be a number of 0 or more",
    ),
    (
        "percentage out of range",
        [("strains.csv", "hybrid,18.5,0.1", "hybrid,18.5,150")],
        "strains.csv:2: cbd must be a number from 0 to 100",
    ),
    (
        "rating out of range",
        [("reviews.csv", "disp_1001,5,", "disp_1001,6,")],
        "reviews.csv:2: rating must be a whole number from 1 to 5",
    ),
    (
        "negative price",
        [("menu_items.jsonl", '"price": 42.0', '"price": -1')],
        "menu_items.jsonl:1: price must be a number of 0 or more",
    ),
    (
        "text too long",
        [("dispensaries.csv", "Mile High Greenhouse", LONG_NAME)],
        "dispensaries.csv:2: name must be at most 160 characters",
    ),
    (
        "unknown vocabulary word",
        [("deals.jsonl", '"category": "flower"', '"category": "clothing"')],
        "deals.jsonl:1: category must be one of: flower, edibles, concentrates, vapes, "
        "pre-rolls, topicals, tinctures",
    ),
    (
        "malformed state code",
        [("doctors.jsonl", '"state": "CO"', '"state": "ZZ"')],
        "doctors.jsonl:1: state must be the two-letter code of a US state, DC or territory",
    ),
    (
        "state without a law record",
        [("doctors.jsonl", DOC_1001, TX_DOCTOR)],
        "doctors.jsonl:1: state TX is not in laws.jsonl",
    ),
    (
        "bad hours",
        [("dispensaries.csv", "9:00-22:00", "9am-10pm")],
        "dispensaries.csv:2: hours mon must look like 9:00-21:00 (H:MM-HH:MM, 24-hour time; "
        "a close before the open runs past midnight)",
    ),
    (
        "hours opening and closing at once",
        [("dispensaries.csv", "9:00-22:00", "22:00-22:00")],
        "dispensaries.csv:2: hours mon must not open and close at the same time",
    ),
    (
        "hours closing after 24:00",
        [("dispensaries.csv", "9:00-22:00", "9:00-24:30")],
        "dispensaries.csv:2: hours mon must close by 24:00 at the latest",
    ),
    (
        "unknown time zone",
        [("dispensaries.csv", "-104.9998,,both", "-104.9998,Mountain Time,both")],
        "dispensaries.csv:2: timezone must be an IANA time zone name such as America/Los_Angeles",
    ),
    (
        "time zone spelled in another case",
        [("doctors.jsonl", '"America/Los_Angeles"', '"america/los_angeles"')],
        "doctors.jsonl:3: timezone must be an IANA time zone name such as America/Los_Angeles",
    ),
    (
        "bad date",
        [("deals.jsonl", '"expires": "2030-12-31"', '"expires": "2030-02-30"')],
        "deals.jsonl:1: expires must be a date written YYYY-MM-DD",
    ),
    (
        "date in another form",
        [("reviews.csv", "2026-01-14", "01/14/2026")],
        "reviews.csv:2: date must be a date written YYYY-MM-DD",
    ),
    (
        "malformed ZIP code",
        [("doctors.jsonl", '"zip": "80202"', '"zip": "8020"')],
        "doctors.jsonl:1: zip must be five digits",
    ),
    (
        "ZIP code of another state",
        [("doctors.jsonl", '"zip": "80202"', '"zip": "90012"')],
        "doctors.jsonl:1: zip 90012 belongs to CA, not CO",
    ),
    (
        "coordinates outside the state",
        [("dispensaries.csv", "39.7512,-104.9998", "34.0630,-118.2390")],
        "dispensaries.csv:2: lat/lng 34.063,-118.239 lie outside CO",
    ),
    (
        "dangling dispensary reference",
        [("deals.jsonl", '"dispensary": "disp_1001"', '"dispensary": "disp_9999"')],
        "deals.jsonl:1: dispensary disp_9999 is not in dispensaries.csv",
    ),
    (
        "dangling strain reference",
        [("menu_items.jsonl", '"strain": "blue-dream"', '"strain": "purple-haze"')],
        "menu_items.jsonl:1: strain purple-haze is not in strains.csv",
    ),
    (
        "reference to an invalid record",
        [("dispensaries.csv", ",both,true,(303)", ",shop,true,(303)")],
        "reviews.csv:2: dispensary disp_1001 is invalid (see dispensaries.csv:2)",
    ),
    (
        "strain on a non-flower item",
        [("menu_items.jsonl", '"category": "flower"', '"category": "edibles"')],
        "menu_items.jsonl:1: strain may only be given on flower items",
    ),
    (
        "malformed JSON line",
        [("deals.jsonl", '"expires": "2030-06-30"}', '"expires": "2030-06-30"')],
        "deals.jsonl:2: malformed JSON: Expecting ',' delimiter",
    ),
    (
        "JSON line that is not an object",
        [("deals.jsonl", None, '["deal_1001"]\n')],
        "deals.jsonl:1: each line must hold one JSON object",
    ),
    (
        "malformed CSV row",
        [("reviews.csv", "Maria G.,2026-01-14", "Maria G.,2026-01-14,extra")],
        "reviews.csv:2: malformed CSV row: 6 fields where the header has 5",
    ),
    (
        "malformed CSV quoting",
        [("reviews.csv", "disp_1001,4,Great", 'disp_1001,4,"Great"')],
        "reviews.csv:3: malformed CSV: ',' expected after '\"'",
    ),
    (
        "line numbers count the lines of a multi-line CSV cell",
        [
            ("strains.csv", "typically testing", "typically\ntesting"),
            ("strains.csv", "sativa,21.2", "sativa,121.2"),
        ],
        "strains.csv:4: thc must be a number from 0 to 100",
    ),
    (
        "unknown column",
        [("strains.csv", "chemistry\n", "chemistry,color\n")],
        "strains.csv:1: unknown column 'color'",
    ),
    (
        "missing required column",
        [("reviews.csv", None, "dispensary,rating,text,date\ndisp_1001,5,Nice.,2026-01-01\n")],
        "reviews.csv:1: missing required column 'author'",
    ),
    (
        "unknown JSON field",
        [("doctors.jsonl", '"price": 99.0', '"price": 99.0, "email": "a@b.example"')],
        "doctors.jsonl:1: unknown field 'email'",
    ),
    (
        "unknown file",
        [("notes.csv", None, "a,b\n1,2\n")],
        "notes.csv: unknown resource file; resources are laws, strains, dispensaries",
    ),
    (
        "unsupported format",
        [("deals.json", None, "[]\n")],
        "deals.json: unsupported format; use .jsonl or .csv",
    ),
    (
        "both formats for one resource",
        [("deals.csv", None, "id,dispensary,title,category,discount,expires\n")],
        "deals.csv: both deals.csv and deals.jsonl given; keep one of them",
    ),
]


@pytest.fixture
def loaded_app(new_app: Callable[[], Flask]) -> Flask:
    """An app whose database holds the example set (data version 1)."""
    app = new_app()
    result = _import(app, EXAMPLES)
    assert result.exit_code == 0, result.output
    return app


@pytest.mark.parametrize(
    ("edits", "expected"), [case[1:] for case in BAD_RECORDS], ids=[case[0] for case in BAD_RECORDS]
)
def test_a_bad_record_is_reported_and_nothing_changes(
    loaded_app: Flask, examples: Path, edits: list[tuple[str, str | None, str]], expected: str
) -> None:
    before = _state(loaded_app)
    for file, old, new in edits:
        _edit(examples, file, old, new)

    result = _import(loaded_app, examples)

    assert result.exit_code == 1, result.output
    assert any(line.startswith(expected) for line in result.output.splitlines()), result.output
    assert "nothing was imported" in result.output
    assert (
        _state(loaded_app)
        == before
        == {"version": 1, "source": "import"}
        | {
            "laws": 5,
            "strains": 6,
            "dispensaries": 6,
            "menu_items": 14,
        }
    )


def test_every_bad_record_is_reported_not_just_the_first(examples: Path) -> None:
    _edit(examples, "deals.jsonl", '"category": "flower"', '"category": "clothing"')
    _edit(examples, "deals.jsonl", '"expires": "2030-06-30"', '"expires": "soon"')
    _edit(examples, "strains.csv", "sativa,7.4", "sativa,-3")  # harlequin: on no menu
    issues = [str(issue) for issue in _check(examples).issues()]
    assert [issue.split(": ")[0] for issue in issues] == [
        "strains.csv:7",
        "deals.jsonl:1",
        "deals.jsonl:2",
    ]


def test_one_record_with_several_problems_is_one_line(examples: Path) -> None:
    _edit(examples, "deals.jsonl", '"category": "flower"', '"category": "clothing"')
    _edit(examples, "deals.jsonl", '"expires": "2030-12-31"', '"expires": "soon"')
    issues = [str(issue) for issue in _check(examples).issues()]
    assert len(issues) == 1
    assert issues[0].startswith("deals.jsonl:1: category must be one of:")
    assert issues[0].endswith("; expires must be a date written YYYY-MM-DD")


# --- --skip-invalid ------------------------------------------------------------------------


def test_skip_invalid_loads_the_rest_and_counts_what_it_skipped(
    loaded_app: Flask, new_app: Callable[[], Flask], examples: Path
) -> None:
    key = _create_key(loaded_app)
    _edit(examples, "dispensaries.csv", ",recreational,false,(720)", ",shop,false,(720)")
    _edit(examples, "menu_items.jsonl", '"price": 42.0', '"price": -1')
    _edit(examples, "strains.csv", "indica,19.4", "indica,190.4")  # granddaddy-purple

    result = _import(loaded_app, examples, "--skip-invalid")

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "dispensaries.csv:3: type must be one of: recreational, medical, both" in lines
    assert "Skipped 1 of 6 records in strains.csv." in lines
    assert "Skipped 1 of 6 records in dispensaries.csv." in lines
    # The bad price, disp_1002's two items and the Granddaddy Purple item that names the strain.
    assert "Skipped 4 of 14 records in menu_items.jsonl." in lines
    assert "Skipped 1 of 8 records in reviews.csv." in lines
    assert not any("deals" in line and "Skipped" in line for line in lines)
    after = new_app()
    assert _state(after) == {
        "version": 2,
        "source": "import",
        "laws": 5,
        "strains": 5,
        "dispensaries": 5,
        "menu_items": 10,
    }
    assert _get(after, key, "/api/v1/dispensaries/disp_1002")[0] == 404
    assert _get(after, key, "/api/v1/strains/granddaddy-purple")[0] == 404
    status, body, _ = _get(after, key, "/api/v1/dispensaries/disp_1003")
    assert status == 200
    assert [item["name"] for item in body["data"]["menu"]] == ["Blue Dream", "Relief Balm"]
    # The skipped first item leaves no gap: a shorter menu is still the first items in order.
    query = (
        '{ dispensary(id: "disp_1003") { first: menu(limit: 1) { name } menu(limit: 2) { name } } }'
    )
    with after.test_client().post(
        "/graphql", json={"query": query}, headers={"X-API-Key": key}
    ) as response:
        shop = response.get_json()["data"]["dispensary"]
    assert [item["name"] for item in shop["first"]] == ["Blue Dream"]
    assert [item["name"] for item in shop["menu"]] == ["Blue Dream", "Relief Balm"]


def test_skip_invalid_does_not_skip_problems_with_whole_files(
    loaded_app: Flask, examples: Path
) -> None:
    _edit(examples, "notes.csv", None, "a\n1\n")
    result = _import(loaded_app, examples, "--skip-invalid")
    assert result.exit_code == 1
    assert "nothing was imported" in result.output
    assert _state(loaded_app)["version"] == 1


# --- atomicity -----------------------------------------------------------------------------


def test_a_load_failing_midway_leaves_the_previous_data_serving(
    new_app: Callable[[], Flask], examples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = new_app()
    assert app.test_cli_runner().invoke(args=["seed", "--scale", "tiny"]).exit_code == 0
    key = _create_key(app)
    before = _state(app)
    real_build = seed.cli.build_dataset

    def build_with_a_bad_last_row(*args: Any, **kwargs: Any) -> seed.Dataset:
        # Doctors load last: every other table is already inserted when the database refuses
        # this row (rating above 5 breaks a CHECK constraint).
        dataset = real_build(*args, **kwargs)
        doctors = [*dataset.doctors[:-1], {**dataset.doctors[-1], "rating": 9.0}]
        return dataclasses.replace(dataset, doctors=doctors)

    monkeypatch.setattr(seed.cli, "build_dataset", build_with_a_bad_last_row)
    result = _import(app, examples)

    assert result.exit_code == 1
    assert "loading failed and was rolled back" in result.output
    after = new_app()
    assert _state(after) == before
    assert before["source"] == "demo-seed"
    assert before["strains"] == 150
    status, body, _ = _get(after, key, "/api/v1/strains?limit=1")
    assert status == 200
    assert body["meta"]["total"] == 150
    assert _get(after, key, "/api/v1/dispensaries/disp_1001")[0] == 200
    assert _get(after, key, "/api/v1/laws/TX")[0] == 200


def test_the_command_needs_an_existing_directory(
    new_app: Callable[[], Flask], tmp_path: Path
) -> None:
    result = _import(new_app(), tmp_path / "nowhere")
    assert result.exit_code == 2
    assert "does not exist" in result.output
