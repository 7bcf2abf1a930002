"""Route policy: whether a request needs an API key, is charged to the key's quota, gets ETags,
and how its errors are written.

A route declares its policy where it is defined, with :func:`route_policy` on its view function.
Requests that match no route (a 404, a 405) and routes that declare nothing take the policy of
the path they fall under, declared with :func:`declare_paths` by the edge that owns the path;
anything else is open (no key, no charge, no ETag). The web hooks (auth, conditional requests,
quota) read the current request's policy from :func:`request_policy`.
"""

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from flask import Flask, Response, current_app

from .context import current_g, current_request

V = TypeVar("V", bound=Callable[..., object])

# Renders an error (status, message, docs link, parameter or None) as the body and content type
# a route's clients read; web.errors sets the status and headers. None: the REST envelope.
ErrorRenderer = Callable[[int, str, str, str | None], Response]

POLICY_ATTRIBUTE = "route_policy"  # on a view function
PATHS_EXTENSION = "cds.route_paths"
NUMBERS_EXTENSION = "cds.number_params"
DEEP_PATHS_EXTENSION = "cds.deep_paths"


@dataclass(frozen=True)
class RoutePolicy:
    keyed: bool = False  # a request without a valid key is refused (401)
    metered: bool = False  # a keyed request is charged to the key's quota
    conditional: bool = False  # a keyed 200 carries an ETag; a matching If-None-Match gets a 304
    # A request this accepts is served as open (the GraphiQL page: GET /graphql without a query).
    open_when: Callable[[], bool] | None = None
    # The answer depends on the current minute: always (True), or when one of these query
    # parameters is given (open_now). Its ETag then names the minute (web.conditional).
    clocked: bool | tuple[str, ...] = False
    # Whether the answer reads the clock is known once it has run (a GraphQL document): its tag
    # names the minute only when it did (web.today.request_now).
    clocked_by_answer: bool = False
    # A conditional 200 may be kept this many seconds (``private, max-age``); None: revalidate.
    max_age: int | None = None
    # A request this gives a policy for is served under that one (a persisted GraphQL GET).
    refine: "Callable[[], RoutePolicy | None] | None" = None
    # How the route's errors are written (the GraphQL edge answers GraphQL responses).
    render_error: ErrorRenderer | None = None
    # What the answer depends on besides the data version, read fresh for every request (the
    # change feed's position, which the version's cache may not show yet): part of the ETag,
    # and such answers are never replayed.
    validator: Callable[[], Hashable] | None = None

    def reads_clock(self, params: Iterable[str]) -> bool:
        """Whether a request with the query parameters ``params`` is answered for a minute."""
        if isinstance(self.clocked, bool):
            return self.clocked
        return any(name in self.clocked for name in params)


OPEN = RoutePolicy()


def route_policy(
    *,
    keyed: bool,
    metered: bool,
    conditional: bool,
    open_when: Callable[[], bool] | None = None,
    clocked: bool | tuple[str, ...] = False,
    refine: Callable[[], RoutePolicy | None] | None = None,
    render_error: ErrorRenderer | None = None,
    validator: Callable[[], Hashable] | None = None,
) -> Callable[[V], V]:
    """Declare a view's policy (put it right under the route decorator: it marks the function
    the route registers)."""
    policy = RoutePolicy(
        keyed,
        metered,
        conditional,
        open_when,
        clocked,
        refine=refine,
        render_error=render_error,
        validator=validator,
    )

    def declare(view: V) -> V:
        setattr(view, POLICY_ATTRIBUTE, policy)
        return view

    return declare


@dataclass
class PathPolicies:
    """Policies by path: exact paths first, then the longest matching prefix."""

    exact: dict[str, RoutePolicy] = field(default_factory=dict)
    prefixes: list[tuple[str, RoutePolicy]] = field(default_factory=list)

    def lookup(self, path: str) -> RoutePolicy:
        found = self.exact.get(path)
        if found is not None:
            return found
        for prefix, policy in self.prefixes:
            if path.startswith(prefix):
                return policy
        return OPEN


def declare_paths(
    app: Flask,
    policy: RoutePolicy,
    *,
    exact: Iterable[str] = (),
    prefixes: Iterable[str] = (),
) -> None:
    """Give ``policy`` to requests for the ``exact`` paths or paths starting with one of
    ``prefixes`` whose route declares no policy of its own, or that match no route."""
    paths: PathPolicies = app.extensions.setdefault(PATHS_EXTENSION, PathPolicies())
    for path in exact:
        paths.exact[path] = policy
    paths.prefixes.extend((prefix, policy) for prefix in prefixes)
    paths.prefixes.sort(key=lambda entry: len(entry[0]), reverse=True)


def declared_policy(app: Flask, endpoint: str | None, path: str) -> RoutePolicy:
    """The policy declared for ``endpoint`` (None: no route matched) at ``path``."""
    if endpoint is not None:
        view = app.view_functions.get(endpoint)
        declared: RoutePolicy | None = getattr(view, POLICY_ATTRIBUTE, None)
        if declared is not None:
            return declared
    paths: PathPolicies | None = app.extensions.get(PATHS_EXTENSION)
    return paths.lookup(path) if paths is not None else OPEN


def request_policy() -> RoutePolicy:
    """The current request's policy, worked out once per request."""
    globals_ = current_g()
    policy: RoutePolicy | None = globals_.get("route_policy")
    if policy is None:
        request_ = current_request()
        policy = declared_policy(current_app, request_.endpoint, request_.path)
        if policy.open_when is not None and policy.open_when():
            policy = replace(OPEN, render_error=policy.render_error)
        elif policy.refine is not None:
            policy = policy.refine() or policy
        globals_.route_policy = policy
    return policy


def number_params(app: Flask) -> set[str]:
    """The query parameters that are numbers on every route taking them: the edges add theirs
    while the app is built (rest: limit, radius, ...), and ETags and replay keys read each one's
    value as its canonical number (service.numbers), so ``radius=1e1`` is ``radius=10``. The
    same set object for the app's life (the replay lane holds it)."""
    names: set[str] = app.extensions.setdefault(NUMBERS_EXTENSION, set())
    return names


def deep_paths(app: Flask) -> set[str]:
    """The paths whose requests run deep enough to start in a fresh stack chunk
    (web.accel.stack_chunk): the edges add theirs while the app is built. The same set object for
    the app's life (the middleware holds it)."""
    paths: set[str] = app.extensions.setdefault(DEEP_PATHS_EXTENSION, set())
    return paths
