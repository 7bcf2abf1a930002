"""service.vocab: each vocabulary defined once and the same wherever it is used or published."""

import re
from enum import Enum

import pytest
from flask.testing import FlaskClient
from graphql import GraphQLEnumType, GraphQLObjectType, build_schema
from sqlalchemy import CheckConstraint, Table

from graphql_schema import make_schema
from models import ApiKey, Dispensary, Strain
from seed.importing.fields import FieldError, weekly_hours
from seed.importing.resources import BY_NAME
from service.search import KINDS
from service.vocab import (
    DEAL_CATEGORIES,
    DISPENSARY_TYPES,
    KEY_TIERS,
    SEARCH_HIT_TYPES,
    SEARCH_TYPES,
    STRAIN_TYPES,
    WEEKDAYS,
    DispensaryType,
    SearchType,
    StrainType,
    words,
)


def test_each_vocabulary_lists_its_words_in_order() -> None:
    assert STRAIN_TYPES == ("indica", "sativa", "hybrid")
    assert DISPENSARY_TYPES == ("recreational", "medical", "both")
    assert DEAL_CATEGORIES == (
        "flower",
        "edibles",
        "concentrates",
        "vapes",
        "pre-rolls",
        "topicals",
        "tinctures",
    )
    assert SEARCH_TYPES == ("strains", "dispensaries", "doctors", "deals")
    assert SEARCH_HIT_TYPES == ("strain", "dispensary", "doctor", "deal")
    assert KEY_TIERS == ("free", "pro", "enterprise")
    assert WEEKDAYS == ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _checked_words(table: Table, column: str) -> tuple[str, ...]:
    """The words a ``<column> IN (...)`` CHECK constraint of ``table`` allows."""
    for constraint in table.constraints:
        if isinstance(constraint, CheckConstraint):
            text = str(constraint.sqltext)
            if text.startswith(f"{column} IN ("):
                return tuple(re.findall(r"'([^']*)'", text))
    raise AssertionError(f"{table.name} has no CHECK constraint on {column}")


@pytest.mark.parametrize(
    ("table", "column", "expected"),
    [
        (Strain.__table__, "type", STRAIN_TYPES),
        (Dispensary.__table__, "type", DISPENSARY_TYPES),
        (ApiKey.__table__, "tier", KEY_TIERS),
    ],
    ids=["strains.type", "dispensaries.type", "api_keys.tier"],
)
def test_the_databases_check_constraints_allow_exactly_the_vocabulary(
    table: Table, column: str, expected: tuple[str, ...]
) -> None:
    assert _checked_words(table, column) == expected


@pytest.mark.parametrize(
    ("vocabulary", "description"),
    [
        (StrainType, "Strain type."),
        (DispensaryType, "Dispensary license type."),
        (SearchType, "Kind of result a search is restricted to."),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_graphql_serves_each_enum_with_the_vocabularys_members_in_order(
    vocabulary: type[Enum], description: str
) -> None:
    served = build_schema(str(make_schema())).type_map[vocabulary.__name__]
    assert isinstance(served, GraphQLEnumType)
    assert list(served.values) == [member.name for member in vocabulary]
    assert [member.name.lower() for member in vocabulary] == list(words(vocabulary))
    assert served.description == description


def test_graphql_hours_have_one_field_per_weekday_in_order() -> None:
    hours = build_schema(str(make_schema())).type_map["Hours"]
    assert isinstance(hours, GraphQLObjectType)
    assert tuple(hours.fields) == WEEKDAYS


def test_rest_publishes_the_vocabularies_of_its_output_fields(client: FlaskClient) -> None:
    schemas = client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    assert schemas["StrainItem"]["properties"]["type"]["enum"] == list(STRAIN_TYPES)
    assert schemas["DispensaryHit"]["properties"]["type"]["enum"] == list(DISPENSARY_TYPES)
    assert schemas["Dispensary"]["properties"]["type"]["enum"] == list(DISPENSARY_TYPES)
    assert schemas["SearchHit"]["properties"]["type"]["enum"] == list(SEARCH_HIT_TYPES)
    assert schemas["Usage"]["properties"]["tier"]["enum"] == list(KEY_TIERS)


def test_a_search_restricted_to_a_type_finds_hits_of_the_matching_kind() -> None:
    assert KINDS == {
        "strains": "strain",
        "dispensaries": "dispensary",
        "doctors": "doctor",
        "deals": "deal",
    }


@pytest.mark.parametrize(
    ("resource", "field", "words_listed", "given", "stored"),
    [
        ("strains", "type", "indica, sativa, hybrid", " InDiCa ", "indica"),
        ("dispensaries", "type", "recreational, medical, both", "BOTH", "both"),
        ("deals", "category", ", ".join(DEAL_CATEGORIES), "Pre-Rolls", "pre-rolls"),
        ("menu_items", "category", ", ".join(DEAL_CATEGORIES), " flower", "flower"),
    ],
)
def test_an_import_takes_a_vocabulary_word_in_any_case_and_refuses_others(
    resource: str, field: str, words_listed: str, given: str, stored: str
) -> None:
    (spec,) = [f for f in BY_NAME[resource].fields if f.name == field]
    assert spec.read(given, False) == stored
    with pytest.raises(FieldError, match=f"^must be one of: {re.escape(words_listed)}$"):
        spec.read("ruderalis", False)


def test_an_import_refuses_an_unknown_day_naming_the_weekdays() -> None:
    parse = weekly_hours()
    with pytest.raises(FieldError, match=r"^has unknown day 'monday'; use mon, tue, wed, thu, fri"):
        parse({"monday": "9:00-17:00"}, False)
