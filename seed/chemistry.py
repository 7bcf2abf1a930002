"""Demo chemistry: a strain's typical profile over its samples, and a lab batch per flower item.

Each strain gets a profile consistent with what it already shows: the median of its samples'
total THC is its ``thc`` and of their total CBD its ``cbd`` (each sample's spread is scaled so
the median lands exactly there), and its named terpenes lead its terpene amounts in their order.
A menu item's batch is one more draw from its strain's profile, as a lab would report it.

The functions at the bottom derive the copies a load stores beside the chemistry (the strain
columns lists filter on, a batch's totals, the price per gram); seed.generate.Dataset.tables
applies them to every load, seeded or imported.
"""

import random
import statistics
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from service.compounds import (
    BY_KEY,
    DECARB,
    FILTERED_CANNABINOIDS,
    PERCENT,
    TERPENE_KEYS,
    grams_of,
    ratio_of,
    total_of,
)

from .util import clamp, slugify
from .vocab import CLASSIC_STRAINS

Row = dict[str, Any]
Sample = dict[str, float]

# Share of strains with no published samples (chemistry null).
UNSAMPLED_SHARE = 0.04
# Amounts below these are reported as not detected, or detected below the limit of quantitation.
ND_BELOW = 0.005
LOQ = 0.02
LABS = (
    "Cascade Analytical",
    "Evergreen Testing Labs",
    "Sierra Botanical Labs",
    "Great Lakes Analytics",
    "Desert Valley Testing",
    "Atlantic Compliance Labs",
    "Front Range Analytical",
    "Bayou Lab Services",
)


class Profile:
    """What a strain's samples are drawn from: the medians of its totals and per-compound levels
    (fractions of total THC for the minor cannabinoids, percent for terpenes)."""

    def __init__(self, rng: random.Random, strain: Row, terpenes: Sequence[str]) -> None:
        self.thc = float(strain["thc"])
        self.cbd = float(strain["cbd"])
        # The share of total THC a sample holds already decarboxylated (fresh flower: little).
        self.d9_share = rng.uniform(0.02, 0.08)
        self.cbd_share = rng.uniform(0.03, 0.1)
        potency = self.thc + self.cbd
        sativa = strain["type"] == "sativa"
        self.minor = {
            "cbga": potency * rng.uniform(0.02, 0.05),
            "cbg": potency * rng.uniform(0.015, 0.05),
            "cbn": potency * rng.uniform(0.0, 0.012),
            "cbc": potency * rng.uniform(0.005, 0.02),
            # THCV is a trait of some (mostly African, sativa) lines.
            "thcv": potency * (rng.uniform(0.01, 0.05) if sativa and rng.random() < 0.3 else 0.003),
        }
        lead = rng.uniform(0.45, 0.95)
        self.terpenes: dict[str, float] = {}
        for position, key in enumerate(terpenes):
            self.terpenes[key] = lead * (0.55**position) * rng.uniform(0.95, 1.05)
        floor = min(self.terpenes.values(), default=lead) * 0.6
        for key in TERPENE_KEYS:
            if key not in self.terpenes:
                self.terpenes[key] = floor * rng.uniform(0.05, 0.9)

    def draw(self, rng: random.Random, thc_factor: float, cbd_factor: float) -> Sample:
        """One sample whose totals are the medians times the given factors."""
        total_thc = self.thc * thc_factor
        total_cbd = self.cbd * cbd_factor
        d9 = total_thc * self.d9_share
        cbd = total_cbd * self.cbd_share
        sample = {
            "thca": (total_thc - d9) / DECARB,
            "delta_9_thc": d9,
            "cbda": (total_cbd - cbd) / DECARB,
            "cbd": cbd,
        }
        for key, level in self.minor.items():
            sample[key] = level * rng.lognormvariate(0, 0.2)
        content = rng.lognormvariate(0, 0.18)  # the sample's overall terpene content
        for key, level in self.terpenes.items():
            sample[key] = level * content * rng.lognormvariate(0, 0.08)
        return sample


def _factors(rng: random.Random, count: int, sigma: float) -> list[float]:
    """``count`` positive spreads whose median is exactly 1."""
    raw = [rng.lognormvariate(0, sigma) for _ in range(count)]
    middle = statistics.median(raw)
    return [value / middle for value in raw]


def _sample_count(rng: random.Random, famous: bool) -> int:
    mu, sigma = (4.8, 0.6) if famous else (2.6, 0.9)
    return int(clamp(rng.lognormvariate(mu, sigma), 3, 600))


def percentiles(values: Sequence[float], digits: int = 2) -> dict[str, float]:
    """p25, p50 and p75 of ``values`` by linear interpolation between the closest ranks (the
    "inclusive" method: numpy's default), rounded to ``digits``."""
    if len(values) == 1:
        q = [values[0]] * 3
    else:
        q = statistics.quantiles(values, n=4, method="inclusive")
    return {"p25": round(q[0], digits), "p50": round(q[1], digits), "p75": round(q[2], digits)}


def summarize(samples: Sequence[Mapping[str, float]], source: str) -> Row:
    """The stored chemistry (models.Strain.chemistry) of a strain's samples: each compound's
    percentiles, highest median first within its kind, and those of the per-sample totals."""
    keys = [key for key in BY_KEY if any(key in sample for sample in samples)]
    by_kind: dict[str, list[Row]] = {"cannabinoid": [], "terpene": []}
    for key in keys:
        spread = percentiles([sample.get(key, 0.0) for sample in samples])
        by_kind[BY_KEY[key].kind].append({"key": key, **spread})
    for entries in by_kind.values():
        entries.sort(key=lambda entry: (-entry["p50"], entry["key"]))
    return {
        "basis": "typical",
        "sample_count": len(samples),
        "source": source,
        "cannabinoids": by_kind["cannabinoid"],
        "terpenes": by_kind["terpene"],
        "total_thc": percentiles([total_of("total_thc", s) for s in samples]),
        "total_cbd": percentiles([total_of("total_cbd", s) for s in samples]),
        "total_terpenes": percentiles(
            [sum(s.get(key, 0.0) for key in TERPENE_KEYS) for s in samples]
        ),
    }


def build_chemistry(
    rng: random.Random, strains: Sequence[Row], terpenes: Mapping[int, Sequence[str]]
) -> tuple[dict[int, Row | None], dict[int, Profile]]:
    """Each strain's stored chemistry (None for the unsampled few) and the profile its batches
    are drawn from, keyed by strain id."""
    famous = set(CLASSIC_STRAINS)
    chemistry: dict[int, Row | None] = {}
    profiles: dict[int, Profile] = {}
    for strain in strains:
        profile = Profile(rng, strain, terpenes.get(strain["id"], ()))
        profiles[strain["id"]] = profile
        if rng.random() < UNSAMPLED_SHARE and strain["name"] not in famous:
            chemistry[strain["id"]] = None
            continue
        count = _sample_count(rng, strain["name"] in famous)
        thc_factors = _factors(rng, count, 0.12)
        cbd_factors = _factors(rng, count, 0.2)
        samples = [profile.draw(rng, t, c) for t, c in zip(thc_factors, cbd_factors, strict=True)]
        chemistry[strain["id"]] = summarize(samples, "demo")
    return chemistry, profiles


def _result(key: str, value: float) -> Row:
    if value < ND_BELOW:
        return {"key": key, "value": None, "unit": PERCENT, "qualifier": "nd"}
    if value < LOQ:
        return {"key": key, "value": None, "unit": PERCENT, "qualifier": "lt_loq"}
    return {"key": key, "value": round(value, 4), "unit": PERCENT}


def build_labs(
    rng: random.Random,
    menu_items: Sequence[Row],
    profiles: Mapping[int, Profile],
    states: Mapping[int, str],
    today: date,
) -> dict[int, Row]:
    """A lab batch for every menu item that names a strain, keyed by menu item id: one draw
    from the strain's profile, tested up to four months before ``today``."""
    labs: dict[int, Row] = {}
    serials: dict[str, int] = {}
    for item in menu_items:
        if item["strain_id"] is None:
            continue
        profile = profiles[item["strain_id"]]
        sample = profile.draw(rng, rng.lognormvariate(0, 0.12), rng.lognormvariate(0, 0.2))
        tested = today - timedelta(days=rng.randint(7, 120))
        month = tested.strftime("%y%m")
        serials[month] = serials.get(month, 0) + 1
        batch_id = f"B-{month}-{serials[month]:04d}"
        state = states[item["dispensary_id"]]
        lab = LABS[(sum(map(ord, state)) + rng.randrange(2)) % len(LABS)]
        labs[item["id"]] = {
            "batch_id": batch_id,
            "tested_at": tested.isoformat(),
            "lab": lab,
            "coa_url": f"https://{slugify(lab)}.example/coa/{batch_id}.pdf",
            "results": [_result(key, sample[key]) for key in BY_KEY if key in sample],
        }
    return labs


def strain_copies(chemistry: Mapping[str, Any] | None) -> Row:
    """The strain columns a load copies from its chemistry (models.Strain)."""
    if chemistry is None:
        return {"dominant_terpene": None, "ratio": None, **dict.fromkeys(FILTERED_CANNABINOIDS)}
    medians = {entry["key"]: entry["p50"] for entry in chemistry["cannabinoids"]}
    terpenes = chemistry["terpenes"]
    return {
        "dominant_terpene": terpenes[0]["key"] if terpenes else None,
        "ratio": ratio_of(chemistry["total_thc"]["p50"], chemistry["total_cbd"]["p50"]),
        **{key: medians.get(key) for key in FILTERED_CANNABINOIDS},
    }


def leading_terpenes(chemistry: Mapping[str, Any]) -> list[str]:
    """The keys of a chemistry's (up to) three leading terpenes: a strain's ``terpenes``."""
    return [entry["key"] for entry in chemistry["terpenes"][:3]]


def batch_totals(lab: Mapping[str, Any] | None) -> tuple[float | None, float | None]:
    """A batch's total THC and total CBD by the stated formulas (a missing, nd or lt_loq input
    counts as 0), to one decimal; (None, None) without a batch."""
    if lab is None:
        return None, None
    values = {r["key"]: r["value"] for r in lab["results"] if r.get("value") is not None}
    return (
        round(total_of("total_thc", values), 1),
        round(total_of("total_cbd", values), 1),
    )


def menu_copies(item: Mapping[str, Any]) -> Row:
    """The menu item columns a load derives (models.MenuItem): the batch totals and the price
    per gram of a weight unit."""
    total_thc, total_cbd = batch_totals(item.get("lab"))
    grams = grams_of(item["unit"])
    return {
        "total_thc": total_thc,
        "total_cbd": total_cbd,
        "price_per_gram": round(item["price"] / grams, 2) if grams else None,
    }
