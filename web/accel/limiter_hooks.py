"""Flask-Limiter's request hooks skip the requests web.accel.quota has already charged.

Private API: the hooks Flask-Limiter registers, found by identity in the app's hook lists:
``Limiter._check_request_limit`` (before), ``Limiter.__inject_headers`` (after, registered as a
partial of it) and ``Limiter.__release_context`` (teardown).

A charged request is exempt from the limiter anyway (web.limits' request filter), but its hooks
would still run: the check resolves limits, meta limits and exemption scopes before finding
nothing to do, and the after and teardown hooks build and clear a context the check never
filled. Each is wrapped so that a charged request skips it; every other request runs it as is.
"""

from collections.abc import Callable
from typing import Any

from flask import Flask
from flask_limiter import Limiter

from web.context import current_g
from web.limits import CHARGED

PRIVATE_API = (
    "flask_limiter.Limiter._check_request_limit",
    "flask_limiter.Limiter._Limiter__inject_headers",
    "flask_limiter.Limiter._Limiter__release_context",
)


def skip_when_charged(app: Flask, limiter: Limiter) -> None:
    """Wrap ``limiter``'s hooks on ``app`` (call right after ``limiter.init_app(app)``)."""
    check = limiter._check_request_limit
    release = limiter._Limiter__release_context  # type: ignore[attr-defined]  # name-mangled
    inject = Limiter._Limiter__inject_headers  # type: ignore[attr-defined]  # name-mangled
    _unless_charged(app.before_request_funcs[None], lambda hook: hook == check)
    _unless_charged(
        app.after_request_funcs[None],
        lambda hook: getattr(hook, "func", None) is inject,
        passes_response=True,
    )
    _unless_charged(app.teardown_request_funcs[None], lambda hook: hook == release)


def _unless_charged(
    hooks: list[Callable[..., Any]],
    is_it: Callable[[Callable[..., Any]], bool],
    *,
    passes_response: bool = False,
) -> None:
    """Replace the first hook in ``hooks`` that ``is_it`` accepts with one that runs it only
    for requests web.accel.quota did not charge. ``passes_response``: an after-request hook,
    which hands the response on either way."""
    original = next((hook for hook in hooks if is_it(hook)), None)
    if original is None:
        return

    def skipped_when_charged(*args: Any) -> Any:
        if current_g().get(CHARGED) is not None:
            return args[0] if passes_response else None
        return original(*args)

    hooks[hooks.index(original)] = skipped_when_charged
