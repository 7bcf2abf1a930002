"""The work the estimate adds to an answer's values (graphql_schema.cost_work): which fields are
resolved, the rows each list reads for its arguments, and how the walk adds calls per parent and
statements once per level."""

import math

import pytest
from graphql import parse
from strawberry.types.base import StrawberryObjectDefinition

from graphql_schema import make_schema
from graphql_schema.cost import analyse
from graphql_schema.cost_walk import SchemaFacts
from graphql_schema.cost_work import (
    ARGUMENT,
    CALL,
    COUNTED,
    OPEN,
    RANKED,
    SCANNED,
    SEARCH,
    SKIPPED,
    STOCKIST,
    TRAIT,
    WORK,
    rows_read,
)
from service.dataset import EMPTY_TABLES, TableSizes

SIZES = TableSizes(
    strains=1_000,
    dispensaries=2_000,
    deals=3_000,
    doctors=400,
    menu_items=20_000,
    dispensaries_by_state=(("CA", 500), ("CO", 100), ("NY", 300)),
    deals_by_state=(("CA", 900), ("CO", 150), ("NY", 400)),
)


@pytest.fixture(scope="module")
def facts() -> SchemaFacts:
    return SchemaFacts(make_schema()._schema)


def test_every_field_resolved_by_a_function_has_its_work_named() -> None:
    schema = make_schema()
    resolved = set()
    for name in schema._schema.type_map:
        definition = schema.get_type_by_name(name)
        if not isinstance(definition, StrawberryObjectDefinition) or name.startswith("__"):
            continue
        for field in definition.fields:
            if field.base_resolver is not None:
                resolved.add(
                    (definition.name, schema.config.name_converter.get_graphql_name(field))
                )
    assert resolved == set(WORK)


@pytest.mark.parametrize(
    ("arguments", "rows"),
    [
        # Every dispensary counted through an index; the offset skips rows of those.
        ({}, 2_000 * COUNTED),
        ({"offset": 10}, 2_000 * COUNTED + 10 * SKIPPED),
        ({"offset": 1_000_000}, 2_000 * COUNTED + 2_000 * SKIPPED),
        # A state's (or states') own; unknown codes hold none.
        ({"state": "ca"}, 500 * COUNTED),
        ({"states": ["CA", "NY", "ZZ"]}, 800 * COUNTED),
        # A circle of 50 miles: a tenth of the whole radius, every candidate ranked.
        ({"near": {"lat": 1.0, "lng": 2.0, "radius": 50.0}}, 200 * RANKED),
        ({"zip": "80202"}, 200 * RANKED),  # the default radius, 50 miles
        ({"zip": "80202", "radius": 500.0}, 2_000 * RANKED),
        ({"state": "CO", "zip": "80202", "radius": 500.0}, 100 * RANKED),
        # A box's share of the wide box; open at an instant probes every candidate too.
        ({"bbox": {"west": 0.0, "south": 0.0, "east": 10.0, "north": 3.0}}, 200 * RANKED),
        ({"openNow": True}, 2_000 * (RANKED + OPEN)),
        ({"openNow": False}, 2_000 * COUNTED),
        ({"openAt": "2026-12-04T18:00:00-07:00", "state": "NY"}, 300 * (RANKED + OPEN)),
        ({"sort": "-rating"}, 2_000 * RANKED),
        ({"sort": "name"}, 2_000 * COUNTED),
        # By the change stamp: a walk of its index, as by name; updatedSince with another order
        # may test every candidate's stamp.
        ({"sort": "updated_at"}, 2_000 * COUNTED),
        ({"sort": "-updated_at", "updatedSince": "2026-11-27T00:00:00Z"}, 2_000 * COUNTED),
        ({"updatedSince": "2026-11-27T00:00:00Z"}, 2_000 * RANKED),
    ],
)
def test_a_dispensary_list_reads_the_rows_its_filters_keep(arguments: dict, rows: float) -> None:
    assert rows_read("Query", "dispensaries", arguments, SIZES) == math.ceil(rows)


def test_deals_and_doctors_read_their_own_tables() -> None:
    assert rows_read("Query", "deals", {"state": "CO"}, SIZES) == math.ceil(150 * COUNTED)
    assert rows_read("Query", "deals", {"sort": "expires"}, SIZES) == math.ceil(3_000 * COUNTED)
    near = {"near": {"lat": 1.0, "lng": 2.0, "radius": 500.0}, "openNow": True}
    assert rows_read("Query", "deals", near, SIZES) == math.ceil(3_000 * (RANKED + OPEN))
    # A doctor's state is not counted apart: every doctor is the bound.
    assert rows_read("Query", "doctors", {"state": "CA"}, SIZES) == math.ceil(400 * COUNTED)


@pytest.mark.parametrize(
    ("arguments", "per_strain"),
    [
        ({}, COUNTED),
        ({"effect": "relaxed"}, COUNTED + TRAIT),
        ({"effects": ["relaxed", "happy"], "flavor": "mint"}, COUNTED + 3 * TRAIT),
        ({"thcMin": 20.0}, COUNTED + SCANNED),
        ({"type": "indica", "effect": "relaxed"}, COUNTED + TRAIT),  # the trait narrows
        ({"updatedSince": "2026-11-27T00:00:00Z"}, COUNTED + SCANNED),  # tested per strain
    ],
)
def test_a_strain_list_reads_its_traits_and_scans_for_ranges(
    arguments: dict, per_strain: float
) -> None:
    assert rows_read("Query", "strains", arguments, SIZES) == math.ceil(1_000 * per_strain)


def test_a_search_and_a_strains_stockists_have_their_own_weights() -> None:
    assert rows_read("Query", "search", {"q": "blue"}, SIZES) == SEARCH
    # 20 stockists per strain (menu items per strain), each as a dispensary of a list would be.
    assert rows_read("Strain", "dispensaries", {}, SIZES) == math.ceil(20 * STOCKIST)
    timed = {"openNow": True, "zip": "80202"}
    expected = math.ceil(20 * (STOCKIST + OPEN + RANKED))
    assert rows_read("Strain", "dispensaries", timed, SIZES) == expected
    assert rows_read("Dispensary", "menu", {}, SIZES) == 0  # a window of an index: no scan


def test_arguments_that_do_not_coerce_read_nothing() -> None:
    assert rows_read("Query", "dispensaries", None, SIZES) == math.ceil(2_000 * COUNTED)


def test_the_walk_adds_a_call_per_parent_and_a_statement_per_level(facts: SchemaFacts) -> None:
    document = parse("{ dispensaries(limit: 3) { items { law { state } } } }")
    law = WORK[("Dispensary", "law")]
    root = WORK[("Query", "dispensaries")]
    values = 1 + 3 * (1 + 1 + 1)  # the page, 3 items of (item, law, state)
    root_call = CALL + ARGUMENT * 16 + root.call + math.ceil(2_000 * COUNTED)
    calls = root_call + 3 * (CALL + law.call)  # law takes no arguments
    expected = values + calls + root.statement + law.statement
    assert analyse(facts, document, None, None, sizes=SIZES).cost == expected


def test_aliased_relations_each_run_their_statement(facts: SchemaFacts) -> None:
    one = analyse(facts, parse("{ laws { state } }"), None, None).cost
    two = analyse(facts, parse("{ a: laws { state } b: laws { state } }"), None, None).cost
    assert two == 2 * one
    # laws takes two arguments (updatedSince, sort), each converted at its call.
    assert one == 56 * 2 + CALL + 2 * ARGUMENT + WORK[("Query", "laws")].statement


def test_without_table_sizes_no_rows_are_weighed(facts: SchemaFacts) -> None:
    document = parse("{ dispensaries(openNow: true, limit: 1) { total } }")
    empty = analyse(facts, document, None, None, sizes=EMPTY_TABLES).cost
    full = analyse(facts, document, None, None, sizes=SIZES).cost
    assert full - empty == math.ceil(2_000 * (RANKED + OPEN))
