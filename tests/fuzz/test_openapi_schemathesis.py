"""Schemathesis over the published OpenAPI document, in-process against the WSGI app.

Every operation runs the examples, coverage and fuzzing phases in positive and negative modes
with every registered check: no 5xx, status codes, content types, headers and bodies as
documented, schema-valid requests accepted, schema-invalid ones refused, Allow on 405, keys
enforced. Budget: FUZZ_EXAMPLES per operation (default 25); a deeper run::

    FUZZ_EXAMPLES=500 .venv/bin/pytest -p no:cacheprovider tests/fuzz/test_openapi_schemathesis.py

One check is left out of a case only where the document itself says the answer differs from
what OpenAPI alone implies, and the case must then get the answer the document states:

- positive_data_acceptance, for a schema-valid case that breaks a rule OpenAPI 3.0 cannot
  express (PROSE_RULES; each is written in its operation's or parameter's description): the
  answer must be the 400 naming the rule's parameter;
- negative_data_rejection, for a schema-invalid case that the descriptions say the server reads
  all the same (any case, 1 and 0: rest.parameters.ACCEPTS): the answer must be a 200.

Numbers are sent as schemathesis writes them (Python's str(): 1e-05, 5e-324), which the server
reads like any other JSON number form.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import schemathesis
from flask import Flask
from marshmallow import Schema
from schemathesis.checks import (
    CHECKS,
    load_all_checks,
    negative_data_rejection,
    positive_data_acceptance,
)

from app import LIMITER_EXTENSION, create_app
from rest.args import (
    DealArgs,
    DispensaryArgs,
    DoctorArgs,
    LawArgs,
    SearchArgs,
    StockistArgs,
    StrainArgs,
)
from rest.blueprint import ALWAYS_ALLOWED
from rest.changes import ChangeArgs
from rest.openapi import OPENAPI_PATH
from service import keys
from service.changes import read_cursor
from service.errors import InvalidParameter
from service.geo import zip_point
from service.places import locate
from service.when import instant, since
from tests.fuzz.grammar import reads

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
load_all_checks()
EVERY_CHECK = [check for check in CHECKS.get_all() if callable(check)]

# The query arguments of each operation that takes any (the others take none).
ARGUMENTS: dict[str, type[Schema]] = {
    "listStrains": StrainArgs,
    "listDispensaries": DispensaryArgs,
    "listStrainDispensaries": StockistArgs,
    "listDeals": DealArgs,
    "listDoctors": DoctorArgs,
    "listLaws": LawArgs,
    "search": SearchArgs,
    "listChanges": ChangeArgs,
}


@schema.auth()
class FuzzKey:
    """The X-API-Key of a key allowed a billion requests an hour (granted by _grant_key)."""

    def get(self, case: schemathesis.Case, context: schemathesis.AuthContext) -> str:
        return KEY

    def set(self, case: schemathesis.Case, data: str, context: schemathesis.AuthContext) -> None:
        case.headers = {**(case.headers or {}), "X-API-Key": data}


# --- rules OpenAPI 3.0 cannot express, as the document states them ---------------------------


@dataclass(frozen=True)
class ProseRule:
    """A rule written in the document's prose: ``text`` appears in the description of the
    operation (rules across parameters) or of ``param``; ``broken(query)`` tells a query that
    breaks it, which gets a 400 naming ``param``."""

    text: str
    param: str
    broken: Callable[[dict[str, str]], bool]


def _above(low: str, high: str) -> Callable[[dict[str, str]], bool]:
    def broken(query: dict[str, str]) -> bool:
        return low in query and high in query and float(query[low]) > float(query[high])

    return broken


def _unknown_zip(query: dict[str, str]) -> bool:
    if "zip" not in query:
        return False
    try:
        zip_point(query["zip"].strip())
    except InvalidParameter:
        return True
    return False


def _bad_city(query: dict[str, str]) -> bool:
    if "city" not in query:
        return False
    folded = " ".join(query["city"].split()).lower()
    return not (0 < len(folded) <= CITY_MAX_LENGTH and folded.isprintable())


CITY_RULE = ProseRule("1 to 80 printable characters once runs of whitespace", "city", _bad_city)
ZIP_RULE = ProseRule("A known five-digit US ZIP code", "zip", _unknown_zip)


def _kinds(query: dict[str, str]) -> list[str]:
    """The locations a query gives, as the parameter a 400 names for each (lat for lat/lng)."""
    given = [("zip", "zip" in query), ("lat", "lat" in query or "lng" in query)]
    given.append(("bbox", "bbox" in query))
    return [param for param, present in given if present]


def _lone(name: str, other: str) -> Callable[[dict[str, str]], bool]:
    return lambda query: name in query and other not in query


def _point(query: dict[str, str]) -> bool:
    return "zip" in query or "lat" in query


def _bad_box(query: dict[str, str]) -> bool:
    if "bbox" not in query:
        return False
    try:
        locate(bbox=query["bbox"])
    except InvalidParameter:
        return True
    return False


def _bad_instant(query: dict[str, str]) -> bool:
    if "open_at" not in query:
        return False
    try:
        instant(query["open_at"])
    except InvalidParameter:
        return True
    return False


def _not_a_cursor(query: dict[str, str]) -> bool:
    if "since" not in query:
        return False
    try:
        read_cursor(query["since"])
    except InvalidParameter:
        return True
    return False


def _place_rules(*, boxes: bool, timed: bool, sorts: bool = True) -> list[ProseRule]:
    """The rules across the location (and time) parameters, written in the operation's
    description, and those of bbox and open_at written in theirs."""
    rules = [
        ProseRule("lat and lng go together", "lat", _lone("lat", "lng")),
        ProseRule("lat and lng go together", "lng", _lone("lng", "lat")),
        ProseRule(
            "radius needs zip or lat/lng",
            "radius",
            lambda q: "radius" in q and not _point(q),
        ),
        ZIP_RULE,
        CITY_RULE,
    ]
    if sorts:
        rules.append(
            ProseRule(
                "sort=distance needs zip or lat/lng",
                "sort",
                lambda q: q.get("sort", "").strip().lower() == "distance" and not _point(q),
            )
        )
    if boxes:
        for second in ("lat", "bbox"):
            rules.append(
                ProseRule(
                    "at most one of zip, lat/lng and bbox",
                    second,
                    lambda q, second=second: len(_kinds(q)) > 1 and _kinds(q)[1] == second,
                )
            )
        rules.append(ProseRule("South must not exceed north", "bbox", _bad_box))
    else:
        rules.append(
            ProseRule("at most one of zip and lat/lng", "lat", lambda q: "zip" in q and "lat" in q)
        )
    if timed:
        rules.append(
            ProseRule(
                "not both open_now and open_at",
                "open_at",
                lambda q: "open_now" in q and "open_at" in q,
            )
        )
        rules.append(ProseRule("years 1970 to 2100", "open_at", _bad_instant))
    return rules


PROSE_RULES: dict[str, list[ProseRule]] = {
    # Two parameters each: written in the operation's description.
    "listStrains": [
        ProseRule(
            "thc_min must not be greater than thc_max", "thc_min", _above("thc_min", "thc_max")
        ),
        ProseRule(
            "cbd_min must not be greater than cbd_max", "cbd_min", _above("cbd_min", "cbd_max")
        ),
    ],
    # One parameter, but not a pattern: a ZIP code in the gazetteer, a length counted after
    # whitespace is collapsed and printability as str.isprintable() sees it (any script).
    "listDispensaries": _place_rules(boxes=True, timed=True),
    "listStrainDispensaries": _place_rules(boxes=True, timed=True),
    "listDeals": _place_rules(boxes=False, timed=True),
    "listDoctors": _place_rules(boxes=True, timed=False),
    # A cursor is opaque text the feed gave: any other string is refused.
    "listChanges": [ProseRule("meta.next of the previous page", "since", _not_a_cursor)],
}


def _bad_since(query: dict[str, str]) -> bool:
    """An updated_since its pattern lets through but the server refuses: a day or time that does
    not exist, or an instant in the future."""
    if "updated_since" not in query:
        return False
    try:
        since(query["updated_since"], lambda: datetime.now(UTC))
    except InvalidParameter:
        return True
    return False


# Every list takes updated_since (its description says it must not be in the future).
for _operation in (
    "listStrains",
    "listDispensaries",
    "listStrainDispensaries",
    "listDeals",
    "listDoctors",
    "listLaws",
):
    PROSE_RULES.setdefault(_operation, []).append(
        ProseRule("not in the future", "updated_since", _bad_since)
    )


def broken_rules(operation_id: str, query: dict[str, str]) -> set[str]:
    """The parameters named by the prose rules ``query`` breaks."""
    return {rule.param for rule in PROSE_RULES.get(operation_id, []) if rule.broken(query)}


def read_by_the_server(operation_id: str, pairs: list[tuple[str, str]]) -> bool:
    """True when the descriptions say the server answers 200 to these query pairs: each name
    known and given once, each value in the grammar its field reads (rest.parameters.ACCEPTS, else
    the published pattern), the required ones present and no prose rule broken."""
    arguments = ARGUMENTS.get(operation_id)
    fields = {f.data_key or n: f for n, f in arguments().fields.items()} if arguments else {}
    names = [name for name, _ in pairs if name not in ALWAYS_ALLOWED]
    if len(set(names)) != len(names) or not set(names) <= set(fields):
        return False
    query = {name: value for name, value in pairs if name in fields}
    if any(field.required and name not in query for name, field in fields.items()):
        return False
    if not all(reads(fields[name], value) for name, value in query.items()):
        return False
    return not broken_rules(operation_id, query)


# --- the run ----------------------------------------------------------------------------------


@pytest.fixture(autouse=True, scope="module")
def _grant_key(grant_key: Callable[[str], str]) -> None:
    grant_key(KEY)


def _sent_pairs(response: Any) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(response.request.url).query, keep_blank_values=True)


def _only_query_negative(case: schemathesis.Case) -> bool:
    """A negative case whose only schema-invalid part is its query."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return False
    negative = {where.value for where, info in meta.components.items() if info.mode.is_negative}
    return negative == {"query"}


@schema.parametrize()
def test_every_operation_keeps_the_published_contract(
    case: schemathesis.Case, fuzz_app: Flask, tally: Callable[[str], Any]
) -> None:
    counts = tally("schemathesis openapi")
    # ignored_auth probes every accepted case without a key and with a bad one; fresh counters
    # per case keep those probes from adding up to the per-address failed-key lockout.
    fuzz_app.extensions[LIMITER_EXTENSION].reset()
    operation_id = case.operation.definition.raw["operationId"]
    with counts.case():
        response = case.call(app=fuzz_app)
        pairs = _sent_pairs(response)
        excluded = []
        positive = case.meta is not None and case.meta.generation.mode.is_positive
        rules = broken_rules(operation_id, dict(pairs)) if positive else set()
        if rules:  # a rule in the prose: the 400 it states, not the schema's promise
            excluded.append(positive_data_acceptance)
            assert response.status_code == 400, response.text
            assert response.json()["error"]["param"] in rules, (response.text, pairs)
            counts["positive cases breaking a prose rule"] += 1
        elif _only_query_negative(case) and read_by_the_server(operation_id, pairs):
            excluded.append(negative_data_rejection)
            # The query is read; the path decides the rest (an unknown id is still a 404).
            assert response.status_code in (200, 404), response.text
            counts["negative cases the descriptions accept"] += 1
        case.validate_response(
            response,
            checks=EVERY_CHECK,
            excluded_checks=excluded,
            transport_kwargs={"app": fuzz_app},  # where ignored_auth sends its probes
        )
    counts[f"status {response.status_code}"] += 1


def test_each_prose_rule_is_written_where_the_document_says_it() -> None:
    document = schema.raw_schema
    operations = {item["get"]["operationId"]: item["get"] for item in document["paths"].values()}
    for operation_id, rules in PROSE_RULES.items():
        operation = operations[operation_id]
        descriptions = {p["name"]: p["description"] for p in operation["parameters"]}
        for rule in rules:
            written = operation.get("description", "") + " " + descriptions[rule.param]
            assert rule.text in " ".join(written.split()), (operation_id, rule.text)


@pytest.mark.parametrize(
    ("path", "parameter", "list_path", "key"),
    [
        ("/api/v1/strains/{slug}", "slug", "/api/v1/strains", "slug"),
        ("/api/v1/dispensaries/{dispensary_id}", "dispensary_id", "/api/v1/dispensaries", "id"),
        ("/api/v1/deals/{deal_id}", "deal_id", "/api/v1/deals", "id"),
        ("/api/v1/doctors/{doctor_id}", "doctor_id", "/api/v1/doctors", "id"),
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
    response = case.call_and_validate(app=fuzz_app, checks=EVERY_CHECK)
    assert response.status_code == 200
