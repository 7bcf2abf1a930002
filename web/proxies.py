"""The client address behind reverse proxies: trusted only as far as the operator says.

With ``TRUSTED_PROXY_HOPS=0`` (the default) the peer address is the client and ``X-Forwarded-For``
is ignored. Behind N proxies that each append the address they saw (nginx: N = 1), Werkzeug's
ProxyFix takes the N-th address from the right, used only if it is an IP address. The failed-key
throttle, the quota's fallback bucket and the access log all read this one ``REMOTE_ADDR``.
"""

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
# Where ProxyFix keeps the values it replaced (documented by Werkzeug).
ORIGINAL = "werkzeug.proxy_fix.orig"


def trust_proxies(app: Flask) -> None:
    """Wrap the WSGI app (outermost) so it sees the client address the trusted hops report."""
    hops = app.config["TRUSTED_PROXY_HOPS"]
    if hops > 0:
        # Only the address and scheme: the Host header itself is left as the proxy sends it.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            ForwardedAddressChecked(app.wsgi_app), x_for=hops, x_proto=hops
        )


def ip_address_text(value: str) -> str | None:
    """``value`` as one spelling of an IP address (IPv4-mapped IPv6 as IPv4), or None when it
    is none: a name, a port, a zone (``%eth0``, the proxy's own interface) or garbage."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id is not None:
            return None
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
    return str(address)


class ForwardedAddressChecked:
    """Runs inside ProxyFix: a forwarded address that is no IP address gives way to the peer's."""

    def __init__(self, app: WsgiApp) -> None:
        self._app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        peer = environ.get(ORIGINAL, {}).get("REMOTE_ADDR")
        forwarded = environ.get("REMOTE_ADDR")
        if forwarded != peer:
            environ["REMOTE_ADDR"] = ip_address_text(forwarded or "") or peer
        return self._app(environ, start_response)
