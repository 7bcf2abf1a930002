"""Deals (tied to dispensaries) and medical-marijuana doctors."""

import random
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from service.vocab import DEAL_CATEGORIES

from . import catalog, names
from .places import location_columns, pick_place
from .util import clamp

Row = dict[str, Any]

ID_OFFSET = 1000
EXPIRED_SHARE = 0.1
MAX_DAYS_AHEAD = 60
MAX_DAYS_EXPIRED = 30
DOCTOR_FEES = (49, 59, 69, 75, 79, 89, 99, 99, 119, 129, 149, 150, 175, 199, 249)

_CATEGORY_WEIGHTS = [catalog.DEAL_CATEGORY_WEIGHTS[c] for c in DEAL_CATEGORIES]


def deal_text(rng: random.Random, category: str) -> tuple[str, str]:
    """A (title, discount) pair such as ("20% off all flower", "20% off")."""
    plural, singular = rng.choice(catalog.DEAL_NOUNS[category])
    roll = rng.random()
    if roll < 0.6:
        percent = rng.choice((10, 15, 20, 25, 30, 40, 50))
        title, discount = f"{percent}% off {plural}", f"{percent}% off"
    elif roll < 0.8:
        amount = rng.choice((5, 10, 15, 20))
        title, discount = f"${amount} off any {singular}", f"${amount} off"
    else:
        half = rng.random() < 0.4
        title = f"Buy one {singular}, get one {'half off' if half else 'free'}"
        discount = "BOGO 50% off" if half else "BOGO"
    if rng.random() < 0.3:
        title = f"{rng.choice(catalog.DEAL_PREFIXES)}: {title}"
    return title, discount


def build_deals(
    rng: random.Random, dispensaries: Sequence[Row], total: int, today: date
) -> list[Row]:
    """``total`` deals spread at random over the dispensaries, ordered by dispensary."""
    # Independent draws leave most shops with none to two deals and a few with more.
    owners = sorted(rng.randrange(len(dispensaries)) for _ in range(total))
    deals: list[Row] = []
    seen: set[tuple[int, str]] = set()
    for deal_id, owner in enumerate(owners, start=1):
        shop_id = dispensaries[owner]["id"]
        # Re-draw a category the shop already promotes, a few times at most.
        for _ in range(3):
            category = rng.choices(DEAL_CATEGORIES, _CATEGORY_WEIGHTS)[0]
            if (shop_id, category) not in seen:
                break
        seen.add((shop_id, category))
        title, discount = deal_text(rng, category)
        if rng.random() < EXPIRED_SHARE:
            expires = today - timedelta(days=rng.randint(1, MAX_DAYS_EXPIRED))
        else:
            expires = today + timedelta(days=rng.randint(1, MAX_DAYS_AHEAD))
        deals.append(
            {
                "id": deal_id,
                "public_id": f"deal_{ID_OFFSET + deal_id}",
                "dispensary_id": shop_id,
                "title": title,
                "category": category,
                "discount": discount,
                "expires": expires,
            }
        )
    return deals


def build_doctors(
    rng: random.Random, counts: Mapping[str, int], laws: Mapping[str, Row]
) -> list[Row]:
    """``counts[code]`` doctors per jurisdiction; only medical programs may have any."""
    doctors: list[Row] = []
    for code in sorted(counts):
        if counts[code] and not laws[code]["medical"]:
            raise ValueError(f"{code} has no medical program; it cannot have doctors")
        for _ in range(counts[code]):
            doctor_id = len(doctors) + 1
            place = pick_place(rng, code)
            doctors.append(
                {
                    "id": doctor_id,
                    "public_id": f"doc_{ID_OFFSET + doctor_id}",
                    "name": f"Dr. {rng.choice(names.FIRST_NAMES)} {rng.choice(names.LAST_NAMES)}",
                    **location_columns(place),
                    "telehealth": rng.random() < 0.5,
                    "rating": round(clamp(rng.gauss(4.3, 0.45), 3.0, 5.0), 1),
                    "price": float(rng.choice(DOCTOR_FEES)),
                }
            )
    return doctors
