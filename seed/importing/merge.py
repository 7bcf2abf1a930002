"""A merge: the stored data with an import's records and deletions laid over it.

Each record inserts or replaces the object with its public id; a menu or reviews file replaces
the whole menu or the reviews of each dispensary it names; deletions remove objects (a
dispensary with its menu, reviews and deals; a strain leaves the menu items naming it without a
strain). Objects the files leave out stay as stored, internal ids included. The result is a
whole Dataset, which seed.load.apply_dataset compares with the change log like any import.
"""

from collections import defaultdict
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, select

from models import Base, DatasetInfo

from ..generate import TABLES, Dataset, Row, _law_row
from .build import (
    TRAITS,
    deal_row,
    dispensary_row,
    doctor_row,
    menu_row,
    parent_rows,
    review_ratings,
    review_row,
    strain_row,
    trait_rows,
)
from .lineage import describe, find_cycles, starting_at
from .reading import Issue
from .validate import DELETED_RESOURCE, ImportReport, Stored

# Stored columns a Dataset row does not carry: stamps and what every load derives again
# (sort keys from names, a strain's trait lists, the copies of their strain's columns that
# trait rows hold). Rows built from records lack them too, and one insert needs one shape.
_DERIVED = frozenset({"updated_at", "menu_updated_at", "sort_key", "effect_list", "flavor_list"})
_TRAIT_COPIES = frozenset({"type", "thc", "cbd", "sort_key"})
_TRAIT_TABLES = {
    "effects": "strain_effects",
    "flavors": "strain_flavors",
    "terpenes": "strain_terpenes",
}
# resource -> (table, public key column)
_KEYS = {
    "laws": ("laws", "state_code"),
    "strains": ("strains", "slug"),
    "dispensaries": ("dispensaries", "public_id"),
    "deals": ("deals", "public_id"),
    "doctors": ("doctors", "public_id"),
}


def stored_ids(conn: Connection) -> Stored:
    """Resource name -> the public ids stored."""
    stored: Stored = {}
    for resource, (table_name, key) in _KEYS.items():
        column = Base.metadata.tables[table_name].c[key]
        stored[resource] = set(conn.scalars(select(column)))
    return stored


def stored_dataset(conn: Connection) -> Dataset:
    """The stored data as a Dataset (internal ids as stored)."""
    rows: dict[str, list[Row]] = {}
    for name in TABLES:
        table = Base.metadata.tables[name]
        left_out = _DERIVED | _TRAIT_COPIES if name.startswith("strain_") else _DERIVED
        columns = [c for c in table.c if c.name not in left_out]
        found = conn.execute(select(*columns).order_by(*table.primary_key.columns))
        rows[name] = [dict(row._mapping) for row in found]
    info = conn.execute(
        select(DatasetInfo.seed, DatasetInfo.reference_day).order_by(DatasetInfo.version.desc())
    ).first()
    seed, reference_day = info if info is not None else (None, None)
    return Dataset(seed=seed, scale="import", reference_day=reference_day, **rows)  # type: ignore[arg-type]


class MergeError(Exception):
    """The merged data would break a rule across objects; ``issues`` name the lines."""

    def __init__(self, issues: list[Issue]) -> None:
        super().__init__("; ".join(map(str, issues)))
        self.issues = issues


def _next_id(rows: list[Row]) -> int:
    return max((row["id"] for row in rows), default=0) + 1


def merge_dataset(current: Dataset, report: ImportReport) -> Dataset:
    """``current`` with the report's accepted records and deletions applied."""
    deleted: dict[str, dict[str, int]] = defaultdict(dict)  # resource -> id -> line
    for record in report.records.get("deletions", []):
        if record.valid:
            resource = DELETED_RESOURCE[record.values["type"]]
            deleted[resource][record.values["id"]] = record.line

    laws = {row["state_code"]: row for row in current.laws}
    for values in report.accepted("laws"):
        laws[values["stateCode"]] = _law_row(values)
    for code in deleted["laws"]:
        del laws[code]

    # Strains and their traits.
    strains = {row["slug"]: row for row in current.strains}
    traits: dict[str, dict[int, list[Row]]] = {t: defaultdict(list) for t in TRAITS}
    for trait, table in _TRAIT_TABLES.items():
        for row in getattr(current, table):
            traits[trait][row["strain_id"]].append(row)
    next_strain = _next_id(current.strains)
    for values in report.accepted("strains"):
        old = strains.get(values["slug"])
        strain_id = old["id"] if old is not None else next_strain
        next_strain += old is None
        strains[values["slug"]] = strain_row(values, strain_id)
        for trait, new_rows in trait_rows(values, strain_id).items():
            traits[trait][strain_id] = new_rows
    gone_strains = set()
    for slug in deleted["strains"]:
        strain_id = strains.pop(slug)["id"]
        gone_strains.add(strain_id)
        for trait in TRAITS:
            traits[trait].pop(strain_id, None)
    strain_ids = {slug: row["id"] for slug, row in strains.items()}
    lineage = _merged_lineage(current.strain_parents, report, strain_ids, gone_strains)

    # Dispensaries, their menus and reviews.
    shops = {row["public_id"]: row for row in current.dispensaries}
    menus: dict[int, list[Row]] = defaultdict(list)
    for row in current.menu_items:
        menus[row["dispensary_id"]].append(row)
    reviews: dict[int, list[Row]] = defaultdict(list)
    for row in current.reviews:
        reviews[row["dispensary_id"]].append(row)
    next_shop = _next_id(current.dispensaries)
    new_reviews = report.accepted("reviews")
    reviewed = review_ratings(new_reviews)
    for values in report.accepted("dispensaries"):
        old = shops.get(values["id"])
        shop_id = old["id"] if old is not None else next_shop
        next_shop += old is None
        own = reviewed.get(values["id"])
        if own is None:
            own = [r["rating"] for r in reviews.get(shop_id, [])]
        shops[values["id"]] = dispensary_row(values, shop_id, own)
    shop_ids = {key: row["id"] for key, row in shops.items()}

    if "menu_items" in report.files:
        next_item = _next_id(current.menu_items)
        replaced: dict[int, list[Row]] = defaultdict(list)
        for values in report.accepted("menu_items"):
            shop_id = shop_ids[values["dispensary"]]
            position = len(replaced[shop_id])
            replaced[shop_id].append(menu_row(values, next_item, shop_id, position, strain_ids))
            next_item += 1
        menus.update(replaced)
    if "reviews" in report.files:
        next_review = _next_id(current.reviews)
        fresh: dict[int, list[Row]] = defaultdict(list)
        for values in new_reviews:
            shop_id = shop_ids[values["dispensary"]]
            fresh[shop_id].append(review_row(values, next_review, shop_id))
            next_review += 1
        reviews.update(fresh)
    gone_shops = set()
    for key in deleted["dispensaries"]:
        shop_id = shops.pop(key)["id"]
        gone_shops.add(shop_id)
        menus.pop(shop_id, None)
        reviews.pop(shop_id, None)

    deals = {row["public_id"]: row for row in current.deals}
    next_deal = _next_id(current.deals)
    for values in report.accepted("deals"):
        old = deals.get(values["id"])
        deal_id = old["id"] if old is not None else next_deal
        next_deal += old is None
        deals[values["id"]] = deal_row(values, deal_id, shop_ids[values["dispensary"]])
    for key in deleted["deals"]:
        del deals[key]
    deals = {k: d for k, d in deals.items() if d["dispensary_id"] not in gone_shops}

    doctors = {row["public_id"]: row for row in current.doctors}
    next_doctor = _next_id(current.doctors)
    for values in report.accepted("doctors"):
        old = doctors.get(values["id"])
        doctor_id = old["id"] if old is not None else next_doctor
        next_doctor += old is None
        doctors[values["id"]] = doctor_row(values, doctor_id)
    for key in deleted["doctors"]:
        del doctors[key]

    slugs = {strain_id: slug for slug, strain_id in strain_ids.items()}
    _check_rules(
        report,
        deleted,
        laws,
        strains,
        shops,
        doctors,
        {slugs[s]: [slugs[e["parent_id"]] for e in edges] for s, edges in lineage.items()},
    )
    menu_rows = [
        {**row, "strain_id": None} if row["strain_id"] in gone_strains else row
        for shop_id in sorted(menus)
        for row in menus[shop_id]
    ]
    return replace(
        current,
        seed=None,
        scale="import",
        laws=_by_id(laws.values(), "state_code"),
        strains=_by_id(strains.values()),
        strain_effects=_flat(traits["effects"]),
        strain_flavors=_flat(traits["flavors"]),
        strain_terpenes=_flat(traits["terpenes"]),
        strain_parents=_flat(lineage),
        dispensaries=_by_id(shops.values()),
        menu_items=sorted(menu_rows, key=lambda r: r["id"]),
        reviews=sorted((r for rs in reviews.values() for r in rs), key=lambda r: r["id"]),
        deals=_by_id(deals.values()),
        doctors=_by_id(doctors.values()),
    )


def without_parents(edges: list[Row], gone: set[int]) -> list[Row]:
    """One strain's edges (in position order) without those to ``gone`` strains, renumbered
    from 0: deleting a strain drops it from its children's parents."""
    kept = [e for e in sorted(edges, key=lambda e: e["position"]) if e["parent_id"] not in gone]
    return [{**edge, "position": position} for position, edge in enumerate(kept)]


def _merged_lineage(
    stored: list[Row], report: ImportReport, strain_ids: dict[str, int], gone: set[int]
) -> dict[int, list[Row]]:
    """Strain id -> its edges after the merge: a strain in the files has its record's parents,
    others keep theirs but for deleted strains."""
    lineage: dict[int, list[Row]] = defaultdict(list)
    for edge in stored:
        if edge["strain_id"] not in gone:
            lineage[edge["strain_id"]].append(edge)
    for strain_id, edges in lineage.items():
        lineage[strain_id] = without_parents(edges, gone)
    for values in report.accepted("strains"):
        strain_id = strain_ids[values["slug"]]
        lineage[strain_id] = parent_rows(values, strain_id, strain_ids)
    return {strain_id: edges for strain_id, edges in lineage.items() if edges}


def lineage_issues(report: ImportReport, parents: dict[str, list[str]]) -> list[Issue]:
    """A cycle in the merged lineage (slug -> parent slugs), at the line of its first strain
    in the strains file (every cycle has one: the stored lineage has none)."""
    lines = {r.values["slug"]: r.line for r in report.records.get("strains", []) if r.valid}
    issues = []
    for cycle in find_cycles(parents):
        given = sorted((lines[slug], slug) for slug in cycle if slug in lines)
        line, first = given[0] if given else (None, cycle[0])
        where = report.files.get("strains", "strains")
        issues.append(Issue(where, line, describe(starting_at(cycle, first))))
    return issues


def _by_id(rows: Any, key: str = "id") -> list[Row]:
    return sorted(rows, key=lambda row: row[key])


def _flat(grouped: dict[int, list[Row]]) -> list[Row]:
    return [row for strain_id in sorted(grouped) for row in grouped[strain_id]]


def _check_rules(
    report: ImportReport,
    deleted: dict[str, dict[str, int]],
    laws: dict[str, Row],
    strains: dict[str, Row],
    shops: dict[str, Row],
    doctors: dict[str, Row],
    parents: dict[str, list[str]] | None = None,
) -> None:
    """Rules no single record shows: a deleted law some listing still needs, names that must
    stay unique (a strain's, a jurisdiction's) against the stored ones, and no cycle in the
    merged lineage (``parents``: slug -> parent slugs, the strains that may be in one)."""
    issues = lineage_issues(report, parents) if parents else []
    deletions = report.files.get("deletions", "deletions")
    used = {row["state"] for row in shops.values()} | {row["state"] for row in doctors.values()}
    for code, line in deleted["laws"].items():
        if code in used:
            issues.append(
                Issue(
                    deletions,
                    line,
                    f"law {code} still has dispensaries or doctors; delete or move them too",
                )
            )
    for resource, rows, key, label in (
        ("strains", strains, "name", "strain name"),
        ("laws", laws, "state", "state name"),
    ):
        owners: dict[str, list[str]] = defaultdict(list)
        for public, row in rows.items():
            owners[row[key]].append(public)
        lines = {
            r.values.get("slug" if resource == "strains" else "stateCode"): r.line
            for r in report.records.get(resource, [])
            if r.valid
        }
        for name, publics in owners.items():
            for public in publics if len(publics) > 1 else ():
                if public in lines:
                    other = min(set(publics) - {public})
                    reason = f"{label} {name!r} is already used by {other}"
                    issues.append(Issue(report.files[resource], lines[public], reason))
    if issues:
        raise MergeError(issues)
