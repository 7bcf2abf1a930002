"""Pure, deterministic generation of the demo dataset (no database, no clock)."""

import random
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from models.base import sort_key_of
from service.hours import weekly_spans

from .chemistry import build_chemistry, build_labs, leading_terpenes, menu_copies, strain_copies
from .dispensaries import build_dispensaries
from .geography import load_laws, population
from .lineage import build_lineage
from .listings import build_deals, build_doctors
from .strains import build_strains
from .util import apportion
from .vocab import EFFECTS, FLAVORS, TERPENES

__all__ = [
    "DEFAULT_SEED",
    "EFFECTS",
    "FLAVORS",
    "SCALES",
    "TABLES",
    "TERPENES",
    "Dataset",
    "Scale",
    "generate",
]

DEFAULT_SEED = 2026
FACETED_TRAITS = ("strain_effects", "strain_flavors")
# Strain column -> the trait table whose names it lists in order.
LISTED_TRAITS = {"effect_list": "strain_effects", "flavor_list": "strain_flavors"}

Row = dict[str, Any]

# Load order: parents before children, laws first.
TABLES = (
    "laws",
    "strains",
    "strain_effects",
    "strain_flavors",
    "strain_terpenes",
    "strain_parents",
    "dispensaries",
    "menu_items",
    "reviews",
    "deals",
    "doctors",
)


@dataclass(frozen=True)
class Scale:
    """Target row counts for one dataset size."""

    strains: int
    dispensaries: int
    doctors: int
    deals: int


SCALES: dict[str, Scale] = {
    "full": Scale(strains=5700, dispensaries=6900, doctors=720, deals=5600),
    # Small enough for unit tests, yet every jurisdiction with a program gets a shop.
    "tiny": Scale(strains=150, dispensaries=120, doctors=60, deals=150),
}


@dataclass(frozen=True)
class Dataset:
    """Rows for every table as plain dicts keyed by model column name, ids 1..n."""

    seed: int | None  # None for imported data
    scale: str
    reference_day: date
    laws: list[Row]
    strains: list[Row]
    strain_effects: list[Row]
    strain_flavors: list[Row]
    strain_terpenes: list[Row]
    dispensaries: list[Row]
    menu_items: list[Row]
    reviews: list[Row]
    deals: list[Row]
    doctors: list[Row]
    # Lineage edges (strain_id, parent_id, position); strains list their origin and chemistry,
    # menu items their lab batch (seed.chemistry says what a load derives from them).
    strain_parents: list[Row] = field(default_factory=list)

    def tables(self) -> dict[str, list[Row]]:
        """Table name -> rows, in an order that satisfies foreign keys.

        Effect and flavor rows get their strain's type, THC, CBD and sort key, and each strain
        the names of its effects and flavors in position order (models.strain explains why);
        the dispensaries' openings and zones are derived from their hours. Every load, seeded
        or imported, goes through here.
        """
        tables = {name: getattr(self, name) for name in TABLES}
        facets = {
            s["id"]: {
                "type": s["type"],
                "thc": s["thc"],
                "cbd": s["cbd"],
                "sort_key": sort_key_of(s["name"]),
            }
            for s in self.strains
        }
        for name in FACETED_TRAITS:
            tables[name] = [{**row, **facets[row["strain_id"]]} for row in tables[name]]
        listed = {
            column: _names_by_strain(getattr(self, name)) for column, name in LISTED_TRAITS.items()
        }
        tables["strains"] = [
            {
                "origin": "unknown",
                "chemistry": None,
                **s,
                **{column: names.get(s["id"], []) for column, names in listed.items()},
                **strain_copies(s.get("chemistry")),
            }
            for s in self.strains
        ]
        tables["strain_terpenes"] = _terpene_rows(self.strains, self.strain_terpenes)
        tables["menu_items"] = [
            {"lab": None, **item, **menu_copies(item)} for item in self.menu_items
        ]
        tables.update(_opening_tables(self.dispensaries))
        return tables

    def counts(self) -> dict[str, int]:
        """Table name -> number of rows."""
        return {name: len(rows) for name, rows in self.tables().items()}


def _terpene_rows(strains: list[Row], rows: list[Row]) -> list[Row]:
    """The strain_terpenes rows: a strain with chemistry lists its leading terpenes, the others
    keep the names they were given."""
    measured = {s["id"]: leading_terpenes(s["chemistry"]) for s in strains if s.get("chemistry")}
    kept = [row for row in rows if row["strain_id"] not in measured]
    derived = [
        {"strain_id": strain_id, "name": name, "position": position}
        for strain_id, names in measured.items()
        for position, name in enumerate(names)
    ]
    return sorted(kept + derived, key=lambda row: (row["strain_id"], row["position"]))


def _opening_tables(dispensaries: list[Row]) -> dict[str, list[Row]]:
    """Each dispensary's openings of the week and the set of their zones (models.dispensary
    says what they are for)."""
    spans = [
        {"dispensary_id": shop["id"], "starts": starts, "ends": ends}
        for shop in dispensaries
        for starts, ends in weekly_spans(shop["hours"])
    ]
    zones = [{"name": zone} for zone in sorted({shop["timezone"] for shop in dispensaries})]
    return {"dispensary_open_spans": spans, "dispensary_time_zones": zones}


def _names_by_strain(rows: list[Row]) -> dict[int, list[str]]:
    """Strain id -> its trait names in position order."""
    ordered: dict[int, list[tuple[int, str]]] = {}
    for row in rows:
        ordered.setdefault(row["strain_id"], []).append((row["position"], row["name"]))
    return {strain_id: [name for _, name in sorted(found)] for strain_id, found in ordered.items()}


def _rng(seed: int, section: str) -> random.Random:
    # One stream per section, so resizing one table leaves the others unchanged;
    # string seeds hash with SHA-512, independent of PYTHONHASHSEED.
    return random.Random(f"{seed}:{section}")


def _law_row(record: Row) -> Row:
    return {
        "state_code": record["stateCode"],
        "state": record["state"],
        "recreational": bool(record["recreational"]),
        "medical": bool(record["medical"]),
        "possession_limit_oz": float(record["possession_limit_oz"]),
        "home_grow": bool(record["home_grow"]),
        "home_grow_plants": int(record["home_grow_plants"]),
        "delivery_legal": bool(record["delivery_legal"]),
        "updated": date.fromisoformat(record["updated"]),
        "notes": record["notes"],
        "confidence": record["confidence"],
        "sources": list(record["sources"]),
    }


def generate(*, scale: str = "full", seed: int = DEFAULT_SEED, today: date) -> Dataset:
    """Build the demo dataset; the same arguments always give identical rows."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; expected one of {sorted(SCALES)}")
    if isinstance(today, datetime) or not isinstance(today, date):
        raise TypeError("today must be a datetime.date (not a datetime)")
    size = SCALES[scale]
    laws = [_law_row(record) for record in load_laws()]
    by_code = {law["state_code"]: law for law in laws}
    with_program = {
        code: population(code)
        for code, law in by_code.items()
        if law["medical"] or law["recreational"]
    }
    with_medical = {code: population(code) for code, law in by_code.items() if law["medical"]}

    strains = build_strains(_rng(seed, "strains"), size.strains)
    shops = build_dispensaries(
        _rng(seed, "dispensaries"),
        apportion(with_program, size.dispensaries),
        by_code,
        strains.strains,
        today,
    )
    lineage = build_lineage(_rng(seed, "lineage"), strains.strains)
    named = _names_by_strain(strains.terpenes)
    chemistry, profiles = build_chemistry(_rng(seed, "chemistry"), strains.strains, named)
    states = {shop["id"]: shop["state"] for shop in shops.dispensaries}
    labs = build_labs(_rng(seed, "labs"), shops.menu_items, profiles, states, today)
    strain_rows = [
        {**s, "origin": lineage.origins[s["id"]], "chemistry": chemistry[s["id"]]}
        for s in strains.strains
    ]
    deals = build_deals(_rng(seed, "deals"), shops.dispensaries, size.deals, today)
    doctors = build_doctors(_rng(seed, "doctors"), apportion(with_medical, size.doctors), by_code)
    return Dataset(
        seed=seed,
        scale=scale,
        reference_day=today,
        laws=laws,
        strains=strain_rows,
        strain_effects=strains.effects,
        strain_flavors=strains.flavors,
        strain_terpenes=_terpene_rows(strain_rows, strains.terpenes),
        strain_parents=lineage.edges,
        dispensaries=shops.dispensaries,
        menu_items=[{**item, "lab": labs.get(item["id"])} for item in shops.menu_items],
        reviews=shops.reviews,
        deals=deals,
        doctors=doctors,
    )
