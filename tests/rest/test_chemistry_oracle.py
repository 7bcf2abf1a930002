"""Oracle for the chemistry and lineage answers, over every object of the tiny dataset: each
batch total is the stated formula over its own results, each strain's percentiles are ordered
and its ``thc``/``cbd`` are the medians of its totals, and each lineage edge shows from both
sides. The expectations are computed here from the answers' raw parts, never copied from the
code under test."""

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Dispensary, Strain
from tests.conftest import Api

DECARB = 0.877  # the factor both formulas state
GRAMS = {"1g": 1.0, "3.5g": 3.5, "7g": 7.0, "14g": 14.0, "28g": 28.0, "1oz": 28.0}


@pytest.fixture
def oracle(client, api_keys: dict[str, str]) -> Api:
    """Many calls: the enterprise key's quota holds them."""
    return Api(client, api_keys["enterprise"])


def _value(results: list[dict[str, Any]], key: str) -> float:
    for result in results:
        if result["key"] == key:
            return result["value"] or 0.0
    return 0.0


def _all_strains(api: Api) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        page = api.json("/api/v1/strains", limit=100, offset=len(found))
        found.extend(page["data"])
        if len(found) >= page["meta"]["total"]:
            return found


def test_every_batch_total_is_the_formula_over_its_own_results(
    oracle: Api, session: Session
) -> None:
    ids = session.scalars(select(Dispensary.public_id).order_by(Dispensary.id)).all()
    batches = nulls = 0
    for public_id in ids:
        menu = oracle.json(f"/api/v1/dispensaries/{public_id}")["data"]["menu"]
        for item in menu:
            grams = GRAMS.get(item["unit"].replace(" ", ""))
            expected_ppg = round(item["price"] / grams, 2) if grams else None
            assert item["price_per_gram"] == expected_ppg, item
            lab = item["lab"]
            if lab is None:
                assert item.get("strain") is None, item  # demo: every strain's flower is tested
                continue
            batches += 1
            results = lab["results"]
            for result in results:
                if result["value"] is None:
                    nulls += 1
                    assert result["qualifier"] in ("nd", "lt_loq"), result
                else:
                    # A measured amount, never a zero standing for "not measured".
                    assert 0 < result["value"] <= 100, result
                    assert "qualifier" not in result or result["qualifier"] is None, result
            thc = _value(results, "delta_9_thc") + DECARB * _value(results, "thca")
            cbd = _value(results, "cbd") + DECARB * _value(results, "cbda")
            assert abs(lab["total_thc"] - thc) <= 0.05 + 1e-9, (public_id, lab)
            assert abs(lab["total_cbd"] - cbd) <= 0.05 + 1e-9, (public_id, lab)
    assert batches > 500
    assert nulls > 0


def _ordered(spread: dict[str, float]) -> bool:
    return spread["p25"] <= spread["p50"] <= spread["p75"]


def test_every_strain_has_ordered_percentiles_and_its_potency_is_their_median(
    oracle: Api,
) -> None:
    listed = _all_strains(oracle)
    without = 0
    for item in listed:
        strain = oracle.json(f"/api/v1/strains/{item['slug']}")["data"]
        chemistry = strain["chemistry"]
        if chemistry is None:
            without += 1
            assert item["dominant_terpene"] is None, item
            assert item["ratio"] is None, item
            continue
        for entry in (*chemistry["cannabinoids"], *chemistry["terpenes"]):
            assert _ordered(entry), (item["slug"], entry)
            assert entry["unit"] == "percent", (item["slug"], entry)
        for name in ("total_thc", "total_cbd", "total_terpenes"):
            assert _ordered(chemistry[name]), (item["slug"], name)
        assert strain["thc"] == round(chemistry["total_thc"]["p50"], 1), item["slug"]
        assert strain["cbd"] == round(chemistry["total_cbd"]["p50"], 1), item["slug"]
        medians = [entry["p50"] for entry in chemistry["terpenes"]]
        assert medians == sorted(medians, reverse=True), item["slug"]
        assert chemistry["dominant_terpene"] == chemistry["terpenes"][0]["key"]
        thc, cbd = chemistry["total_thc"]["p50"], chemistry["total_cbd"]["p50"]
        ratio = (
            "balanced"
            if thc == cbd
            else "thc_dominant"
            if thc >= 2 * cbd
            else "cbd_dominant"
            if cbd >= 2 * thc
            else "balanced"
        )
        assert chemistry["ratio"] == ratio, item["slug"]
        # The list item carries the same words as the detail.
        assert (item["dominant_terpene"], item["ratio"]) == (chemistry["dominant_terpene"], ratio)
        leading = [entry["key"] for entry in chemistry["terpenes"][:3]]
        assert strain["terpenes"] == leading, item["slug"]
    assert without >= 1
    assert len(listed) - without > 100


def test_every_lineage_edge_shows_from_both_sides(oracle: Api, session: Session) -> None:
    slugs = session.scalars(select(Strain.slug).order_by(Strain.id)).all()
    up: set[tuple[str, str]] = set()
    down: set[tuple[str, str]] = set()
    for slug in slugs:
        detail = oracle.json(f"/api/v1/strains/{slug}")["data"]["lineage"]
        ancestors = oracle.json(f"/api/v1/strains/{slug}/lineage")["data"]
        descendants = oracle.json(
            f"/api/v1/strains/{slug}/lineage", direction="descendants", depth=1
        )["data"]
        assert ancestors["root"] == descendants["root"] == slug
        parents = {node["slug"] for node in ancestors["nodes"]}
        assert parents == {parent["slug"] for parent in detail["parents"]}, slug
        assert {node["depth"] for node in ancestors["nodes"]} <= {1}
        assert detail["children_count"] == len(descendants["nodes"]), slug
        assert (detail["origin"] in ("landrace", "unknown")) == (not parents), slug
        up.update((edge["child"], edge["parent"]) for edge in ancestors["edges"])
        down.update((edge["child"], edge["parent"]) for edge in descendants["edges"])
    assert up == down
    assert len(up) > 100
