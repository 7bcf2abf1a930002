"""Schemathesis over the GraphQL schema, in-process against the WSGI app; abuse-limit codes.

Budget: FUZZ_EXAMPLES per root field (default 25); a deeper run::

    FUZZ_EXAMPLES=500 .venv/bin/pytest -p no:cacheprovider tests/fuzz/test_graphql_schemathesis.py

The schema is introspected from make_schema() rather than over HTTP: schemathesis builds its
cases while collecting, before the fixtures that give the app its data and key exist, and the
served schema is the same object (tests/contract pins its SDL).
"""

import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from schemathesis import checks
from schemathesis.specs.graphql.validation import is_client_error

from graphql_schema import GRAPHQL_PATH, make_schema
from graphql_schema.schema import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS
from service import keys

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
# Chosen now: schemathesis builds its cases, headers included, while collecting.
KEY = keys.generate_plaintext()
HEADERS = {"X-API-Key": KEY, "Accept-Encoding": "identity"}
CLIENT_ERROR = 400

schema = schemathesis.graphql.from_dict(make_schema().introspect())
schema.location = GRAPHQL_PATH
schema.config.generation.update(max_examples=EXAMPLES, database="none")
# The WSGI transport hands bodies over as sent; ask for them uncompressed.
schema.config.update(headers=HEADERS)


@pytest.fixture(autouse=True, scope="module")
def _grant_key(grant_key: Callable[[str], str]) -> None:
    grant_key(KEY)


def server_errors(status: int, body: Any) -> list[Any]:
    """What this API counts as a server error: a 5xx, or an error not labelled as the client's.

    Every GraphQL error carries extensions.code, the REST status it stands for: 400 (or 404) for
    the client's mistakes, 500 with the masked "Unexpected error" for anything else.
    """
    if status >= 500 or not isinstance(body, dict):
        return [body]
    return [
        error
        for error in body.get("errors") or []
        if not isinstance(error.get("extensions", {}).get("code"), int)
        or not 400 <= error["extensions"]["code"] < 500
        or error.get("message") == "Unexpected error"
    ]


def cost_refusal(body: Any) -> bool:
    """Whether ``body`` refuses the whole document for its estimate: no data, one error with
    code 400 whose extensions name an estimate above the budget."""
    if not isinstance(body, dict) or body.get("data") is not None:
        return False
    errors = body.get("errors") or []
    if len(errors) != 1:
        return False
    extensions = errors[0].get("extensions", {})
    cost = extensions.get("cost", {})
    return extensions.get("code") == CLIENT_ERROR and cost.get("requested", 0) > cost.get(
        "budget", float("inf")
    )


@schema.parametrize()
def test_every_generated_document_is_answered_without_a_server_error(
    case: schemathesis.Case, fuzz_app: Flask, tally: Callable[[str], Any]
) -> None:
    counts = tally("schemathesis graphql")
    with counts.case():
        # Argument values the schema cannot rule out (effect: "", limit: 0) are refused by the
        # resolvers with an error that has a path and extensions.code 400; schemathesis's generic
        # server-error check reads any such error as a server failure, so this API's own
        # definition (server_errors) replaces that one check. A schema-valid document whose
        # estimate passes even the lifted budget (an offset near 2^31 is rows read) is refused
        # by design, so for it alone the acceptance check gives way to cost_refusal's.
        # The others all run.
        response = case.call(app=fuzz_app)
        body = response.json()
        excluded = [checks.not_a_server_error]
        if cost_refusal(body):
            excluded.append(checks.positive_data_acceptance)
        case.validate_response(response, excluded_checks=excluded)
        assert server_errors(response.status_code, body) == []
    counts[f"status {response.status_code}"] += 1
    counts["answered with client errors"] += bool(body.get("errors"))


def test_a_schema_valid_document_past_the_lifted_budget_is_a_cost_refusal(fuzz_app: Flask) -> None:
    """Schemathesis generated this one (search at an offset near 2^31): schemathesis reads the
    answer as a client error, and cost_refusal recognises it, so the fuzz case above accepts it."""
    document = '{ search(q: "x", offset: 2147483647) { items { ... on Doctor { city } } total } }'
    answer = fuzz_app.test_client().post("/graphql", json={"query": document}, headers=HEADERS)
    body = answer.get_json()
    assert answer.status_code == 200
    assert is_client_error(body)
    assert cost_refusal(body), body
    assert not cost_refusal(
        {"data": None, "errors": [{"message": "x", "extensions": {"code": 400}}]}
    )


# --- abuse limits -----------------------------------------------------------------------------


def deep(levels: int) -> tuple[str, str]:
    """A document ``levels`` deep: deals -> items -> dispensary -> deals -> ... -> id.

    The root field is level 0 and the leaf counts (``{ deals { items { id } } }`` is 2 deep).
    """
    fields = ["deals(limit: 1)", "items"]
    while len(fields) < levels:
        fields.append("dispensary" if len(fields) % 2 == 0 else "deals(limit: 1)")
    selection = "id"
    for field in reversed(fields):
        selection = f"{field} {{ {selection} }}"
    return f"{{ {selection} }}", f"'anonymous' exceeds maximum operation depth of {MAX_DEPTH}"


def aliased(count: int) -> tuple[str, str]:
    fields = " ".join(f'a{n}: law(state: "CA") {{ state }}' for n in range(count))
    return f"{{ {fields} }}", f"{count} aliases found. Allowed: {MAX_ALIASES}"


def long(tokens: int) -> tuple[str, str]:
    """A document of ``tokens`` tokens: "{ laws {", one field repeated, then "} }"."""
    return (
        "{ laws { " + "state " * (tokens - 5) + "} }",
        f"Syntax Error: Document contains more than {MAX_TOKENS} tokens. Parsing aborted.",
    )


def repeated(count: int) -> tuple[str, str]:
    """One field ``count`` times: graphql-core stops comparing same-named fields at ~700."""
    return "{ laws { " + "state " * count + "} }", "Validation aborted."


OVER_A_LIMIT = st.one_of(
    st.integers(MAX_DEPTH + 1, 3 * MAX_DEPTH).map(deep),
    st.integers(MAX_ALIASES + 1, 4 * MAX_ALIASES).map(aliased),
    st.integers(MAX_TOKENS + 1, 2 * MAX_TOKENS).map(long),
    st.integers(750, MAX_TOKENS - 5).map(repeated),
)


@settings(max_examples=EXAMPLES, deadline=None, database=None)
@given(over_a_limit=OVER_A_LIMIT)
def test_documents_over_a_limit_are_refused_with_a_stable_message_and_code_400(
    fuzz_app: Flask, tally: Callable[[str], Any], over_a_limit: tuple[str, str]
) -> None:
    document, message = over_a_limit
    with tally("graphql limits").case():
        response = fuzz_app.test_client().post(
            GRAPHQL_PATH, json={"query": document}, headers=HEADERS
        )
        body = response.get_json()
        assert response.status_code == 200
        assert body["data"] is None
        assert [(e["message"], e["extensions"]["code"]) for e in body["errors"]] == [
            (message, CLIENT_ERROR)
        ]
