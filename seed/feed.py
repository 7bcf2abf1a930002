"""The change log a load writes: what changed between the stored data and a new dataset.

Every served object (law, strain, dispensary, deal, doctor) gets a digest of what it shows, and a
dispensary a second one of its menu. A load compares them with the digests in the log: an object
whose digest is unchanged keeps its stamps and gets no entry; a new or changed one is stamped
with the load's instant and logged as an upsert; one that is gone is logged as a deletion.
"""

import secrets
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from hashlib import blake2b
from typing import Any

import orjson
from sqlalchemy import Connection, Table, bindparam, delete, func, inspect, select, update

from models import Base, Change, Deal, Dispensary, Doctor, FeedState, Law, Strain

from .generate import Dataset, Row

# kind -> (table, public key column), in the order a fresh log numbers them.
KINDS: dict[str, tuple[Table, str]] = {
    "law": (Law.__table__, "state_code"),  # type: ignore[dict-item]
    "strain": (Strain.__table__, "slug"),  # type: ignore[dict-item]
    "dispensary": (Dispensary.__table__, "public_id"),  # type: ignore[dict-item]
    "deal": (Deal.__table__, "public_id"),  # type: ignore[dict-item]
    "doctor": (Doctor.__table__, "public_id"),  # type: ignore[dict-item]
}
# Columns that are no part of what an object shows: internal ids, stamps, derived copies.
_NOT_SHOWN = frozenset(
    {"id", "updated_at", "menu_updated_at", "sort_key", "city_key", "effect_list", "flavor_list"}
    # A strain's copies of its chemistry (its chemistry itself and origin come apart).
    | {"dominant_terpene", "ratio", "cbg", "cbn", "thcv", "cbc", "origin", "chemistry"}
)
_UNKNOWN_ORIGIN = "unknown"
# The trait tables a strain's fingerprint covers.
TRAIT_TABLES = ("strain_effects", "strain_flavors", "strain_terpenes")
# Serializes loads on PostgreSQL, so sequence numbers become visible in their order.
_PG_LOCK_KEY = 0x63_64_73_66  # "cdsf"

Key = tuple[str, str]  # (kind, public id)
_CHANGES: Table = Base.metadata.tables[Change.__tablename__]


def _digest(value: Any) -> str:
    return blake2b(orjson.dumps(value, default=_plain), digest_size=16).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"cannot fingerprint {type(value).__name__}")


def _shown(table: Table, row: Row, **replace: Any) -> list[Any]:
    return [replace.get(c.name, row.get(c.name)) for c in table.c if c.name not in _NOT_SHOWN]


@dataclass
class Digests:
    """What every object of a dataset shows, fingerprinted; per kind, in dataset order."""

    objects: dict[str, dict[str, str]]  # kind -> key -> digest
    menus: dict[str, str]  # dispensary key -> digest of its menu


def law_digest(row: Row) -> str:
    """A law's fingerprint: its shown columns."""
    return _digest(_shown(KINDS["law"][0], row))


def strain_digest(
    row: Row, traits: dict[str, list[tuple[int, str]]], parents: list[str] | None = None
) -> str:
    """A strain's fingerprint: its columns, its traits (table -> (position, name) pairs), and
    its origin, chemistry and parents' slugs in order (only when it has any of them, so a
    strain without keeps the fingerprint it had before they existed)."""
    lists = [[n for _, n in sorted(traits.get(name, []))] for name in sorted(traits)]
    shown: list[Any] = [_shown(KINDS["strain"][0], row), sorted(traits), lists]
    origin = row.get("origin") or _UNKNOWN_ORIGIN
    if origin != _UNKNOWN_ORIGIN or row.get("chemistry") is not None or parents:
        shown.append([origin, row.get("chemistry"), parents or []])
    return _digest(shown)


def review_item(row: Row) -> list[Any]:
    """What a review adds to its dispensary's fingerprint."""
    return [row["date"].isoformat(), row["rating"], row["author"], row["text"]]


def dispensary_digest(row: Row, reviews: list[list[Any]]) -> str:
    """A dispensary's fingerprint: its columns and its reviews (:func:`review_item` each)."""
    return _digest([_shown(KINDS["dispensary"][0], row), sorted(reviews)])


def deal_digest(row: Row, shop: Row) -> str:
    """A deal's fingerprint: its columns, its dispensary's public id and name."""
    shown = _shown(KINDS["deal"][0], row, dispensary_id=shop["public_id"])
    return _digest([shown, shop["name"]])


def doctor_digest(row: Row) -> str:
    """A doctor's fingerprint: its shown columns."""
    return _digest(_shown(KINDS["doctor"][0], row))


def menu_item(row: Row, slugs: dict[int, str]) -> tuple[int, list[Any]]:
    """(position, what the item adds to its menu's fingerprint); ``slugs``: strain id -> slug."""
    item = [row["name"], row["category"], row["price"], row["unit"]]
    item.append(slugs.get(row["strain_id"]) if row["strain_id"] is not None else None)
    if row.get("lab") is not None:  # items without a batch keep their earlier fingerprint
        item.append(row["lab"])
    return row["position"], item


def menu_digest(items: list[tuple[int, list[Any]]]) -> str:
    """A menu's fingerprint from its :func:`menu_item` values."""
    return _digest([item for _, item in sorted(items)])


def parent_slugs(edges: list[Row], slugs: dict[int, str]) -> dict[int, list[str]]:
    """Strain id -> its parents' slugs in position order, from strain_parents rows."""
    found: dict[int, list[tuple[int, str]]] = {}
    for edge in edges:
        found.setdefault(edge["strain_id"], []).append((edge["position"], slugs[edge["parent_id"]]))
    return {strain_id: [slug for _, slug in sorted(pairs)] for strain_id, pairs in found.items()}


def dataset_digests(dataset: Dataset) -> Digests:
    """Fingerprint each object of ``dataset`` by everything it shows: its own columns, a
    strain's traits, a dispensary's hours and reviews (its menu apart), a deal's dispensary."""
    strains = {row["id"]: row["slug"] for row in dataset.strains}
    traits: dict[int, dict[str, list[tuple[int, str]]]] = {}
    for name in TRAIT_TABLES:
        for row in getattr(dataset, name):
            found = traits.setdefault(row["strain_id"], {}).setdefault(name, [])
            found.append((row["position"], row["name"]))
    lineage = parent_slugs(dataset.strain_parents, strains)
    shops = {row["id"]: row for row in dataset.dispensaries}
    reviews: dict[int, list[list[Any]]] = {}
    for row in dataset.reviews:
        reviews.setdefault(row["dispensary_id"], []).append(review_item(row))
    menus: dict[int, list[tuple[int, list[Any]]]] = {}
    for row in dataset.menu_items:
        menus.setdefault(row["dispensary_id"], []).append(menu_item(row, strains))

    objects: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}
    for row in dataset.laws:
        objects["law"][row["state_code"]] = law_digest(row)
    for row in dataset.strains:
        objects["strain"][row["slug"]] = strain_digest(
            row, traits.get(row["id"], {}), lineage.get(row["id"])
        )
    for row in dataset.dispensaries:
        objects["dispensary"][row["public_id"]] = dispensary_digest(row, reviews.get(row["id"], []))
    for row in dataset.deals:
        objects["deal"][row["public_id"]] = deal_digest(row, shops[row["dispensary_id"]])
    for row in dataset.doctors:
        objects["doctor"][row["public_id"]] = doctor_digest(row)
    menu_digests = {
        shop["public_id"]: menu_digest(menus.get(shop_id, [])) for shop_id, shop in shops.items()
    }
    return Digests(objects, menu_digests)


@dataclass
class Logged:
    """An object's entry in the log as stored."""

    op: str
    at: datetime
    menu_at: datetime | None
    digest: str | None
    menu_digest: str | None


@dataclass
class ChangePlan:
    """What a load changes: each current object's stamps, the log entries to write, and the
    counts the import command prints."""

    now: datetime
    stamps: dict[Key, datetime] = field(default_factory=dict)
    menu_stamps: dict[str, datetime] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)  # new Change rows, sans seq
    counts: dict[str, Counter[str]] = field(default_factory=dict)  # kind -> outcome -> n
    fresh: bool = False  # no log yet: this load starts one

    @property
    def changed(self) -> bool:
        return bool(self.entries)

    def count(self, kind: str, outcome: str) -> None:
        self.counts.setdefault(kind, Counter())[outcome] += 1


def lock_log(conn: Connection) -> None:
    """Hold the log for this transaction: on PostgreSQL one load at a time (SQLite's writers
    are serialized by the database)."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(_PG_LOCK_KEY)))


def read_log(conn: Connection) -> dict[Key, Logged] | None:
    """Every object's entry (in sequence order), or None when there is no log yet."""
    if not inspect(conn).has_table(Change.__tablename__):
        return None
    if conn.scalar(select(func.count()).select_from(FeedState)) == 0:
        return None
    c = _CHANGES.c
    # In sequence order, so deletions are logged in the same order on every database.
    columns = (c.kind, c.key, c.op, c.at, c.menu_at, c.digest, c.menu_digest)
    found = conn.execute(select(*columns).order_by(c.seq))
    return {
        (row.kind, row.key): Logged(row.op, row.at, row.menu_at, row.digest, row.menu_digest)
        for row in found
    }


def _aware(value: datetime | None) -> datetime | None:
    # SQLite gives the stored UTC stamps back without their zone.
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def plan_changes(logged: dict[Key, Logged] | None, digests: Digests, now: datetime) -> ChangePlan:
    """Compare ``digests`` with the log: stamps to keep or renew, entries to write."""
    plan = ChangePlan(now=now, fresh=logged is None)
    old = logged or {}
    for kind, keyed in digests.objects.items():
        for key, digest in keyed.items():
            entry = old.get((kind, key))
            live = entry is not None and entry.op == "upsert"
            menu = digests.menus.get(key) if kind == "dispensary" else None
            same_menu = live and (kind != "dispensary" or entry.menu_digest == menu)  # type: ignore[union-attr]
            if live and entry.digest == digest and same_menu:  # type: ignore[union-attr]
                plan.stamps[(kind, key)] = _aware(entry.at)  # type: ignore[union-attr,assignment]
                if kind == "dispensary":
                    plan.menu_stamps[key] = _aware(entry.menu_at) or now  # type: ignore[union-attr]
                plan.count(kind, "unchanged")
                continue
            plan.stamps[(kind, key)] = now
            if kind == "dispensary":
                kept = live and same_menu and entry.menu_at is not None  # type: ignore[union-attr]
                plan.menu_stamps[key] = _aware(entry.menu_at) if kept else now  # type: ignore[union-attr,assignment]
            plan.count(kind, "replaced" if live else "inserted")
            plan.entries.append(
                {
                    "kind": kind,
                    "key": key,
                    "op": "upsert",
                    "at": now,
                    "menu_at": plan.menu_stamps.get(key) if kind == "dispensary" else None,
                    "digest": digest,
                    "menu_digest": menu,
                }
            )
    for (kind, key), entry in old.items():
        if entry.op == "upsert" and key not in digests.objects.get(kind, {}):
            plan.count(kind, "deleted")
            plan.entries.append(
                {
                    "kind": kind,
                    "key": key,
                    "op": "delete",
                    "at": now,
                    "menu_at": None,
                    "digest": None,
                    "menu_digest": None,
                }
            )
    return plan


def write_log(conn: Connection, plan: ChangePlan, *, retention: timedelta) -> None:
    """Write the plan's entries at the next sequence numbers (replacing each object's previous
    entry), drop deletions older than ``retention``, and move the feed state on."""
    table = _CHANGES
    state = conn.execute(select(FeedState.last_seq, FeedState.horizon)).first()
    if state is None:
        conn.execute(
            Base.metadata.tables[FeedState.__tablename__].insert(),
            {
                "id": 1,
                "epoch": secrets.token_hex(4),
                "last_seq": 0,
                "horizon": 0,
                "as_of": plan.now,
            },
        )
        last_seq, horizon = 0, 0
    else:
        last_seq, horizon = state
    if plan.entries:
        replaced = (table.c.kind == bindparam("b_kind")) & (table.c.key == bindparam("b_key"))
        conn.execute(
            delete(table).where(replaced),
            [{"b_kind": e["kind"], "b_key": e["key"]} for e in plan.entries],
        )
        rows = [{**entry, "seq": last_seq + n} for n, entry in enumerate(plan.entries, start=1)]
        conn.execute(table.insert(), rows)
        last_seq += len(rows)
    cutoff = plan.now - retention
    expired = (table.c.op == "delete") & (table.c.at < cutoff)
    dropped = conn.scalar(select(func.max(table.c.seq)).where(expired))
    if dropped is not None:
        conn.execute(delete(table).where(expired))
        horizon = max(horizon, dropped)
    values: dict[str, Any] = {"last_seq": last_seq, "horizon": horizon}
    if plan.entries:
        values["as_of"] = plan.now
    conn.execute(update(FeedState).values(**values))


__all__ = [
    "KINDS",
    "ChangePlan",
    "Digests",
    "dataset_digests",
    "deal_digest",
    "dispensary_digest",
    "doctor_digest",
    "law_digest",
    "lock_log",
    "menu_digest",
    "menu_item",
    "parent_slugs",
    "plan_changes",
    "read_log",
    "review_item",
    "strain_digest",
    "write_log",
]
