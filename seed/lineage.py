"""Demo lineage: each strain's origin and parents, a DAG by construction.

Well-known strains keep their commonly reported parents when both are in the set, and the
known landraces have none; phenotype names ("Gelato #33") descend from their base strain when
it exists. Of the rest, some have an unknown pedigree (half the other well-known strains, an
eighth of the generated ones) and the others are crosses of two strains that come before them
in a breeding order (the classics first, parents before children), so no edge closes a cycle.
"""

import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from . import vocab

Row = dict[str, Any]

# Commonly reported parents of well-known strains (first parent listed first).
KNOWN_PARENTS: dict[str, tuple[str, ...]] = {
    "Girl Scout Cookies": ("OG Kush", "Durban Poison"),
    "Cherry Pie": ("Granddaddy Purple", "Durban Poison"),
    "Wedding Cake": ("Cherry Pie", "Girl Scout Cookies"),
    "Gelato": ("Sunset Sherbet", "Girl Scout Cookies"),
    "Runtz": ("Zkittlez", "Gelato"),
    "Ice Cream Cake": ("Wedding Cake", "Gelato #33"),
    "Jealousy": ("Sunset Sherbet", "Gelato"),
    "Blue Cheese": ("Blueberry", "UK Cheese"),
    "Blue Widow": ("Blueberry", "White Widow"),
    "Blue Cookies": ("Girl Scout Cookies", "Blueberry"),
    "Sour Diesel": ("Chemdawg", "Super Skunk"),
    "Sour Tangie": ("Sour Diesel", "Tangie"),
    "Animal Cookies": ("Girl Scout Cookies", "Fire OG"),
    "Tropicana Cookies": ("Girl Scout Cookies", "Tangie"),
    "Mimosa": ("Clementine", "Purple Punch"),
    "Super Lemon Haze": ("Lemon Skunk", "Super Silver Haze"),
    "Peanut Butter Breath": ("Do-Si-Dos", "Mendo Breath"),
    "Harle-Tsu": ("Harlequin", "Sour Tsunami"),
}
# Phenotypes (selected cuts) of one parent.
KNOWN_PHENOTYPES: dict[str, str] = {
    "Gelato #33": "Gelato",
    "Chem Dog #4": "Chemdawg",
    "Key Lime Pie": "Girl Scout Cookies",
    "Girl Scout Cookies Extreme": "Girl Scout Cookies",
}
LANDRACES = frozenset(
    {
        "Durban Poison",
        "Hindu Kush",
        "Afghan Kush",
        "Acapulco Gold",
        "Panama Red",
        "Lamb's Bread",
        "Malawi Gold",
        "Mazar-i-Sharif",
    }
)
# Shares of unknown pedigree among the generated and the other well-known strains; the rest
# are crosses.
UNKNOWN_SHARE = 0.12
CLASSIC_UNKNOWN_SHARE = 0.5
# How often a cross takes a parent among the well-known strains rather than any earlier one.
CLASSIC_PARENT_SHARE = 0.35


class Lineage(NamedTuple):
    origins: dict[int, str]  # strain id -> origin word
    edges: list[Row]  # strain_parents rows: strain_id, parent_id, position


def _breeding_order(strains: Sequence[Row], rng: random.Random) -> list[Row]:
    """Strains with every known parent before its child: the classics in a topological order,
    then the generated strains shuffled."""
    by_name = {s["name"]: s for s in strains}
    classics = [by_name[name] for name in vocab.CLASSIC_STRAINS if name in by_name]
    placed: set[str] = set()
    ordered: list[Row] = []

    def place(strain: Row) -> None:
        if strain["name"] in placed:
            return
        placed.add(strain["name"])
        for parent in _known(strain["name"]):
            if parent in by_name:
                place(by_name[parent])
        ordered.append(strain)

    for strain in classics:
        place(strain)
    others = [s for s in strains if s["name"] not in placed]
    rng.shuffle(others)
    return ordered + others


def _known(name: str) -> tuple[str, ...]:
    if name in KNOWN_PHENOTYPES:
        return (KNOWN_PHENOTYPES[name],)
    return KNOWN_PARENTS.get(name, ())


def _base_name(name: str) -> str | None:
    """ "Blue Frost #4" -> "Blue Frost"; None for a name without a phenotype suffix."""
    head, _, tail = name.rpartition(" ")
    return head if head and tail in vocab.PHENOTYPES else None


def build_lineage(rng: random.Random, strains: Sequence[Row]) -> Lineage:
    """The origin of every strain and its parent edges (ids as in ``strains``)."""
    by_name = {s["name"]: s for s in strains}
    classic_names = set(vocab.CLASSIC_STRAINS)
    order = _breeding_order(strains, rng)
    origins: dict[int, str] = {}
    edges: list[Row] = []
    earlier: list[Row] = []
    earlier_classics: list[Row] = []

    def add(child: Row, parents: Sequence[Row]) -> None:
        edges.extend(
            {"strain_id": child["id"], "parent_id": parent["id"], "position": position}
            for position, parent in enumerate(parents)
        )

    for strain in order:
        name = strain["name"]
        known = [by_name[p] for p in _known(name) if p in by_name]
        base = _base_name(name)
        if name in LANDRACES:
            origins[strain["id"]] = "landrace"
        elif known:
            origins[strain["id"]] = "phenotype" if name in KNOWN_PHENOTYPES else "cross"
            add(strain, known)
        elif name in classic_names and rng.random() < CLASSIC_UNKNOWN_SHARE:
            # Many famous strains have no documented pedigree.
            origins[strain["id"]] = "unknown"
        elif base is not None and base in by_name and by_name[base] in earlier:
            origins[strain["id"]] = "phenotype"
            add(strain, [by_name[base]])
        elif len(earlier) < 2 or rng.random() < UNKNOWN_SHARE:
            origins[strain["id"]] = "unknown"
        else:
            first = _pick(rng, earlier, earlier_classics)
            second = first
            while second is first:
                second = _pick(rng, earlier, earlier_classics)
            origins[strain["id"]] = "cross"
            add(strain, [first, second])
        earlier.append(strain)
        if name in classic_names:
            earlier_classics.append(strain)
    edges.sort(key=lambda edge: (edge["strain_id"], edge["position"]))
    return Lineage(origins, edges)


def _pick(rng: random.Random, earlier: list[Row], classics: list[Row]) -> Row:
    if classics and rng.random() < CLASSIC_PARENT_SHARE:
        return rng.choice(classics)
    return rng.choice(earlier)
