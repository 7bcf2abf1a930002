"""Dispensary rows with their menus and reviews."""

import itertools
import random
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any, NamedTuple

from service.vocab import DEAL_CATEGORIES, WEEKDAYS

from . import catalog, names
from .places import location_columns, pick_place
from .util import clamp, price, slugify

Row = dict[str, Any]

ID_OFFSET = 1000
# Share of shops offering delivery where the law allows it.
DELIVERY_SHARE = 0.4
REVIEW_WINDOW_DAYS = 730

_OTHER_PRODUCTS = [
    (category, product)
    for category in DEAL_CATEGORIES
    if category != "flower"
    for product in catalog.PRODUCTS[category]
]
_FLOWER_UNITS = tuple(catalog.FLOWER_UNITS)
_FLOWER_UNIT_WEIGHTS = tuple(w for w, _, _ in catalog.FLOWER_UNITS.values())


class DispensaryTables(NamedTuple):
    dispensaries: list[Row]
    menu_items: list[Row]
    reviews: list[Row]


# A late Friday and Saturday after a weekday close of 22:00 or 23:00 runs past midnight, to
# 01:00 or 02:00 (about one shop in six).
_PAST_MIDNIGHT = {22: 1, 23: 2}


def _span(open_h: int, open_m: int, close_h: int) -> str:
    return f"{open_h}:{open_m:02d}-{close_h % 24:02d}:00"


def opening_hours(rng: random.Random, *, medical_only: bool) -> dict[str, str]:
    """Weekly hours keyed mon..sun as "9:00-21:00"; closed days are left out. A close before
    the open (Friday "10:00-02:00") runs past midnight."""
    open_h, open_m = rng.choice((8, 9, 9, 10, 10, 11)), rng.choice((0, 0, 0, 30))
    close_h = rng.choice((18, 19, 20, 20, 21, 21, 22, 22, 23))
    # Derived from the draws alone: adding a draw would change every row generated after it.
    late_close = close_h
    if rng.random() < 0.5:
        late_close = 24 + _PAST_MIDNIGHT[close_h] if close_h in _PAST_MIDNIGHT else close_h + 1
    hours = {day: _span(open_h, open_m, close_h) for day in WEEKDAYS[:4]}
    hours["fri"] = hours["sat"] = _span(open_h, open_m, late_close)
    # Medical shops keep pharmacy-like hours and more often close on Sunday.
    if rng.random() >= (0.35 if medical_only else 0.12):
        hours["sun"] = _span(max(open_h, 10), 0, max(close_h - 2, 17))
    if rng.random() < 0.04:
        del hours["mon"]
    return hours


def _name(rng: random.Random, city: str, *, medical_only: bool) -> str:
    roll = rng.random()
    if roll < 0.18:
        kinds = names.CITY_MEDICAL_KIND if medical_only else names.CITY_KIND
        return f"{city} {rng.choice(kinds)}"
    first, second = rng.choice(names.DISPENSARY_FIRST), rng.choice(names.DISPENSARY_SECOND)
    if roll < 0.3:
        return f"The {first} {second}"
    shop_kinds = names.MEDICAL_KIND if medical_only else names.DISPENSARY_KIND
    return f"{first} {second} {rng.choice(shop_kinds)}"


def _website(name: str, city: str, taken: set[str]) -> str:
    base = slugify(name)
    candidates = itertools.chain(
        (base, f"{base}-{slugify(city)}"),
        (f"{base}-{slugify(city)}-{n}" for n in itertools.count(2)),
    )
    host = next(c for c in candidates if c not in taken)
    taken.add(host)
    return f"https://{host}.example"


class _Menus:
    """Builds menus; flower items name real strains, popular ones more often."""

    def __init__(self, strains: Sequence[Row]) -> None:
        self.strains = strains
        self.cumulative = list(itertools.accumulate(s["review_count"] + 5 for s in strains))

    def build(self, rng: random.Random, dispensary_id: int, first_id: int) -> list[Row]:
        size = rng.randint(8, 20)
        flower_count = min(rng.randint(3, max(3, size // 2)), len(self.strains))
        picked: dict[int, Row] = {}
        while len(picked) < flower_count:
            strain = rng.choices(self.strains, cum_weights=self.cumulative)[0]
            picked.setdefault(strain["id"], strain)
        items = [self._flower(rng, strain) for strain in picked.values()]
        others = rng.sample(_OTHER_PRODUCTS, size - flower_count)
        others.sort(key=lambda entry: DEAL_CATEGORIES.index(entry[0]))
        items.extend(self._product(rng, category, product) for category, product in others)
        return [
            {"id": first_id + position, "dispensary_id": dispensary_id, "position": position} | item
            for position, item in enumerate(items)
        ]

    @staticmethod
    def _flower(rng: random.Random, strain: Row) -> Row:
        unit = rng.choices(_FLOWER_UNITS, _FLOWER_UNIT_WEIGHTS)[0]
        _, low, high = catalog.FLOWER_UNITS[unit]
        # Potent flower sells at a premium.
        factor = 0.85 + strain["thc"] / 100
        return {
            "name": strain["name"],
            "category": "flower",
            "price": price(rng, low * factor, high * factor),
            "unit": unit,
            "strain_id": strain["id"],
        }

    @staticmethod
    def _product(rng: random.Random, category: str, product: tuple[str, str, float, float]) -> Row:
        template, unit, low, high = product
        name = template.format(f=rng.choice(catalog.GUMMY_FLAVORS))
        if rng.random() < 0.5:
            name = f"{rng.choice(catalog.BRANDS)} {name}"
        return {
            "name": name,
            "category": category,
            "price": price(rng, low, high),
            "unit": unit,
            "strain_id": None,
        }


def _reviews(rng: random.Random, shop: Row, today: date, first_id: int) -> list[Row]:
    rows = []
    for _ in range(rng.randint(2, 8)):
        rating = int(clamp(round(rng.gauss(shop["rating"], 0.9)), 1, 5))
        pool = (
            catalog.REVIEWS_GOOD
            if rating >= 4
            else catalog.REVIEWS_MIXED
            if rating == 3
            else catalog.REVIEWS_BAD
        )
        sentences = rng.sample(pool, 2 if rng.random() < 0.3 else 1)
        thing = rng.choice(catalog.REVIEW_THINGS)
        text = " ".join(s.format(thing=thing, city=shop["city"]) for s in sentences)
        author = f"{rng.choice(names.FIRST_NAMES)} {rng.choice(names.LAST_NAMES)[0]}."
        day = today - timedelta(days=rng.randrange(REVIEW_WINDOW_DAYS))
        rows.append(
            {
                "id": 0,
                "dispensary_id": shop["id"],
                "rating": rating,
                "text": text,
                "author": author,
                "date": day,
            }
        )
    # Ids rise with the date, as they would in a live system.
    rows.sort(key=lambda r: r["date"])
    for offset, row in enumerate(rows):
        row["id"] = first_id + offset
    return rows


def build_dispensaries(
    rng: random.Random,
    counts: Mapping[str, int],
    laws: Mapping[str, Row],
    strains: Sequence[Row],
    today: date,
) -> DispensaryTables:
    """``counts[code]`` dispensaries per jurisdiction, typed and placed as its law allows."""
    tables = DispensaryTables([], [], [])
    menus = _Menus(strains)
    websites: set[str] = set()
    for code in sorted(counts):
        law = laws[code]
        if counts[code] and not (law["medical"] or law["recreational"]):
            raise ValueError(f"{code} has no cannabis program; it cannot have dispensaries")
        medical_only = not law["recreational"]
        for _ in range(counts[code]):
            shop_id = len(tables.dispensaries) + 1
            place = pick_place(rng, code)
            name = _name(rng, place.city, medical_only=medical_only)
            shop: Row = {
                "id": shop_id,
                "public_id": f"disp_{ID_OFFSET + shop_id}",
                "name": name,
                "street": f"{rng.randint(100, 9899)} {rng.choice(names.STREET_NAMES)}",
                **location_columns(place),
                "type": "medical" if medical_only else rng.choice(("recreational", "both")),
                "rating": round(clamp(rng.gauss(4.3, 0.4), 2.0, 5.0), 1),
                "review_count": 0,
                "delivery": law["delivery_legal"] and rng.random() < DELIVERY_SHARE,
                "hours": opening_hours(rng, medical_only=medical_only),
                "phone": f"({rng.choice(place.area_codes)}) 555-01{rng.randrange(100):02d}",
                "website": _website(name, place.city, websites),
            }
            tables.menu_items.extend(menus.build(rng, shop_id, len(tables.menu_items) + 1))
            reviews = _reviews(rng, shop, today, len(tables.reviews) + 1)
            tables.reviews.extend(reviews)
            # The review total counts more reviews than the few recent ones we keep.
            shop["review_count"] = min(3000, len(reviews) + int(rng.lognormvariate(4.2, 1.0)))
            tables.dispensaries.append(shop)
    return tables
