"""A strain's chemistry and lineage at the service boundary, on the shared tiny dataset: the
detail's rendering (names, units, formulas, dominant terpene, ratio; null without samples), its
lineage summary, its statement count, and the chemistry and parent filters of the list.

Expected values come from the generated dataset in plain Python (the stored chemistry JSON and
the lineage edges the database was loaded with), never from the code under test.
"""

from collections.abc import Callable
from datetime import UTC
from typing import Any

import pytest
from sqlalchemy import Connection, select

from models import Strain
from seed import Dataset
from service import paging
from service.errors import InvalidParameter, NotFound
from service.filters import StrainFilters
from service.paging import PageRequest
from service.strain_detail import ParentRef, chemistry_by_strain, lineage_by_strain
from service.strains import get_strain, list_strains
from tests.conftest import recorded_statements
from tests.service.pages import walk, window

NAMES = {
    "thca": "THCA",
    "delta_9_thc": "Δ9-THC",
    "cbda": "CBDA",
    "cbd": "CBD",
    "cbga": "CBGA",
    "cbg": "CBG",
    "cbn": "CBN",
    "cbc": "CBC",
    "thcv": "THCV",
    "myrcene": "Myrcene",
    "limonene": "Limonene",
    "caryophyllene": "Caryophyllene",
    "pinene": "Pinene",
    "linalool": "Linalool",
    "humulene": "Humulene",
    "terpinolene": "Terpinolene",
    "ocimene": "Ocimene",
    "bisabolol": "Bisabolol",
}
UNSAMPLED = ("ozark-daze", "rocky-mountain-sage")  # the tiny dataset's strains without samples


def _ratio(chemistry: dict[str, Any]) -> str:
    thc, cbd = chemistry["total_thc"]["p50"], chemistry["total_cbd"]["p50"]
    if thc != cbd and thc >= 2 * cbd:
        return "thc_dominant"
    if thc != cbd and cbd >= 2 * thc:
        return "cbd_dominant"
    return "balanced"


def _median(chemistry: dict[str, Any] | None, key: str) -> float | None:
    if chemistry is None:
        return None
    return next((e["p50"] for e in chemistry["cannabinoids"] if e["key"] == key), None)


def _leading(chemistry: dict[str, Any] | None) -> list[str]:
    return [e["key"] for e in chemistry["terpenes"][:3]] if chemistry else []


def _parents(dataset: Dataset) -> dict[int, list[int]]:
    found: dict[int, list[tuple[int, int]]] = {}
    for edge in dataset.strain_parents:
        found.setdefault(edge["strain_id"], []).append((edge["position"], edge["parent_id"]))
    return {child: [parent for _, parent in sorted(pairs)] for child, pairs in found.items()}


def _by_slug(dataset: Dataset) -> dict[str, dict[str, Any]]:
    return {strain["slug"]: strain for strain in dataset.strains}


# --- detail -----------------------------------------------------------------------------------


def test_a_detail_renders_the_stored_chemistry_with_names_units_formulas_and_words(
    db: Connection, dataset: Dataset
) -> None:
    stored = _by_slug(dataset)["blue-dream"]["chemistry"]
    chemistry = get_strain(db, "blue-dream").chemistry
    assert chemistry is not None
    assert (chemistry.basis, chemistry.sample_count, chemistry.source) == ("typical", 57, "demo")
    assert [tuple(c) for c in chemistry.cannabinoids] == [
        (e["key"], NAMES[e["key"]], "percent", e["p25"], e["p50"], e["p75"])
        for e in stored["cannabinoids"]
    ]
    assert [c.key for c in chemistry.terpenes][:3] == ["caryophyllene", "pinene", "myrcene"]
    assert chemistry.terpenes[0] == ("caryophyllene", "Caryophyllene", "percent", 0.61, 0.7, 0.76)
    assert tuple(chemistry.total_thc) == (16.71, 18.1, 19.88, "delta_9_thc + 0.877 * thca")
    assert tuple(chemistry.total_cbd) == (0.0, 0.0, 0.0, "cbd + 0.877 * cbda")
    assert tuple(chemistry.total_terpenes) == (1.45, 1.75, 1.88)
    assert (chemistry.dominant_terpene, chemistry.ratio) == ("caryophyllene", "thc_dominant")


def test_every_detail_shows_its_stored_chemistry_terpenes_and_lineage(
    db: Connection, dataset: Dataset
) -> None:
    parents = _parents(dataset)
    by_id = {strain["id"]: strain for strain in dataset.strains}
    children: dict[int, int] = {}
    for edge in dataset.strain_parents:
        children[edge["parent_id"]] = children.get(edge["parent_id"], 0) + 1
    for source in dataset.strains:
        detail = get_strain(db, source["slug"])
        stored = source["chemistry"]
        if stored is None:
            assert detail.chemistry is None
            assert (detail.dominant_terpene, detail.ratio) == (None, None)
        else:
            assert detail.chemistry is not None
            medians = [t.p50 for t in detail.chemistry.terpenes]
            assert medians == sorted(medians, reverse=True)
            assert {t.key: (t.p25, t.p50, t.p75) for t in detail.chemistry.terpenes} == {
                e["key"]: (e["p25"], e["p50"], e["p75"]) for e in stored["terpenes"]
            }
            assert detail.chemistry.dominant_terpene == stored["terpenes"][0]["key"]
            assert detail.dominant_terpene == stored["terpenes"][0]["key"]
            assert detail.chemistry.ratio == detail.ratio == _ratio(stored)
            assert detail.terpenes == _leading(stored)
        assert detail.lineage.origin == source["origin"]
        assert detail.lineage.parents == [
            ParentRef(by_id[p]["slug"], by_id[p]["name"]) for p in parents.get(source["id"], [])
        ]
        assert detail.lineage.children_count == children.get(source["id"], 0)


@pytest.mark.parametrize("slug", UNSAMPLED)
def test_a_strain_without_samples_has_no_chemistry_never_zeros(db: Connection, slug: str) -> None:
    detail = get_strain(db, slug)
    assert detail.chemistry is None
    assert (detail.dominant_terpene, detail.ratio) == (None, None)
    assert chemistry_by_strain(db, [detail.id]) == {detail.id: None}


def test_the_most_bred_strain_counts_its_children_and_a_cross_names_its_parents_in_order(
    db: Connection, dataset: Dataset
) -> None:
    cookies = get_strain(db, "girl-scout-cookies")
    assert cookies.lineage.children_count == 12
    child = next(s for s in dataset.strains if cookies.id in _parents(dataset).get(s["id"], [])[:1])
    lineage = get_strain(db, child["slug"]).lineage
    assert lineage.parents[0] == ParentRef("girl-scout-cookies", "Girl Scout Cookies")
    assert lineage.origin == child["origin"]


def test_a_detail_is_two_statements_the_row_and_its_terpenes_parents_and_children(
    db: Connection,
) -> None:
    get_strain(db, "girl-scout-cookies")  # statements built and cached
    with recorded_statements(db) as seen:
        detail = get_strain(db, "girl-scout-cookies")
    assert detail.lineage.children_count == 12
    assert len(seen) == 2, seen


def test_an_unknown_slug_is_not_found_without_a_statement(db: Connection) -> None:
    with recorded_statements(db) as seen, pytest.raises(NotFound):
        get_strain(db, "no_such strain")
    assert seen == []


def test_the_batch_helpers_give_every_strain_asked_for_in_one_statement_each(
    db: Connection, dataset: Dataset
) -> None:
    ids = [s["id"] for s in dataset.strains[:40]]
    with recorded_statements(db) as seen:
        chemistry = chemistry_by_strain(db, ids)
        lineage = lineage_by_strain(db, ids)
    assert len(seen) == 2
    assert set(chemistry) == set(lineage) == set(ids)
    for source in dataset.strains[:40]:
        found = chemistry[source["id"]]
        assert (found.ratio if found else None) == (
            _ratio(source["chemistry"]) if source["chemistry"] else None
        )
        assert lineage[source["id"]].origin == source["origin"]


# --- list filters ------------------------------------------------------------------------------


def _expected(dataset: Dataset, db: Connection, **filters: Any) -> list[dict[str, Any]]:
    """The dataset's strains matching ``filters`` (already normalised; words comma-separated),
    in list order (by name, or by change stamp when ``sort`` says so)."""
    parents = _parents(dataset)
    slug_ids = {s["slug"]: s["id"] for s in dataset.strains}
    traits = {
        "effect": _trait_names(dataset.strain_effects),
        "flavor": _trait_names(dataset.strain_flavors),
    }

    named: dict[int, list[str]] = {}
    for row in sorted(dataset.strain_terpenes, key=lambda row: row["position"]):
        named.setdefault(row["strain_id"], []).append(row["name"])

    def words(name: str) -> set[str]:
        return set(str(filters[name]).split(","))

    def matches(strain: dict[str, Any]) -> bool:
        chemistry = strain["chemistry"]
        checks: list[Callable[[], bool]] = []
        if "type" in filters:
            checks.append(lambda: strain["type"] in words("type"))
        for trait in ("effect", "flavor"):
            if trait in filters:
                names = traits[trait].get(strain["id"], set())
                checks.append(lambda names=names, trait=trait: bool(words(trait) & names))
        if "thc_min" in filters:
            checks.append(lambda: strain["thc"] >= filters["thc_min"])
        if "terpene" in filters:
            # The strain's terpenes: its chemistry's leading three, or without chemistry the
            # names it was given (strain_terpenes rows, positions 0 to 2).
            leading = _leading(chemistry) if chemistry else named.get(strain["id"], [])[:3]
            checks.append(lambda: bool(words("terpene") & set(leading)))
        if "dominant_terpene" in filters:
            checks.append(
                lambda: (
                    chemistry is not None
                    and chemistry["terpenes"][0]["key"] in words("dominant_terpene")
                )
            )
        if "ratio" in filters:
            checks.append(lambda: chemistry is not None and _ratio(chemistry) in words("ratio"))
        for key in ("cbg", "cbn", "thcv", "cbc"):
            if f"{key}_min" in filters:
                median = _median(chemistry, key)
                checks.append(
                    lambda median=median, key=key: (
                        median is not None and median >= filters[f"{key}_min"]
                    )
                )
        if "parent" in filters:
            parent = slug_ids.get(filters["parent"])
            checks.append(lambda: parent in parents.get(strain["id"], []))
        return all(check() for check in checks)

    chosen = [strain for strain in dataset.strains if matches(strain)]
    if filters.get("sort") in ("updated_at", "-updated_at"):
        stamps = dict(db.execute(select(Strain.id, Strain.updated_at)).all())
        chosen.sort(key=lambda s: (stamps[s["id"]], s["id"]))
        return chosen[::-1] if filters["sort"] == "-updated_at" else chosen
    return sorted(chosen, key=lambda strain: (strain["name"].lower(), strain["id"]))


def _trait_names(rows: list[dict[str, Any]]) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for row in rows:
        found.setdefault(row["strain_id"], set()).add(row["name"])
    return found


def _slugs(rows: list[Any]) -> list[str]:
    return [row["slug"] if isinstance(row, dict) else row.slug for row in rows]


CHEMISTRY_FILTERS = [
    pytest.param({"terpene": "myrcene"}, None, id="terpene"),
    pytest.param({"terpene": "linalool,bisabolol"}, None, id="terpenes"),
    pytest.param({"dominant_terpene": "ocimene"}, 20, id="dominant_terpene"),
    pytest.param({"dominant_terpene": "limonene,pinene"}, 27, id="dominant_terpenes"),
    pytest.param({"ratio": "cbd_dominant"}, 4, id="ratio"),
    pytest.param({"ratio": "balanced,cbd_dominant"}, 9, id="ratios"),
    pytest.param({"cbg_min": 1.0}, None, id="cbg_min"),
    pytest.param({"cbn_min": 0.2}, None, id="cbn_min"),
    pytest.param({"thcv_min": 0.5}, None, id="thcv_min"),
    pytest.param({"cbc_min": 0.3}, None, id="cbc_min"),
    pytest.param({"parent": "girl-scout-cookies"}, 12, id="parent"),
    pytest.param({"parent": "blueberry", "ratio": "thc_dominant"}, None, id="parent+ratio"),
    pytest.param({"terpene": "myrcene", "type": "indica"}, None, id="terpene+type"),
    pytest.param({"terpene": "caryophyllene", "effect": "relaxed"}, None, id="terpene+effect"),
    pytest.param(
        {"dominant_terpene": "myrcene", "effect": "relaxed,happy", "thc_min": 15.0},
        None,
        id="dominant+effects+thc",
    ),
    pytest.param({"ratio": "thc_dominant", "flavor": "earthy"}, None, id="ratio+flavor"),
    pytest.param({"cbg_min": 0.6, "effect": "happy", "flavor": "sweet"}, None, id="cbg+traits"),
    pytest.param({"parent": "girl-scout-cookies", "effect": "relaxed"}, None, id="parent+effect"),
    pytest.param({"terpene": "pinene", "sort": "-updated_at"}, None, id="terpene+stamp order"),
    pytest.param(
        {"parent": "girl-scout-cookies", "sort": "updated_at"}, 12, id="parent+stamp order"
    ),
    pytest.param({"cbn_min": 0.1, "sort": "updated_at"}, None, id="cbn+stamp order"),
]


@pytest.mark.parametrize(("filters", "count"), CHEMISTRY_FILTERS)
@pytest.mark.parametrize(("limit", "offset"), [(3, 0), (5, 4), (100, 0)])
def test_chemistry_and_parent_filters_page_and_count_like_brute_force(
    db: Connection,
    dataset: Dataset,
    filters: dict[str, Any],
    count: int | None,
    limit: int,
    offset: int,
) -> None:
    expected = _expected(dataset, db, **filters)
    assert expected, "the filters match some strains"
    if count is not None:
        assert len(expected) == count
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(limit, offset))
    assert _slugs(page.items) == _slugs(window(expected, limit, offset))
    assert page.total == len(expected)


@pytest.mark.parametrize(("filters", "count"), CHEMISTRY_FILTERS[:6])
def test_chemistry_filters_combine_with_updated_since(
    db: Connection, dataset: Dataset, filters: dict[str, Any], count: int | None
) -> None:
    stamps = sorted(db.execute(select(Strain.updated_at)).scalars())
    since = stamps[len(stamps) // 3]
    since = since if since.tzinfo else since.replace(tzinfo=UTC)
    chosen = StrainFilters.create(**filters, updated_since=since)
    found = walk(lambda page: list_strains(db, chosen, page), size=7)
    stamp_of = dict(db.execute(select(Strain.slug, Strain.updated_at)).all())
    expected = [
        s
        for s in _expected(dataset, db, **filters)
        if stamp_of[s["slug"]].replace(tzinfo=UTC) >= since
    ]
    assert _slugs(found) == _slugs(expected)


def test_every_listed_strain_shows_the_words_it_was_filtered_by(db: Connection) -> None:
    found = walk(
        lambda page: list_strains(
            db, StrainFilters.create(dominant_terpene="myrcene", ratio="thc_dominant"), page
        )
    )
    assert found
    assert {(s.dominant_terpene, s.ratio) for s in found} == {("myrcene", "thc_dominant")}


@pytest.mark.parametrize("slug", ["no-such-strain", "NO-SUCH-STRAIN", " ozark ", "a" * 500])
def test_an_unknown_parent_matches_nothing(db: Connection, slug: str) -> None:
    page = list_strains(db, StrainFilters.create(parent=slug), PageRequest.build())
    assert (page.items, page.total) == ([], 0)


def test_a_strain_without_children_as_parent_matches_nothing(
    db: Connection, dataset: Dataset
) -> None:
    parents = {edge["parent_id"] for edge in dataset.strain_parents}
    childless = next(s["slug"] for s in dataset.strains if s["id"] not in parents)
    page = list_strains(db, StrainFilters.create(parent=childless), PageRequest.build())
    assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize("given", [" Girl-Scout-COOKIES ", "girl-scout-coo\u212aies"])
def test_a_parent_given_in_any_case_is_found(db: Connection, given: str) -> None:
    # KELVIN SIGN (U+212A) folds to k, as the published pattern allows.
    page = list_strains(db, StrainFilters.create(parent=given), PageRequest())
    assert page.total == 12


# --- validation --------------------------------------------------------------------------------

TERPENE_WORDS = (
    "myrcene, limonene, caryophyllene, pinene, linalool, humulene, terpinolene, ocimene, bisabolol"
)


@pytest.mark.parametrize(
    ("given", "param", "message"),
    [
        ({"terpene": "thca"}, "terpene", f"terpene must be one of: {TERPENE_WORDS}"),
        ({"terpene": "myrcene,"}, "terpene", "terpene has an empty value"),
        (
            {"dominant_terpene": "Vanilla"},
            "dominant_terpene",
            f"dominant_terpene must be one of: {TERPENE_WORDS}",
        ),
        (
            {"ratio": "thc"},
            "ratio",
            "ratio must be one of: thc_dominant, cbd_dominant, balanced",
        ),
        ({"ratio": ",".join(["balanced"] * 11)}, "ratio", "ratio takes at most 10 values"),
        ({"cbg_min": -1.0}, "cbg_min", "cbg_min must be a number from 0 to 100"),
        ({"cbn_min": 101.0}, "cbn_min", "cbn_min must be a number from 0 to 100"),
        ({"thcv_min": float("nan")}, "thcv_min", "thcv_min must be a number from 0 to 100"),
        ({"cbc_min": float("inf")}, "cbc_min", "cbc_min must be a number from 0 to 100"),
        ({"cbg_min": 1e308}, "cbg_min", "cbg_min must be a number from 0 to 100"),
        ({"parent": "girl_scout"}, "parent", "parent must be a strain's slug"),
        ({"parent": "blue-dream-"}, "parent", "parent must be a strain's slug"),
        ({"parent": ""}, "parent", "parent must be a strain's slug"),
        ({"parent": "blue-dream\x00"}, "parent", "parent must be a strain's slug"),
    ],
)
def test_bad_chemistry_and_parent_filters_are_refused_naming_the_parameter(
    given: dict[str, Any], param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as info:
        StrainFilters.create(**given)
    assert info.value.param == param
    assert info.value.message.startswith(message), info.value.message


def test_filters_normalise_words_and_slugs() -> None:
    filters = StrainFilters.create(
        terpene=" Myrcene ,LIMONENE,myrcene",
        dominant_terpene="Pinene",
        ratio="BALANCED",
        parent=" Blue-Dream ",
        cbg_min=0.0,
    )
    assert filters.terpene == ("myrcene", "limonene")
    assert (filters.dominant_terpene, filters.ratio) == (("pinene",), ("balanced",))
    assert (filters.parent, filters.cbg_min) == ("blue-dream", 0.0)


@pytest.mark.parametrize("most_sorted", [0, 500], ids=["walked", "sorted"])
@pytest.mark.parametrize(
    "filters",
    [
        {"cbg_min": 0.6},
        {"thcv_min": 0.1, "type": "sativa,hybrid"},
        {"cbn_min": 0.2, "ratio": "thc_dominant"},
    ],
)
def test_a_minimum_gives_the_same_page_whether_its_matches_are_sorted_or_the_name_index_walked(
    db: Connection,
    dataset: Dataset,
    monkeypatch: pytest.MonkeyPatch,
    most_sorted: int,
    filters: dict[str, Any],
) -> None:
    # Few matches are sorted, many found by walking the name order (service.paging.pick_listing).
    monkeypatch.setattr(paging, "SORTED_MAX", most_sorted)
    expected = _expected(dataset, db, **filters)
    assert expected
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(4, 3))
    assert _slugs(page.items) == _slugs(window(expected, 4, 3))
    assert page.total == len(expected)
