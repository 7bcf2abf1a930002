"""A merge worked out on the objects it touches only (the fast path of ``data import --merge``).

seed.importing.merge lays the files over the whole stored data and the load fingerprints every
object again; most of that work finds nothing changed. Here only the objects a merge can change
are read: the records and deletions in the files, the deals of dispensaries whose record is
in the files (a deal's fingerprint has its dispensary's name), the dispensaries whose menus or
reviews the files replace or whose menu names a deleted strain, everything of a deleted
dispensary, and the strains whose parent the files delete (that parent leaves their lineage).
Their merged state follows the rules of merge_dataset exactly (ids included), and their
fingerprints come from the same functions (seed.feed), so the change plan for these keys is the
one a full merge makes; every other object keeps its row and its log entry.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, func, select

from models import Base, DatasetInfo

from ..feed import (
    Digests,
    deal_digest,
    dispensary_digest,
    doctor_digest,
    law_digest,
    menu_digest,
    menu_item,
    review_item,
    strain_digest,
)
from ..generate import Row, _law_row
from .build import (
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
from .merge import _DERIVED, _TRAIT_TABLES, _check_rules, without_parents
from .validate import DELETED_RESOURCE, ImportReport

_IN_CHUNK = 900  # keys per IN list (well under SQLite's bound-parameter limit)


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


def _columns(name: str) -> list[Any]:
    # The columns a Dataset row carries (as merge.stored_dataset reads them).
    return [c for c in _table(name).c if c.name not in _DERIVED]


def _rows_where(conn: Connection, name: str, column: str, values: Iterable[Any]) -> list[Row]:
    """Rows of table ``name`` whose ``column`` is one of ``values``, by primary key."""
    table = _table(name)
    wanted = sorted(set(values))
    found: list[Row] = []
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        statement = select(*_columns(name)).where(table.c[column].in_(chunk))
        found.extend(dict(row._mapping) for row in conn.execute(statement))
    return sorted(found, key=lambda row: tuple(row[c.name] for c in table.primary_key.columns))


def _tuples(conn: Connection, statement: Any) -> list[tuple[Any, ...]]:
    # Plain tuples: mypy reads an untyped Row's items as ``object``.
    return [tuple(row) for row in conn.execute(statement)]


def _max_id(conn: Connection, name: str) -> int:
    return conn.scalar(select(func.max(_table(name).c.id))) or 0


@dataclass
class MergeDelta:
    """The merged state of the objects a merge touches, and what it deletes.

    Rows are Dataset rows (seed.generate), keyed by public id; ``stored_ids`` holds the
    internal id of each touched object that was stored before (kind -> key -> id).
    """

    laws: dict[str, Row] = field(default_factory=dict)
    strains: dict[str, Row] = field(default_factory=dict)
    traits: dict[int, dict[str, list[Row]]] = field(default_factory=dict)  # strain id -> table
    parents: dict[int, list[Row]] = field(default_factory=dict)  # strain id -> its edges
    shops: dict[str, Row] = field(default_factory=dict)
    menus: dict[int, list[Row]] = field(default_factory=dict)  # replaced menus, by shop id
    reviews: dict[int, list[Row]] = field(default_factory=dict)  # replaced reviews
    deals: dict[str, Row] = field(default_factory=dict)
    doctors: dict[str, Row] = field(default_factory=dict)
    deleted: dict[str, dict[str, Any]] = field(default_factory=dict)  # kind -> key -> id
    stored_ids: dict[str, dict[str, Any]] = field(default_factory=dict)
    nulled_strains: set[int] = field(default_factory=set)  # deleted strains' ids
    replaced_menus: set[int] = field(default_factory=set)  # shop ids the files give a menu
    replaced_reviews: set[int] = field(default_factory=set)  # shop ids the files give reviews
    digests: Digests = field(default_factory=lambda: Digests({}, {}))
    reference_day: Any = None

    def keys(self) -> dict[str, set[str]]:
        """kind -> every key the merge touches (alive or deleted)."""
        alive = {
            "law": self.laws,
            "strain": self.strains,
            "dispensary": self.shops,
            "deal": self.deals,
            "doctor": self.doctors,
        }
        return {kind: set(rows) | set(self.deleted.get(kind, {})) for kind, rows in alive.items()}


def merge_delta(conn: Connection, report: ImportReport) -> MergeDelta:
    """The merge of ``report`` into the stored data, on the objects it touches (run it in the
    load's transaction, after the lock). Raises MergeError like merge_dataset."""
    delta = MergeDelta()
    deleted: dict[str, dict[str, int]] = defaultdict(dict)  # resource -> id -> line
    for record in report.records.get("deletions", []):
        if record.valid:
            resource = DELETED_RESOURCE[record.values["type"]]
            deleted[resource][record.values["id"]] = record.line

    # Laws: few, read whole.
    laws = {row["state_code"]: row for row in _rows_where_all(conn, "laws")}
    for values in report.accepted("laws"):
        laws[values["stateCode"]] = delta.laws[values["stateCode"]] = _law_row(values)
    for code in deleted["laws"]:
        del laws[code]
        delta.laws.pop(code, None)
        delta.deleted.setdefault("law", {})[code] = code

    # Strains: every slug and name (for the name rule and the menus' slugs), touched rows whole.
    strains_t = _table("strains")
    stored_strains = {
        slug: (strain_id, name)
        for strain_id, slug, name in _tuples(
            conn, select(strains_t.c.id, strains_t.c.slug, strains_t.c.name)
        )
    }
    names = {slug: {"name": name} for slug, (_, name) in stored_strains.items()}
    slug_ids = {slug: strain_id for slug, (strain_id, _) in stored_strains.items()}
    next_strain = max(slug_ids.values(), default=0) + 1
    delta.stored_ids["strain"] = {}
    for values in report.accepted("strains"):
        slug = values["slug"]
        old = slug_ids.get(slug)
        if old is not None:
            delta.stored_ids["strain"][slug] = old
        strain_id = old if old is not None else next_strain
        next_strain += old is None
        row = delta.strains[slug] = strain_row(values, strain_id)
        slug_ids[slug] = strain_id
        names[slug] = {"name": row["name"]}
        delta.traits[strain_id] = {
            _TRAIT_TABLES[trait]: rows for trait, rows in trait_rows(values, strain_id).items()
        }
    for slug in deleted["strains"]:
        strain_id = slug_ids.pop(slug)
        names.pop(slug)
        delta.strains.pop(slug, None)
        delta.traits.pop(strain_id, None)
        delta.nulled_strains.add(strain_id)
        delta.deleted.setdefault("strain", {})[slug] = strain_id
    slugs = {strain_id: slug for slug, strain_id in slug_ids.items()}
    for values in report.accepted("strains"):
        strain_id = slug_ids[values["slug"]]
        delta.parents[strain_id] = parent_rows(values, strain_id, slug_ids)
    _orphaned_children(conn, delta, slugs)
    lineage = _lineage_to_check(conn, delta, slugs)

    # Dispensaries: every id and state (for the law rule), touched rows whole.
    shops_t = _table("dispensaries")
    stored_shops = {
        public_id: (shop_id, state)
        for shop_id, public_id, state in _tuples(
            conn, select(shops_t.c.id, shops_t.c.public_id, shops_t.c.state)
        )
    }
    shop_ids = {key: shop_id for key, (shop_id, _) in stored_shops.items()}
    states = {key: {"state": state} for key, (_, state) in stored_shops.items()}
    in_file = {values["id"] for values in report.accepted("dispensaries")}
    menu_named = {v["dispensary"] for v in report.accepted("menu_items")}
    review_named = {v["dispensary"] for v in report.accepted("reviews")}
    nulled_menus: set[int] = set()
    if delta.nulled_strains:
        menu_t = _table("menu_items")
        nulled_menus = set(
            conn.scalars(
                select(menu_t.c.dispensary_id)
                .where(menu_t.c.strain_id.in_(sorted(delta.nulled_strains)))
                .distinct()
            )
        )
    touched = (in_file | menu_named | review_named | set(deleted["dispensaries"])) & set(shop_ids)
    touched_ids = {shop_ids[key] for key in touched} | nulled_menus
    stored_rows = {
        row["public_id"]: row for row in _rows_where(conn, "dispensaries", "id", touched_ids)
    }
    stored_reviews = _group(_rows_where(conn, "reviews", "dispensary_id", touched_ids))
    stored_menus = _group(_rows_where(conn, "menu_items", "dispensary_id", touched_ids))
    delta.stored_ids["dispensary"] = {key: row["id"] for key, row in stored_rows.items()}
    delta.shops.update(stored_rows)

    next_shop = max(shop_ids.values(), default=0) + 1
    new_reviews = report.accepted("reviews")
    reviewed = review_ratings(new_reviews)
    for values in report.accepted("dispensaries"):
        old = shop_ids.get(values["id"])
        shop_id = old if old is not None else next_shop
        next_shop += old is None
        own = reviewed.get(values["id"])
        if own is None:
            own = [r["rating"] for r in stored_reviews.get(shop_id, [])]
        delta.shops[values["id"]] = dispensary_row(values, shop_id, own)
        shop_ids[values["id"]] = shop_id
        states[values["id"]] = {"state": values["state"]}

    if "menu_items" in report.files:
        next_item = _max_id(conn, "menu_items") + 1
        replaced: dict[int, list[Row]] = defaultdict(list)
        for values in report.accepted("menu_items"):
            shop_id = shop_ids[values["dispensary"]]
            position = len(replaced[shop_id])
            replaced[shop_id].append(menu_row(values, next_item, shop_id, position, slug_ids))
            next_item += 1
        delta.menus.update(replaced)
        delta.replaced_menus = set(replaced)
    if "reviews" in report.files:
        next_review = _max_id(conn, "reviews") + 1
        fresh: dict[int, list[Row]] = defaultdict(list)
        for values in new_reviews:
            shop_id = shop_ids[values["dispensary"]]
            fresh[shop_id].append(review_row(values, next_review, shop_id))
            next_review += 1
        delta.reviews.update(fresh)
        delta.replaced_reviews = set(fresh)
    gone_shops = set()
    for key in deleted["dispensaries"]:
        shop_id = shop_ids.pop(key)
        states.pop(key)
        gone_shops.add(shop_id)
        delta.shops.pop(key, None)
        delta.menus.pop(shop_id, None)
        delta.reviews.pop(shop_id, None)
        delta.replaced_menus.discard(shop_id)
        delta.replaced_reviews.discard(shop_id)
        delta.deleted.setdefault("dispensary", {})[key] = shop_id

    # Deals: those in the files, of dispensaries in the files, of deleted dispensaries.
    file_shop_ids = {shop_ids[key] for key in in_file if key in shop_ids}
    deal_keys = {v["id"] for v in report.accepted("deals")} | set(deleted["deals"])
    stored_deals = {
        row["public_id"]: row
        for row in [
            *_rows_where(conn, "deals", "public_id", deal_keys),
            *_rows_where(conn, "deals", "dispensary_id", file_shop_ids | gone_shops),
        ]
    }
    delta.stored_ids["deal"] = {key: row["id"] for key, row in stored_deals.items()}
    delta.deals.update(stored_deals)
    next_deal = _max_id(conn, "deals") + 1
    for values in report.accepted("deals"):
        old_deal = stored_deals.get(values["id"])
        deal_id = old_deal["id"] if old_deal is not None else next_deal
        next_deal += old_deal is None
        delta.deals[values["id"]] = deal_row(values, deal_id, shop_ids[values["dispensary"]])
    for key in deleted["deals"]:
        del delta.deals[key]
        delta.deleted.setdefault("deal", {})[key] = stored_deals[key]["id"]
    for key, row in list(delta.deals.items()):
        if row["dispensary_id"] in gone_shops:
            del delta.deals[key]
            delta.deleted.setdefault("deal", {})[key] = row["id"]

    # Doctors: every id and state (for the law rule), touched rows whole.
    doctors_t = _table("doctors")
    stored_doctors = {
        key: (doctor_id, state)
        for doctor_id, key, state in _tuples(
            conn, select(doctors_t.c.id, doctors_t.c.public_id, doctors_t.c.state)
        )
    }
    doctor_states = {key: {"state": state} for key, (_, state) in stored_doctors.items()}
    delta.stored_ids["doctor"] = {}
    next_doctor = max((i for i, _ in stored_doctors.values()), default=0) + 1
    for values in report.accepted("doctors"):
        old_id = stored_doctors.get(values["id"], (None, None))[0]
        if old_id is not None:
            delta.stored_ids["doctor"][values["id"]] = old_id
        doctor_id = old_id if old_id is not None else next_doctor
        next_doctor += old_id is None
        delta.doctors[values["id"]] = doctor_row(values, doctor_id)
        doctor_states[values["id"]] = {"state": values["state"]}
    for key in deleted["doctors"]:
        doctor_states.pop(key)
        delta.doctors.pop(key, None)
        delta.deleted.setdefault("doctor", {})[key] = stored_doctors[key][0]

    _check_rules(report, deleted, laws, names, states, doctor_states, lineage)

    # The shops deals name, for their fingerprints (their names only, when not touched).
    named = {row["dispensary_id"] for row in delta.deals.values()}
    by_id = {row["id"]: row for row in delta.shops.values()}
    missing = named - set(by_id)
    shop_names = _table("dispensaries")
    for shop_id, public_id, name in _tuples(
        conn,
        select(shop_names.c.id, shop_names.c.public_id, shop_names.c.name).where(
            shop_names.c.id.in_(sorted(missing))
        ),
    ):
        by_id[shop_id] = {"public_id": public_id, "name": name}

    # Menus: replaced ones as merged, others as stored; deleted strains leave them.
    for shop_id in {row["id"] for row in delta.shops.values()} - set(delta.menus):
        delta.menus[shop_id] = stored_menus.get(shop_id, [])
    for shop_id, items in delta.menus.items():
        delta.menus[shop_id] = [
            {**row, "strain_id": None} if row["strain_id"] in delta.nulled_strains else row
            for row in items
        ]
    for row in delta.shops.values():
        delta.reviews.setdefault(row["id"], stored_reviews.get(row["id"], []))
    delta.digests = _digests(delta, by_id, slugs)
    info = conn.execute(
        select(DatasetInfo.reference_day).order_by(DatasetInfo.version.desc()).limit(1)
    ).first()
    delta.reference_day = info[0] if info is not None else None
    return delta


def _orphaned_children(conn: Connection, delta: MergeDelta, slugs: dict[int, str]) -> None:
    """Strains the files leave out whose parent the merge deletes: they are touched, with
    that parent gone from their parents (the rows whole, for their fingerprints)."""
    gone = delta.nulled_strains
    if not gone:
        return
    edges_t = _table("strain_parents")
    children: set[int] = set(
        conn.scalars(select(edges_t.c.strain_id).where(edges_t.c.parent_id.in_(sorted(gone))))
    )
    children -= gone | {row["id"] for row in delta.strains.values()}
    if not children:
        return
    for row in _rows_where(conn, "strains", "id", children):
        delta.strains[row["slug"]] = row
        delta.stored_ids["strain"][row["slug"]] = row["id"]
    for table in _TRAIT_TABLES.values():
        for row in _rows_where(conn, table, "strain_id", children):
            delta.traits.setdefault(row["strain_id"], {}).setdefault(table, []).append(row)
    stored: dict[int, list[Row]] = defaultdict(list)
    for edge in _rows_where(conn, "strain_parents", "strain_id", children):
        stored[edge["strain_id"]].append(edge)
    for strain_id in children:
        delta.parents[strain_id] = without_parents(stored[strain_id], gone)


def _lineage_to_check(
    conn: Connection, delta: MergeDelta, slugs: dict[int, str]
) -> dict[str, list[str]]:
    """The merged lineage (slug -> parent slugs) when the files give strains parents (only
    their new edges can close a cycle; the stored lineage has none), else nothing."""
    if not any(delta.parents.get(row["id"]) for row in delta.strains.values()):
        return {}
    edges_t = _table("strain_parents")
    lineage: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for strain_id, parent_id, position in _tuples(
        conn, select(edges_t.c.strain_id, edges_t.c.parent_id, edges_t.c.position)
    ):
        if strain_id in slugs and parent_id in slugs:  # not deleted
            lineage[strain_id].append((position, parent_id))
    for strain_id, edges in delta.parents.items():
        lineage[strain_id] = [(e["position"], e["parent_id"]) for e in edges]
    return {slugs[s]: [slugs[p] for _, p in sorted(edges)] for s, edges in lineage.items()}


def _rows_where_all(conn: Connection, name: str) -> list[Row]:
    table = _table(name)
    found = conn.execute(select(*_columns(name)).order_by(*table.primary_key.columns))
    return [dict(row._mapping) for row in found]


def _group(rows: list[Row]) -> dict[int, list[Row]]:
    grouped: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        grouped[row["dispensary_id"]].append(row)
    return grouped


def _digests(delta: MergeDelta, shops: dict[int, Row], slugs: dict[int, str]) -> Digests:
    """The fingerprints of the touched objects still there, in the order a full load lists
    them (by internal id; laws by state code)."""
    objects: dict[str, dict[str, str]] = {k: {} for k in ("law", "strain", "dispensary")}
    for code in sorted(delta.laws):
        objects["law"][code] = law_digest(delta.laws[code])
    for row in sorted(delta.strains.values(), key=lambda r: r["id"]):
        traits = {
            table: [(t["position"], t["name"]) for t in rows]
            for table, rows in delta.traits.get(row["id"], {}).items()
            if rows
        }
        parents = [slugs[e["parent_id"]] for e in delta.parents.get(row["id"], [])]
        objects["strain"][row["slug"]] = strain_digest(row, traits, parents)
    menus = {}
    for row in sorted(delta.shops.values(), key=lambda r: r["id"]):
        reviews = [review_item(r) for r in delta.reviews.get(row["id"], [])]
        objects["dispensary"][row["public_id"]] = dispensary_digest(row, reviews)
        items = [menu_item(item, slugs) for item in delta.menus.get(row["id"], [])]
        menus[row["public_id"]] = menu_digest(items)
    objects["deal"] = {
        row["public_id"]: deal_digest(row, shops[row["dispensary_id"]])
        for row in sorted(delta.deals.values(), key=lambda r: r["id"])
    }
    objects["doctor"] = {
        row["public_id"]: doctor_digest(row)
        for row in sorted(delta.doctors.values(), key=lambda r: r["id"])
    }
    return Digests(objects, menus)
