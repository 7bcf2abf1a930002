"""Turning the accepted records of an import into the row dicts the demo seed builds.

Rows get ids 1..n in file order; public ids are the ones the files give. Columns the seed
derives are derived the same way: ``city_key`` and (when the file leaves it out) ``timezone``
through ``seed.places.location_columns``, the ``sort_key`` columns by their model default, a
menu item's ``position`` from its order within its dispensary's items, and a dispensary's
``rating``/``reviewCount`` (when the file leaves them out) from its reviews in the reviews file.
"""

from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from statistics import fmean

from ..generate import Dataset, Row, _law_row
from ..geography import Place, load_laws
from ..places import location_columns
from .resources import Values
from .validate import ImportReport

SCALE = "import"  # Dataset.scale of imported data
TRAITS = ("effects", "flavors", "terpenes")


def build_dataset(report: ImportReport, *, today: date) -> Dataset:
    """The Dataset of every accepted record; ``today`` becomes its reference day."""
    strains, traits = _strain_rows(report.accepted("strains"))
    strain_ids = {row["slug"]: row["id"] for row in strains}
    reviews = report.accepted("reviews")
    dispensaries = _dispensary_rows(report.accepted("dispensaries"), reviews)
    shop_ids = {row["public_id"]: row["id"] for row in dispensaries}
    return Dataset(
        seed=None,
        scale=SCALE,
        reference_day=today,
        laws=_law_rows(report),
        strains=strains,
        strain_effects=traits["effects"],
        strain_flavors=traits["flavors"],
        strain_terpenes=traits["terpenes"],
        dispensaries=dispensaries,
        menu_items=_menu_rows(report.accepted("menu_items"), shop_ids, strain_ids),
        reviews=_review_rows(reviews, shop_ids),
        deals=_deal_rows(report.accepted("deals"), shop_ids),
        doctors=_doctor_rows(report.accepted("doctors")),
    )


def _law_rows(report: ImportReport) -> list[Row]:
    records = load_laws() if report.bundled_laws else report.accepted("laws")
    return [_law_row(record) for record in records]


def _strain_rows(records: list[Values]) -> tuple[list[Row], dict[str, list[Row]]]:
    strains: list[Row] = []
    traits: dict[str, list[Row]] = {name: [] for name in TRAITS}
    for strain_id, values in enumerate(records, start=1):
        strains.append(
            {
                "id": strain_id,
                "slug": values["slug"],
                "name": values["name"],
                "type": values["type"],
                "thc": values["thc"],
                "cbd": values["cbd"],
                "description": values["description"],
                "rating": values["rating"],
                "review_count": values["reviewCount"],
            }
        )
        for trait in TRAITS:
            traits[trait].extend(
                {"strain_id": strain_id, "name": name, "position": position}
                for position, name in enumerate(values[trait])
            )
    return strains, traits


def _location(values: Values) -> dict[str, str | float]:
    place = Place(values["zip"], values["city"], values["state"], values["lat"], values["lng"], ())
    columns = location_columns(place)
    if values["timezone"] is not None:
        columns["timezone"] = values["timezone"]
    return columns


def _review_summary(reviews: Iterable[Values]) -> dict[str, list[int]]:
    ratings: dict[str, list[int]] = defaultdict(list)
    for review in reviews:
        ratings[review["dispensary"]].append(review["rating"])
    return ratings


def _dispensary_rows(records: list[Values], reviews: list[Values]) -> list[Row]:
    ratings = _review_summary(reviews)
    rows = []
    for shop_id, values in enumerate(records, start=1):
        own = ratings.get(values["id"], [])
        rating = values["rating"]
        if rating is None:
            rating = round(fmean(own), 1) if own else 0.0
        count = values["reviewCount"]
        rows.append(
            {
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
        )
    return rows


def _menu_rows(
    records: list[Values], shop_ids: dict[str, int], strain_ids: dict[str, int]
) -> list[Row]:
    positions: dict[int, int] = defaultdict(int)
    rows = []
    for item_id, values in enumerate(records, start=1):
        shop_id = shop_ids[values["dispensary"]]
        rows.append(
            {
                "id": item_id,
                "dispensary_id": shop_id,
                "position": positions[shop_id],
                "name": values["name"],
                "category": values["category"],
                "price": values["price"],
                "unit": values["unit"],
                "strain_id": strain_ids[values["strain"]] if values["strain"] else None,
            }
        )
        positions[shop_id] += 1
    return rows


def _review_rows(records: list[Values], shop_ids: dict[str, int]) -> list[Row]:
    return [
        {
            "id": review_id,
            "dispensary_id": shop_ids[values["dispensary"]],
            "rating": values["rating"],
            "text": values["text"],
            "author": values["author"],
            "date": date.fromisoformat(values["date"]),
        }
        for review_id, values in enumerate(records, start=1)
    ]


def _deal_rows(records: list[Values], shop_ids: dict[str, int]) -> list[Row]:
    return [
        {
            "id": deal_id,
            "public_id": values["id"],
            "dispensary_id": shop_ids[values["dispensary"]],
            "title": values["title"],
            "category": values["category"],
            "discount": values["discount"],
            "expires": date.fromisoformat(values["expires"]),
        }
        for deal_id, values in enumerate(records, start=1)
    ]


def _doctor_rows(records: list[Values]) -> list[Row]:
    return [
        {
            "id": doctor_id,
            "public_id": values["id"],
            "name": values["name"],
            **_location(values),
            "telehealth": values["telehealth"],
            "rating": values["rating"],
            "price": values["price"],
        }
        for doctor_id, values in enumerate(records, start=1)
    ]
