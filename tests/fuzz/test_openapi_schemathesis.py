"""Schemathesis over the published OpenAPI document, in-process against the WSGI app.

Every operation runs the examples, coverage and fuzzing phases in positive and negative modes
with every default check: no 5xx, status codes, content types, headers and bodies as documented,
schema-valid requests accepted, schema-invalid ones refused, Allow on 405, keys enforced.
Budget: FUZZ_EXAMPLES per operation (default 25); a deeper run::

    FUZZ_EXAMPLES=500 .venv/bin/pytest -p no:cacheprovider tests/fuzz/test_openapi_schemathesis.py
"""

import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from flask import Flask

from app import LIMITER_EXTENSION, create_app
from rest.openapi import OPENAPI_PATH
from service import keys
from service.errors import InvalidParameter
from service.geo import zip_point

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
# Chosen now: coverage cases are built, credentials included, while collecting.
KEY = keys.generate_plaintext()
CITY_MAX_LENGTH = 80

# The document needs no data: an app over an empty in-memory database serves it at import time.
schema = schemathesis.openapi.from_wsgi(
    OPENAPI_PATH, create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
)
schema.config.generation.update(max_examples=EXAMPLES, database="none")
# The WSGI transport hands bodies over as sent; ask for them uncompressed.
schema.config.update(headers={"Accept-Encoding": "identity"})


@schema.auth()
class FuzzKey:
    """The X-API-Key of a key allowed a billion requests an hour (granted by _grant_key)."""

    def get(self, case: schemathesis.Case, context: schemathesis.AuthContext) -> str:
        return KEY

    def set(self, case: schemathesis.Case, data: str, context: schemathesis.AuthContext) -> None:
        case.headers = {**(case.headers or {}), "X-API-Key": data}


def _number(query: dict[str, Any], name: str) -> float | None:
    value = query.get(name)
    return float(value) if isinstance(value, str) else None


def breaks_a_rule_stated_in_prose(query: dict[str, Any]) -> bool:
    """True when ``query`` breaks a documented rule that OpenAPI 3.0 cannot express.

    The parameter descriptions state them: a minimum not above its maximum, radius only with
    zip, zip a known ZIP code, city 1 to 80 printable characters once whitespace is collapsed.
    """
    for low, high in (("thc_min", "thc_max"), ("cbd_min", "cbd_max")):
        low_value, high_value = _number(query, low), _number(query, high)
        if low_value is not None and high_value is not None and low_value > high_value:
            return True
    if "radius" in query and "zip" not in query:
        return True
    if isinstance(query.get("zip"), str):
        try:
            zip_point(query["zip"].strip())
        except InvalidParameter:
            return True
    if isinstance(query.get("city"), str):
        folded = " ".join(query["city"].split()).lower()
        return not (0 < len(folded) <= CITY_MAX_LENGTH and folded.isprintable())
    return False


@schema.hook
def filter_case(context: schemathesis.HookContext, case: schemathesis.Case) -> bool:
    """A schema-valid case counts as valid data only if it also keeps the rules in prose."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return True
    return not breaks_a_rule_stated_in_prose(case.query or {})


@pytest.fixture(autouse=True, scope="module")
def _grant_key(grant_key: Callable[[str], str]) -> None:
    grant_key(KEY)


@schema.parametrize()
def test_every_operation_keeps_the_published_contract(
    case: schemathesis.Case, fuzz_app: Flask, tally: Callable[[str], Any]
) -> None:
    counts = tally("schemathesis openapi")
    # ignored_auth probes every accepted case without a key and with a bad one; fresh counters
    # per case keep those probes from adding up to the per-address failed-key lockout.
    fuzz_app.extensions[LIMITER_EXTENSION].reset()
    with counts.case():
        response = case.call_and_validate(app=fuzz_app)
    counts[f"status {response.status_code}"] += 1


@pytest.mark.parametrize(
    ("path", "parameter", "list_path", "key"),
    [
        ("/api/v1/strains/{slug}", "slug", "/api/v1/strains", "slug"),
        ("/api/v1/dispensaries/{dispensary_id}", "dispensary_id", "/api/v1/dispensaries", "id"),
        ("/api/v1/laws/{state}", "state", None, "CA"),
    ],
)
def test_detail_operations_answer_known_ids_as_documented(
    fuzz_app: Flask, path: str, parameter: str, list_path: str | None, key: str
) -> None:
    client = fuzz_app.test_client()
    headers = {"X-API-Key": KEY, "Accept-Encoding": "identity"}
    value = key
    if list_path is not None:  # random ids are mostly 404s: take a real one from the list
        value = client.get(list_path, headers=headers).get_json()["data"][0][key]
    case = schema[path]["GET"].Case(path_parameters={parameter: value}, headers=headers)
    response = case.call_and_validate(app=fuzz_app)
    assert response.status_code == 200
