"""Each request starts at the base of a fresh CPython data-stack chunk.

Private API: none importable. It relies on how CPython 3.11-3.13 keeps frames: in 16 KiB
data-stack chunks per thread, a chunk unmapped as soon as the frame at its base returns. A call
loop that crosses a chunk boundary then maps and unmaps a chunk on every call, and whether a
request's loops cross one depends only on how deep the server's own frames sit. Calling the app
from a frame larger than a chunk gives that frame a chunk of its own and starts the app's frames
in a fresh one: the same headroom on every request (docs/performance.md has the measurements).
Mapping that chunk costs a request some tens of microseconds, so only the paths whose requests
run deep (the edges name them in web.routes.deep_paths: the GraphQL endpoint) take the trampoline.
"""

import sys
from collections.abc import Callable, Collection, Iterable
from typing import Any

PRIVATE_API: tuple[str, ...] = ()

_CHUNK_BYTES = 16 * 1024  # DATA_STACK_CHUNK_SIZE in CPython 3.11-3.13
_LOCALS = _CHUNK_BYTES // 8 + 64  # a pointer per local: a frame larger than one chunk
APPLIES = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info < (3, 14)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _make_trampoline() -> Callable[[WsgiApp, dict[str, Any], Callable[..., Any]], Iterable[bytes]]:
    """``enter(app, environ, start_response)``, whose frame has ``_LOCALS`` unused locals."""
    names = " = ".join(f"_{i}" for i in range(_LOCALS))
    source = (
        "def enter(app, environ, start_response):\n"
        f"    if False:\n        {names} = None\n"
        "    return app(environ, start_response)\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<fresh stack chunk>", "exec"), namespace)  # our own fixed text
    enter: Callable[[WsgiApp, dict[str, Any], Callable[..., Any]], Iterable[bytes]]
    enter = namespace["enter"]
    return enter


class FreshStackChunk:
    """WSGI middleware: call ``app`` from the base of a fresh data-stack chunk for requests to
    ``paths`` (a set the app may still add to); other requests go to ``app`` directly."""

    def __init__(self, app: WsgiApp, paths: Collection[str]) -> None:
        self.app = app
        self.paths = paths
        self._enter = _make_trampoline()

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in self.paths:
            return self._enter(self.app, environ, start_response)
        return self.app(environ, start_response)
