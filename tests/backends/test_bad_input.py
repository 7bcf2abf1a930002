"""Bad input, explicitly: one table of hostile requests, each run on SQLite and on PostgreSQL.

Every row names a request (a REST path and raw query string, or a GraphQL body) and the exact
status the documented behaviour gives it (docs/api.md "Decisions where the spec is silent",
rest/fields.py, service/filters.py). Each case must get that status and a well-formed envelope
on both databases, leave every table's row count unchanged, and never answer 500.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import select
from werkzeug.test import TestResponse

from models import Deal, Dispensary, Doctor, Strain
from service.filters import SEARCH_MIN_LENGTH
from tests.graphql_refusals import refusal

Body = dict[str, Any]
Check = Callable[[Body, Any], None]

MAX_GRAPHQL_BODY = 64 * 1024


@dataclass(frozen=True)
class Case:
    id: str
    status: int
    target: str = ""  # REST: path and raw query string, already percent-encoded
    body: bytes | None = None  # GraphQL: POST /graphql with this JSON body
    param: str | None = None  # error.param expected on a 400
    check: Check | None = None
    send_key: bool = True


def url(path: str, raw_query: str = "", **params: str) -> str:
    """``path`` plus a query string: ``params`` percent-encoded as UTF-8, ``raw_query`` as is."""
    parts = [f"{name}={quote(value, safe='')}" for name, value in params.items()]
    if raw_query:
        parts.append(raw_query)
    return path + ("?" + "&".join(parts) if parts else "")


def segment(value: str) -> str:
    return quote(value, safe="")


def gql(query: str, variables: dict[str, Any] | None = None, *, pad_to: int = 0) -> bytes:
    """A GraphQL request body; ``pad_to`` grows it to exactly that many bytes (unused variable)."""
    payload: dict[str, Any] = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    if not pad_to:
        return json.dumps(payload).encode()
    payload["variables"] = {**(variables or {}), "pad": ""}
    overhead = len(json.dumps(payload).encode())
    payload["variables"]["pad"] = "x" * (pad_to - overhead)
    encoded = json.dumps(payload).encode()
    assert len(encoded) == pad_to
    return encoded


# ---- checks on a 200 body -------------------------------------------------------------------


def meta(**expected: int) -> Check:
    def check(body: Body, backend: Any) -> None:
        assert {k: body["meta"][k] for k in expected} == expected

    return check


def empty_page(body: Body, backend: Any) -> None:
    assert body["data"] == []
    assert body["meta"]["total"] == 0


def every_strain(field_name: str, minimum: float = 0.0, maximum: float = 100.0) -> Check:
    """Every strain is in the table, in the page or the total; values within the bounds."""

    def check(body: Body, backend: Any) -> None:
        matching = _strain_values(backend, field_name, minimum, maximum)
        assert body["meta"]["total"] == matching
        assert all(minimum <= item[field_name] <= maximum for item in body["data"])

    return check


def _strain_values(backend: Any, field_name: str, minimum: float, maximum: float) -> int:
    column = getattr(Strain, field_name)
    with backend.sessions() as db:
        values = db.scalars(select(column)).all()
    return sum(1 for v in values if minimum <= v <= maximum)


def past_the_end(body: Body, backend: Any) -> None:
    assert body["data"] == []
    assert body["meta"] == {
        "total": backend.row_counts()["strains"],
        "limit": 20,
        "offset": 1_000_000,
    }


def _names(backend: Any) -> list[str]:
    """Every name search looks at: strains, dispensaries, doctors and active deal titles."""
    with backend.sessions() as db:
        return [
            *db.scalars(select(Strain.name)),
            *db.scalars(select(Dispensary.name)),
            *db.scalars(select(Doctor.name)),
            *db.scalars(select(Deal.title).where(Deal.expires >= date.today())),
        ]


def literal_matches(needle: str, *, at_least: int = 0) -> Check:
    """Search found exactly the names containing ``needle`` literally (no wildcards)."""

    def check(body: Body, backend: Any) -> None:
        expected = sum(1 for name in _names(backend) if needle.lower() in name.lower())
        assert expected >= at_least
        assert body["meta"]["total"] == expected
        assert len(body["data"]) == min(expected, body["meta"]["limit"])
        assert all(needle.lower() in item["name"].lower() for item in body["data"])

    return check


def gql_data(field_name: str, expected: Any) -> Check:
    """GraphQL answered ``data[field] == expected`` (or expected(data[field])) without errors."""

    def check(body: Body, backend: Any) -> None:
        assert "errors" not in body, body.get("errors")
        value = body["data"][field_name]
        if callable(expected):
            expected(value, backend)
        else:
            assert value == expected

    return check


def gql_error(field_name: str | None, code: int, param: str | None = None) -> Check:
    """GraphQL answered one error with ``extensions.code`` (and ``param``); the field is null."""

    def check(body: Body, backend: Any) -> None:
        [error] = body["errors"]
        assert error["extensions"]["code"] == code, error
        if param is not None:
            assert error["extensions"]["param"] == param
        if field_name is None:
            assert body["data"] is None
        else:
            assert body["data"][field_name] is None

    return check


def gql_search_total(needle: str) -> Check:
    def check(value: Any, backend: Any) -> None:
        assert value["total"] == sum(1 for n in _names(backend) if needle.lower() in n.lower())

    return gql_data("search", check)


# ---- the table ------------------------------------------------------------------------------

STRAINS = "/api/v1/strains"
DISPENSARIES = "/api/v1/dispensaries"
FULL_WIDTH_TEN = "\uff11\uff10"
INVALID_UTF8 = "%ff%fe"
JUNK_NUMBERS = {
    "minus-one": "-1",
    "underscore-digits": "1_000",
    "full-width-digits": FULL_WIDTH_TEN,
    "leading-space": " 7",
    "hex": "0x10",
    "nan": "NaN",
    "inf": "inf",
    "minus-inf": "-inf",
    "empty": "",
}
PAYLOADS = {
    "sql-comment": "' OR 1=1--",
    "percent": "%",
    "underscore": "_",
    "backslash": "\\",
    "nul": "\x00",
    "union-select": "UNION SELECT",
    "union-select-keys": "' UNION SELECT key_hash FROM api_keys--",
}


def _numeric_cases() -> list[Case]:
    cases = [
        Case("limit=0", 400, url(STRAINS, limit="0"), param="limit"),
        Case("limit=100 (max)", 200, url(STRAINS, limit="100"), check=meta(limit=100, total=150)),
        Case("limit=101 is clamped", 200, url(STRAINS, limit="101"), check=meta(limit=100)),
        Case("limit=10^18-1 is clamped", 200, url(STRAINS, limit="9" * 18), check=meta(limit=100)),
        Case(
            "doctors limit=50 (max)", 200, url("/api/v1/doctors", limit="50"), check=meta(limit=50)
        ),
        Case("doctors limit=51", 200, url("/api/v1/doctors", limit="51"), check=meta(limit=50)),
        Case("offset=0", 200, url(STRAINS, offset="0"), check=meta(offset=0, total=150)),
        Case("offset=1000000 (max)", 200, url(STRAINS, offset="1000000"), check=past_the_end),
        Case("offset=1000001", 400, url(STRAINS, offset="1000001"), param="offset"),
        Case(
            "limit=10^19 is clamped", 200, url(STRAINS, limit="1" + "0" * 19), check=meta(limit=100)
        ),
        Case("offset=10^19", 400, url(STRAINS, offset="1" + "0" * 19), param="offset"),
        Case("limit=1e400 is clamped", 200, url(STRAINS, limit="1e400"), check=meta(limit=100)),
        Case("thc_min=1e400 (overflow)", 400, url(STRAINS, thc_min="1e400"), param="thc_min"),
        Case("thc_min=10^19", 400, url(STRAINS, thc_min="1" + "0" * 19), param="thc_min"),
        Case("limit=1e1", 200, url(STRAINS, limit="1e1"), check=meta(limit=10, total=150)),
        Case("limit=1.5e0 (not whole)", 400, url(STRAINS, limit="1.5e0"), param="limit"),
        Case("offset=2E+1", 200, url(STRAINS, offset="2E+1"), check=meta(offset=20, total=150)),
        Case("thc_min=1e-400 (underflow)", 400, url(STRAINS, thc_min="1e-400"), param="thc_min"),
    ]
    low, high = 0.0, 100.0
    for name in ("thc_min", "thc_max", "cbd_min", "cbd_max"):
        kind = name[:3]
        cases += [
            Case(
                f"{name}=0",
                200,
                url(STRAINS, **{name: "0"}),
                check=every_strain(kind, low, 0.0 if name.endswith("max") else high),
            ),
            Case(
                f"{name}=100 (max)",
                200,
                url(STRAINS, **{name: "100"}),
                check=every_strain(kind, 100.0 if name.endswith("min") else low, high),
            ),
            Case(f"{name}=101", 400, url(STRAINS, **{name: "101"}), param=name),
            Case(f"{name}=100.0001", 400, url(STRAINS, **{name: "100.0001"}), param=name),
        ]
    for name in ("limit", "offset", "thc_min", "thc_max", "cbd_min", "cbd_max"):
        for label, value in JUNK_NUMBERS.items():
            cases.append(Case(f"{name}={label}", 400, url(STRAINS, **{name: value}), param=name))
    cases += [
        Case("radius=nan", 400, url(DISPENSARIES, zip="80202", radius="nan"), param="radius"),
        Case("radius=1e3", 400, url(DISPENSARIES, zip="80202", radius="1e3"), param="radius"),
        Case("radius without zip", 400, url(DISPENSARIES, radius="5"), param="radius"),
        Case("delivery=NUL", 400, url(DISPENSARIES, delivery="\x00"), param="delivery"),
        Case("limit twice", 400, url(STRAINS, "limit=1&limit=2"), param="limit"),
    ]
    return cases


def _string_param_cases() -> list[Case]:
    """Every payload (and invalid UTF-8) in every string parameter of every list endpoint."""
    # (endpoint, parameter, rule): "city" (200 with no match; NUL is a 400), "word" (open
    # vocabulary: a well-formed unknown word matches nothing, anything else is a 400), "400"
    # (closed vocabulary or code: always a 400), "search" (literal match; NUL is a 400).
    where = [
        ("/api/v1/dispensaries", "city", "city"),
        ("/api/v1/deals", "city", "city"),
        ("/api/v1/doctors", "city", "city"),
        (STRAINS, "effect", "word"),
        (STRAINS, "flavor", "word"),
        (STRAINS, "type", "400"),
        ("/api/v1/dispensaries", "type", "400"),
        ("/api/v1/search?q=kush", "type", "400"),
        ("/api/v1/deals", "category", "400"),
        ("/api/v1/dispensaries", "state", "400"),
        ("/api/v1/deals", "state", "400"),
        ("/api/v1/doctors", "state", "400"),
        ("/api/v1/search?q=kush", "state", "400"),
        ("/api/v1/dispensaries", "zip", "400"),
        ("/api/v1/search", "q", "search"),
    ]
    cases = []
    for path, name, rule in where:
        base, _, fixed = path.partition("?")
        label = f"{base.removeprefix('/api/v1/')} {name}"
        inputs = {label_: quote(value, safe="") for label_, value in PAYLOADS.items()}
        inputs["invalid-utf8"] = INVALID_UTF8
        for payload_label, encoded in inputs.items():
            raw = "&".join(p for p in (fixed, f"{name}={encoded}") if p)
            target = f"{base}?{raw}"
            case_id = f"{label}={payload_label}"
            is_nul = payload_label == "nul"
            if rule == "city":
                case = (
                    Case(case_id, 400, target, param="city")
                    if is_nul
                    else Case(case_id, 200, target, check=empty_page)
                )
            elif rule == "word":
                # Open vocabularies: a well-formed unknown word matches nothing; symbols are 400.
                case = (
                    Case(case_id, 200, target, check=empty_page)
                    if payload_label == "union-select"
                    else Case(case_id, 400, target, param=name)
                )
            elif rule == "search":
                needle = PAYLOADS.get(payload_label, "\ufffd\ufffd")
                case = (
                    Case(case_id, 400, target, param="q")
                    if is_nul or len(needle.strip()) < SEARCH_MIN_LENGTH
                    else Case(case_id, 200, target + "&limit=100", check=literal_matches(needle))
                )
            else:
                case = Case(case_id, 400, target, param=name)
            cases.append(case)
    return cases


def _search_length_cases() -> list[Case]:
    search = "/api/v1/search"
    return [
        Case("q of 200 characters", 200, url(search, q="k" * 200), check=empty_page),
        Case("q of 200 after trimming", 200, url(search, q=f"  {'k' * 200}  "), check=empty_page),
        Case("q of 201 characters", 400, url(search, q="k" * 201), param="q"),
        Case("q of 100,000 characters", 400, url(search, q="k" * 100_000), param="q"),
        Case("q empty", 400, url(search, q=""), param="q"),
        Case("q only spaces", 400, url(search, q="   "), param="q"),
        Case("q missing", 400, search, param="q"),
        Case("q of 1 character", 200, url(search, q="k", limit="100"), check=literal_matches("k")),
        Case(
            "q of 1 character after trimming",
            200,
            url(search, q="  k  ", limit="100"),
            check=literal_matches("k"),
        ),
        Case(
            'q="0%" matches only names with a literal "0%"',
            200,
            url(search, q="0%", limit="100"),
            check=literal_matches("0%", at_least=1),
        ),
        Case(
            "q=surrogate bytes as UTF-8 (%ed%a0%80)",
            200,
            url(search, "q=%ed%a0%80"),
            check=empty_page,
        ),
    ]


def _path_cases() -> list[Case]:
    cases = []
    for kind in ("strains", "dispensaries", "laws"):
        inputs = {label: segment(value) for label, value in PAYLOADS.items()}
        inputs["invalid-utf8"] = INVALID_UTF8
        inputs["nul-inside"] = "x%00y"
        for label, encoded in inputs.items():
            cases.append(Case(f"/{kind}/<{label}>", 404, f"/api/v1/{kind}/{encoded}"))
    cases.append(Case("/dispensaries/disp_<percent>", 404, "/api/v1/dispensaries/disp_%25"))
    cases.append(Case("/laws/C<nul>", 404, "/api/v1/laws/C%00"))
    return cases


def _key_cases() -> list[Case]:
    """Payloads as the key itself (no header): 401, never a lookup gone wrong."""
    cases = [
        Case(f"api_key={label}", 401, url("/api/v1/laws/CA", api_key=value), send_key=False)
        for label, value in PAYLOADS.items()
    ]
    cases.append(
        Case("api_key=invalid-utf8", 401, f"/api/v1/laws/CA?api_key={INVALID_UTF8}", send_key=False)
    )
    return cases


STRAIN = "query($s: String!) { strain(slug: $s) { slug } }"
DISPENSARY = "query($s: String!) { dispensary(id: $s) { id } }"
LAW = "query($s: String!) { law(state: $s) { stateCode } }"
SEARCH = "query($s: String!) { search(q: $s, limit: 100) { total } }"
CITY = "query($s: String!) { dispensaries(city: $s) { total } }"
EFFECT = "query($s: String!) { strains(effect: $s) { total } }"


def _graphql_cases() -> list[Case]:
    cases = []
    for label, value in PAYLOADS.items():
        is_nul = label == "nul"
        body = {"s": value}
        cases += [
            Case(f"gql strain(slug: {label})", 200, body=gql(STRAIN, body),
                 check=gql_data("strain", None)),
            Case(f"gql dispensary(id: {label})", 200, body=gql(DISPENSARY, body),
                 check=gql_data("dispensary", None)),
            Case(f"gql law(state: {label})", 200, body=gql(LAW, body),
                 check=gql_data("law", None)),
            Case(f"gql search(q: {label})", 200, body=gql(SEARCH, body),
                 check=gql_error("search", 400, "q")
                 if is_nul or len(value.strip()) < SEARCH_MIN_LENGTH
                 else gql_search_total(value)),
            Case(f"gql dispensaries(city: {label})", 200, body=gql(CITY, body),
                 check=gql_error("dispensaries", 400, "city") if is_nul
                 else gql_data("dispensaries", {"total": 0})),
        ]  # fmt: skip
    surrogate = {"s": "\ud800"}
    cases += [
        Case("gql strain(slug: lone surrogate)", 200, body=gql(STRAIN, surrogate),
             check=gql_data("strain", None)),
        Case("gql dispensary(id: lone surrogate)", 200, body=gql(DISPENSARY, surrogate),
             check=gql_data("dispensary", None)),
        Case("gql search(q: lone surrogate)", 200, body=gql(SEARCH, surrogate),
             check=gql_error("search", 400, "q")),
        Case("gql law(state: lone surrogate)", 200, body=gql(LAW, surrogate),
             check=gql_data("law", None)),
        Case("gql dispensaries(city: lone surrogate)", 200, body=gql(CITY, surrogate),
             check=gql_error("dispensaries", 400, "city")),
        Case("gql strains(effect: lone surrogate)", 200, body=gql(EFFECT, surrogate),
             check=gql_error("strains", 400, "effect")),
        Case("gql strains(limit: 101) is clamped", 200,
             body=gql("{ strains(limit: 101) { limit } }"),
             check=gql_data("strains", {"limit": 100})),
        Case("gql strains(limit: 10^19)", 200,
             body=gql("{ strains(limit: 10000000000000000000) { limit } }"),
             check=gql_error(None, 400)),
        Case("gql strains(limit: 0)", 200, body=gql("{ strains(limit: 0) { limit } }"),
             check=gql_error("strains", 400, "limit")),
        Case("gql strains(offset: -1)", 200, body=gql("{ strains(offset: -1) { limit } }"),
             check=gql_error("strains", 400, "offset")),
        Case("gql strains(thcMin: NaN)", 200, body=gql("{ strains(thcMin: NaN) { total } }"),
             check=gql_error(None, 400)),
        Case("gql strains(thcMin: 1e308)", 200,
             body=gql("query($x: Float) { strains(thcMin: $x) { total } }", {"x": 1e308}),
             check=gql_error("strains", 400, "thcMin")),
        Case("gql body of exactly 64 KiB", 200,
             body=gql("{ law(state: \"CO\") { stateCode } }", pad_to=MAX_GRAPHQL_BODY),
             check=gql_data("law", {"stateCode": "CO"})),
        Case("gql body of 64 KiB + 1 byte", 413,
             body=gql("{ law(state: \"CO\") { stateCode } }", pad_to=MAX_GRAPHQL_BODY + 1)),
        Case("gql body of 1 MiB", 413,
             body=gql("{ law(state: \"CO\") { stateCode } }", pad_to=1024 * 1024)),
        Case("gql body that is invalid UTF-8", 400,
             body=b'{"query": "{ strain(slug: \\"\xff\xfe\\") { slug } }"}'),
        Case("gql GET with invalid UTF-8 in the query", 200,
             target="/graphql?query=%7B%20strain(slug%3A%20%22%ff%fe%22)%20%7B%20slug%20%7D%20%7D",
             check=gql_data("strain", None)),
    ]  # fmt: skip
    return cases


CASES = [
    *_numeric_cases(),
    *_string_param_cases(),
    *_search_length_cases(),
    *_path_cases(),
    *_key_cases(),
    *_graphql_cases(),
]


# ---- running a case -------------------------------------------------------------------------


def send(backend: Any, case: Case) -> TestResponse:
    client = backend.app.test_client()
    headers = {"X-API-Key": backend.key} if case.send_key else {}
    if case.body is not None:
        return client.post(
            "/graphql", data=case.body, content_type="application/json", headers=headers
        )
    return client.get(case.target, headers=headers)


def outcome(response: TestResponse) -> tuple[int, tuple[int, ...]]:
    """HTTP status plus the GraphQL error codes, if any: what must agree across databases."""
    body = response.get_json(silent=True) or {}
    errors = body.get("errors") if isinstance(body, dict) else None
    return response.status_code, tuple(e["extensions"]["code"] for e in errors or ())


def assert_envelope(case: Case, response: TestResponse, backend: Any) -> None:
    assert response.content_type == "application/json"
    body = response.get_json()
    if case.status == 200 and case.body is None and not case.target.startswith("/graphql"):
        assert body["success"] is True
        assert "data" in body
    elif case.status == 200:
        assert set(body) <= {"data", "errors", "extensions"}
        assert "data" in body
    elif case.body is not None or case.target.startswith("/graphql"):
        # /graphql refuses with a GraphQL response carrying the envelope's fields.
        error = refusal(response)
        assert error["code"] == case.status
        assert error["message"]
        assert error["docs"].endswith(f"#error-{case.status}")
        assert error.get("param") == case.param
    else:
        error = body["error"]
        assert body["success"] is False
        assert error["code"] == case.status
        assert error["message"]
        assert error["docs"].endswith(f"#error-{case.status}")
        assert error.get("param") == case.param
    if case.check is not None:
        case.check(body, backend)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gets_its_documented_status_and_envelope_and_changes_no_rows(
    backend, case: Case
) -> None:
    before = backend.row_counts()
    response = send(backend, case)
    try:
        assert response.status_code == case.status, response.get_data(as_text=True)[:500]
        assert_envelope(case, response, backend)
        assert 500 not in outcome(response)[1]
    finally:
        response.close()
    assert backend.row_counts() == before


def test_every_case_gets_the_same_outcome_on_sqlite_and_postgresql(backend_pool) -> None:
    """The two databases agree on every case's status and error codes."""
    backends = [backend_pool.get("sqlite"), backend_pool.get("postgresql")]
    before = [b.row_counts() for b in backends]
    outcomes: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
    for case in CASES:
        for backend in backends:
            response = send(backend, case)
            outcomes.setdefault(case.id, []).append(outcome(response))
            response.close()
    disagreeing = {cid: pair for cid, pair in outcomes.items() if pair[0] != pair[1]}
    assert disagreeing == {}
    assert len(outcomes) == len(CASES)
    assert [b.row_counts() for b in backends] == before


def test_the_table_covers_every_numeric_edge_and_payload() -> None:
    ids = {c.id for c in CASES}
    for name in ("limit", "offset", "thc_min", "thc_max", "cbd_min", "cbd_max"):
        assert {f"{name}={label}" for label in JUNK_NUMBERS} <= ids
    for kind in ("strains", "dispensaries", "laws"):
        assert {f"/{kind}/<{label}>" for label in PAYLOADS} <= ids
