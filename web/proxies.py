"""The client address behind reverse proxies: trusted only as far as the operator says.

With ``TRUSTED_PROXY_HOPS=0`` (the default) the peer address of the connection is the client,
and ``X-Forwarded-For`` is ignored: any client can write that header. Behind N proxies that each
append the address they saw (nginx in front of gunicorn: N = 1), Werkzeug's ProxyFix takes the
N-th address from the right, which no client can forge. The failed-key throttle, the quota's
fallback bucket and the access log all read this one resolved ``REMOTE_ADDR``.
"""

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix


def trust_proxies(app: Flask) -> None:
    """Wrap the WSGI app (outermost) so it sees the client address the trusted hops report."""
    hops = app.config["TRUSTED_PROXY_HOPS"]
    if hops > 0:
        # Only the address and scheme: the Host header itself is left as the proxy sends it.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
