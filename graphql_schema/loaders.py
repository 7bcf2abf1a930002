"""Per-request batch cache: one query per relation for every sibling seen so far.

Strawberry's DataLoader needs an event loop, which the sync Flask view does not run. Instead,
resolvers that build a list of objects register their keys here; the first time any of those
objects asks for a relation, the relation is fetched for all registered siblings in one statement
and cached for the rest of the request.
"""

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BatchCache:
    def __init__(self) -> None:
        self._seen: dict[str, dict[Hashable, None]] = {}
        self._loaded: dict[Hashable, dict[Any, Any]] = {}

    def register(self, kind: str, keys: Iterable[Hashable]) -> None:
        """Remember ``keys`` as objects of ``kind`` that later resolvers may ask about."""
        self._seen.setdefault(kind, {}).update(dict.fromkeys(keys))

    def register_one(self, kind: str, key: Hashable) -> None:
        """``register`` for one key (each object built registers itself: hundreds a page)."""
        seen = self._seen.get(kind)
        if seen is None:
            seen = self._seen[kind] = {}
        seen[key] = None

    def prime(self, relation: Hashable, key: Hashable, value: Any) -> None:
        """Keep ``value`` as ``relation`` of ``key``, read by other means (a detail that read
        it with its record), so ``load`` does not fetch it again."""
        self._loaded.setdefault(relation, {})[key] = value

    def load(
        self,
        relation: Hashable,
        kind: str,
        key: K,
        fetch: Callable[[list[K]], Mapping[K, V]],
    ) -> V:
        """Return ``relation`` for ``key``; on a miss fetch it for every pending sibling at once.

        ``relation`` names the relation and its arguments (e.g. ("deals", 20)); ``fetch`` takes
        a list of keys and returns a dict with an entry for each of them (a key it leaves out
        reads as None).
        """
        cache = self._loaded.setdefault(relation, {})
        if key not in cache:
            pending: list[Any] = [k for k in self._seen.get(kind, {}) if k not in cache]
            if key not in pending:
                pending.append(key)
            cache.update(fetch(pending))
        return cast(V, cache.get(key))
