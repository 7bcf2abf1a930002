"""The documented lineage answer, worked out over a generated dataset's rows (the oracle of the
lineage tests on every edge): service.lineage's rules written again, plainly."""

from typing import Any

from models.base import sort_key_of
from seed import Dataset
from service.lineage import LineageEdge, LineageNode


def expected_lineage(dataset: Dataset, root_id: int, up: bool, depth: int) -> tuple[list, list]:
    """The documented answer, worked out over the generated rows: a walk generation by
    generation, each strain at its smallest depth, nodes by (depth, name key, slug), edges
    from each strain below the depth by (position of the nearer end, of the farther end)."""
    strains = {s["id"]: s for s in dataset.strains}
    links: dict[int, list[int]] = {}
    for row in dataset.strain_parents:
        near, far = (
            (row["strain_id"], row["parent_id"]) if up else (row["parent_id"], row["strain_id"])
        )
        links.setdefault(near, []).append(far)
    depth_of = {root_id: 0}
    walked = []
    frontier = [root_id]
    for generation in range(1, depth + 1):
        reached = []
        for near in frontier:
            for far in links.get(near, []):
                walked.append((near, far))
                if far not in depth_of:
                    depth_of[far] = generation
                    reached.append(far)
        frontier = reached

    def key(pk: int) -> tuple:
        return (depth_of[pk], sort_key_of(strains[pk]["name"]), strains[pk]["slug"])

    ordered = sorted((pk for pk in depth_of if pk != root_id), key=key)
    position = {pk: index for index, pk in enumerate(ordered)} | {root_id: -1}
    nodes = [LineageNode(strains[pk]["slug"], strains[pk]["name"], depth_of[pk]) for pk in ordered]
    edges = []
    for near, far in sorted(walked, key=lambda pair: (position[pair[0]], position[pair[1]])):
        child, parent = (near, far) if up else (far, near)
        edges.append(LineageEdge(strains[child]["slug"], strains[parent]["slug"]))
    return nodes, edges


def as_json(found: tuple[list[LineageNode], list[LineageEdge]], root: str) -> dict[str, Any]:
    """The REST answer's data for an expected lineage (never truncated on the tiny dataset)."""
    nodes, edges = found
    return {
        "root": root,
        "nodes": [node._asdict() for node in nodes],
        "edges": [edge._asdict() for edge in edges],
        "truncated": False,
    }
