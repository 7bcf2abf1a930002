"""The current request and its ``g``, reached once per hook.

Every attribute read through Flask's ``request`` and ``g`` proxies looks the request context up
again (about as dear as the rest of a small hook); a hook that reads several binds the objects
once with these. ``_get_current_object()`` is how Flask's documentation says to reach the object
behind a proxy.
"""

from typing import cast

from flask import Request, g, request
from flask.ctx import _AppCtxGlobals


def current_request() -> Request:
    """The request being served (not a proxy to it)."""
    return cast(Request, request._get_current_object())  # type: ignore[attr-defined]


def current_g() -> _AppCtxGlobals:
    """The ``g`` of the request being served (not a proxy to it)."""
    return cast(_AppCtxGlobals, g._get_current_object())
