"""Each route declares whether it needs a key, is charged and gets ETags (web.routes), and requests
that match no route keep the policy of the path they fall under."""

from dataclasses import replace

import pytest
from flask import Flask

from graphql_schema.refusals import graphql_error_response
from rest.changes import feed_position
from web.routes import OPEN, POLICY_ATTRIBUTE, RoutePolicy, declared_policy

READ = RoutePolicy(keyed=True, metered=True, conditional=True)
UNROUTED_API = RoutePolicy(keyed=True, metered=True)  # a 404 or 405 under /api/v1
# A 405 on /graphql: its errors are GraphQL responses.
UNROUTED_GRAPHQL = replace(UNROUTED_API, render_error=graphql_error_response)

# Answers about opening hours "now" depend on the minute: always (a dispensary's detail), or
# with open_now (web.routes: clocked).
NOW_IF_ASKED = replace(READ, clocked=("open_now",))
API_ROUTES = {
    "/api/v1/strains": READ,
    "/api/v1/strains/<string:slug>": READ,
    "/api/v1/strains/<string:slug>/dispensaries": NOW_IF_ASKED,
    "/api/v1/strains/<string:slug>/lineage": READ,
    "/api/v1/compounds": READ,
    "/api/v1/dispensaries": NOW_IF_ASKED,
    "/api/v1/dispensaries/<string:dispensary_id>": replace(READ, clocked=True),
    "/api/v1/deals": NOW_IF_ASKED,
    "/api/v1/deals/<string:deal_id>": READ,
    "/api/v1/doctors": READ,
    "/api/v1/doctors/<string:doctor_id>": READ,
    "/api/v1/laws": READ,
    "/api/v1/laws/<string:state>": READ,
    "/api/v1/search": READ,
    # The feed's ETag also names the log's position, read fresh (web.routes: validator).
    "/api/v1/changes": replace(READ, validator=feed_position),
    "/api/v1/usage": RoutePolicy(keyed=True),  # reports the quota without spending it
    "/api/v1": OPEN,  # the index: what the API offers and how to get a key
    "/api/v1/": OPEN,
}
OPEN_ROUTES = [
    "/",
    "/health",
    "/metrics",
    "/docs/errors",
    "/api/v1/openapi.json",
    "/api/v1/docs",
    "/api/v1/docs/static/<path:filename>",
    "/graphql/static/graphiql/<path:filename>",
    "/graphql/schema.graphql",
]


def _rules(app: Flask) -> dict[str, str]:
    return {rule.rule: rule.endpoint for rule in app.url_map.iter_rules()}


def test_every_v1_operation_declares_its_policy_where_it_is_defined(app: Flask) -> None:
    operations = {
        rule: endpoint for rule, endpoint in _rules(app).items() if endpoint.startswith("api_v1.")
    }
    assert set(operations) == set(API_ROUTES)
    for rule, endpoint in operations.items():
        assert getattr(app.view_functions[endpoint], POLICY_ATTRIBUTE) == API_ROUTES[rule], rule


def test_graphql_needs_a_key_and_is_charged_but_gets_no_etags(app: Flask) -> None:
    policy = getattr(app.view_functions["graphql"], POLICY_ATTRIBUTE)
    assert (policy.keyed, policy.metered, policy.conditional) == (True, True, False)
    assert policy.open_when is not None  # the GraphiQL page
    assert policy.render_error is graphql_error_response


def test_rest_errors_keep_the_envelope(app: Flask) -> None:
    rules = _rules(app)
    for rule in API_ROUTES:
        assert declared_policy(app, rules[rule], rule).render_error is None, rule


def test_health_metrics_and_docs_are_open(app: Flask) -> None:
    rules = _rules(app)
    assert set(OPEN_ROUTES) <= set(rules)
    for rule in OPEN_ROUTES:
        assert declared_policy(app, rules[rule], rule) == OPEN, rule


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/api/v1/nowhere", UNROUTED_API),
        ("/api/v1", OPEN),  # the index's path: POST /api/v1 is an open 405
        ("/api/v1/", OPEN),
        ("/api/v1/docs/", UNROUTED_API),  # only the docs page itself and its assets are open
        ("/api/v1/docs/static/missing.js", OPEN),
        ("/api/v1/openapi.json", OPEN),
        ("/graphql", UNROUTED_GRAPHQL),
        ("/graphql/", OPEN),
        ("/api/v1x", OPEN),
        ("/nowhere", OPEN),
    ],
)
def test_requests_that_match_no_route_take_their_paths_policy(
    app: Flask, path: str, expected: RoutePolicy
) -> None:
    assert declared_policy(app, None, path) == expected


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/api/v1/nowhere", 401),
        ("GET", "/api/v1", 200),  # the index
        ("GET", "/api/v1/", 200),
        ("POST", "/api/v1", 405),
        ("POST", "/api/v1/strains", 401),
        ("PUT", "/graphql", 401),
        ("GET", "/graphql", 200),  # GraphiQL
        ("GET", "/api/v1/docs/static/missing.js", 404),
        ("GET", "/graphql/", 404),
        ("GET", "/health", 200),
        ("GET", "/docs/errors", 200),
        ("GET", "/api/v1/openapi.json", 200),
    ],
)
def test_without_a_key(client, method: str, path: str, status: int) -> None:
    response = client.open(path, method=method, headers={"Accept": "text/html"})  # as a browser
    assert response.status_code == status
    assert "X-RateLimit-Limit" not in response.headers


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/api/v1/nowhere", 404), ("POST", "/api/v1/strains", 405), ("PUT", "/graphql", 405)],
)
def test_a_keyed_request_that_matches_no_route_is_charged_without_an_etag(
    client, api_keys: dict, method: str, path: str, status: int
) -> None:
    headers = {"X-API-Key": api_keys["pro"]}
    response = client.open(path, method=method, headers=headers)
    assert response.status_code == status
    body = response.get_json()
    errors = body["errors"] if path == "/graphql" else [{"extensions": body["error"]}]
    assert errors[0]["extensions"]["code"] == status
    assert response.headers["X-RateLimit-Limit"] == "1000"
    assert "ETag" not in response.headers
