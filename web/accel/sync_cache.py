"""Flask asks once per app, not once per request, whether each hook and view is a coroutine.

Private API (Flask): ``Flask.ensure_sync``, which Flask calls for every hook and view on every
request (an implementation detail) to ask ``inspect.iscoroutinefunction``. The answer for a
callable never changes, so it is kept.
"""

from collections.abc import Callable
from typing import Any

from flask import Flask

PRIVATE_API = ("flask.app.Flask.ensure_sync",)


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
