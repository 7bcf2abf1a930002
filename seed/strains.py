"""Strain catalogue generation: names, potency, traits and descriptions."""

import random
from typing import Any, NamedTuple

from service.vocab import STRAIN_TYPES

from . import vocab
from .util import clamp, join_words, slugify, weighted_sample

Row = dict[str, Any]

_CLASSICS = frozenset(vocab.CLASSIC_STRAINS)
_TERPENE_BASE = {"myrcene": 3.0, "caryophyllene": 2.5, "limonene": 2.5, "pinene": 1.5}
_COMMON_FLAVORS = {"earthy": 3.0, "sweet": 3.0, "pine": 2.0, "citrus": 2.0, "woody": 2.0}


class StrainTables(NamedTuple):
    strains: list[Row]
    effects: list[Row]
    flavors: list[Row]
    terpenes: list[Row]


def strain_names(rng: random.Random, count: int) -> list[str]:
    """``count`` unique names: the classics first, then shuffled prefix/suffix pairs."""
    generated = []
    for prefix in vocab.NAME_PREFIXES:
        for suffix in vocab.NAME_SUFFIXES:
            low_p, low_s = prefix.lower(), suffix.lower()
            # Skip echoes such as "Frosty Frost" or "Blueberry Berry".
            if low_p in low_s or low_s in low_p:
                continue
            generated.append(f"{prefix} {suffix}")
    rng.shuffle(generated)
    names: list[str] = []
    seen: set[str] = set()
    for name in (*vocab.CLASSIC_STRAINS, *generated):
        if len(names) == count:
            break
        if name not in _CLASSICS and rng.random() < 0.06:
            name = f"{name} {rng.choice(vocab.PHENOTYPES)}"
        slug = slugify(name)
        if slug not in seen:
            seen.add(slug)
            names.append(name)
    if len(names) < count:
        raise ValueError(f"the name vocabulary yields only {len(names)} strains, not {count}")
    return sorted(names, key=slugify)


def _strain_type(rng: random.Random, name: str) -> str:
    words = set(name.split())
    if words & vocab.INDICA_WORDS:
        weights = {"indica": 50, "sativa": 10, "hybrid": 40}
    elif words & vocab.SATIVA_WORDS:
        weights = {"indica": 10, "sativa": 50, "hybrid": 40}
    else:
        weights = {"indica": 27, "sativa": 23, "hybrid": 50}
    return rng.choices(STRAIN_TYPES, [weights[t] for t in STRAIN_TYPES])[0]


def _profile(rng: random.Random, name: str) -> str:
    if name in _CLASSICS:
        return vocab.CLASSIC_PROFILES.get(name, "thc")
    roll = rng.random()
    return "cbd" if roll < 0.08 else "balanced" if roll < 0.13 else "thc"


def _potency(rng: random.Random, profile: str) -> tuple[float, float]:
    if profile == "cbd":
        thc, cbd = rng.uniform(0.2, 7.5), rng.triangular(8.0, 25.0, 13.0)
    elif profile == "balanced":
        thc = rng.uniform(4.0, 12.0)
        cbd = clamp(thc * rng.uniform(0.7, 1.4), 3.0, 25.0)
    else:
        thc = clamp(rng.gauss(21.0, 4.2), 10.0, 34.0)
        cbd = rng.uniform(0.0, 0.5) if rng.random() < 0.75 else rng.uniform(0.5, 1.9)
    return round(thc, 1), round(cbd, 1)


def _effects(rng: random.Random, strain_type: str, profile: str) -> list[str]:
    preferred = vocab.EFFECT_WEIGHTS[strain_type]
    if profile != "thc":
        # CBD-rich strains are bought for calm clarity, not a heavy high.
        preferred = {"relaxed": 8, "focused": 6, "happy": 5, "uplifted": 4}
    weights = [preferred.get(e, vocab.DEFAULT_EFFECT_WEIGHT) for e in vocab.EFFECTS]
    count = rng.randint(2, 4)
    # Draw spares so dropping a contradictory pair still leaves ``count`` effects.
    effects = weighted_sample(rng, vocab.EFFECTS, weights, count + 2)
    for first, second in vocab.EXCLUSIVE_EFFECTS:
        if first in effects and second in effects:
            effects.remove(max(first, second, key=effects.index))
    return effects[:count]


def _flavors(rng: random.Random, name: str) -> list[str]:
    implied: list[str] = []
    for word in name.lower().replace("#", " ").split():
        for flavor in vocab.KEYWORD_FLAVORS.get(word, ()):
            if flavor not in implied:
                implied.append(flavor)
    count = rng.randint(2, 4)
    chosen = implied[: min(2, count)]
    rest = [f for f in vocab.FLAVORS if f not in chosen]
    weights = [_COMMON_FLAVORS.get(f, 1.0) for f in rest]
    return chosen + weighted_sample(rng, rest, weights, count - len(chosen))


def _terpenes(rng: random.Random, strain_type: str, flavors: list[str]) -> list[str]:
    weights = {t: _TERPENE_BASE.get(t, 1.0) for t in vocab.TERPENES}
    weights["bisabolol"] = 0.5
    weights[vocab.TYPE_TERPENE[strain_type]] += 3.0
    for flavor in flavors:
        for terpene in vocab.FLAVOR_TERPENES.get(flavor, ()):
            weights[terpene] += 4.0
    return weighted_sample(
        rng, vocab.TERPENES, [weights[t] for t in vocab.TERPENES], rng.randint(2, 3)
    )


def _description(
    rng: random.Random, strain: Row, profile: str, effects: list[str], flavors: list[str]
) -> str:
    name, thc, cbd = strain["name"], strain["thc"], strain["cbd"]
    opening = f"{name} is {rng.choice(vocab.TYPE_PHRASES[strain['type']])} strain"
    if rng.random() < 0.6:
        opening += f" {rng.choice(vocab.ORIGINS)}"
    if profile == "cbd":
        opening += f", rich in CBD ({cbd}%) with only {thc}% THC."
    elif profile == "balanced":
        opening += f", with a balanced ratio of about {thc}% THC to {cbd}% CBD."
    elif thc >= 25:
        opening += f", testing at a potent {thc}% THC."
    else:
        opening += f", typically testing around {thc}% THC."
    effect_text = rng.choice(vocab.EFFECT_SENTENCES).format(
        effects=join_words(effects), e1=effects[0], rest=join_words(effects[1:])
    )
    flavor_text = rng.choice(vocab.FLAVOR_SENTENCES).format(
        flavors=join_words(flavors), f1=flavors[0], rest=join_words(flavors[1:])
    )
    if profile == "cbd":
        use = vocab.CBD_USE
    elif profile == "balanced":
        use = vocab.BALANCED_USE
    else:
        use = next((vocab.USE_PHRASES[e] for e in effects if e in vocab.USE_PHRASES), "")
    return " ".join(part for part in (opening, effect_text, flavor_text, use) if part)


def build_strains(rng: random.Random, count: int) -> StrainTables:
    """Strain rows (ids 1..count in name order) with their effect, flavor and terpene rows."""
    tables = StrainTables([], [], [], [])
    for strain_id, name in enumerate(strain_names(rng, count), start=1):
        strain_type = _strain_type(rng, name)
        profile = _profile(rng, name)
        thc, cbd = _potency(rng, profile)
        # Famous strains collect far more reviews; the rest follow a long tail.
        mu, sigma = (6.3, 0.6) if name in _CLASSICS else (3.6, 1.3)
        review_count = min(3000, int(rng.lognormvariate(mu, sigma)))
        rating = round(clamp(rng.gauss(4.35, 0.3), 2.5, 5.0), 1)
        strain: Row = {
            "id": strain_id,
            "slug": slugify(name),
            "name": name,
            "type": strain_type,
            "thc": thc,
            "cbd": cbd,
            "description": "",
            # No reviews means no rating yet, as on public strain sites.
            "rating": rating if review_count else 0.0,
            "review_count": review_count,
        }
        effects = _effects(rng, strain_type, profile)
        flavors = _flavors(rng, name)
        terpenes = _terpenes(rng, strain_type, flavors)
        strain["description"] = _description(rng, strain, profile, effects, flavors)
        tables.strains.append(strain)
        for table, values in (
            (tables.effects, effects),
            (tables.flavors, flavors),
            (tables.terpenes, terpenes),
        ):
            table.extend(
                {"strain_id": strain_id, "name": value, "position": position}
                for position, value in enumerate(values)
            )
    return tables
