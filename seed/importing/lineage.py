"""Cycles in a lineage: strains are bred from their parents, so no strain may be its own
ancestor. An import refuses every cycle, naming the strains in it."""

from collections.abc import Mapping, Sequence


def find_cycles(parents: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Every strongly connected group of strains that reach themselves through ``parents``
    (slug -> parent slugs), each as one cycle through it: ``[a, b, a]`` says a's parent is b
    and b's parent is a. Groups come in the order of their first slug in ``parents``."""
    groups = _cyclic_groups(parents)
    return [_cycle_in(group, parents) for group in groups]


def starting_at(cycle: list[str], slug: str) -> list[str]:
    """The same cycle walked from ``slug`` (one of its strains)."""
    ring = cycle[:-1]
    at = ring.index(slug)
    return [*ring[at:], *ring[:at], slug]


def describe(cycle: list[str]) -> str:
    """The error for a cycle, naming its strains in order."""
    return (
        f"parents form a cycle: {' -> '.join(cycle)} (each strain has the next as a parent); "
        "a strain cannot be its own ancestor"
    )


def _cycle_in(group: set[str], parents: Mapping[str, Sequence[str]]) -> list[str]:
    """A cycle through the group's first strain (in ``parents`` order): walk from parent to
    parent inside the group (each has one there) until a strain repeats."""
    start = next(slug for slug in parents if slug in group)
    path, seen = [start], {start: 0}
    while True:
        step = next(p for p in parents[path[-1]] if p in group)
        if step in seen:
            return [*path[seen[step] :], step]
        seen[step] = len(path)
        path.append(step)


def _cyclic_groups(parents: Mapping[str, Sequence[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components (iterative), keeping those with a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in parents:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            edges = [p for p in parents.get(node, ()) if p in parents]
            if child < len(edges):
                work.append((node, child + 1))
                nxt = edges[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1 or node in parents.get(node, ()):
                    groups.append(group)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    order = {slug: n for n, slug in enumerate(parents)}
    return sorted(groups, key=lambda g: min(order[s] for s in g))
