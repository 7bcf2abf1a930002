"""service.lineage on a lineage written by each test (in a transaction rolled back after it):
ancestors and descendants to each depth, their order, a strain met twice, the bound on an
answer's size, the pages of parents and children, and the request's validation.

The graph, by strain id (the tiny dataset's first strains, by name): 3 was bred from 1 and 2;
4 from 3 and 1; 5 from 4; 6 from 4 and 2; 7 from 6.
"""

import pytest
from sqlalchemy import Connection, delete, select
from sqlalchemy.orm import Session

from models import Strain, StrainParent
from seed import Dataset
from service.errors import InvalidParameter, NotFound
from service.lineage import (
    LINEAGE_MAX_NODES,
    LineageEdge,
    LineageNode,
    LineageRequest,
    children_by_strain,
    get_lineage,
    parents_by_strain,
)
from service.paging import PageRequest
from tests.conftest import recorded_statements
from tests.lineages import expected_lineage

PARENTS = {3: [1, 2], 4: [3, 1], 5: [4], 6: [4, 2], 7: [6]}


@pytest.fixture
def graph(session: Session) -> Session:
    """The session with only PARENTS as the lineage."""
    session.execute(delete(StrainParent))
    for child, parents in PARENTS.items():
        for position, parent in enumerate(parents):
            session.add(StrainParent(strain_id=child, parent_id=parent, position=position))
    session.flush()
    return session


@pytest.fixture
def slug(graph: Session) -> dict[int, str]:
    return {pk: value for pk, value in graph.execute(select(Strain.id, Strain.slug))}


@pytest.fixture
def name(graph: Session) -> dict[int, str]:
    return {pk: value for pk, value in graph.execute(select(Strain.id, Strain.name))}


def _nodes(
    slug: dict[int, str], name: dict[int, str], *found: tuple[int, int]
) -> list[LineageNode]:
    return [LineageNode(slug[pk], name[pk], depth) for pk, depth in found]


def _edges(slug: dict[int, str], *pairs: tuple[int, int]) -> list[LineageEdge]:
    return [LineageEdge(slug[child], slug[parent]) for child, parent in pairs]


def _walk(graph: Session, slug: str, direction: str, depth: int):  # type: ignore[no-untyped-def]
    return get_lineage(graph, slug, LineageRequest.create(direction=direction, depth=depth))


def test_the_default_is_the_parents_of_the_strain(graph: Session, slug, name) -> None:
    found = get_lineage(graph, slug[4], LineageRequest.create())
    assert found.root == slug[4]
    assert found.nodes == _nodes(slug, name, (1, 1), (3, 1))
    assert found.edges == _edges(slug, (4, 1), (4, 3))
    assert found.truncated is False


def test_ancestors_at_each_depth(graph: Session, slug, name) -> None:
    one = _walk(graph, slug[7], "ancestors", 1)
    assert (one.nodes, one.edges) == (_nodes(slug, name, (6, 1)), _edges(slug, (7, 6)))
    two = _walk(graph, slug[7], "ancestors", 2)
    assert two.nodes == _nodes(slug, name, (6, 1), (2, 2), (4, 2))
    assert two.edges == _edges(slug, (7, 6), (6, 2), (6, 4))
    three = _walk(graph, slug[7], "ancestors", 3)
    # 4's parents: 1 (new at depth 3) and 3; 2 has none.
    assert three.nodes == _nodes(slug, name, (6, 1), (2, 2), (4, 2), (1, 3), (3, 3))
    assert three.edges == _edges(slug, (7, 6), (6, 2), (6, 4), (4, 1), (4, 3))


def test_a_strain_reached_at_two_depths_is_listed_once_at_the_smaller(
    graph: Session, slug, name
) -> None:
    # 1 is a parent of 4 and a grandparent through 3: listed at depth 1, both links shown.
    found = _walk(graph, slug[4], "ancestors", 2)
    assert found.nodes == _nodes(slug, name, (1, 1), (3, 1), (2, 2))
    assert found.edges == _edges(slug, (4, 1), (4, 3), (3, 1), (3, 2))


def test_descendants_at_each_depth(graph: Session, slug, name) -> None:
    one = _walk(graph, slug[1], "descendants", 1)
    assert one.nodes == _nodes(slug, name, (3, 1), (4, 1))
    assert one.edges == _edges(slug, (3, 1), (4, 1))
    two = _walk(graph, slug[1], "descendants", 2)
    assert two.nodes == _nodes(slug, name, (3, 1), (4, 1), (5, 2), (6, 2))
    assert two.edges == _edges(slug, (3, 1), (4, 1), (4, 3), (5, 4), (6, 4))
    three = _walk(graph, slug[1], "descendants", 3)
    assert three.nodes == _nodes(slug, name, (3, 1), (4, 1), (5, 2), (6, 2), (7, 3))
    assert three.edges == [*two.edges, *_edges(slug, (7, 6))]


def test_a_strain_without_relatives_has_empty_lists(graph: Session, slug) -> None:
    for direction in ("ancestors", "descendants"):
        found = _walk(graph, slug[8], direction, 3)
        assert (found.root, found.nodes, found.edges) == (slug[8], [], [])


def test_nodes_are_ordered_by_depth_then_name_whatever_the_ids(graph: Session, slug) -> None:
    # Parents listed in reverse name order: the answer still lists them by name.
    graph.add_all(
        StrainParent(strain_id=20, parent_id=parent, position=position)
        for position, parent in enumerate((12, 11, 10))
    )
    graph.flush()
    found = _walk(graph, slug[20], "ancestors", 1)
    names = [node.name for node in found.nodes]
    assert names == sorted(names, key=str.lower)
    assert [node.slug for node in found.nodes] == [slug[10], slug[11], slug[12]]


def test_the_slug_is_read_in_any_case(graph: Session, slug) -> None:
    assert _walk(graph, slug[5].upper(), "ancestors", 1).root == slug[5]


def test_an_unknown_strain_is_not_found(graph: Session) -> None:
    with pytest.raises(NotFound):
        get_lineage(graph, "no-such-strain", LineageRequest.create())


def test_a_large_family_is_cut_at_the_bound_and_says_so(graph: Session, slug) -> None:
    children = range(20, 20 + LINEAGE_MAX_NODES + 10)
    graph.add_all(StrainParent(strain_id=pk, parent_id=2, position=1) for pk in children)
    graph.flush()
    found = _walk(graph, slug[2], "descendants", 3)
    assert found.truncated is True
    # The first nodes in name order are kept (all at depth 1: the walk stops there), and the
    # edges are those from the root to them.
    every = graph.execute(
        select(Strain.slug)
        .where(Strain.id.in_([*children, 3, 6]))
        .order_by(Strain.sort_key, Strain.slug)
    ).scalars()
    first = list(every)[:LINEAGE_MAX_NODES]
    assert [node.slug for node in found.nodes] == first
    assert {node.depth for node in found.nodes} == {1}
    assert found.edges == [LineageEdge(child, slug[2]) for child in first]


@pytest.mark.parametrize(
    ("given", "param"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 4}, "depth"),
        ({"depth": -1}, "depth"),
        ({"depth": 10**9}, "depth"),
        ({"direction": "sideways"}, "direction"),
        ({"direction": ""}, "direction"),
    ],
)
def test_a_bad_request_names_its_parameter(given: dict, param: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        LineageRequest.create(**given)
    assert raised.value.param == param
    allowed = "ancestors, descendants" if param == "direction" else "from 1 to 3"
    assert allowed in raised.value.message


def test_the_request_reads_its_direction_in_any_case() -> None:
    assert LineageRequest.create(direction=" Descendants ", depth=3) == LineageRequest(
        "descendants", 3
    )
    assert LineageRequest.create() == LineageRequest("ancestors", 1)


def _slugs(found: dict) -> dict[int, list[str]]:
    return {pk: [s.slug for s in page.items] for pk, page in found.items()}


def test_parents_come_in_their_recorded_order_and_page(graph: Session, slug) -> None:
    found = parents_by_strain(graph, [3, 4, 5, 8], PageRequest(5, 0))
    assert _slugs(found) == {
        3: [slug[1], slug[2]],
        4: [slug[3], slug[1]],  # recorded order, not by name
        5: [slug[4]],
        8: [],
    }
    assert {pk: page.total for pk, page in found.items()} == {3: 2, 4: 2, 5: 1, 8: 0}
    second = parents_by_strain(graph, [3, 4, 5], PageRequest(1, 1))
    assert _slugs(second) == {3: [slug[2]], 4: [slug[1]], 5: []}
    # A window past a strain's last parent still knows how many it has.
    assert {pk: page.total for pk, page in second.items()} == {3: 2, 4: 2, 5: 1}
    assert (second[3].limit, second[3].offset) == (1, 1)


def test_children_come_by_name_and_page_per_parent(graph: Session, slug) -> None:
    found = children_by_strain(graph, [1, 2, 4, 7], PageRequest(5, 0))
    assert _slugs(found) == {
        1: [slug[3], slug[4]],
        2: [slug[3], slug[6]],
        4: [slug[5], slug[6]],
        7: [],
    }
    first = children_by_strain(graph, [1, 4], PageRequest(1, 0))
    assert _slugs(first) == {1: [slug[3]], 4: [slug[5]]}
    assert {pk: page.total for pk, page in first.items()} == {1: 2, 4: 2}
    assert children_by_strain(graph, [], PageRequest(5, 0)) == {}


def test_pages_of_relatives_take_one_statement_unless_a_window_passes_the_end(
    graph: Session,
) -> None:
    with recorded_statements(graph.connection()) as seen:
        children_by_strain(graph, [1, 2, 4, 7, 8], PageRequest(5, 0))
    assert len(seen) == 1
    with recorded_statements(graph.connection()) as seen:
        children_by_strain(graph, [1, 2, 4, 7, 8], PageRequest(5, 1))
    assert len(seen) == 2  # 7 and 8 have nothing at offset 1: counted apart


# --- the tiny dataset's own lineage ------------------------------------------------------------


@pytest.mark.parametrize("direction", ["ancestors", "descendants"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_strain_of_the_dataset_has_its_documented_lineage(
    db: Connection, dataset: Dataset, direction: str, depth: int
) -> None:
    walked = 0
    for strain in dataset.strains:
        found = get_lineage(
            db, strain["slug"], LineageRequest.create(direction=direction, depth=depth)
        )
        nodes, edges = expected_lineage(dataset, strain["id"], direction == "ancestors", depth)
        assert (found.root, found.nodes, found.edges) == (strain["slug"], nodes, edges), strain[
            "slug"
        ]
        assert found.truncated is False
        walked += len(found.nodes)
    assert walked > len(dataset.strains) // 2  # most strains have relatives


def test_a_known_pedigree_three_generations_up(db: Connection) -> None:
    found = get_lineage(db, "wedding-cake", LineageRequest.create(depth=2))
    # Wedding Cake = Cherry Pie x Girl Scout Cookies; Cherry Pie = Granddaddy Purple x Durban
    # Poison; Girl Scout Cookies = OG Kush x Durban Poison (seed.lineage's known parents).
    assert [(n.slug, n.depth) for n in found.nodes][:2] == [
        ("cherry-pie", 1),
        ("girl-scout-cookies", 1),
    ]
    assert ("cherry-pie", "durban-poison") in {(e.child, e.parent) for e in found.edges}
