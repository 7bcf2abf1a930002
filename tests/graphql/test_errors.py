"""GraphQL errors: argument errors, partial data, abuse limits, masking, nested limits.

Every error carries ``extensions.code``: 400 for bad arguments and for documents GraphQL itself
rejects (syntax, validation, depth, aliases, tokens); 500 for anything unexpected, whose message
is masked as "Unexpected error" and whose details go to the log only.
"""

import logging
from datetime import date
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import service.dispensaries
import service.laws
import service.strains
from graphql_schema import make_schema
from graphql_schema.errors import ArgumentNames
from models import Deal, Dispensary, MenuItem, Review, Strain

LIMIT_100 = "limit must be an integer from 1 to 100 (larger values are reduced to 100)"
LIMIT_50 = "limit must be an integer from 1 to 50 (larger values are reduced to 50)"
LIMIT_20 = "limit must be an integer from 1 to 20 (larger values are reduced to 20)"
OFFSET = "offset must be an integer from 0 to 1000000"
STATE = "state must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)"
WORD = (
    "must be a lowercase word such as relaxed or earthy (letters, digits, spaces or hyphens, "
    "at most 40 characters)"
)
CATEGORIES = "flower, edibles, concentrates, vapes, pre-rolls, topicals, tinctures"
DEPTH_ERROR = "'{name}' exceeds maximum operation depth of 10"
TOKENS_ERROR = "Syntax Error: Document contains more than 2000 tokens. Parsing aborted."


def _only_error(body: dict[str, Any]) -> dict[str, Any]:
    assert len(body.get("errors", [])) == 1, body
    return body["errors"][0]


# --- argument errors on root fields ------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "arguments", "message", "param"),
    [
        ("strains", "limit: 0", LIMIT_100, "limit"),
        ("strains", "limit: -5", LIMIT_100, "limit"),
        ("strains", "offset: -1", OFFSET, "offset"),
        ("strains", "offset: 1000001", OFFSET, "offset"),
        # REST's messages with the GraphQL argument names (thcMin, not thc_min).
        ("strains", "thcMin: 101", "thcMin must be a number from 0 to 100", "thcMin"),
        ("strains", "thcMin: 30, thcMax: 10", "thcMin must not be greater than thcMax", "thcMin"),
        ("strains", "thcMax: 100.5", "thcMax must be a number from 0 to 100", "thcMax"),
        ("strains", "cbdMin: -0.1", "cbdMin must be a number from 0 to 100", "cbdMin"),
        ("strains", "cbdMax: -1", "cbdMax must be a number from 0 to 100", "cbdMax"),
        ("strains", "cbdMin: 5, cbdMax: 1", "cbdMin must not be greater than cbdMax", "cbdMin"),
        ("strains", 'effect: "Happy!"', f"effect {WORD}", "effect"),
        ("strains", 'flavor: ""', f"flavor {WORD}", "flavor"),
        ("strains", 'flavor: "earthy,Sweet!"', f"flavor {WORD}", "flavor"),  # REST's comma list
        ("strains", 'flavors: ["earthy", "Sweet!"]', f"flavors {WORD}", "flavors"),
        ("dispensaries", "limit: 0", LIMIT_100, "limit"),
        ("dispensaries", 'state: "ZZ"', STATE, "state"),
        ("dispensaries", 'state: "California"', STATE, "state"),
        (
            "dispensaries",
            "radius: 5",
            "radius needs zip or near.lat/near.lng (it is a distance from that point)",
            "radius",
        ),
        (
            "dispensaries",
            'zip: "80202", radius: 0',
            "radius must be a number of miles greater than 0 and at most 500",
            "radius",
        ),
        (
            "dispensaries",
            'zip: "80202", radius: 501',
            "radius must be a number of miles greater than 0 and at most 500",
            "radius",
        ),
        ("dispensaries", 'zip: "8020"', "zip must be a five-digit US ZIP code", "zip"),
        ("dispensaries", 'zip: "00000"', "zip 00000 is not a known US ZIP code", "zip"),
        ("dispensaries", 'city: "  "', "city must be a city name of 1 to 80 characters", "city"),
        ("deals", 'category: "snacks"', f"category must be one of: {CATEGORIES}", "category"),
        ("deals", 'state: "XX"', STATE, "state"),
        ("deals", "offset: -1", OFFSET, "offset"),
        ("doctors", "limit: 0", LIMIT_50, "limit"),
        ("doctors", 'state: "C"', STATE, "state"),
        ("search", 'q: ""', "q is required: the text to search for", "q"),
        ("search", 'q: "   "', "q is required: the text to search for", "q"),
        ("search", f'q: "{"x" * 201}"', "q must be at most 200 characters", "q"),
        ("search", 'q: "an", state: "XX"', STATE, "state"),
        ("search", 'q: "an", limit: 0', LIMIT_100, "limit"),
    ],
)
def test_a_bad_argument_nulls_its_field_with_the_rest_message_code_400_and_param(
    gql, field: str, arguments: str, message: str, param: str
) -> None:
    body = gql(f"{{ {field}({arguments}) {{ total }} }}")
    assert body["data"] == {field: None}
    error = _only_error(body)
    assert error == {
        "message": message,
        "locations": [{"line": 1, "column": 3}],
        "path": [field],
        "extensions": {"code": 400, "param": param},
    }


def test_a_nul_character_in_search_text_is_a_400_naming_q(gql) -> None:
    body = gql("query($q: String!) { search(q: $q) { total } }", {"q": "og\x00kush"})
    assert body["data"] == {"search": None}
    error = _only_error(body)
    assert error["message"] == "q must not contain NUL characters"
    assert error["extensions"] == {"code": 400, "param": "q"}


@pytest.mark.parametrize(("field", "maximum"), [("strains", 100), ("search", 100), ("deals", 100)])
def test_an_oversized_page_limit_is_reduced_to_the_maximum(gql, field: str, maximum: int) -> None:
    arguments = 'q: "an", limit: 500' if field == "search" else "limit: 500"
    body = gql(f"{{ {field}({arguments}) {{ total limit items {{ __typename }} }} }}")
    assert "errors" not in body
    page = body["data"][field]
    assert page["limit"] == maximum
    assert len(page["items"]) == min(maximum, page["total"])
    assert page["total"] > maximum


# --- partial data ------------------------------------------------------------------------------


def test_one_bad_root_field_does_not_null_its_siblings(gql) -> None:
    body = gql(
        '{ strains(limit: 0) { total } laws { stateCode } law(state: "CA") { state } '
        "doctors(limit: 2) { total items { id } } }"
    )
    assert body["data"]["strains"] is None
    assert len(body["data"]["laws"]) == 56
    assert body["data"]["law"] == {"state": "California"}
    assert body["data"]["doctors"]["total"] == 60
    assert len(body["data"]["doctors"]["items"]) == 2
    assert _only_error(body)["path"] == ["strains"]


def test_each_bad_root_field_gets_its_own_error(gql) -> None:
    body = gql(
        '{ strains(limit: 0) { total } deals(category: "snacks") { total } laws { stateCode } }'
    )
    assert body["data"]["strains"] is None
    assert body["data"]["deals"] is None
    assert len(body["data"]["laws"]) == 56
    errors = {tuple(e["path"]): e["extensions"] for e in body["errors"]}
    assert errors == {
        ("strains",): {"code": 400, "param": "limit"},
        ("deals",): {"code": 400, "param": "category"},
    }


def test_a_bad_nested_limit_nulls_the_nearest_nullable_parent_only(gql) -> None:
    body = gql(
        '{ dispensary(id: "disp_1006") { name reviews(limit: 0) { date } } '
        'law(state: "CA") { stateCode } }'
    )
    assert body["data"] == {"dispensary": None, "law": {"stateCode": "CA"}}
    error = _only_error(body)
    assert error["path"] == ["dispensary", "reviews"]
    assert error["message"] == LIMIT_20
    assert error["extensions"] == {"code": 400, "param": "limit"}


def test_a_bad_nested_limit_inside_a_page_nulls_that_page(gql) -> None:
    body = gql(
        "{ dispensaries(limit: 2) { items { name deals(limit: 0) { id } } } "
        "strains(limit: 1) { total } }"
    )
    assert body["data"]["dispensaries"] is None
    assert body["data"]["strains"] == {"total": 150}
    paths = [e["path"] for e in body["errors"]]
    assert ["dispensaries", "items", 0, "deals"] in paths
    assert {e["message"] for e in body["errors"]} == {LIMIT_100}


# --- nested limits -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        ("deals(limit: 0) { id }", LIMIT_100),
        ("deals(limit: -1) { id }", LIMIT_100),
        ("menu(limit: 0) { name }", LIMIT_100),
        ("reviews(limit: 0) { date }", LIMIT_20),
        ("reviews(limit: -20) { date }", LIMIT_20),
    ],
)
def test_dispensary_nested_limit_below_one_is_a_400_naming_limit(
    gql, selection: str, message: str
) -> None:
    body = gql(f'{{ dispensary(id: "disp_1006") {{ id {selection} }} }}')
    assert body["data"] == {"dispensary": None}
    error = _only_error(body)
    assert error["message"] == message
    assert error["extensions"] == {"code": 400, "param": "limit"}
    assert error["path"] == ["dispensary", selection.split("(")[0]]


@pytest.mark.parametrize(
    ("arguments", "message", "param"),
    [("limit: 0", LIMIT_100, "limit"), ('state: "ZZ"', STATE, "state")],
)
def test_strain_dispensaries_bad_argument_is_a_400_naming_it(
    gql, session: Session, arguments: str, message: str, param: str
) -> None:
    slug = session.scalar(select(Strain.slug).order_by(Strain.id))
    body = gql(f'{{ strain(slug: "{slug}") {{ slug dispensaries({arguments}) {{ id }} }} }}')
    assert body["data"] == {"strain": None}
    error = _only_error(body)
    assert error["message"] == message
    assert error["extensions"] == {"code": 400, "param": param}
    assert error["path"] == ["strain", "dispensaries"]


def test_reviews_over_the_maximum_return_at_most_twenty_without_error(gql, session) -> None:
    dispensary_id = session.scalar(
        select(Review.dispensary_id)
        .group_by(Review.dispensary_id)
        .order_by(func.count().desc(), Review.dispensary_id)
    )
    d = session.get_one(Dispensary, dispensary_id)
    body = gql(f'{{ dispensary(id: "{d.public_id}") {{ reviews(limit: 500) {{ date }} }} }}')
    assert "errors" not in body
    count = session.scalar(
        select(func.count()).select_from(Review).where(Review.dispensary_id == d.id)
    )
    assert 0 < len(body["data"]["dispensary"]["reviews"]) == min(count, 20)


def test_nested_limits_over_the_maximum_are_reduced_to_it(
    gql, session: Session, crowded: dict[str, Any], reference_day: date
) -> None:
    d, strain = crowded["dispensary"], crowded["strain"]
    data = gql.data(
        f'{{ dispensary(id: "{d.public_id}") {{ '
        "reviews(limit: 500) { author date } deals(limit: 500) { id } menu(limit: 500) { name } "
        "defaultDeals: deals { id } defaultReviews: reviews { author } defaultMenu: menu { name } "
        f'}} strain(slug: "{strain.slug}") {{ dispensaries(limit: 500) {{ id }} '
        "defaultDispensaries: dispensaries { id } } }"
    )
    dispensary, found_strain = data["dispensary"], data["strain"]
    added = crowded["added"]
    reviews = sorted(
        [*crowded["reviews"], *(r for r in added if isinstance(r, Review))],
        key=lambda r: (r.date, r.id),
        reverse=True,
    )
    assert len(reviews) > 25
    assert [(r["author"], r["date"]) for r in dispensary["reviews"]] == [
        (r.author, r.date.isoformat()) for r in reviews[:20]
    ]
    assert [r["author"] for r in dispensary["defaultReviews"]] == [r.author for r in reviews[:20]]
    deals = sorted(
        [*crowded["deals"], *(x for x in added if isinstance(x, Deal))],
        key=lambda x: (x.expires, x.id),
    )
    assert len(deals) > 105
    assert [x["id"] for x in dispensary["deals"]] == [x.public_id for x in deals[:100]]
    assert [x["id"] for x in dispensary["defaultDeals"]] == [x.public_id for x in deals[:20]]
    menu = sorted(
        [
            *crowded["menu"],
            *(m for m in added if isinstance(m, MenuItem) and m.dispensary_id == d.id),
        ],
        key=lambda m: (m.position, m.id),
    )
    assert len(menu) > 105
    assert [m["name"] for m in dispensary["menu"]] == [m.name for m in menu[:100]]
    assert [m["name"] for m in dispensary["defaultMenu"]] == [m.name for m in menu[:100]]
    expected_dispensaries = session.scalars(
        select(Dispensary.public_id).order_by(func.lower(Dispensary.name), Dispensary.id)
    ).all()
    assert len(expected_dispensaries) == 120
    assert [x["id"] for x in found_strain["dispensaries"]] == expected_dispensaries[:100]
    assert [x["id"] for x in found_strain["defaultDispensaries"]] == expected_dispensaries[:20]


# --- depth, aliases, tokens --------------------------------------------------------------------


def _deal_chain(levels: int) -> str:
    """A selection ``levels`` fields deep below the root field (strawberry's depth measure).

    ``{ deals { items { id } } }`` has depth 2: the root field is level 0.
    """
    fields = ["deals(limit: 1)", "items"]
    while len(fields) < levels:
        fields.append("dispensary" if len(fields) % 2 == 0 else "deals(limit: 1)")
    selection = "id"
    for field in reversed(fields):
        selection = f"{field} {{ {selection} }}"
    return selection


def _strain_chain(levels: int) -> str:
    """Depth ``levels`` through strain -> dispensaries -> menu -> strain -> ..."""
    cycle = ["dispensaries(limit: 1)", "menu(limit: 1)", "strain"]
    fields = ["strains(limit: 1)", "items"]
    while len(fields) < levels:
        fields.append(cycle[(len(fields) - 2) % 3])
    leaf = "name" if fields[-1] != "strain" else "slug"
    selection = leaf
    for field in reversed(fields):
        selection = f"{field} {{ {selection} }}"
    return selection


def _depth_of(data: Any) -> int:
    """Nesting of the JSON result below the root field (lists do not count)."""
    if isinstance(data, list):
        return max((_depth_of(item) for item in data), default=0)
    if isinstance(data, dict):
        return 1 + max((_depth_of(value) for value in data.values()), default=0)
    return 0


@pytest.mark.parametrize("chain", [_deal_chain, _strain_chain], ids=["deals", "strains"])
@pytest.mark.parametrize("depth", [2, 5, 10])
def test_queries_up_to_depth_ten_run(gql, chain, depth: int) -> None:
    data = gql.data(f"{{ {chain(depth)} }}")
    assert _depth_of(data) - 1 == depth
    assert "None" not in repr(data)


@pytest.mark.parametrize("chain", [_deal_chain, _strain_chain], ids=["deals", "strains"])
@pytest.mark.parametrize("depth", [11, 12, 30])
def test_queries_deeper_than_ten_are_rejected_with_code_400(gql, chain, depth: int) -> None:
    body = gql(f"{{ {chain(depth)} }}")
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"] == DEPTH_ERROR.format(name="anonymous")
    assert error["extensions"] == {"code": 400}


def test_depth_is_counted_through_fragments_and_named_in_the_error(gql) -> None:
    query = (
        "query Deep { deals(limit: 1) { items { ...D } } } "
        "fragment D on Deal { dispensary { deals(limit: 1) { dispensary { deals(limit: 1) { "
        "dispensary { deals(limit: 1) { dispensary { deals(limit: 1) { dispensary { id } } } } } "
        "} } } } }"
    )
    body = gql(query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"] == DEPTH_ERROR.format(name="Deep")
    assert error["extensions"] == {"code": 400}


def _aliases(count: int) -> str:
    return " ".join(f'a{n}: law(state: "CA") {{ stateCode }}' for n in range(count))


EIGHT_NESTED_ALIASES = " ".join(f"b{n}: stateCode" for n in range(8))


def test_fifteen_aliases_are_allowed(gql) -> None:
    data = gql.data(f"{{ {_aliases(15)} }}")
    assert data == {f"a{n}": {"stateCode": "CA"} for n in range(15)}


@pytest.mark.parametrize(
    "query",
    [
        f"{{ {_aliases(16)} }}",
        "{ " + _aliases(8) + ' law(state: "NY") { ' + EIGHT_NESTED_ALIASES + " } }",
    ],
    ids=["root", "root-and-nested"],
)
def test_sixteen_aliases_are_rejected_with_code_400(gql, query: str) -> None:
    body = gql(query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"] == "16 aliases found. Allowed: 15"
    assert error["extensions"] == {"code": 400}


def _tokens(count: int) -> str:
    """A valid document of exactly ``count`` tokens (``count`` = 2 + 9 n, or one more)."""
    repeats, extra = divmod(count - 2, 9)
    assert extra in (0, 1)
    fields = ['law(state: "CA") { stateCode }'] * repeats
    if extra:
        fields[-1] = 'law(state: "CA") { stateCode state }'
    return "{ " + " ".join(fields) + " }"


def test_a_document_of_2000_tokens_is_allowed(gql) -> None:
    assert gql.data(_tokens(2000)) == {"law": {"stateCode": "CA"}}


@pytest.mark.parametrize("count", [2001, 2009, 4007])
def test_a_document_of_more_than_2000_tokens_is_rejected(gql, count: int) -> None:
    body = gql(_tokens(count))
    assert body["data"] is None
    assert _only_error(body)["message"] == TOKENS_ERROR


@pytest.mark.parametrize(
    "query",
    ["{ laws { stateCode }", "{ laws(", "{ strain(slug: ) { name } }", "tokens"],
)
def test_syntax_errors_carry_code_400(gql, query: str) -> None:
    body = gql(_tokens(2001) if query == "tokens" else query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"].startswith("Syntax Error: ")
    assert error.get("extensions") == {"code": 400}


@pytest.mark.parametrize(
    "query",
    ["{ laws { stateCode }", "{ laws(", "{ strain(slug: ) { name } }", "query Q"],
)
def test_syntax_errors_are_reported_without_data(gql, query: str) -> None:
    body = gql(query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"].startswith("Syntax Error: ")
    assert "Unexpected error" not in error["message"]


@pytest.mark.parametrize("query", ["{ }", "query { }", "{ laws { } }"])
def test_an_empty_selection_set_is_a_400_not_a_leaked_internal_error(gql, query: str) -> None:
    body = gql(query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["message"] == "Selection sets must not be empty: select at least one field"
    assert error.get("extensions") == {"code": 400}


# --- validation errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "{ nope }",
            "Cannot query field 'nope' on type 'Query'. Did you mean 'node' or 'nodes'?",
        ),
        ("{ strains { items { potency } } }", "Cannot query field 'potency' on type 'Strain'."),
        (
            "{ strains(type: PURPLE) { total } }",
            "Value 'PURPLE' does not exist in 'StrainType' enum.",
        ),
        ('{ strains(type: "INDICA") { total } }', None),
        ('{ strains(limit: "x") { total } }', 'Int cannot represent non-integer value: "x"'),
        (
            "{ strains(limit: 2147483648) { total } }",
            "Int cannot represent non 32-bit signed integer value: 2147483648",
        ),
        (
            "{ strain { name } }",
            "Argument 'Query.strain(slug:)' of type 'String!' is required, but it was not "
            "provided.",
        ),
        (
            "{ strains(limit: 3, unknownArg: 1) { total } }",
            "Unknown argument 'unknownArg' on field 'Query.strains'.",
        ),
        ("{ laws }", None),
        ('{ law(state: "CA") { stateCode { x } } }', None),
        ('{ search(q: "an") { items { name } } }', None),
    ],
)
def test_invalid_documents_are_rejected_with_code_400_and_no_data(
    gql, query: str, message: str | None
) -> None:
    body = gql(query)
    assert body["data"] is None
    error = _only_error(body)
    assert error["extensions"] == {"code": 400}
    if message is not None:
        assert error["message"] == message
    assert error["message"] != "Unexpected error"


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        ("query($l: Int!) { strains(limit: $l) { total } }", {}),
        ("query($l: Int!) { strains(limit: $l) { total } }", {"l": "x"}),
        ("query($l: Int!) { strains(limit: $l) { total } }", {"l": 3_000_000_000}),
        ("query($t: StrainType) { strains(type: $t) { total } }", {"t": "PURPLE"}),
        ("query($t: [StrainType!]) { strains(types: $t) { total } }", {"t": ["PURPLE"]}),
        ("query($s: String!) { strain(slug: $s) { name } }", {"s": 5}),
    ],
)
def test_bad_variable_values_are_client_errors_with_code_400(
    gql, query: str, variables: dict
) -> None:
    body = gql(query, variables)
    assert body["data"] is None
    error = _only_error(body)
    assert error.get("extensions") == {"code": 400}
    assert error["message"] != "Unexpected error"


def test_variables_carry_arguments_and_their_errors_like_literals(gql) -> None:
    query = (
        "query($l: Int!, $t: StrainType) { strains(limit: $l, type: $t) { limit items { type } } }"
    )
    data = gql.data(query, {"l": 3, "t": "SATIVA"})
    assert data["strains"]["limit"] == 3
    assert [i["type"] for i in data["strains"]["items"]] == ["SATIVA"] * 3
    body = gql(query, {"l": 0, "t": None})
    assert body["data"] == {"strains": None}
    assert _only_error(body)["extensions"] == {"code": 400, "param": "limit"}
    assert _only_error(body)["message"] == LIMIT_100


# --- unexpected errors -------------------------------------------------------------------------


def _explode(*_args: Any, **_kwargs: Any) -> None:
    raise RuntimeError("secret /srv/db password=hunter2")


@pytest.mark.parametrize(
    ("module", "function", "query", "path", "data"),
    [
        (
            service.strains,
            "list_strains",
            '{ strains { total } law(state: "CA") { stateCode } }',
            ["strains"],
            {"strains": None, "law": {"stateCode": "CA"}},
        ),
        (
            service.dispensaries,
            "reviews_by_dispensary",
            '{ dispensary(id: "disp_1006") { id reviews { date } } law(state: "CA") { state } }',
            ["dispensary", "reviews"],
            {"dispensary": None, "law": {"state": "California"}},
        ),
        (
            service.laws,
            "laws_by_codes",
            '{ dispensary(id: "disp_1006") { id law { stateCode } } }',
            ["dispensary", "law"],
            {"dispensary": {"id": "disp_1006", "law": None}},
        ),
    ],
    ids=["root", "nested-list", "nested-nullable"],
)
def test_an_unexpected_resolver_exception_is_masked_as_code_500_and_logged(
    gql,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    module,
    function: str,
    query: str,
    path: list,
    data: dict,
) -> None:
    monkeypatch.setattr(module, function, _explode)
    with caplog.at_level(logging.ERROR):
        response = gql.post(query)
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert "secret" not in text
    assert "hunter2" not in text
    assert "RuntimeError" not in text
    assert "Traceback" not in text
    body = response.get_json()
    assert body["data"] == data
    error = _only_error(body)
    assert error["message"] == "Unexpected error"
    assert error["extensions"] == {"code": 500}
    assert error["path"] == path
    logged = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(logged) == 1
    assert isinstance(logged[0].exc_info[1], RuntimeError)
    assert "secret /srv/db password=hunter2" in caplog.text
    assert str(path) in logged[0].getMessage()


def test_client_errors_are_not_logged_as_errors(gql, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        body = gql('{ strains(limit: 0) { total } nope: law(state: "ZZ") { state } }')
    assert body["data"] == {"strains": None, "nope": None}
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_repeated_document_is_validated_once_and_still_limited(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    import strawberry.schema.schema as strawberry_schema

    validated = []
    original = strawberry_schema.validate

    def counting(*args: Any, **kwargs: Any):
        validated.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(strawberry_schema, "validate", counting)
    client = make_app(PAGE_CACHE_MB=0).test_client()  # no stored results: every request runs

    def post(query: str) -> dict:
        headers = {"X-API-Key": api_keys["enterprise"]}
        return client.post("/graphql", json={"query": query}, headers=headers).get_json()

    query = "{ onceValidated: laws { stateCode } }"  # a document no other test sends
    first, second = post(query), post(query)
    assert first["data"] == second["data"]
    assert first["data"]["onceValidated"]
    assert len(validated) == 1
    too_deep = f"{{ {_deal_chain(11)} }}"
    for _ in range(2):  # the remembered verdict refuses it just the same
        assert _only_error(post(too_deep))["message"] == DEPTH_ERROR.format(name="anonymous")


# --- GraphQL argument names in parameter errors ------------------------------------------------


def test_the_renamed_arguments_are_the_four_percentages() -> None:
    names = ArgumentNames.of(make_schema())
    assert [names.param(n) for n in ("thc_min", "thc_max", "cbd_min", "cbd_max")] == [
        "thcMin",
        "thcMax",
        "cbdMin",
        "cbdMax",
    ]
    assert [names.param(n) for n in ("limit", "offset", "state", "q")] == [
        "limit",
        "offset",
        "state",
        "q",
    ]


def test_only_whole_argument_names_are_renamed_in_a_message() -> None:
    names = ArgumentNames({"thc_min": "thcMin"})
    assert names.message("thc_min must not exceed thc_minimum or xthc_min") == (
        "thcMin must not exceed thc_minimum or xthc_min"
    )


def test_a_variable_and_an_alias_still_get_the_graphql_argument_name(gql) -> None:
    body = gql(
        "query($t: Float, $c: Float) { low: strains(thcMin: $t, cbdMax: $c) { total } }",
        {"t": 20, "c": 120},
    )
    assert body["data"] == {"low": None}
    error = _only_error(body)
    assert error["message"] == "cbdMax must be a number from 0 to 100"
    assert error["extensions"] == {"code": 400, "param": "cbdMax"}
    assert error["path"] == ["low"]


@pytest.mark.parametrize(
    ("selection", "path", "message", "param"),
    [
        (
            'strain(slug: "%s") { dispensaries(offset: -1) { id } }',
            ["strain", "dispensaries"],
            OFFSET,
            "offset",
        ),
        (
            'dispensary(id: "disp_1006") { reviews(offset: 1000001) { date } }',
            ["dispensary", "reviews"],
            OFFSET,
            "offset",
        ),
        (
            'strain(slug: "%s") { dispensaries(state: "ZZ", limit: 2) { id } }',
            ["strain", "dispensaries"],
            STATE,
            "state",
        ),
    ],
    ids=["strain dispensaries offset", "dispensary reviews offset", "strain dispensaries state"],
)
def test_a_nested_argument_error_names_the_graphql_argument(
    gql, session: Session, selection: str, path: list[str], message: str, param: str
) -> None:
    slug = session.scalar(select(Strain.slug).order_by(Strain.id))
    body = gql("{ %s }" % (selection % slug if "%s" in selection else selection))
    assert body["data"] == {path[0]: None}
    error = _only_error(body)
    assert (error["message"], error["path"]) == (message, path)
    assert error["extensions"] == {"code": 400, "param": param}
