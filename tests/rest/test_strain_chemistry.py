"""GET /api/v1/compounds, a strain's chemistry and lineage in its detail, and the strain list's
chemistry and parent filters (issue 38), on the shared tiny dataset.

Expected values are read from the database the app serves (the stored chemistry JSON and the
lineage rows) or written out here; none is taken from the code under test.
"""

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Strain, StrainParent, StrainTerpene

COMPOUND_KEYS = [
    "thca",
    "delta_9_thc",
    "cbda",
    "cbd",
    "cbga",
    "cbg",
    "cbn",
    "cbc",
    "thcv",
    "myrcene",
    "limonene",
    "caryophyllene",
    "pinene",
    "linalool",
    "humulene",
    "terpinolene",
    "ocimene",
    "bisabolol",
]
TERPENES = COMPOUND_KEYS[9:]
NUMBER_PARAMS = ("cbg_min", "cbn_min", "thcv_min", "cbc_min")


def _all(api, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/strains", limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            return items


def _error(api, path: str = "/api/v1/strains", **params: Any) -> dict[str, Any]:
    body = api.json(path, status=400, **params)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    return body["error"]


# --- compounds ---------------------------------------------------------------------------------


def test_compounds_are_the_whole_vocabulary_in_one_page_cannabinoids_first(api) -> None:
    body = api.json("/api/v1/compounds")
    assert list(body) == ["success", "data", "meta"]
    assert body["meta"] == {"total": 18, "limit": 18, "offset": 0}
    assert [c["key"] for c in body["data"]] == COMPOUND_KEYS
    assert body["data"][0] == {
        "key": "thca",
        "name": "THCA",
        "kind": "cannabinoid",
        "aliases": ["thc-a", "thca-a", "delta-9-thca", "Δ9-thca", "thc acid"],
    }
    assert body["data"][9] == {
        "key": "myrcene",
        "name": "Myrcene",
        "kind": "terpene",
        "aliases": ["beta-myrcene", "β-myrcene", "b-myrcene"],
    }
    assert [c["kind"] for c in body["data"]] == ["cannabinoid"] * 9 + ["terpene"] * 9


@pytest.mark.parametrize("param", ["limit", "kind", "offset"])
def test_compounds_take_no_parameters(api, param: str) -> None:
    error = _error(api, "/api/v1/compounds", **{param: "5"})
    assert error["param"] == param
    assert "takes no query parameters" in error["message"]


def test_compounds_need_a_key_and_answer_a_matching_etag_with_a_304(api) -> None:
    assert api.get("/api/v1/compounds", key="").status_code == 401
    first = api.get("/api/v1/compounds")
    again = api.client.get(
        "/api/v1/compounds",
        headers={"X-API-Key": api.key, "If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304


# --- the detail --------------------------------------------------------------------------------


def _named(entries: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    return [{**e, "name": names[e["key"]], "unit": "percent"} for e in entries]


def test_a_detail_shows_its_chemistry_as_stored_with_names_units_and_formulas(
    api, session: Session
) -> None:
    stored = session.scalar(select(Strain.chemistry).where(Strain.slug == "blue-dream"))
    names = {c["key"]: c["name"] for c in api.json("/api/v1/compounds")["data"]}
    data = api.json("/api/v1/strains/blue-dream")["data"]
    chemistry = data["chemistry"]
    assert list(chemistry) == [
        "basis",
        "sample_count",
        "source",
        "cannabinoids",
        "terpenes",
        "total_thc",
        "total_cbd",
        "total_terpenes",
        "dominant_terpene",
        "ratio",
    ]
    assert chemistry == {
        "basis": "typical",
        "sample_count": 57,
        "source": "demo",
        "cannabinoids": [
            {"key": e["key"], "name": names[e["key"]], "unit": "percent", **_spread(e)}
            for e in stored["cannabinoids"]
        ],
        "terpenes": _reordered(_named(stored["terpenes"], names)),
        "total_thc": {
            "p25": 16.71,
            "p50": 18.1,
            "p75": 19.88,
            "formula": "delta_9_thc + 0.877 * thca",
        },
        "total_cbd": {"p25": 0.0, "p50": 0.0, "p75": 0.0, "formula": "cbd + 0.877 * cbda"},
        "total_terpenes": {"p25": 1.45, "p50": 1.75, "p75": 1.88},
        "dominant_terpene": "caryophyllene",
        "ratio": "thc_dominant",
    }
    assert chemistry["cannabinoids"][0] == {
        "key": "thca",
        "name": "THCA",
        "unit": "percent",
        "p25": 18.05,
        "p50": 19.56,
        "p75": 21.48,
    }
    assert (data["dominant_terpene"], data["ratio"]) == ("caryophyllene", "thc_dominant")
    assert data["terpenes"] == ["caryophyllene", "pinene", "myrcene"]
    assert data["thc"] == 18.1


def _spread(entry: dict[str, Any]) -> dict[str, float]:
    return {"p25": entry["p25"], "p50": entry["p50"], "p75": entry["p75"]}


def _reordered(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shown = ["key", "name", "unit", "p25", "p50", "p75"]
    return [{k: e[k] for k in shown} for e in sorted(entries, key=lambda e: -e["p50"])]


@pytest.mark.parametrize("slug", ["ozark-daze", "rocky-mountain-sage"])
def test_a_strain_without_samples_shows_null_chemistry_never_zeros(api, slug: str) -> None:
    data = api.json(f"/api/v1/strains/{slug}")["data"]
    assert data["chemistry"] is None
    assert (data["dominant_terpene"], data["ratio"]) == (None, None)
    item = next(i for i in _all(api) if i["slug"] == slug)
    assert (item["dominant_terpene"], item["ratio"]) == (None, None)


def test_a_detail_shows_its_lineage_parents_in_order_and_its_children_count(
    api, session: Session
) -> None:
    cookies = api.json("/api/v1/strains/girl-scout-cookies")["data"]["lineage"]
    assert cookies["children_count"] == 12
    assert list(cookies) == ["origin", "parents", "children_count"]
    cookies_id = session.scalar(select(Strain.id).where(Strain.slug == "girl-scout-cookies"))
    child_id = session.scalar(
        select(StrainParent.strain_id).where(StrainParent.parent_id == cookies_id).limit(1)
    )
    child = session.get(Strain, child_id)
    expected = [
        {"slug": slug, "name": name}
        for slug, name in session.execute(
            select(Strain.slug, Strain.name)
            .join(StrainParent, StrainParent.parent_id == Strain.id)
            .where(StrainParent.strain_id == child_id)
            .order_by(StrainParent.position)
        )
    ]
    children = session.scalar(
        select(func.count()).select_from(StrainParent).where(StrainParent.parent_id == child_id)
    )
    lineage = api.json(f"/api/v1/strains/{child.slug}")["data"]["lineage"]
    assert lineage == {"origin": child.origin, "parents": expected, "children_count": children}
    assert {"slug": "girl-scout-cookies", "name": "Girl Scout Cookies"} in lineage["parents"]


def test_a_strain_detail_is_at_most_two_statements(
    make_app, api_keys: dict, count_statements
) -> None:
    app: Flask = make_app(PAGE_CACHE_MB=0)  # every request runs its SQL
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    client.get("/api/v1/strains/girl-scout-cookies", headers=headers)  # key and version known
    with count_statements(app) as seen:
        body = client.get("/api/v1/strains/girl-scout-cookies", headers=headers).get_json()
    assert body["data"]["lineage"]["children_count"] == 12
    assert body["data"]["chemistry"]["basis"] == "typical"
    assert len(seen) <= 2, seen


# --- filters -----------------------------------------------------------------------------------


def _slugs_where(session: Session, *where: Any) -> list[str]:
    return list(
        session.scalars(select(Strain.slug).where(*where).order_by(Strain.sort_key, Strain.id))
    )


@pytest.mark.parametrize(
    ("params", "where"),
    [
        ({"dominant_terpene": "Ocimene"}, lambda: [Strain.dominant_terpene == "ocimene"]),
        (
            {"dominant_terpene": "limonene,pinene"},
            lambda: [Strain.dominant_terpene.in_(["limonene", "pinene"])],
        ),
        ({"ratio": "cbd_dominant"}, lambda: [Strain.ratio == "cbd_dominant"]),
        (
            {"ratio": "balanced,CBD_dominant"},
            lambda: [Strain.ratio.in_(["balanced", "cbd_dominant"])],
        ),
        ({"cbg_min": "1"}, lambda: [Strain.cbg >= 1.0]),
        ({"cbn_min": "2e-1"}, lambda: [Strain.cbn >= 0.2]),
        ({"thcv_min": "0.5"}, lambda: [Strain.thcv >= 0.5]),
        (
            {"cbc_min": "0.3", "type": "indica"},
            lambda: [Strain.cbc >= 0.3, Strain.type == "indica"],
        ),
        (
            {"ratio": "thc_dominant", "thc_min": "20", "cbg_min": "0.5"},
            lambda: [Strain.ratio == "thc_dominant", Strain.thc >= 20, Strain.cbg >= 0.5],
        ),
    ],
)
def test_each_chemistry_filter_keeps_exactly_the_matching_strains(
    api, session: Session, params: dict[str, str], where: Any
) -> None:
    expected = _slugs_where(session, *where())
    assert expected, "the filter matches some strains"
    assert [item["slug"] for item in _all(api, **params)] == expected


def test_the_terpene_filter_looks_at_the_three_leading_terpenes(api, session: Session) -> None:
    leading = select(StrainTerpene.strain_id).where(
        StrainTerpene.name.in_(["linalool", "bisabolol"]), StrainTerpene.position < 3
    )
    expected = _slugs_where(session, Strain.id.in_(leading))
    found = _all(api, terpene="linalool,Bisabolol")
    assert [item["slug"] for item in found] == expected
    assert 0 < len(expected) < 150


def test_the_parent_filter_lists_the_children_and_combines_with_paging(
    api, session: Session
) -> None:
    cookies_id = session.scalar(select(Strain.id).where(Strain.slug == "girl-scout-cookies"))
    expected = _slugs_where(
        session,
        Strain.id.in_(select(StrainParent.strain_id).where(StrainParent.parent_id == cookies_id)),
    )
    assert len(expected) == 12
    page = api.json("/api/v1/strains", parent="Girl-Scout-Cookies", limit=5, offset=5)
    assert page["meta"] == {"total": 12, "limit": 5, "offset": 5}
    assert [item["slug"] for item in page["data"]] == expected[5:10]


def test_an_unknown_parent_is_an_empty_page_not_an_error(api) -> None:
    body = api.json("/api/v1/strains", parent="no-such-strain")
    assert body == {"success": True, "data": [], "meta": {"total": 0, "limit": 20, "offset": 0}}


TERPENE_LIST = ", ".join(TERPENES)


@pytest.mark.parametrize(
    ("param", "value", "says"),
    [
        ("terpene", "thca", f"terpene must be one of: {TERPENE_LIST}"),
        ("terpene", "unknownene", f"terpene must be one of: {TERPENE_LIST}"),
        ("terpene", "", f"terpene must be one of: {TERPENE_LIST}"),
        ("terpene", ",".join(["myrcene"] * 50), "terpene takes at most 10 values"),
        ("dominant_terpene", "vanilla", f"dominant_terpene must be one of: {TERPENE_LIST}"),
        ("dominant_terpene", "myrcene,,pinene", "dominant_terpene has an empty value"),
        ("ratio", "thc", "ratio must be one of: thc_dominant, cbd_dominant, balanced"),
        ("parent", "girl_scout_cookies", "parent must be a strain's slug"),
        ("parent", "-", "parent must be a strain's slug"),
        ("parent", "blue--dream", "parent must be a strain's slug"),
        *[
            (name, value, f"{name} must be a number from 0 to 100")
            for name in NUMBER_PARAMS
            for value in ("1e308", "NaN", "nan", "-1", "101", "abc", "inf", "0x10", "", " 1")
        ],
        ("cbg_min", "1e400", "cbg_min must be a number from 0 to 100 (1e400 is too large)"),
        ("cbn_min", "1,2", "cbn_min must be a number from 0 to 100"),
    ],
)
def test_a_bad_chemistry_or_parent_value_is_a_400_naming_the_parameter(
    api, param: str, value: str, says: str
) -> None:
    error = _error(api, **{param: value})
    assert error["param"] == param
    assert error["message"].startswith(says), error["message"]


def test_a_repeated_word_parameter_means_any_of_as_commas_do(api) -> None:
    repeated = api.client.get(
        "/api/v1/strains?ratio=balanced&ratio=cbd_dominant&limit=100",
        headers={"X-API-Key": api.key},
    ).get_json()
    commas = api.json("/api/v1/strains", ratio="balanced,cbd_dominant", limit=100)
    assert repeated == commas
    assert commas["meta"]["total"] == 9


@pytest.mark.parametrize("param", ["cbg_min", "parent"])
def test_a_single_valued_chemistry_parameter_given_twice_is_a_400(api, param: str) -> None:
    body = api.client.get(
        f"/api/v1/strains?{param}=1&{param}=2", headers={"X-API-Key": api.key}
    ).get_json()
    assert body["error"]["code"] == 400
    assert body["error"]["param"] == param
