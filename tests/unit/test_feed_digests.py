"""What a strain's and a menu's fingerprints (seed.feed) cover of the chemistry and lineage: a
change to any of them changes the fingerprint, and an object without them keeps the one it had
before they existed."""

from typing import Any

from seed.feed import KINDS, _digest, _shown, menu_digest, menu_item, strain_digest

STRAIN: dict[str, Any] = {
    "id": 1,
    "slug": "blue-dream",
    "name": "Blue Dream",
    "type": "hybrid",
    "thc": 18.5,
    "cbd": 0.1,
    "description": "",
    "rating": 4.4,
    "review_count": 12,
}
TRAITS = {"strain_terpenes": [(0, "myrcene")]}
CHEMISTRY = {"basis": "typical", "sample_count": 3, "source": "import", "terpenes": []}
ITEM: dict[str, Any] = {
    "position": 0,
    "name": "Blue Dream",
    "category": "flower",
    "price": 42.0,
    "unit": "3.5g",
    "strain_id": 1,
}
LAB = {"batch_id": "B-1", "tested_at": "2026-11-02", "lab": "L", "coa_url": None, "results": []}


def _before_chemistry(row: dict[str, Any]) -> str:
    """The fingerprint as seed.feed made it before strains had origin, chemistry and parents."""
    lists = [[name for _, name in TRAITS["strain_terpenes"]]]
    return _digest([_shown(KINDS["strain"][0], row), sorted(TRAITS), lists])


def test_a_strain_without_origin_chemistry_or_parents_keeps_its_earlier_fingerprint() -> None:
    plain = {**STRAIN, "origin": "unknown", "chemistry": None, "ratio": None, "cbg": None}
    assert strain_digest(plain, TRAITS, []) == _before_chemistry(STRAIN)


def test_origin_chemistry_and_each_parent_change_a_strains_fingerprint() -> None:
    base = strain_digest({**STRAIN, "origin": "unknown"}, TRAITS, [])
    variants = [
        strain_digest({**STRAIN, "origin": "cross"}, TRAITS, []),
        strain_digest({**STRAIN, "chemistry": CHEMISTRY}, TRAITS, []),
        strain_digest({**STRAIN, "chemistry": {**CHEMISTRY, "sample_count": 4}}, TRAITS, []),
        strain_digest(STRAIN, TRAITS, ["haze"]),
        strain_digest(STRAIN, TRAITS, ["haze", "blueberry"]),
        strain_digest(STRAIN, TRAITS, ["blueberry", "haze"]),
    ]
    assert len({base, *variants}) == 7


def test_the_copies_of_the_chemistry_are_no_part_of_a_strains_fingerprint() -> None:
    row = {**STRAIN, "chemistry": CHEMISTRY}
    copied = {**row, "dominant_terpene": "myrcene", "ratio": "thc_dominant", "cbg": 0.5}
    assert strain_digest(copied, TRAITS, []) == strain_digest(row, TRAITS, [])


def test_a_menu_items_lab_batch_changes_its_menus_fingerprint_and_none_keeps_it() -> None:
    slugs = {1: "blue-dream"}
    before = menu_digest([menu_item(ITEM, slugs)])
    assert menu_digest([menu_item({**ITEM, "lab": None}, slugs)]) == before
    with_lab = menu_digest([menu_item({**ITEM, "lab": LAB}, slugs)])
    other_lab = menu_digest([menu_item({**ITEM, "lab": {**LAB, "batch_id": "B-2"}}, slugs)])
    copies = {"total_thc": 19.9, "price_per_gram": 12.0}
    assert len({before, with_lab, other_lab}) == 3
    assert menu_digest([menu_item({**ITEM, "lab": LAB, **copies}, slugs)]) == with_lab
