"""Flask asks once per app, not once per request, whether each hook and view is a coroutine.

Private API (Flask): ``Flask.ensure_sync``, which Flask calls for every hook and view on every
request (an implementation detail) to ask ``inspect.iscoroutinefunction``. The answer for a
callable never changes, so it is kept. An edge may also name wrappers that do nothing but call
what they wrap (:func:`skip_pass_throughs`): asked about one, the app answers with what it wraps.
"""

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask

PRIVATE_API = ("flask.app.Flask.ensure_sync",)
SYNC_CACHE_EXTENSION = "cds.sync_cache"


def cache_sync_callables(app: Flask) -> None:
    """Make ``app.ensure_sync`` remember its answer for each (hashable) callable."""
    ask = app.ensure_sync
    known: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return known[func]
        except KeyError:
            sync = known[func] = ask(func)
            return sync
        except TypeError:  # an unhashable callable: ask each time
            return ask(func)

    app.ensure_sync = ensure_sync  # type: ignore[method-assign]
    app.extensions[SYNC_CACHE_EXTENSION] = (known, ask)


def skip_pass_throughs(
    app: Flask, targets: Mapping[Callable[..., Any], Callable[..., Any]]
) -> None:
    """Answer ``app.ensure_sync(wrapper)`` with ``app.ensure_sync(target)`` for each pair in
    ``targets``: each wrapper only calls its target with the same arguments, so a caller that asks
    the app for it calls the target directly. Nothing happens without the cache (tricks off)."""
    cache = app.extensions.get(SYNC_CACHE_EXTENSION)
    if cache is None:
        return
    known, ask = cache
    for wrapper, target in targets.items():
        known[wrapper] = ask(target)
