"""One value or several: each singular argument (state, type, category, effect, flavor) keeps the
scalar type it always had, so old documents and their variables still work; its plural (states,
types, ...) takes a list meaning "any of", checked by the service as REST's comma lists are, with
errors naming the plural the client wrote."""

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Dispensary, MenuItem, Strain

STATE_MESSAGE = "must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)"
WORD = (
    "must be a lowercase word such as relaxed or earthy (letters, digits, spaces or hyphens, "
    "at most 40 characters)"
)
CATEGORIES = "flower, edibles, concentrates, vapes, pre-rolls, topicals, tinctures"
ELEVEN_STATES = '["CA", "CO", "NY", "WA", "OR", "NV", "AZ", "MI", "IL", "MA", "NJ"]'
ELEVEN_WORDS = "[" + ", ".join(f'"word{n}"' for n in range(11)) + "]"
ELEVEN_CA_TEXT = '"' + ",".join(["CA"] * 11) + '"'  # one String, eleven values


def _eleven(value: str) -> str:
    """A list literal of eleven values (repeats count: a list is judged as given)."""
    return "[" + ", ".join([value] * 11) + "]"


def _total(gql, field: str, arguments: str) -> int:
    return gql.data(f"{{ {field}({arguments}) {{ total }} }}")[field]["total"]


def _rest_ids(api, path: str, **params: Any) -> list[str]:
    items: list[dict] = []
    while True:
        body = api.json(path, limit=50, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            return [i["id"] for i in items]


def _gql_ids(gql, field: str, arguments: str, variables: dict[str, Any] | None = None) -> list:
    declared = "($s: [String!])" if variables else ""
    ids: list[str] = []
    while True:
        query = (
            f"query{declared} {{ {field}({arguments}, limit: 50, offset: {len(ids)}) "
            "{ total items { id } } }"
        )
        page = gql.data(query, variables)[field]
        ids.extend(i["id"] for i in page["items"])
        if len(ids) >= page["total"]:
            return ids


def _strain_in_two_states(session: Session) -> tuple[Strain, list[str]]:
    """A strain whose menus are in at least three states, and two of those states."""
    rows = session.execute(
        select(MenuItem.strain_id, Dispensary.state)
        .join(Dispensary, Dispensary.id == MenuItem.dispensary_id)
        .where(MenuItem.strain_id.is_not(None))
        .distinct()
        .order_by(MenuItem.strain_id, Dispensary.state)
    )
    states: dict[int, list[str]] = {}
    for strain_id, state in rows:
        states.setdefault(strain_id, []).append(state)
    strain_id = next(pk for pk, found in states.items() if len(found) >= 3)
    return session.get_one(Strain, strain_id), states[strain_id][:2]


# --- the singular arguments, as they always were --------------------------------------------


@pytest.mark.parametrize(
    ("field", "argument", "declared", "value", "path", "param", "text"),
    [
        ("strains", "effect", "String!", "relaxed", "/api/v1/strains", "effect", "relaxed"),
        ("strains", "flavor", "String", "earthy", "/api/v1/strains", "flavor", "earthy"),
        ("strains", "type", "StrainType!", "INDICA", "/api/v1/strains", "type", "indica"),
        ("dispensaries", "state", "String!", "CA", "/api/v1/dispensaries", "state", "CA"),
        (
            "dispensaries",
            "type",
            "DispensaryType",
            "MEDICAL",
            "/api/v1/dispensaries",
            "type",
            "medical",
        ),
        ("deals", "state", "String", "CO", "/api/v1/deals", "state", "CO"),
        ("deals", "category", "String!", "flower", "/api/v1/deals", "category", "flower"),
        ("doctors", "state", "String!", "CA", "/api/v1/doctors", "state", "CA"),
    ],
)
def test_a_variable_of_the_old_scalar_type_still_fits_the_singular_argument(
    gql,
    api,
    field: str,
    argument: str,
    declared: str,
    value: str,
    path: str,
    param: str,
    text: str,
) -> None:
    query = f"query($v: {declared}) {{ {field}({argument}: $v) {{ total }} }}"
    total = gql.data(query, {"v": value})[field]["total"]
    assert total == api.json(path, **{param: text})["meta"]["total"]
    assert total > 0


def test_the_old_effect_variable_document_answers_as_before(gql, api) -> None:
    body = gql("query($s: String!) { strains(effect: $s) { total } }", {"s": "relaxed"})
    expected = api.json("/api/v1/strains", effect="relaxed")["meta"]["total"]
    assert "errors" not in body
    assert body["data"] == {"strains": {"total": expected}}


def test_strain_dispensaries_take_the_old_state_variable(gql, api, session: Session) -> None:
    strain, (state, _) = _strain_in_two_states(session)
    query = (
        "query($slug: String!, $s: String) { strain(slug: $slug) { dispensaries(state: $s, "
        "limit: 100) { id } } }"
    )
    found = gql.data(query, {"slug": strain.slug, "s": state})["strain"]["dispensaries"]
    rest = _rest_ids(api, f"/api/v1/strains/{strain.slug}/dispensaries", state=state)
    assert [d["id"] for d in found] == rest
    assert len(rest) > 0


# --- the plurals: any of several values --------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "path"),
    [
        ("dispensaries", "/api/v1/dispensaries"),
        ("deals", "/api/v1/deals"),
        ("doctors", "/api/v1/doctors"),
    ],
)
def test_several_states_equal_rests_comma_list(gql, api, field: str, path: str) -> None:
    found = _gql_ids(gql, field, 'states: ["CA", "CO"]')
    assert found == _rest_ids(api, path, state="CA,CO")
    assert found == _gql_ids(gql, field, "states: $s", {"s": ["CA", "CO"]})
    # A singular's text with commas is read as several values, as REST reads it.
    assert found == _gql_ids(gql, field, 'state: "CA,CO"')
    assert len(found) == _total(gql, field, 'state: "CA"') + _total(gql, field, 'state: "CO"')
    assert _total(gql, field, 'state: "CA"') > 0
    assert _total(gql, field, 'state: "CO"') > 0


def test_strain_dispensaries_in_several_states_equal_rest(gql, api, session: Session) -> None:
    strain, states = _strain_in_two_states(session)
    found = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(states: ["{states[0]}", '
        f'"{states[1]}"], limit: 100) {{ id }} }} }}'
    )["strain"]["dispensaries"]
    ids = [d["id"] for d in found]
    rest = _rest_ids(api, f"/api/v1/strains/{strain.slug}/dispensaries", state=",".join(states))
    assert ids == rest
    found_states = session.scalars(select(Dispensary.state).where(Dispensary.public_id.in_(ids)))
    assert set(found_states) == set(states)


# --- errors name the plural ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "arguments", "message", "param"),
    [
        # Both the singular and its plural.
        ("strains", "type: INDICA, types: [SATIVA]", "type and types", "types"),
        ("strains", 'effect: "happy", effects: ["relaxed"]', "effect and effects", "effects"),
        ("strains", 'flavor: "sweet", flavors: ["earthy"]', "flavor and flavors", "flavors"),
        ("dispensaries", 'state: "CA", states: ["CO"]', "state and states", "states"),
        ("dispensaries", "type: MEDICAL, types: [BOTH]", "type and types", "types"),
        ("deals", 'state: "CA", states: ["CO"]', "state and states", "states"),
        (
            "deals",
            'category: "flower", categories: ["edibles"]',
            "category and categories",
            "categories",
        ),
        ("doctors", 'state: "CA", states: ["CA"]', "state and states", "states"),
    ],
)
def test_the_singular_and_its_plural_together_are_an_error_naming_the_plural(
    gql, field: str, arguments: str, message: str, param: str
) -> None:
    body = gql(f"{{ {field}({arguments}) {{ total }} }}")
    assert body["data"] == {field: None}
    [error] = body["errors"]
    assert error["message"] == f"{message} cannot be combined: give one"
    assert error["extensions"] == {"code": 400, "param": param}


@pytest.mark.parametrize(
    ("field", "arguments", "message", "param"),
    [
        # Eleven values.
        ("strains", "types: " + _eleven("INDICA"), "types takes at most 10 values", "types"),
        ("strains", f"effects: {ELEVEN_WORDS}", "effects takes at most 10 values", "effects"),
        ("strains", f"flavors: {ELEVEN_WORDS}", "flavors takes at most 10 values", "flavors"),
        ("dispensaries", f"states: {ELEVEN_STATES}", "states takes at most 10 values", "states"),
        ("dispensaries", "types: " + _eleven("BOTH"), "types takes at most 10 values", "types"),
        ("doctors", f"states: {ELEVEN_STATES}", "states takes at most 10 values", "states"),
        (
            "deals",
            "categories: " + _eleven('"flower"'),
            "categories takes at most 10 values",
            "categories",
        ),
        # A bad value inside the list, or the only one.
        ("dispensaries", 'states: ["CA", "ZZ"]', f"states {STATE_MESSAGE}", "states"),
        ("doctors", 'states: ["ZZ"]', f"states {STATE_MESSAGE}", "states"),
        ("deals", 'states: ["co", "California"]', f"states {STATE_MESSAGE}", "states"),
        (
            "deals",
            'categories: ["flower", "snacks"]',
            f"categories must be one of: {CATEGORIES}",
            "categories",
        ),
        ("strains", 'effects: ["relaxed", "Happy!"]', f"effects {WORD}", "effects"),
        ("strains", 'flavors: [""]', f"flavors {WORD}", "flavors"),
        # The singular still names itself, whatever its text holds.
        ("dispensaries", 'state: "CA,ZZ"', f"state {STATE_MESSAGE}", "state"),
        ("doctors", f"state: {ELEVEN_CA_TEXT}", "state takes at most 10 values", "state"),
    ],
)
def test_a_bad_plural_names_the_plural_in_param_and_message(
    gql, field: str, arguments: str, message: str, param: str
) -> None:
    body = gql(f"{{ {field}({arguments}) {{ total }} }}")
    assert body["data"] == {field: None}
    [error] = body["errors"]
    assert error["message"] == message
    assert error["extensions"] == {"code": 400, "param": param}


def test_an_empty_value_in_a_plural_names_the_plural(gql) -> None:
    [error] = gql('{ doctors(states: ["CA", " "]) { total } }')["errors"]
    assert error["message"].startswith("states has an empty value: ")
    assert error["extensions"] == {"code": 400, "param": "states"}


@pytest.mark.parametrize(
    ("arguments", "message", "param"),
    [
        ('state: "CA", states: ["CO"]', "state and states cannot be combined: give one", "states"),
        (f"states: {ELEVEN_STATES}", "states takes at most 10 values", "states"),
        ('states: ["CA", "ZZ"]', f"states {STATE_MESSAGE}", "states"),
    ],
)
def test_a_bad_strain_dispensaries_plural_names_the_plural(
    gql, session: Session, arguments: str, message: str, param: str
) -> None:
    strain, _ = _strain_in_two_states(session)
    body = gql(f'{{ strain(slug: "{strain.slug}") {{ dispensaries({arguments}) {{ id }} }} }}')
    assert body["data"] == {"strain": None}
    [error] = body["errors"]
    assert error["message"] == message
    assert error["extensions"] == {"code": 400, "param": param}
    assert error["path"] == ["strain", "dispensaries"]
