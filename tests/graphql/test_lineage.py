"""GraphQL's lineage: Query.lineage (as REST's /strains/{slug}/lineage), Strain.parents and
Strain.children (pages batched per request level, priced by the cost analysis), and the batch
on the shelf (MenuItem.lab, pricePerGram; Strain.dispensaries by PRICE_PER_GRAM and
totalThcMin), on the shared tiny dataset."""

from collections.abc import Iterator
from datetime import date

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import MenuItem, Strain
from seed import Dataset, generate
from tests.conftest import TINY_SEED
from tests.lineages import expected_lineage
from tests.menus import most_listed_strain

from .conftest import Gql, warm_up

LINEAGE_QUERY = (
    "query($slug: String!, $direction: LineageDirection!, $depth: Int!) { "
    "lineage(slug: $slug, direction: $direction, depth: $depth) { "
    "root nodes { slug name depth } edges { child parent } truncated } }"
)


@pytest.fixture(scope="module")
def dataset(reference_day: date) -> Dataset:
    return generate(scale="tiny", seed=TINY_SEED, today=reference_day)


@pytest.fixture
def rich(client: FlaskClient, api_keys: dict[str, str]) -> Gql:
    """The enterprise key: many operations."""
    return Gql(client, api_keys["enterprise"])


@pytest.mark.parametrize("direction", ["ANCESTORS", "DESCENDANTS"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_lineage_is_the_walk_of_the_parent_links(
    rich: Gql, dataset: Dataset, direction: str, depth: int
) -> None:
    for strain in dataset.strains[::7]:
        variables = {"slug": strain["slug"], "direction": direction, "depth": depth}
        found = rich.data(LINEAGE_QUERY, variables)["lineage"]
        nodes, edges = expected_lineage(dataset, strain["id"], direction == "ANCESTORS", depth)
        assert found == {
            "root": strain["slug"],
            "nodes": [node._asdict() for node in nodes],
            "edges": [edge._asdict() for edge in edges],
            "truncated": False,
        }, strain["slug"]


def test_lineage_defaults_to_the_parents_and_is_null_for_an_unknown_strain(gql: Gql) -> None:
    data = gql.data(
        '{ a: lineage(slug: "wedding-cake") { nodes { slug depth } } '
        'b: lineage(slug: "no-such-strain") { root } }'
    )
    assert data["a"]["nodes"] == [
        {"slug": "cherry-pie", "depth": 1},
        {"slug": "girl-scout-cookies", "depth": 1},
    ]
    assert data["b"] is None


@pytest.mark.parametrize("depth", [0, 4, -1, 1_000_000_000])
def test_a_depth_outside_one_to_three_names_depth(gql: Gql, depth: int) -> None:
    (error,) = gql.errors(f'{{ lineage(slug: "og-kush", depth: {depth}) {{ root }} }}')
    assert error["message"] == "depth must be an integer from 1 to 3"
    assert error["extensions"] == {"code": 400, "param": "depth"}


@pytest.mark.parametrize(
    "arguments", ["direction: SIDEWAYS", 'direction: "ancestors"', 'depth: "2"', "depth: 2.5"]
)
def test_a_direction_or_depth_of_the_wrong_kind_is_refused_by_validation(
    gql: Gql, arguments: str
) -> None:
    (error,) = gql.errors(f'{{ lineage(slug: "og-kush", {arguments}) {{ root }} }}')
    assert error["extensions"]["code"] == 400


def test_parents_and_children_are_pages_of_strains(gql: Gql, dataset: Dataset) -> None:
    data = gql.data(
        '{ strain(slug: "girl-scout-cookies") { parents { total limit offset items { slug } } '
        "children(limit: 3, offset: 1) { total limit offset items { slug name } } } }"
    )["strain"]
    by_id = {s["id"]: s for s in dataset.strains}
    gsc = next(s for s in dataset.strains if s["slug"] == "girl-scout-cookies")
    parents = sorted(
        (r for r in dataset.strain_parents if r["strain_id"] == gsc["id"]),
        key=lambda r: r["position"],
    )
    assert data["parents"] == {
        "total": len(parents),
        "limit": 3,
        "offset": 0,
        "items": [{"slug": by_id[r["parent_id"]]["slug"]} for r in parents],
    }
    nodes, _ = expected_lineage(dataset, gsc["id"], False, 1)  # children by name, then slug
    assert data["children"]["total"] == len(nodes) > 4
    assert (data["children"]["limit"], data["children"]["offset"]) == (3, 1)
    assert data["children"]["items"] == [{"slug": n.slug, "name": n.name} for n in nodes[1:4]]


def test_a_limit_over_the_maximum_is_reduced_and_below_one_refused(gql: Gql) -> None:
    data = gql.data('{ strain(slug: "og-kush") { parents(limit: 50) { limit } } }')
    assert data["strain"]["parents"]["limit"] == 3
    (error,) = gql.errors('{ strain(slug: "og-kush") { children(limit: 0) { total } } }')
    assert error["extensions"] == {"code": 400, "param": "limit"}


# --- statements and cost ------------------------------------------------------------------------

FAMILY = """
query Family($limit: Int!) {
  strains(limit: $limit) {
    items {
      slug
      parents { total items { slug children(limit: 3) { total items { slug } } } }
      children(limit: 2, offset: 1) { total items { slug parents(limit: 1) { items { slug } } } }
    }
  }
}
"""


@pytest.fixture
def counted(make_app, api_keys: dict) -> Iterator[tuple[Flask, FlaskClient]]:
    """No result cache, a key lookup per request, a raised budget: every document runs."""
    app = make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, GRAPHQL_COST_BUDGET=10**9)
    warm_up(app, api_keys["enterprise"])
    with app.test_client() as client:
        yield app, client


def test_relatives_take_one_statement_per_level_at_any_page_size(
    counted: tuple[Flask, FlaskClient], api_keys: dict, count_statements
) -> None:
    app, client = counted
    counts = []
    for limit in (5, 100):
        with count_statements(app) as seen:
            response = client.post(
                "/graphql",
                json={"query": FAMILY, "variables": {"limit": limit}},
                headers={"X-API-Key": api_keys["enterprise"]},
            )
        body = response.get_json()
        assert "errors" not in body, body
        assert len(body["data"]["strains"]["items"]) == limit
        counts.append(len(seen))
    # key lookup, data version, the strain page, parents, the parents' children, children
    # (a window from offset 1: some strains have none there, counted apart), their parents.
    assert counts == [8, 8]


def test_parents_and_children_are_priced_by_their_limits(gql: Gql, work) -> None:
    query = "{ strains(limit: 5) { items { slug children(limit: 10) { total items { slug } } } } }"
    values = 1 + 5 * (1 + 1 + (1 + 1 + 10 * 2))
    expected = values + work.field("Query", "strains", limit=5)
    expected += work.field("Strain", "children", 5, limit=10)
    assert gql(query)["extensions"]["cost"]["requested"] == expected


def test_deeply_nested_children_are_refused_by_their_cost_before_running(
    gql: Gql, count_statements, app: Flask
) -> None:
    inner = "slug"
    for _ in range(4):
        inner = f"children(limit: 100) {{ items {{ {inner} }} }}"
    with count_statements(app) as seen:
        body = gql("{ strains(limit: 100) { items { " + inner + " } } }")
    assert body.get("data") is None
    (error,) = body["errors"]
    assert error["message"].startswith("Estimated query cost ")
    assert error["extensions"]["cost"]["requested"] > 10**10  # 100 ** 5 strains
    assert not any("strain_parents" in statement for statement in seen)


# --- the batch on the shelf ------------------------------------------------------------------


def test_menu_items_show_their_batch_and_price_per_gram(gql: Gql, session: Session) -> None:
    menu = gql.data(
        '{ dispensary(id: "disp_1001") { menu { name unit pricePerGram '
        "lab { batchId testedAt lab coaUrl results { key value unit qualifier } "
        "totalThc totalCbd } } } }"
    )["dispensary"]["menu"]
    rows = session.scalars(
        select(MenuItem).where(MenuItem.dispensary_id == 1).order_by(MenuItem.position)
    ).all()
    assert len(menu) == len(rows)
    for shown, row in zip(menu, rows, strict=True):
        assert shown["pricePerGram"] == row.price_per_gram
        if row.lab is None:
            assert shown["lab"] is None
            continue
        assert shown["lab"]["batchId"] == row.lab["batch_id"]
        assert shown["lab"]["testedAt"] == row.lab["tested_at"]
        assert (shown["lab"]["totalThc"], shown["lab"]["totalCbd"]) == (
            row.total_thc,
            row.total_cbd,
        )
        assert shown["lab"]["results"] == [
            {
                "key": r["key"],
                "value": r["value"],
                "unit": "percent",
                "qualifier": None if r["value"] is not None else r["qualifier"].upper(),
            }
            for r in row.lab["results"]
        ]


def test_a_strains_dispensaries_by_price_per_gram_with_a_batch_thc_floor(
    gql: Gql, session: Session
) -> None:
    strain = most_listed_strain(session)
    found = gql.data(
        f'{{ strain(slug: "{strain.slug}") {{ dispensaries(sort: PRICE_PER_GRAM, '
        "totalThcMin: 18.5, limit: 100) { id pricePerGram lab { totalThc } } } }"
    )["strain"]["dispensaries"]
    per_gram = [d["pricePerGram"] for d in found]
    assert per_gram == sorted(per_gram)
    assert all(d["lab"]["totalThc"] >= 18.5 for d in found)
    stocked = session.scalars(
        select(MenuItem).where(MenuItem.strain_id == strain.id, MenuItem.total_thc >= 18.5)
    ).all()
    assert len(found) == len({item.dispensary_id for item in stocked}) > 1


def test_price_per_gram_orders_only_a_strains_dispensaries(gql: Gql) -> None:
    for field in ("dispensaries", "doctors"):
        (error,) = gql.errors(f"{{ {field}(sort: PRICE_PER_GRAM) {{ total }} }}")
        assert error["message"] == "sort PRICE_PER_GRAM orders only Strain.dispensaries"
        assert error["extensions"] == {"code": 400, "param": "sort"}


@pytest.mark.parametrize("value", ["-1", "101", "1e9"])
def test_a_total_thc_min_outside_zero_to_100_names_total_thc_min(gql: Gql, value: str) -> None:
    (error,) = gql.errors(
        f'{{ strain(slug: "og-kush") {{ dispensaries(totalThcMin: {value}) {{ id }} }} }}'
    )
    assert error["message"] == "totalThcMin must be a number from 0 to 100"
    assert error["extensions"] == {"code": 400, "param": "totalThcMin"}


def test_strain_rows_and_lineage_nodes_agree(gql: Gql, session: Session) -> None:
    names = {slug: name for slug, name in session.execute(select(Strain.slug, Strain.name))}
    nodes = gql.data('{ lineage(slug: "runtz", depth: 3) { nodes { slug name } } }')["lineage"]
    assert nodes["nodes"]
    assert all(names[n["slug"]] == n["name"] for n in nodes["nodes"])
