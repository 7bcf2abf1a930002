"""Turning the accepted records of an import into the row dicts the demo seed builds.

Rows get ids 1..n in file order; public ids are the ones the files give. Columns the seed
derives are derived the same way: ``city_key`` and (when the file leaves it out) ``timezone``
through ``seed.places.location_columns``, the ``sort_key`` columns by their model default, a
menu item's ``position`` from its order within its dispensary's items, and a dispensary's
``rating``/``reviewCount`` (when the file leaves them out) from its reviews in the reviews file.
The one-record builders are shared with merges (seed.importing.merge).
"""

from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from statistics import fmean

from ..chemistry import leading_terpenes, menu_copies, strain_copies
from ..generate import Dataset, Row, _law_row
from ..geography import Place, load_laws
from ..places import location_columns
from .resources import Values
from .validate import ImportReport

SCALE = "import"  # Dataset.scale of imported data
TRAITS = ("effects", "flavors", "terpenes")
TRAIT_TABLES = {
    "effects": "strain_effects",
    "flavors": "strain_flavors",
    "terpenes": "strain_terpenes",
}


def build_dataset(report: ImportReport, *, today: date) -> Dataset:
    """The Dataset of every accepted record; ``today`` becomes its reference day."""
    strains: list[Row] = []
    traits: dict[str, list[Row]] = {name: [] for name in TRAITS}
    for strain_id, values in enumerate(report.accepted("strains"), start=1):
        strains.append(strain_row(values, strain_id))
        for trait, rows in trait_rows(values, strain_id).items():
            traits[trait].extend(rows)
    strain_ids = {row["slug"]: row["id"] for row in strains}
    parents = [
        edge
        for values in report.accepted("strains")
        for edge in parent_rows(values, strain_ids[values["slug"]], strain_ids)
    ]
    reviews = report.accepted("reviews")
    ratings = review_ratings(reviews)
    dispensaries = [
        dispensary_row(values, shop_id, ratings.get(values["id"], []))
        for shop_id, values in enumerate(report.accepted("dispensaries"), start=1)
    ]
    shop_ids = {row["public_id"]: row["id"] for row in dispensaries}
    positions: dict[int, int] = defaultdict(int)
    menu = []
    for item_id, values in enumerate(report.accepted("menu_items"), start=1):
        shop_id = shop_ids[values["dispensary"]]
        menu.append(menu_row(values, item_id, shop_id, positions[shop_id], strain_ids))
        positions[shop_id] += 1
    return Dataset(
        seed=None,
        scale=SCALE,
        reference_day=today,
        laws=_law_rows(report),
        strains=strains,
        strain_effects=traits["effects"],
        strain_flavors=traits["flavors"],
        strain_terpenes=traits["terpenes"],
        strain_parents=parents,
        dispensaries=dispensaries,
        menu_items=menu,
        reviews=[
            review_row(values, review_id, shop_ids[values["dispensary"]])
            for review_id, values in enumerate(reviews, start=1)
        ],
        deals=[
            deal_row(values, deal_id, shop_ids[values["dispensary"]])
            for deal_id, values in enumerate(report.accepted("deals"), start=1)
        ],
        doctors=[
            doctor_row(values, doctor_id)
            for doctor_id, values in enumerate(report.accepted("doctors"), start=1)
        ],
    )


def _law_rows(report: ImportReport) -> list[Row]:
    records = load_laws() if report.bundled_laws else report.accepted("laws")
    return [_law_row(record) for record in records]


def strain_row(values: Values, strain_id: int) -> Row:
    """A strain's row; given chemistry, its thc and cbd are the total medians to one decimal
    (the record's own are within 0.05 of those, see resources._strain_check)."""
    layout = values["chemistry"]
    thc, cbd = values["thc"], values["cbd"]
    if layout is not None:
        thc = round(layout["total_thc"]["p50"], 1)
        cbd = round(layout["total_cbd"]["p50"], 1)
    return {
        "id": strain_id,
        "slug": values["slug"],
        "name": values["name"],
        "type": values["type"],
        "thc": thc,
        "cbd": cbd,
        "description": values["description"],
        "rating": values["rating"],
        "review_count": values["reviewCount"],
        "origin": values["origin"],
        "chemistry": layout,
        **strain_copies(layout),
    }


def trait_rows(values: Values, strain_id: int) -> dict[str, list[Row]]:
    """A strain's effect, flavor and terpene rows, by trait; given chemistry, its terpenes are
    the chemistry's leading ones (as every load makes them, seed.generate.Dataset.tables)."""
    names = {trait: values[trait] for trait in TRAITS}
    if values["chemistry"] is not None:
        names["terpenes"] = leading_terpenes(values["chemistry"])
    return {
        trait: [
            {"strain_id": strain_id, "name": name, "position": position}
            for position, name in enumerate(names[trait])
        ]
        for trait in TRAITS
    }


def parent_rows(values: Values, strain_id: int, strain_ids: dict[str, int]) -> list[Row]:
    """A strain's lineage edges, its first parent at position 0."""
    return [
        {"strain_id": strain_id, "parent_id": strain_ids[slug], "position": position}
        for position, slug in enumerate(values["parents"])
    ]


def _location(values: Values) -> dict[str, str | float]:
    place = Place(values["zip"], values["city"], values["state"], values["lat"], values["lng"], ())
    columns = location_columns(place)
    if values["timezone"] is not None:
        columns["timezone"] = values["timezone"]
    return columns


def review_ratings(reviews: Iterable[Values]) -> dict[str, list[int]]:
    """Dispensary id -> the ratings of its reviews."""
    ratings: dict[str, list[int]] = defaultdict(list)
    for review in reviews:
        ratings[review["dispensary"]].append(review["rating"])
    return ratings


def dispensary_row(values: Values, shop_id: int, own: list[int]) -> Row:
    """A dispensary's row; a rating or review count the record leaves out comes from ``own``
    (the ratings of its reviews)."""
    rating = values["rating"]
    if rating is None:
        rating = round(fmean(own), 1) if own else 0.0
    count = values["reviewCount"]
    return {
        "id": shop_id,
        "public_id": values["id"],
        "name": values["name"],
        "street": values["street"],
        **_location(values),
        "type": values["type"],
        "rating": rating,
        "review_count": len(own) if count is None else count,
        "delivery": values["delivery"],
        "hours": values["hours"],
        "phone": values["phone"],
        "website": values["website"],
    }


def menu_row(
    values: Values, item_id: int, shop_id: int, position: int, strain_ids: dict[str, int]
) -> Row:
    row = {
        "id": item_id,
        "dispensary_id": shop_id,
        "position": position,
        "name": values["name"],
        "category": values["category"],
        "price": values["price"],
        "unit": values["unit"],
        "strain_id": strain_ids[values["strain"]] if values["strain"] else None,
        "lab": values["lab"],
    }
    return {**row, **menu_copies(row)}


def review_row(values: Values, review_id: int, shop_id: int) -> Row:
    return {
        "id": review_id,
        "dispensary_id": shop_id,
        "rating": values["rating"],
        "text": values["text"],
        "author": values["author"],
        "date": date.fromisoformat(values["date"]),
    }


def deal_row(values: Values, deal_id: int, shop_id: int) -> Row:
    return {
        "id": deal_id,
        "public_id": values["id"],
        "dispensary_id": shop_id,
        "title": values["title"],
        "category": values["category"],
        "discount": values["discount"],
        "expires": date.fromisoformat(values["expires"]),
    }


def doctor_row(values: Values, doctor_id: int) -> Row:
    return {
        "id": doctor_id,
        "public_id": values["id"],
        "name": values["name"],
        **_location(values),
        "telehealth": values["telehealth"],
        "rating": values["rating"],
        "price": values["price"],
    }
