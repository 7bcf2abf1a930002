"""GraphQL: Strain.chemistry, Strain.lineage, dominantTerpene and ratio, Query.compounds and the
chemistry and parent arguments of Query.strains (issue 38), on the shared tiny dataset."""

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Strain, StrainParent

from .conftest import warm_up

CHEMISTRY = """
chemistry {
  basis sampleCount source
  cannabinoids { key name unit p25 p50 p75 }
  terpenes { key name unit p25 p50 p75 }
  totalThc { p25 p50 p75 formula }
  totalCbd { p25 p50 p75 formula }
  totalTerpenes { p25 p50 p75 }
  dominantTerpene ratio
}
"""
LINEAGE = "lineage { origin parents { slug name } childrenCount }"


def _strain(gql, slug: str, selection: str) -> dict[str, Any]:
    return gql.data(f'{{ strain(slug: "{slug}") {{ {selection} }} }}')["strain"]


def _entry(entry: dict[str, Any], name: str) -> dict[str, Any]:
    return {
        "key": entry["key"].upper(),
        "name": name,
        "unit": "percent",
        "p25": entry["p25"],
        "p50": entry["p50"],
        "p75": entry["p75"],
    }


def test_a_strains_chemistry_is_the_stored_one_camel_cased(gql, session: Session) -> None:
    stored = session.scalar(select(Strain.chemistry).where(Strain.slug == "blue-dream"))
    names = {c["key"]: c["name"] for c in gql.data("{ compounds { key name } }")["compounds"]}
    found = _strain(gql, "blue-dream", f"slug dominantTerpene ratio {CHEMISTRY}")
    chemistry = found["chemistry"]
    assert chemistry == {
        "basis": "TYPICAL",
        "sampleCount": 57,
        "source": "demo",
        "cannabinoids": [_entry(e, names[e["key"].upper()]) for e in stored["cannabinoids"]],
        "terpenes": [
            _entry(e, names[e["key"].upper()])
            for e in sorted(stored["terpenes"], key=lambda e: -e["p50"])
        ],
        "totalThc": {
            "p25": 16.71,
            "p50": 18.1,
            "p75": 19.88,
            "formula": "delta_9_thc + 0.877 * thca",
        },
        "totalCbd": {"p25": 0.0, "p50": 0.0, "p75": 0.0, "formula": "cbd + 0.877 * cbda"},
        "totalTerpenes": {"p25": 1.45, "p50": 1.75, "p75": 1.88},
        "dominantTerpene": "CARYOPHYLLENE",
        "ratio": "THC_DOMINANT",
    }
    assert chemistry["cannabinoids"][0]["name"] == "THCA"
    assert (found["dominantTerpene"], found["ratio"]) == ("CARYOPHYLLENE", "THC_DOMINANT")


def test_a_strain_without_samples_has_null_chemistry(gql) -> None:
    found = _strain(gql, "ozark-daze", f"dominantTerpene ratio {CHEMISTRY}")
    assert found == {"dominantTerpene": None, "ratio": None, "chemistry": None}


def test_lineage_names_the_parents_in_order_and_counts_the_children(gql, session: Session) -> None:
    cookies = _strain(gql, "girl-scout-cookies", LINEAGE)["lineage"]
    assert cookies["childrenCount"] == 12
    cookies_id = session.scalar(select(Strain.id).where(Strain.slug == "girl-scout-cookies"))
    child_id = session.scalar(
        select(StrainParent.strain_id).where(StrainParent.parent_id == cookies_id).limit(1)
    )
    child = session.get(Strain, child_id)
    parents = [
        {"slug": slug, "name": name}
        for slug, name in session.execute(
            select(Strain.slug, Strain.name)
            .join(StrainParent, StrainParent.parent_id == Strain.id)
            .where(StrainParent.strain_id == child_id)
            .order_by(StrainParent.position)
        )
    ]
    lineage = _strain(gql, child.slug, LINEAGE)["lineage"]
    assert lineage["origin"] == child.origin.upper()
    assert lineage["parents"] == parents


def test_the_same_strain_in_a_list_and_by_slug_has_the_same_chemistry_and_lineage(gql) -> None:
    page = gql.data(
        f'{{ strains(parent: "girl-scout-cookies", limit: 100) {{ total items {{ slug '
        f"{CHEMISTRY} {LINEAGE} }} }} }}"
    )["strains"]
    assert page["total"] == 12
    for item in page["items"]:
        alone = _strain(gql, item["slug"], f"slug {CHEMISTRY} {LINEAGE}")
        assert alone == item
        assert {"slug": "girl-scout-cookies", "name": "Girl Scout Cookies"} in item["lineage"][
            "parents"
        ]


def test_compounds_list_the_vocabulary_cannabinoids_first(gql) -> None:
    compounds = gql.data("{ compounds { key name kind aliases } }")["compounds"]
    assert len(compounds) == 18
    assert compounds[0] == {
        "key": "THCA",
        "name": "THCA",
        "kind": "CANNABINOID",
        "aliases": ["thc-a", "thca-a", "delta-9-thca", "Δ9-thca", "thc acid"],
    }
    assert compounds[1]["key"] == "DELTA_9_THC"
    assert [c["kind"] for c in compounds] == ["CANNABINOID"] * 9 + ["TERPENE"] * 9


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ("dominantTerpene: OCIMENE", lambda: [Strain.dominant_terpene == "ocimene"]),
        (
            "dominantTerpenes: [LIMONENE, PINENE]",
            lambda: [Strain.dominant_terpene.in_(["limonene", "pinene"])],
        ),
        ("ratio: CBD_DOMINANT", lambda: [Strain.ratio == "cbd_dominant"]),
        (
            "ratios: [BALANCED, CBD_DOMINANT]",
            lambda: [Strain.ratio.in_(["balanced", "cbd_dominant"])],
        ),
        ("cbgMin: 1", lambda: [Strain.cbg >= 1.0]),
        ("cbnMin: 0.2", lambda: [Strain.cbn >= 0.2]),
        ("thcvMin: 0.5", lambda: [Strain.thcv >= 0.5]),
        ("cbcMin: 0.3, type: INDICA", lambda: [Strain.cbc >= 0.3, Strain.type == "indica"]),
    ],
)
def test_each_chemistry_argument_keeps_exactly_the_matching_strains(
    gql, session: Session, arguments: str, where: Any
) -> None:
    expected = list(
        session.scalars(select(Strain.slug).where(*where()).order_by(Strain.sort_key, Strain.id))
    )
    assert expected
    page = gql.data(f"{{ strains({arguments}, limit: 100) {{ total items {{ slug }} }} }}")
    assert page["strains"]["total"] == len(expected)
    assert [item["slug"] for item in page["strains"]["items"]] == expected


def test_terpene_and_terpenes_match_the_three_leading_terpenes(gql) -> None:
    one = gql.data("{ strains(terpene: LINALOOL, limit: 100) { total items { slug } } }")
    many = gql.data(
        "{ strains(terpenes: [LINALOOL, BISABOLOL], limit: 100) { total items { slug } } }"
    )
    assert 0 < one["strains"]["total"] < many["strains"]["total"] < 150


@pytest.mark.parametrize(
    ("arguments", "param", "says"),
    [
        ("cbgMin: -1", "cbgMin", "cbgMin must be a number from 0 to 100"),
        ("cbnMin: 101", "cbnMin", "cbnMin must be a number from 0 to 100"),
        ("thcvMin: 1e308", "thcvMin", "thcvMin must be a number from 0 to 100"),
        ('parent: "not a slug"', "parent", "parent must be a strain's slug"),
        ("ratio: BALANCED, ratios: [BALANCED]", "ratios", "ratio and ratios cannot be combined"),
        (
            "dominantTerpene: MYRCENE, dominantTerpenes: [MYRCENE]",
            "dominantTerpenes",
            "dominantTerpene and dominantTerpenes cannot be combined",
        ),
        (
            "terpenes: [" + ", ".join(["MYRCENE"] * 11) + "]",
            "terpenes",
            "terpenes takes at most 10 values",
        ),
    ],
)
def test_a_bad_chemistry_argument_is_a_400_naming_the_argument(
    gql, arguments: str, param: str, says: str
) -> None:
    errors = gql.errors(f"{{ strains({arguments}) {{ total }} }}")
    assert errors[0]["extensions"]["code"] == 400
    assert errors[0]["extensions"]["param"] == param
    assert errors[0]["message"].startswith(says), errors[0]["message"]


def test_an_unknown_terpene_is_refused_by_the_enum(gql) -> None:
    errors = gql.errors("{ strains(terpene: THCA) { total } }")
    assert "Terpene" in errors[0]["message"]


def test_an_unknown_parent_is_an_empty_page(gql) -> None:
    page = gql.data('{ strains(parent: "no-such-strain") { total items { slug } } }')
    assert page == {"strains": {"total": 0, "items": []}}


# --- statements --------------------------------------------------------------------------------


@pytest.fixture
def counted(make_app, api_keys: dict, count_statements):
    """Run a query on an app without result cache; return its data and its statement count."""
    app: Flask = make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, GRAPHQL_COST_BUDGET=10**9)
    key = api_keys["enterprise"]
    warm_up(app, key)
    client = app.test_client()

    def run(query: str) -> tuple[dict[str, Any], int]:
        with count_statements(app) as seen:
            body = client.post("/graphql", json={"query": query}, headers={"X-API-Key": key})
        payload = body.get_json()
        assert "errors" not in payload, payload
        return payload["data"], len(seen)

    return run


def test_a_strain_by_slug_reads_chemistry_lineage_and_terpenes_with_its_detail(counted) -> None:
    _bare, bare = counted('{ strain(slug: "girl-scout-cookies") { slug } }')
    full, count = counted(
        f'{{ strain(slug: "girl-scout-cookies") {{ slug terpenes {CHEMISTRY} {LINEAGE} }} }}'
    )
    assert full["strain"]["lineage"]["childrenCount"] == 12
    assert count == bare  # the detail's two statements read them all


@pytest.mark.parametrize("limit", [5, 100])
def test_a_page_reads_chemistry_and_lineage_in_one_statement_each(counted, limit: int) -> None:
    _bare, bare = counted(f"{{ strains(limit: {limit}) {{ items {{ slug }} }} }}")
    data, count = counted(
        f"{{ strains(limit: {limit}) {{ items {{ slug {CHEMISTRY} {LINEAGE} }} }} }}"
    )
    assert len(data["strains"]["items"]) == limit
    assert count == bare + 2
