"""The import's chemistry, lineage and lab fields: what they accept, what they store, and the
error each bad input gets (no database: seed.importing reads and checks files alone)."""

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from seed.generate import generate
from seed.importing import build_dataset, read_directory, validate
from seed.importing.chemistry import quartiles
from seed.importing.export import write_import_files
from seed.importing.validate import ImportReport
from service.compounds import COMPOUND_KEYS

TODAY = date(2026, 11, 28)
ALLOWED = ", ".join(COMPOUND_KEYS)


def _strain(slug: str, **fields: Any) -> dict[str, Any]:
    return {"slug": slug, "name": slug.replace("-", " ").title(), "type": "hybrid"} | fields


def _plain(slug: str, **fields: Any) -> dict[str, Any]:
    """A strain without chemistry (so with thc and cbd)."""
    return _strain(slug, thc=18.0, cbd=0.1, **fields)


def _write(directory: Path, name: str, records: list[dict[str, Any]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    (directory / f"{name}.jsonl").write_text(lines, encoding="utf-8")


def _check(tmp_path: Path, strains: list[dict[str, Any]], **files: Any) -> ImportReport:
    _write(tmp_path, "strains", strains)
    for name, records in files.items():
        _write(tmp_path, name, records)
    return validate(read_directory(tmp_path))


def _issues(report: ImportReport) -> list[str]:
    return [str(issue) for issue in report.issues()]


SAMPLES = [
    {"THCA": 10.0, "delta_9_thc": 1.0, "Myrcene": 0.4, "limonene": 0.1},
    {"thca": 20.0, "Δ9-THC": 2.0, "beta-myrcene": 0.6, "limonene": 0.3},
    {"thca": 30.0, "thc": 3.0, "myrcene": 0.8},
    {"thca": 40.0, "d9-thc": 4.0, "myrcene": 1.0, "cbg": 0.5, "cbda": 0.2},
]


def test_percentiles_interpolate_between_ranks_as_statistics_quantiles_inclusive() -> None:
    assert quartiles([10.0, 20.0, 30.0, 40.0]) == {"p25": 17.5, "p50": 25.0, "p75": 32.5}
    assert quartiles([3.0, 1.0, 2.0]) == {"p25": 1.5, "p50": 2.0, "p75": 2.5}
    assert quartiles([0.4123456]) == {"p25": 0.41, "p50": 0.41, "p75": 0.41}


def test_samples_become_the_stored_chemistry_with_totals_by_the_formulas(tmp_path: Path) -> None:
    report = _check(tmp_path, [_strain("a", chemistry={"samples": SAMPLES, "source": "lab-x"})])
    assert _issues(report) == []
    row = build_dataset(report, today=TODAY).strains[0]
    # Per sample total THC = delta_9_thc + 0.877 * thca: 9.77, 19.54, 29.31, 39.08; every
    # percentile is rounded to two decimals as the float rounds (24.425 -> 24.42).
    assert row["chemistry"] == {
        "basis": "typical",
        "sample_count": 4,
        "source": "lab-x",
        "cannabinoids": [
            {"key": "thca", "p25": 17.5, "p50": 25.0, "p75": 32.5},
            {"key": "delta_9_thc", "p25": 1.75, "p50": 2.5, "p75": 3.25},
            # Left out of a sample: not detected there, 0.
            {"key": "cbda", "p25": 0.0, "p50": 0.0, "p75": 0.05},
            {"key": "cbg", "p25": 0.0, "p50": 0.0, "p75": 0.12},
        ],
        "terpenes": [
            {"key": "myrcene", "p25": 0.55, "p50": 0.7, "p75": 0.85},
            {"key": "limonene", "p25": 0.0, "p50": 0.05, "p75": 0.15},
        ],
        "total_thc": {"p25": 17.1, "p50": 24.42, "p75": 31.75},
        "total_cbd": {"p25": 0.0, "p50": 0.0, "p75": 0.04},
        "total_terpenes": {"p25": 0.73, "p50": 0.85, "p75": 0.92},
    }
    assert (row["thc"], row["cbd"]) == (24.4, 0.0)
    assert (row["origin"], row["dominant_terpene"], row["ratio"]) == (
        "unknown",
        "myrcene",
        "thc_dominant",
    )
    assert (row["cbg"], row["cbn"], row["thcv"], row["cbc"]) == (0.0, None, None, None)
    terpenes = build_dataset(report, today=TODAY).strain_terpenes
    assert [(t["name"], t["position"]) for t in terpenes] == [("myrcene", 0), ("limonene", 1)]


def test_percentiles_are_stored_as_given_and_missing_totals_derived(tmp_path: Path) -> None:
    given = {
        "sample_count": 38,
        "percentiles": {
            "CBDA": {"p25": 15.0, "p50": 16.0, "p75": 17.0},
            "cbd": {"p25": 0.5, "p50": 1.0, "p75": 1.5},
            "thca": {"p25": 0.5, "p50": 0.6, "p75": 0.7},
            "total_thc": {"p25": 0.4, "p50": 0.5, "p75": 0.62},
        },
    }
    report = _check(tmp_path, [_strain("cw", chemistry=given, cbd=15.0)])
    assert _issues(report) == []
    layout = build_dataset(report, today=TODAY).strains[0]["chemistry"]
    assert layout["total_thc"] == {"p25": 0.4, "p50": 0.5, "p75": 0.62}  # given
    # Derived: cbd + 0.877 * cbda at each percentile.
    assert layout["total_cbd"] == {"p25": 13.65, "p50": 15.03, "p75": 16.41}
    assert layout["total_terpenes"] == {"p25": 0.0, "p50": 0.0, "p75": 0.0}
    assert (layout["sample_count"], layout["source"], layout["terpenes"]) == (38, "import", [])
    row = build_dataset(report, today=TODAY).strains[0]
    assert (row["thc"], row["cbd"], row["ratio"], row["dominant_terpene"]) == (
        0.5,
        15.0,
        "cbd_dominant",
        None,
    )


PERCENTILE = {"p25": 1.0, "p50": 2.0, "p75": 3.0}
BAD_STRAINS: list[tuple[str, dict[str, Any], str]] = [
    (
        "unknown compound",
        {"chemistry": {"samples": [{"thca": 20.0, "moonrock": 1.0}]}},
        f"chemistry sample 1 has unknown compound 'moonrock'; compounds are {ALLOWED}",
    ),
    (
        "unknown compound in percentiles",
        {"chemistry": {"sample_count": 3, "percentiles": {"kief": PERCENTILE}}},
        f"chemistry percentiles has unknown compound 'kief'; compounds are {ALLOWED}",
    ),
    (
        "p25 over p50",
        {"chemistry": {"sample_count": 3, "percentiles": {"thca": {**PERCENTILE, "p25": 2.5}}}},
        "chemistry percentiles thca must have p25 <= p50 <= p75 (has 2.5, 2, 3)",
    ),
    (
        "negative sample value",
        {"chemistry": {"samples": [{"thca": 20.0}, {"thca": -1.0}]}},
        "chemistry sample 2 thca must be a number from 0 to 100",
    ),
    (
        "a number too large for a float",
        {"chemistry": {"samples": [{"thca": 10**400}]}},
        "chemistry sample 1 thca must be a number from 0 to 100",
    ),
    (
        "percentile over 100",
        {"chemistry": {"sample_count": 3, "percentiles": {"thca": {**PERCENTILE, "p75": 101}}}},
        "chemistry percentiles thca p75 must be a number from 0 to 100",
    ),
    (
        "one compound twice by two names",
        {"chemistry": {"samples": [{"thca": 20.0, "THC-A": 21.0}]}},
        "chemistry sample 1 gives thca twice ('thca' and 'THC-A')",
    ),
    (
        "a sample over 100 percent",
        {"chemistry": {"samples": [{"thca": 90.0, "cbda": 20.0}]}},
        "chemistry sample 1: its compounds add up to more than 100 percent",
    ),
    (
        "samples and percentiles",
        {"chemistry": {"samples": [{"thca": 20.0}], "percentiles": {"thca": PERCENTILE}}},
        "chemistry must give either samples or percentiles (one of them)",
    ),
    (
        "percentiles without a sample count",
        {"chemistry": {"percentiles": {"thca": PERCENTILE}}},
        "chemistry sample_count must be a whole number of 1 or more with percentiles",
    ),
    (
        "a sample count beside samples",
        {"chemistry": {"samples": [{"thca": 20.0}], "sample_count": 5}},
        "chemistry sample_count is the number of samples; leave it out",
    ),
    (
        "thc far from the median",
        {"thc": 19.0, "chemistry": {"samples": [{"thca": 20.0}]}},  # total THC 17.54
        "thc 19 does not match chemistry: its total_thc median is 17.5 to one decimal; give "
        "17.5 or leave thc out",
    ),
    (
        "no thc without chemistry",
        {"cbd": 0.1},
        "thc is required (unless chemistry is given)",
    ),
    (
        "terpenes other than the chemistry's leading ones",
        {"terpenes": ["pinene"], "chemistry": {"samples": [{"thca": 20.0, "myrcene": 0.5}]}},
        "terpenes must be the leading terpenes of chemistry (myrcene) or be left out",
    ),
    (
        "unknown origin",
        {"thc": 18.0, "cbd": 0.1, "origin": "hybrid"},
        "origin must be one of: cross, landrace, phenotype, unknown",
    ),
    (
        "own parent",
        {"thc": 18.0, "cbd": 0.1, "parents": ["bad"]},
        "parents must not name the strain itself (bad)",
    ),
    (
        "a landrace with parents",
        {"thc": 18.0, "cbd": 0.1, "origin": "landrace", "parents": ["known"]},
        "a landrace has no parents: leave parents out or give another origin",
    ),
    (
        "four parents",
        {"thc": 18.0, "cbd": 0.1, "parents": ["known", "a", "b", "c"]},
        "parents must have at most 3 entries",
    ),
    (
        "unknown parent",
        {"thc": 18.0, "cbd": 0.1, "parents": ["known", "nowhere"]},
        "parent nowhere is not in strains.jsonl",
    ),
]


@pytest.mark.parametrize(
    ("fields", "expected"), [c[1:] for c in BAD_STRAINS], ids=[c[0] for c in BAD_STRAINS]
)
def test_a_bad_strain_gets_a_clear_error(
    tmp_path: Path, fields: dict[str, Any], expected: str
) -> None:
    report = _check(tmp_path, [_plain("known"), _strain("bad", **fields)])
    assert _issues(report) == [f"strains.jsonl:2: {expected}"]


def test_a_cycle_is_one_error_naming_its_strains_and_its_other_members_follow(
    tmp_path: Path,
) -> None:
    strains = [
        _plain("root"),
        _plain("a", parents=["b", "root"]),
        _plain("b", parents=["a"]),
        _plain("child", parents=["b"]),
    ]
    report = _check(tmp_path, strains)
    assert _issues(report) == [
        "strains.jsonl:2: parents form a cycle: a -> b -> a (each strain has the next as a "
        "parent); a strain cannot be its own ancestor",
        "strains.jsonl:3: parent a is invalid (see strains.jsonl:2)",
        "strains.jsonl:4: parent b is invalid (see strains.jsonl:3)",
    ]
    assert [v["slug"] for v in report.accepted("strains")] == ["root"]  # what --skip-invalid keeps


def test_a_longer_cycle_is_named_in_order(tmp_path: Path) -> None:
    strains = [_plain("x", parents=["y"]), _plain("y", parents=["z"]), _plain("z", parents=["x"])]
    first = _issues(_check(tmp_path, strains))[0]
    assert first.startswith("strains.jsonl:1: parents form a cycle: x -> y -> z -> x ")


def test_parents_become_edges_in_order_and_a_parent_may_come_later_in_the_file(
    tmp_path: Path,
) -> None:
    strains = [
        _plain("child", parents=["mother", "father"], origin="cross"),
        _plain("mother", origin="landrace"),
        _plain("father"),
    ]
    report = _check(tmp_path, strains)
    assert _issues(report) == []
    dataset = build_dataset(report, today=TODAY)
    assert dataset.strain_parents == [
        {"strain_id": 1, "parent_id": 2, "position": 0},
        {"strain_id": 1, "parent_id": 3, "position": 1},
    ]
    assert [s["origin"] for s in dataset.strains] == ["cross", "landrace", "unknown"]


def test_csv_reads_parents_as_a_list_and_chemistry_as_a_json_cell(tmp_path: Path) -> None:
    chemistry = json.dumps({"samples": [{"THCA": 20.0, "myrcene": 0.5}]}).replace('"', '""')
    (tmp_path / "strains.csv").write_text(
        "slug,name,type,thc,cbd,origin,parents,chemistry\n"
        "mother,Mother,indica,18,0.1,landrace,,\n"
        f'child,Child,hybrid,,,cross,mother,"{chemistry}"\n'
        "other,Other,hybrid,,,,mother;child,{not json}\n",
        encoding="utf-8",
    )
    report = validate(read_directory(tmp_path))
    assert _issues(report) == [
        "strains.csv:4: chemistry must be a JSON object such as "
        '{"samples": [{"thca": 21.4, "myrcene": 0.6}]} (Expecting property name enclosed in '
        "double quotes: line 1 column 2 (char 1))"
    ]
    child = report.accepted("strains")[1]
    assert (child["parents"], child["chemistry"]["cannabinoids"][0]["p50"]) == (["mother"], 20.0)


def _lab(**changes: Any) -> dict[str, Any]:
    return {
        "batch_id": "B-2611-0042",
        "tested_at": "2026-11-02",
        "lab": "Mile High Labs",
        "coa_url": "https://labs.example/coa/B-2611-0042.pdf",
        "results": [
            {"key": "THCA", "value": 22.1034},
            {"key": "Δ9-THC", "value": 0.5},
            {"key": "cbn", "value": None, "qualifier": "nd"},
            {"key": "cbda", "value": None, "qualifier": "lt_loq"},
        ],
    } | changes


def _menu_check(tmp_path: Path, lab: Any, category: str = "flower") -> ImportReport:
    """The example dispensaries and laws, and one menu item with ``lab``."""
    item = {"dispensary": "disp_1001", "name": "Jar", "category": category, "price": 35.0}
    item |= {"unit": "3.5g", "lab": lab}
    examples = Path(__file__).parents[2] / "seed" / "examples"
    for name in ("dispensaries.csv", "laws.jsonl"):
        (tmp_path / name).write_bytes((examples / name).read_bytes())
    _write(tmp_path, "menu_items", [item])
    return validate(read_directory(tmp_path))


def test_a_lab_batch_is_stored_with_keys_and_its_totals_copied(tmp_path: Path) -> None:
    report = _menu_check(tmp_path, _lab())
    assert _issues(report) == []
    row = build_dataset(report, today=TODAY).menu_items[0]
    assert row["lab"]["results"] == [
        {"key": "thca", "value": 22.1034, "unit": "percent"},
        {"key": "delta_9_thc", "value": 0.5, "unit": "percent"},
        {"key": "cbn", "value": None, "unit": "percent", "qualifier": "nd"},
        {"key": "cbda", "value": None, "unit": "percent", "qualifier": "lt_loq"},
    ]
    # 0.5 + 0.877 * 22.1034 = 19.88; lt_loq CBDA counts as 0.
    assert (row["total_thc"], row["total_cbd"], row["price_per_gram"]) == (19.9, 0.0, 10.0)


TOMORROW = (date.today() + timedelta(days=1)).isoformat()
BAD_LABS: list[tuple[str, Any, str]] = [
    (
        "value with a qualifier",
        _lab(results=[{"key": "thca", "value": 0.2, "qualifier": "lt_loq"}]),
        "lab results 1 has a value and a qualifier ('lt_loq'); a qualifier stands for a "
        "missing value",
    ),
    (
        "nd with a value",
        _lab(results=[{"key": "cbn", "value": 0.0, "qualifier": "nd"}]),
        "lab results 1 has a value and a qualifier ('nd'); a qualifier stands for a missing value",
    ),
    (
        "no value and no qualifier",
        _lab(results=[{"key": "cbn", "value": None}]),
        "lab results 1 has no value: its qualifier must be one of nd, lt_loq",
    ),
    (
        "negative value",
        _lab(results=[{"key": "thca", "value": -0.1}]),
        "lab results 1 value must be a number from 0 to 100",
    ),
    (
        "unknown compound",
        _lab(results=[{"key": "unobtainium", "value": 1.0}]),
        f"lab results 1 has unknown compound 'unobtainium'; compounds are {ALLOWED}",
    ),
    (
        "one compound twice",
        _lab(results=[{"key": "thca", "value": 1.0}, {"key": "THCA", "value": 2.0}]),
        "lab results give thca more than once",
    ),
    ("tested tomorrow", _lab(tested_at=TOMORROW), "lab tested_at must not be after the import's"),
    ("not a date", _lab(tested_at="02/11/2026"), "lab tested_at must be a date written YYYY-MM-DD"),
    ("http URL", _lab(coa_url="http://labs.example/x.pdf"), "lab coa_url must be an https:// URL"),
    ("no batch id", _lab(batch_id=None), "lab batch_id is required"),
    ("no results", _lab(results=[]), "lab results must be a non-empty array of objects"),
    ("unknown key", _lab(potency=20), "lab has unknown key 'potency'; keys are batch_id"),
]


@pytest.mark.parametrize(
    ("lab", "expected"), [c[1:] for c in BAD_LABS], ids=[c[0] for c in BAD_LABS]
)
def test_a_bad_lab_batch_gets_a_clear_error(tmp_path: Path, lab: Any, expected: str) -> None:
    issues = _issues(_menu_check(tmp_path, lab))
    assert len(issues) == 1
    assert issues[0].startswith(f"menu_items.jsonl:1: {expected}"), issues


def test_a_lab_batch_only_goes_on_flower(tmp_path: Path) -> None:
    assert _issues(_menu_check(tmp_path, _lab(), category="edibles")) == [
        "menu_items.jsonl:1: lab may only be given on flower items (its results are percent of "
        "dry weight)"
    ]


def test_export_then_import_gives_the_same_rows(tmp_path: Path) -> None:
    strains = [
        _strain(
            "child", origin="cross", parents=["mother", "father"], chemistry={"samples": SAMPLES}
        ),
        _plain("mother", origin="landrace"),
        _strain(
            "father",
            chemistry={"sample_count": 9, "source": "x", "percentiles": {"cbd": PERCENTILE}},
        ),
    ]
    report = _check(tmp_path / "in", strains)
    assert _issues(report) == []
    dataset = build_dataset(report, today=TODAY)
    write_import_files(dataset, tmp_path / "out")
    again = validate(read_directory(tmp_path / "out"))
    assert _issues(again) == []
    assert build_dataset(again, today=TODAY) == dataset


def test_the_demo_datasets_chemistry_lineage_and_labs_survive_export_and_import(
    tmp_path: Path,
) -> None:
    demo = generate(scale="tiny", seed=3, today=date(2026, 6, 1))
    write_import_files(demo, tmp_path)
    report = validate(read_directory(tmp_path))
    assert _issues(report) == []
    again = build_dataset(report, today=date(2026, 6, 1))
    shown = ("slug", "thc", "cbd", "origin", "chemistry")
    assert [{k: s[k] for k in shown} for s in again.strains] == [
        {k: s[k] for k in shown} for s in demo.strains
    ]
    assert sum(s["chemistry"] is not None for s in demo.strains) > 100

    def edges(dataset: Any) -> list[tuple[str, str, int]]:
        slugs = {s["id"]: s["slug"] for s in dataset.strains}
        return sorted(
            (slugs[e["strain_id"]], slugs[e["parent_id"]], e["position"])
            for e in dataset.strain_parents
        )

    assert edges(again) == edges(demo)
    assert len(edges(demo)) > 100

    def labs(dataset: Any) -> list[tuple[str, int, Any]]:
        shops = {d["id"]: d["public_id"] for d in dataset.dispensaries}
        return sorted(
            (shops[m["dispensary_id"]], m["position"], m["lab"]) for m in dataset.menu_items
        )

    assert labs(again) == labs(demo)
    assert sum(lab is not None for _, _, lab in labs(demo)) > 100
    tables, demo_tables = again.tables(), demo.tables()
    for name in ("strains", "strain_terpenes"):
        assert tables[name] == demo_tables[name], name
