"""GET /api/v1/strains and /api/v1/strains/{slug} (SPEC 2.2, 4.1, 4.2)."""

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from models import Strain, StrainEffect, StrainFlavor
from tests.stamps import text

# Each object ends with its change stamp (tests/rest/test_stamps.py).
LIST_FIELDS = [
    "slug",
    "name",
    "type",
    "thc",
    "cbd",
    "effects",
    "flavors",
    "dominant_terpene",
    "ratio",
    "updated_at",
]
DETAIL_FIELDS = [
    *LIST_FIELDS[:-3],
    "description",
    "terpenes",
    "rating",
    "reviewCount",
    "dominant_terpene",
    "ratio",
    "chemistry",
    "lineage",
    "updated_at",
]


def _all(api, **params: Any) -> list[dict[str, Any]]:
    """Every matching strain, walking pages of 100."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/strains", limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            assert len(items) == body["meta"]["total"]
            return items


def _strains(session: Session) -> list[Strain]:
    return list(
        session.scalars(
            select(Strain).options(
                selectinload(Strain.effects),
                selectinload(Strain.flavors),
                selectinload(Strain.terpenes),
            )
        )
    )


def _count(session: Session, *where: Any) -> int:
    return session.scalar(select(func.count()).select_from(Strain).where(*where)) or 0


def _error(api, status: int = 400, **params: Any) -> dict[str, Any]:
    body = api.json("/api/v1/strains", status=status, **params)
    assert body["success"] is False
    assert body["error"]["code"] == status
    return body["error"]


# --- list -------------------------------------------------------------------------------------


def test_list_items_carry_exactly_the_list_fields_with_the_database_values(
    api, session: Session
) -> None:
    by_slug = {s.slug: s for s in _strains(session)}
    items = _all(api)
    assert len(items) == len(by_slug) == 150
    for item in items:
        assert list(item) == LIST_FIELDS
        strain = by_slug[item["slug"]]
        assert item == {
            "slug": strain.slug,
            "name": strain.name,
            "type": strain.type,
            "thc": strain.thc,
            "cbd": strain.cbd,
            "effects": [e.name for e in strain.effects],
            "flavors": [f.name for f in strain.flavors],
            "dominant_terpene": strain.dominant_terpene,
            "ratio": strain.ratio,
            "updated_at": text(strain.updated_at),
        }


@pytest.mark.parametrize(
    ("given", "expected"),
    [("INDICA", "indica")],
)
def test_type_filter_is_case_insensitive_and_returns_only_that_type(
    api, session: Session, given: str, expected: str
) -> None:
    items = _all(api, type=given)
    assert items, "every type has strains in the tiny dataset"
    assert {item["type"] for item in items} == {expected}
    assert len(items) == _count(session, Strain.type == expected)


@pytest.mark.parametrize("value", ["kush", "indicas", "", "ruderalis", "indica,kush", "%"])
def test_unknown_strain_type_is_a_400_naming_type(api, value: str) -> None:
    error = _error(api, type=value)
    assert error["param"] == "type"
    assert "indica" in error["message"]


@pytest.mark.parametrize(
    ("given", "word"),
    [("Euphoric", "euphoric")],
)
def test_effect_filter_is_case_insensitive_and_every_strain_has_that_effect(
    api, session: Session, given: str, word: str
) -> None:
    items = _all(api, effect=given)
    assert items
    assert all(word in item["effects"] for item in items)
    expected = set(session.scalars(select(StrainEffect.strain_id).where(StrainEffect.name == word)))
    assert len(items) == len(expected)
    slugs = set(session.scalars(select(Strain.slug).where(Strain.id.in_(expected))))
    assert {item["slug"] for item in items} == slugs


@pytest.mark.parametrize(
    ("given", "word"),
    [("Citrus", "citrus")],
)
def test_flavor_filter_is_case_insensitive_and_every_strain_has_that_flavor(
    api, session: Session, given: str, word: str
) -> None:
    items = _all(api, flavor=given)
    assert items
    assert all(word in item["flavors"] for item in items)
    expected = set(session.scalars(select(StrainFlavor.strain_id).where(StrainFlavor.name == word)))
    slugs = set(session.scalars(select(Strain.slug).where(Strain.id.in_(expected))))
    assert {item["slug"] for item in items} == slugs


@pytest.mark.parametrize(
    ("param", "value"),
    [("effect", "sleepyish"), ("flavor", "bacon")],
)
def test_unknown_effect_or_flavor_word_gives_an_empty_page_not_an_error(
    api, param: str, value: str
) -> None:
    body = api.json("/api/v1/strains", **{param: value})
    assert body == {"success": True, "data": [], "meta": {"total": 0, "limit": 20, "offset": 0}}


@pytest.mark.parametrize("param", ["effect", "flavor"])
@pytest.mark.parametrize("value", ["%", "_", "relax%", "' OR 1=1--"])
def test_wildcards_in_effect_or_flavor_never_match_everything(api, param: str, value: str) -> None:
    response = api.get("/api/v1/strains", **{param: value})
    body = response.get_json()
    if response.status_code == 200:
        assert body["meta"]["total"] == 0
    else:
        assert response.status_code == 400
        assert body["error"]["param"] == param


@pytest.mark.parametrize(
    ("low", "high"),
    [("15", "18.5")],
)
def test_thc_range_is_inclusive_and_every_strain_lies_inside_it(
    api, session: Session, low: str | None, high: str | None
) -> None:
    params = {k: v for k, v in (("thc_min", low), ("thc_max", high)) if v is not None}
    items = _all(api, **params)
    lo = float(low) if low is not None else 0.0
    hi = float(high) if high is not None else 100.0
    assert all(lo <= item["thc"] <= hi for item in items)
    assert len(items) == _count(session, Strain.thc >= lo, Strain.thc <= hi)


def test_thc_bounds_equal_to_a_strain_value_include_that_strain(api, session: Session) -> None:
    strain = session.scalars(select(Strain).order_by(Strain.thc.desc(), Strain.id)).first()
    assert strain is not None
    value = repr(strain.thc)
    items = _all(api, thc_min=value, thc_max=value)
    assert strain.slug in {item["slug"] for item in items}
    assert all(item["thc"] == strain.thc for item in items)
    assert len(items) == _count(session, Strain.thc == strain.thc)


@pytest.mark.parametrize(("low", "high"), [("1", "2")])
def test_cbd_range_is_inclusive_and_every_strain_lies_inside_it(
    api, session: Session, low: str | None, high: str | None
) -> None:
    params = {k: v for k, v in (("cbd_min", low), ("cbd_max", high)) if v is not None}
    items = _all(api, **params)
    assert items
    lo = float(low) if low is not None else 0.0
    hi = float(high) if high is not None else 100.0
    assert all(lo <= item["cbd"] <= hi for item in items)
    assert len(items) == _count(session, Strain.cbd >= lo, Strain.cbd <= hi)


@pytest.mark.parametrize("param", ["thc_min", "thc_max", "cbd_min", "cbd_max"])
@pytest.mark.parametrize(
    "value", ["-1", "100.01", "101", "abc", "nan", "inf", "1e3", "0x1", "1e400", " 5", ""]
)
def test_percentages_outside_0_to_100_or_not_plain_numbers_are_a_400_naming_them(
    api, param: str, value: str
) -> None:
    assert _error(api, **{param: value})["param"] == param


@pytest.mark.parametrize(("low", "high"), [("thc_min", "thc_max"), ("cbd_min", "cbd_max")])
def test_minimum_above_maximum_is_a_400_naming_the_minimum(api, low: str, high: str) -> None:
    assert _error(api, **{low: "20", high: "10"})["param"] == low


def test_list_items_never_carry_detail_fields(api) -> None:
    for item in api.json("/api/v1/strains", limit=100)["data"]:
        assert not {"description", "terpenes", "rating", "reviewCount"} & set(item)


# --- detail -----------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ["acdc", "ak-47", "charlottes-web", "gelato-33"])
def test_detail_has_list_fields_plus_description_terpenes_rating_and_review_count(
    api, session: Session, slug: str
) -> None:
    strain = session.scalar(
        select(Strain)
        .where(Strain.slug == slug)
        .options(
            selectinload(Strain.effects),
            selectinload(Strain.flavors),
            selectinload(Strain.terpenes),
        )
    )
    assert strain is not None
    body = api.json(f"/api/v1/strains/{slug}")
    assert list(body) == ["success", "data"]
    assert body["success"] is True
    assert list(body["data"]) == DETAIL_FIELDS
    assert body["data"] == {
        "slug": strain.slug,
        "name": strain.name,
        "type": strain.type,
        "thc": strain.thc,
        "cbd": strain.cbd,
        "effects": [e.name for e in strain.effects],
        "flavors": [f.name for f in strain.flavors],
        "description": strain.description,
        "terpenes": [t.name for t in strain.terpenes],
        "rating": strain.rating,
        "reviewCount": strain.review_count,
        "dominant_terpene": strain.dominant_terpene,
        "ratio": strain.ratio,
        # Rendered from the stored chemistry (tests/rest/test_strain_chemistry.py).
        "chemistry": body["data"]["chemistry"],
        "lineage": body["data"]["lineage"],
        "updated_at": text(strain.updated_at),
    }
    assert body["data"]["terpenes"], "every seeded strain has terpenes"
    assert body["data"]["lineage"]["origin"] == strain.origin


def test_detail_matches_the_list_item_for_every_strain(api) -> None:
    for item in _all(api)[::15]:
        detail = api.json(f"/api/v1/strains/{item['slug']}")["data"]
        assert {k: detail[k] for k in LIST_FIELDS} == item


@pytest.mark.parametrize("given", ["ACDC", "Acdc", "AK-47", "Ak-47", "CHARLOTTES-WEB"])
def test_detail_slug_is_matched_case_insensitively(api, given: str) -> None:
    assert api.json(f"/api/v1/strains/{given}")["data"]["slug"] == given.lower()


@pytest.mark.parametrize(
    "slug", ["no-such-strain", "acdc-", "acd", "ACDC%25", "%25", "acdc'--", "1", "ak_47"]
)
def test_unknown_slug_is_a_404_envelope(api, slug: str) -> None:
    body = api.json(f"/api/v1/strains/{slug}", status=404)
    assert body["success"] is False
    assert body["error"]["code"] == 404
    assert "data" not in body
