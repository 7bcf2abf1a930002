"""service.bounds: one row per list, read by both edges; a list served without a row fails here."""

import pytest
from flask.testing import FlaskClient
from graphql import IntValueNode, ObjectTypeDefinitionNode, parse

from graphql_schema import make_schema
from graphql_schema.cost_walk import LIST_SIZES
from service import bounds
from service.bounds import LISTS, MAX_OFFSET, STRAIN_DISPENSARIES, ListBound
from service.errors import InvalidParameter
from service.nodes import MAX_NODE_IDS
from service.paging import PageRequest

API_PREFIX = "/api/v1/"


def _key(bound: ListBound) -> tuple[str, str]:
    """Where GraphQL serves the list: a list operation is a field of Query."""
    return (bound.owner or "Query", bound.name)


def _graphql_limits() -> dict[tuple[str, str], int | None]:
    """(type, field) -> the default of its ``limit`` argument, for every field of the served
    schema that has one (read from its SDL)."""
    found: dict[tuple[str, str], int | None] = {}
    for definition in parse(str(make_schema())).definitions:
        if not isinstance(definition, ObjectTypeDefinitionNode):
            continue
        for field in definition.fields or ():
            for argument in field.arguments or ():
                if argument.name.value == "limit":
                    default = argument.default_value
                    value = int(default.value) if isinstance(default, IntValueNode) else None
                    found[(definition.name.value, field.name.value)] = value
    return found


def test_the_table_holds_the_spec_bounds_of_every_list() -> None:
    assert {_key(b): (b.default, b.maximum) for b in LISTS} == {
        ("Query", "strains"): (20, 100),
        ("Query", "dispensaries"): (20, 100),
        ("Query", "deals"): (20, 100),
        ("Query", "doctors"): (20, 50),
        ("Query", "search"): (20, 100),
        ("Query", "changes"): (100, 1000),
        ("Dispensary", "deals"): (20, 100),
        ("Dispensary", "menu"): (100, 100),
        ("Dispensary", "reviews"): (20, 20),
        ("Strain", "dispensaries"): (20, 100),
        ("Strain", "parents"): (3, 3),
        ("Strain", "children"): (20, 100),
    }
    assert len({_key(b) for b in LISTS}) == len(LISTS)
    assert MAX_OFFSET == 1_000_000


@pytest.mark.parametrize("bound", LISTS, ids=lambda b: ".".join(_key(b)))
def test_a_page_of_a_list_defaults_to_its_default_and_is_cut_at_its_maximum(
    bound: ListBound,
) -> None:
    assert PageRequest.within(bound) == PageRequest(limit=bound.default, offset=0)
    assert PageRequest.within(bound, bound.maximum, 7) == PageRequest(bound.maximum, 7)
    assert PageRequest.within(bound, bound.maximum + 1, 0).limit == bound.maximum


@pytest.mark.parametrize("bound", [bounds.DOCTORS, bounds.DISPENSARY_REVIEWS])
def test_a_limit_below_one_is_refused_naming_the_lists_own_maximum(bound: ListBound) -> None:
    with pytest.raises(InvalidParameter) as info:
        PageRequest.within(bound, 0, 0)
    assert info.value.message == (
        f"limit must be an integer from 1 to {bound.maximum} (larger values are reduced to "
        f"{bound.maximum})"
    )
    assert info.value.param == "limit"


def test_every_graphql_field_with_a_limit_has_a_row_and_defaults_to_it() -> None:
    assert _graphql_limits() == {_key(b): b.default for b in LISTS}


def test_the_graphql_cost_estimate_sizes_each_list_at_its_maximum() -> None:
    for bound in LISTS:
        size = LIST_SIZES[_key(bound)]
        assert (size.maximum, size.argument) == (bound.maximum, "limit"), _key(bound)
    # Besides the table, only the laws (one record per jurisdiction, no limit argument), nodes
    # (one record per id asked, at most MAX_NODE_IDS), the chemistry vocabulary's fixed lists
    # (every compound; a strain's compounds of each kind; its parents), a batch's results and
    # a lineage's nodes and edges (at their bounds).
    assert set(LIST_SIZES) - {_key(b) for b in LISTS} == {
        ("Query", "laws"),
        ("Query", "nodes"),
        ("Query", "compounds"),
        ("Chemistry", "cannabinoids"),
        ("Chemistry", "terpenes"),
        ("Lineage", "parents"),
        ("LabBatch", "results"),
        ("LineageGraph", "nodes"),
        ("LineageGraph", "edges"),
    }
    assert (LIST_SIZES["Query", "nodes"].maximum, LIST_SIZES["Query", "nodes"].argument) == (
        MAX_NODE_IDS,
        "ids",
    )


def test_every_rest_list_publishes_its_rows_bounds(client: FlaskClient) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    published = {}
    for path, item in spec["paths"].items():
        params = {p["name"]: p for p in item["get"].get("parameters", [])}
        if "limit" in params:
            limit, offset = params["limit"], params.get("offset")
            published[path] = (
                limit["schema"]["default"],
                limit["description"].split(";")[0],
                offset["schema"]["maximum"] if offset is not None else None,
            )
    operations = {API_PREFIX + b.name: b for b in LISTS if b.owner is None}
    # Where to buy a strain: the strain's dispensaries, GraphQL's Strain.dispensaries.
    operations[API_PREFIX + "strains/{slug}/dispensaries"] = STRAIN_DISPENSARIES
    # The change feed pages by cursor (since), without an offset.
    cursors = {API_PREFIX + "changes"}
    assert published == {
        path: (
            b.default,
            f"Results per page, 1 to {b.maximum}",
            None if path in cursors else MAX_OFFSET,
        )
        for path, b in operations.items()
    }
