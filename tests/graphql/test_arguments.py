"""Every argument is documented in the schema, with the bounds the service enforces."""

import pytest
from graphql import ObjectTypeDefinitionNode, parse

from graphql_schema import make_schema
from service import bounds
from service.bounds import MAX_OFFSET, ListBound
from service.filters import (
    MAX_CBD,
    MAX_THC,
    MAX_VALUES,
    SEARCH_MAX_LENGTH,
    SEARCH_MIN_LENGTH,
    WORD_MAX_LENGTH,
)
from service.places import DEFAULT_RADIUS_MILES, MAX_RADIUS_MILES


def _argument_descriptions() -> dict[tuple[str, str, str], str | None]:
    """(type, field, argument) -> description, for every argument of every object type's field
    in the served SDL."""
    found: dict[tuple[str, str, str], str | None] = {}
    for definition in parse(str(make_schema())).definitions:
        if not isinstance(definition, ObjectTypeDefinitionNode):
            continue
        for field in definition.fields or ():
            for argument in field.arguments or ():
                key = (definition.name.value, field.name.value, argument.name.value)
                found[key] = argument.description.value if argument.description else None
    return found


def test_every_argument_of_every_field_has_a_description() -> None:
    found = _argument_descriptions()
    assert len(found) == 110  # every argument of the 21 fields that take any
    assert [key for key, text in found.items() if not (text and text.strip())] == []


def test_introspection_gives_the_explorer_a_description_for_every_argument(gql) -> None:
    data = gql.data(
        "{ __schema { types { name kind fields { name args { name description } } } } }"
    )
    objects = [t for t in data["__schema"]["types"] if t["kind"] == "OBJECT"]
    arguments = {
        (t["name"], f["name"], a["name"]): a["description"]
        for t in objects
        if not t["name"].startswith("__")
        for f in t["fields"]
        for a in f["args"]
    }
    assert arguments == _argument_descriptions()


PAGE_LIMITS = {
    ("Query", "strains"): bounds.STRAINS,
    ("Query", "dispensaries"): bounds.DISPENSARIES,
    ("Query", "deals"): bounds.DEALS,
    ("Query", "doctors"): bounds.DOCTORS,
    ("Query", "search"): bounds.SEARCH,
    ("Dispensary", "deals"): bounds.DISPENSARY_DEALS,
    ("Dispensary", "menu"): bounds.DISPENSARY_MENU,
    ("Dispensary", "reviews"): bounds.DISPENSARY_REVIEWS,
    ("Strain", "dispensaries"): bounds.STRAIN_DISPENSARIES,
}


@pytest.mark.parametrize(
    ("field", "bound"), PAGE_LIMITS.items(), ids=[".".join(k) for k in PAGE_LIMITS]
)
def test_limit_and_offset_describe_the_lists_own_bounds(
    field: tuple[str, str], bound: ListBound
) -> None:
    found = _argument_descriptions()
    limit = found[(*field, "limit")]
    assert limit is not None
    assert f"1 to {bound.maximum} (default {bound.default})" in limit
    assert f"larger values are reduced to {bound.maximum}" in limit
    offset = found[(*field, "offset")]
    assert offset is not None
    assert f"0 to {MAX_OFFSET}" in offset


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        (("Query", "strains", "thcMin"), f"Minimum THC percentage, from 0 to {MAX_THC:g}."),
        (
            ("Query", "strains", "thcMax"),
            f"Maximum THC percentage, not below thcMin, from 0 to {MAX_THC:g}.",
        ),
        (("Query", "strains", "cbdMin"), f"Minimum CBD percentage, from 0 to {MAX_CBD:g}."),
        (
            ("Query", "strains", "cbdMax"),
            f"Maximum CBD percentage, not below cbdMin, from 0 to {MAX_CBD:g}.",
        ),
        (
            ("Query", "dispensaries", "radius"),
            f"Miles from zip, greater than 0 and at most {MAX_RADIUS_MILES:g} (default "
            f"{DEFAULT_RADIUS_MILES:g}); only with zip (around near, give near.radius).",
        ),
        (
            ("Query", "search", "q"),
            f"Text to find: {SEARCH_MIN_LENGTH} to {SEARCH_MAX_LENGTH} characters once leading "
            "and trailing whitespace is trimmed; no NUL.",
        ),
        (
            ("Query", "deals", "category"),
            "Only deals of this category: flower, edibles, concentrates, vapes, pre-rolls, "
            "topicals or tinctures (any case).",
        ),
        (
            ("Query", "deals", "categories"),
            "Several deal categories (flower, edibles, concentrates, vapes, pre-rolls, topicals "
            f"or tinctures; any case), any of which matches (at most {MAX_VALUES}); not with "
            "category.",
        ),
        (("Query", "strains", "type"), "Only strains of this type: INDICA, SATIVA or HYBRID."),
        (
            ("Query", "strains", "types"),
            "Several strain types (INDICA, SATIVA or HYBRID), any of which matches (at most "
            f"{MAX_VALUES}); not with type.",
        ),
        (
            ("Strain", "dispensaries", "states"),
            "Several two-letter codes of US states, DC or territories (any case), any of which "
            f"matches (at most {MAX_VALUES}); not with state.",
        ),
        (("Query", "doctor", "id"), "The doctor's id, doc_<n>."),
    ],
)
def test_filter_descriptions_state_the_services_bounds(
    argument: tuple[str, str, str], expected: str
) -> None:
    assert _argument_descriptions()[argument] == expected


def test_word_filters_state_their_length_limit() -> None:
    found = _argument_descriptions()
    for name, example in (("effect", "relaxed"), ("flavor", "earthy")):
        text = found[("Query", "strains", name)]
        assert text is not None
        assert text.startswith(f"A word such as {example} (any case)")
        assert f"at most {WORD_MAX_LENGTH} characters" in text
