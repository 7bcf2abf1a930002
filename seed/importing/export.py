"""Writing a Dataset out as an import directory (one JSONL file per resource), the inverse of
``build_dataset``: for benchmarks and tests that import the demo data at full scale."""

from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from ..feed import parent_slugs
from ..generate import Dataset, Row
from .build import TRAITS
from .chemistry import QUARTILES, TOTALS

_LAW_FIELDS = (
    "state",
    "recreational",
    "medical",
    "possession_limit_oz",
    "home_grow",
    "home_grow_plants",
    "delivery_legal",
    "updated",
    "notes",
    "confidence",
    "sources",
)
_PLACE_FIELDS = ("city", "state", "zip", "lat", "lng", "timezone")


def dataset_records(dataset: Dataset) -> dict[str, list[dict[str, Any]]]:
    """Resource name -> its records, with the field names an import reads."""
    strain_slugs = {row["id"]: row["slug"] for row in dataset.strains}
    shop_ids = {row["id"]: row["public_id"] for row in dataset.dispensaries}
    traits: dict[str, dict[int, list[tuple[int, str]]]] = {t: defaultdict(list) for t in TRAITS}
    for trait in TRAITS:
        for row in getattr(dataset, f"strain_{trait}"):
            traits[trait][row["strain_id"]].append((row["position"], row["name"]))
    menu = sorted(dataset.menu_items, key=lambda r: (r["dispensary_id"], r["position"]))
    lineage = parent_slugs(dataset.strain_parents, strain_slugs)
    return {
        "laws": [
            {"stateCode": r["state_code"], **{f: r[f] for f in _LAW_FIELDS}} for r in dataset.laws
        ],
        "strains": [
            {
                **{f: r[f] for f in ("slug", "name", "type", "thc", "cbd", "description")},
                **{t: [n for _, n in sorted(traits[t][r["id"]])] for t in TRAITS},
                "rating": r["rating"],
                "reviewCount": r["review_count"],
                "origin": r.get("origin", "unknown"),
                "parents": lineage.get(r["id"], []),
                "chemistry": chemistry_record(r.get("chemistry")),
            }
            for r in dataset.strains
        ],
        "dispensaries": [
            {
                "id": r["public_id"],
                "name": r["name"],
                "street": r["street"],
                **{f: r[f] for f in _PLACE_FIELDS},
                **{f: r[f] for f in ("type", "delivery", "hours", "phone", "website", "rating")},
                "reviewCount": r["review_count"],
            }
            for r in dataset.dispensaries
        ],
        "menu_items": [
            {
                "dispensary": shop_ids[r["dispensary_id"]],
                **{f: r[f] for f in ("name", "category", "price", "unit")},
                "strain": strain_slugs.get(r["strain_id"]),
                "lab": lab_record(r.get("lab")),
            }
            for r in menu
        ],
        "reviews": [
            {
                "dispensary": shop_ids[r["dispensary_id"]],
                **_pick(r, "rating", "text", "author", "date"),
            }
            for r in dataset.reviews
        ],
        "deals": [
            {
                "id": r["public_id"],
                "dispensary": shop_ids[r["dispensary_id"]],
                **_pick(r, "title", "category", "discount", "expires"),
            }
            for r in dataset.deals
        ],
        "doctors": [
            {
                "id": r["public_id"],
                "name": r["name"],
                **{f: r[f] for f in _PLACE_FIELDS},
                **_pick(r, "telehealth", "price", "rating"),
            }
            for r in dataset.doctors
        ],
    }


def chemistry_record(layout: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored chemistry as the import reads it: its percentiles, totals included (so they
    come back as stored rather than derived), its sample count and source."""
    if layout is None:
        return None
    compounds = [*layout["cannabinoids"], *layout["terpenes"]]
    percentiles = {e["key"]: {q: e[q] for q in QUARTILES} for e in compounds}
    percentiles.update({name: dict(layout[name]) for name in TOTALS})
    return {
        "percentiles": percentiles,
        "sample_count": layout["sample_count"],
        "source": layout["source"],
    }


def lab_record(batch: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored lab batch as the import reads it (the stored shape is one it accepts)."""
    return None if batch is None else dict(batch)


def _pick(row: Row, *names: str) -> dict[str, Any]:
    return {name: row[name] for name in names}


def write_import_files(dataset: Dataset, directory: Path) -> None:
    """Write ``dataset`` as ``<resource>.jsonl`` files into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, records in dataset_records(dataset).items():
        lines = b"".join(orjson.dumps(record) + b"\n" for record in records)
        (directory / f"{name}.jsonl").write_bytes(lines)
