"""How /graphql reads its HTTP parameters: each at most once, from the URL of a GET or the body
of a POST, and a document of several operations only with the one to run named."""

import uuid
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from strawberry.extensions import ParserCache

from tests.graphql_refusals import refusal, refusal_body

MICHIGAN = '{ law(state: "MI") { state } }'
IDAHO = '{ law(state: "ID") { state } }'
PARAMETERS = {
    "query": (MICHIGAN, IDAHO),
    "variables": ('{"s": "MI"}', '{"s": "ID"}'),
    "operationName": ("A", "B"),
    "extensions": ("{}", '{"x": 1}'),
}
BY_VARIABLE = "query A($s: String!) { law(state: $s) { state } }"


def _error(code: int, message: str, param: str | None = None) -> dict:
    error = {"code": code, "message": message, "docs": f"/docs/errors#error-{code}"}
    return error if param is None else {**error, "param": param}


@pytest.mark.usefixtures("speed_tricks")  # the replay store and the result cache are on
def test_a_repeated_query_is_refused_so_no_order_is_answered_with_the_others_result(
    make_app: Callable[..., Flask], api_keys: dict
) -> None:
    # Both orders have the same sorted parameters, the replay store's key: were the first
    # value run, Idaho's order would be answered with Michigan's stored result.
    client = make_app(STATE_TTL_MS=60_000).test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    first = client.get(
        "/graphql", query_string=[("query", MICHIGAN), ("query", IDAHO)], headers=headers
    )
    again = client.get(
        "/graphql", query_string=[("query", IDAHO), ("query", MICHIGAN)], headers=headers
    )
    assert [first.status_code, again.status_code] == [400, 400], again.get_json()
    assert again.get_json() == refusal_body(400, "query was given more than once", "query")
    alone = client.get("/graphql", query_string={"query": IDAHO}, headers=headers)
    assert alone.get_json()["data"] == {"law": {"state": "Idaho"}}


@pytest.mark.parametrize("name", PARAMETERS)
def test_every_graphql_parameter_given_twice_in_a_get_is_a_400_naming_it(
    client: FlaskClient, api_keys: dict, name: str
) -> None:
    given = {"query": BY_VARIABLE, "variables": '{"s": "MI"}'}
    query_string = [(n, v) for n, v in given.items() if n != name]
    query_string += [(name, value) for value in PARAMETERS[name]]
    response = client.get(
        "/graphql", query_string=query_string, headers={"X-API-Key": api_keys["pro"]}
    )
    assert response.status_code == 400
    assert refusal(response) == _error(400, f"{name} was given more than once", name)


@pytest.mark.parametrize("name", PARAMETERS)
def test_a_graphql_parameter_in_the_url_of_a_post_is_a_400_naming_it(
    client: FlaskClient, api_keys: dict, name: str
) -> None:
    # What runs is the body; a parameter in the URL would look as if it counted.
    response = client.post(
        "/graphql",
        query_string={name: PARAMETERS[name][1]},
        json={"query": BY_VARIABLE, "variables": {"s": "MI"}},
        headers={"X-API-Key": api_keys["pro"]},
    )
    assert response.status_code == 400
    assert refusal(response) == _error(
        400, f"{name} belongs in the body of a POST, not in its URL", name
    )


def test_a_post_may_carry_its_key_and_other_parameters_in_the_url(
    client: FlaskClient, api_keys: dict
) -> None:
    response = client.post(
        "/graphql",
        query_string={"api_key": api_keys["pro"], "_": "cache-buster"},
        json={"query": MICHIGAN},
    )
    assert response.status_code == 200
    assert response.get_json()["data"] == {"law": {"state": "Michigan"}}


SEVERAL = {
    "named": ('query A { law(state: "MI") { state } } query B { laws { state } }', "A, B"),
    "one anonymous": ('{ law(state: "MI") { state } } query B { laws { state } }', "anonymous, B"),
    "with a fragment": (
        "query A { ...F } query B { ...F } fragment F on Query { laws { state } }",
        "A, B",
    ),
}


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("case", SEVERAL)
def test_several_operations_without_an_operation_name_are_a_400_naming_them(
    client: FlaskClient, api_keys: dict, method: str, case: str
) -> None:
    document, names = SEVERAL[case]
    headers = {"X-API-Key": api_keys["pro"]}
    if method == "GET":
        response = client.get("/graphql", query_string={"query": document}, headers=headers)
    else:
        response = client.post("/graphql", json={"query": document}, headers=headers)
    assert response.status_code == 400
    assert refusal(response) == _error(
        400,
        f"the document has several operations ({names}): say which one to run in operationName",
        "operationName",
    )


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_operation_name_picks_one_of_several(
    client: FlaskClient, api_keys: dict, method: str
) -> None:
    document = SEVERAL["named"][0]
    headers = {"X-API-Key": api_keys["pro"]}
    params = {"query": document, "operationName": "A"}
    if method == "GET":
        response = client.get("/graphql", query_string=params, headers=headers)
    else:
        response = client.post("/graphql", json=params, headers=headers)
    assert response.status_code == 200
    assert response.get_json()["data"] == {"law": {"state": "Michigan"}}


def test_an_operation_name_that_names_no_operation_is_a_400_naming_the_ones_there(
    client: FlaskClient, api_keys: dict
) -> None:
    response = client.post(
        "/graphql",
        json={"query": SEVERAL["named"][0], "operationName": "C"},
        headers={"X-API-Key": api_keys["pro"]},
    )
    assert response.status_code == 400
    assert refusal(response) == _error(
        400, 'the document has no operation named "C" (it has A, B)', "operationName"
    )


def test_anonymous_is_no_operation_name(client: FlaskClient, api_keys: dict) -> None:
    response = client.post(
        "/graphql",
        json={"query": SEVERAL["one anonymous"][0], "operationName": "anonymous"},
        headers={"X-API-Key": api_keys["pro"]},
    )
    assert response.status_code == 400
    assert refusal(response)["message"] == (
        'the document has no operation named "anonymous" (it has anonymous, B)'
    )


def test_a_new_document_is_parsed_once_per_request(client: FlaskClient, api_keys: dict) -> None:
    # The view's check and the schema's ParserCache share one cache entry.
    parsed = ParserCache().cached_parse_document
    before = parsed.cache_info()
    document = f'query Once {{ law(state: "WA") {{ state }} }} # {uuid.uuid4()}'
    response = client.post(
        "/graphql", json={"query": document}, headers={"X-API-Key": api_keys["pro"]}
    )
    after = parsed.cache_info()
    assert response.get_json()["data"] == {"law": {"state": "Washington"}}
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
