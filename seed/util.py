"""Small deterministic helpers shared by the generators."""

import random
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeVar

_NON_SLUG = re.compile(r"[^a-z0-9]+")
T = TypeVar("T")


def slugify(text: str) -> str:
    """Lowercase ASCII slug: "Charlotte's Web" -> "charlottes-web", "Skunk #1" -> "skunk-1"."""
    # Apostrophes vanish rather than split words, so possessives stay one word.
    cleaned = text.lower().replace("'", "").replace("&", " and ")
    return _NON_SLUG.sub("-", cleaned).strip("-")


def clamp(value: float, low: float, high: float) -> float:
    """Limit ``value`` to the closed interval [low, high]."""
    return max(low, min(high, value))


def weighted_sample(
    rng: random.Random, items: Sequence[T], weights: Sequence[float], k: int
) -> list[T]:
    """Draw ``k`` distinct items, each round favouring heavier weights (Efraimidis-Spirakis)."""
    keyed = sorted(
        ((rng.random() ** (1.0 / w), i) for i, w in enumerate(weights)),
        reverse=True,
    )
    return [items[i] for _, i in keyed[:k]]


def join_words(words: Sequence[str]) -> str:
    """English list: "a", "a and b", "a, b and c"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def price(rng: random.Random, low: float, high: float) -> float:
    """A shelf price in USD between low and high, ending in .00, .99 or .50."""
    dollars = round(rng.uniform(low, high))
    ending = rng.choice((0.0, 0.0, -0.01, -0.5))
    return round(max(dollars + ending, 0.99), 2)


def apportion(weights: Mapping[str, int], total: int, minimum: int = 1) -> dict[str, int]:
    """Split ``total`` in proportion to ``weights`` by largest remainder, ``minimum`` each."""
    keys = sorted(weights)
    if total < minimum * len(keys):
        raise ValueError(f"cannot give {len(keys)} shares at least {minimum} from {total}")
    fixed: dict[str, int] = {}
    while True:
        free = [k for k in keys if k not in fixed]
        remaining = total - sum(fixed.values())
        weight_sum = sum(weights[k] for k in free)
        # Fractions keep the split exact, so ties never depend on float rounding.
        quotas = {k: Fraction(remaining * weights[k], weight_sum) for k in free}
        below = [k for k in free if quotas[k] < minimum]
        if not below:
            break
        fixed.update(dict.fromkeys(below, minimum))
    counts = {k: int(quotas[k]) for k in free}
    leftover = remaining - sum(counts.values())
    for k in sorted(free, key=lambda k: (counts[k] - quotas[k], k))[:leftover]:
        counts[k] += 1
    return {k: fixed.get(k, counts.get(k, 0)) for k in keys}
