"""pg_trgm's trigrams and similarity, computed in Python.

SQLite has no pg_trgm: its FTS5 tables store these trigram sets so that both databases find the
same fuzzy matches with the same scores.
"""

import re
from fractions import Fraction

# pg_trgm's default similarity threshold, kept exact (0.3 is not exact as a float).
SIMILARITY_THRESHOLD = Fraction(3, 10)

_WORD = re.compile(r"[^\W_]+")  # pg_trgm's words: runs of letters and digits


def trigrams(text: str) -> frozenset[str]:
    """The set pg_trgm's ``show_trgm`` gives: each lower-case word padded with two spaces in
    front and one behind, cut into three-character windows."""
    found: set[str] = set()
    for word in _WORD.findall(text.lower()):
        padded = f"  {word} "
        found.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return frozenset(found)


def gram_token(trigram: str) -> str:
    """One FTS5 (unicode61) token per trigram: hex needs no folding and no separators."""
    return "g" + trigram.encode().hex()


def is_similar(shared: int, size_a: int, size_b: int) -> bool:
    """pg_trgm's test ``similarity >= threshold``, in exact arithmetic."""
    threshold = SIMILARITY_THRESHOLD
    return shared * threshold.denominator >= threshold.numerator * (size_a + size_b - shared)


def similarity(a: str, b: str) -> float:
    """pg_trgm's ``similarity(a, b)``: shared trigrams over the union of both sets."""
    first, second = trigrams(a), trigrams(b)
    union = len(first | second)
    return len(first & second) / union if union else 0.0
