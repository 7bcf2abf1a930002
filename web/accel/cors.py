"""flask-cors's headers worked out once per (route, Origin) pair instead of on every response.

Private API (flask-cors): the after-request hook that ``flask_cors.CORS`` registers, made by
``flask_cors.extension.make_after_request_function`` and found in the app's hook list by its
function name, ``cors_after_request``; and the fact that, for a request that is not a preflight
(and asks nothing of private networks), the headers it appends depend only on the resource the
path falls under, which a route decides, and on the Origin header. Anything else still goes to
flask-cors itself.
"""

from collections.abc import Callable
from typing import cast

from flask import Flask, Response

from web.context import current_request

PRIVATE_API = ("flask_cors.extension.make_after_request_function",)
HOOK_NAME = "cors_after_request"

# Distinct (route, Origin) pairs whose CORS headers are kept; others are worked out each time.
CORS_MEMORY = 256
ALLOW_ORIGIN = "Access-Control-Allow-Origin"
PRIVATE_NETWORK_REQUEST = "Access-Control-Request-Private-Network"


def remember_cors_headers(app: Flask) -> None:
    """Wrap flask-cors's after-request hook on ``app`` (call right after ``CORS(app)``)."""
    hooks = app.after_request_funcs[None]
    original = cast(
        "Callable[[Response], Response] | None",  # flask-cors's hook is synchronous
        next((hook for hook in hooks if getattr(hook, "__name__", None) == HOOK_NAME), None),
    )
    if original is None:
        return
    known: dict[tuple[str, str | None], list[tuple[str, str]]] = {}

    def cors_headers(response: Response) -> Response:
        request_ = current_request()
        rule = request_.url_rule
        headers = request_.headers
        if (
            rule is None
            or request_.method == "OPTIONS"
            or PRIVATE_NETWORK_REQUEST in headers
            or ALLOW_ORIGIN in response.headers
        ):
            return original(response)
        key = (rule.rule, headers.get("Origin"))
        added = known.get(key)
        if added is None:
            blank = Response()
            present = len(blank.headers)
            original(blank)  # flask-cors appends its headers to the ones a response starts with
            added = list(blank.headers)[present:]
            if len(known) < CORS_MEMORY:
                known[key] = added
        for name, value in added:
            response.headers.add(name, value)
        return response

    hooks[hooks.index(original)] = cors_headers
