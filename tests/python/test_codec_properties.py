"""Properties of codec placement (shared seed 000) on seeded random DAGs.

The C++ passes are checked against brute force: every edge in exactly one
subgraph, each subgraph weakly connected, its absolute dominator on every
entry-exit path and the last such node (path enumeration), before and after
coalescing; marker insertion idempotent, acyclic and within Theorems 7/10.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest
from mlir import ir, passmanager

import raptor
from codec_graphs import Graph, read_graph
from raptor.codec.synthetic import GENERATORS, random_dag

SEEDS = range(60)


def _run(text: str, pipeline: str) -> ir.Module:
    module = ir.Module.parse(text)
    passmanager.PassManager.parse(f"builtin.module({pipeline})").run(module.operation)
    assert module.operation.verify()
    return module


def _subgraphs(g: Graph) -> dict[int, list[int]]:
    groups: dict[int, list[int]] = defaultdict(list)
    for i, colour in enumerate(g.colours):
        groups[colour].append(i)
    return groups


def _weakly_connected(g: Graph, edges: list[int]) -> bool:
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in edges:
        u, v = g.edges[e]
        parent[find(u)] = find(v)
    return len({find(x) for x in parent}) == 1


def _absolute_dominator(g: Graph, edges: list[int]) -> int:
    """The last node (in topological order) on every entry-exit path."""
    succ: dict[int, list[int]] = defaultdict(list)
    indeg: dict[int, int] = defaultdict(int)
    nodes: set[int] = set()
    for e in edges:
        u, v = g.edges[e]
        succ[u].append(v)
        indeg[v] += 1
        nodes |= {u, v}
    entries = [n for n in nodes if indeg[n] == 0]
    exits = {n for n in nodes if not succ[n]}
    on_all: set[int] | None = None
    stack = [(e, [e]) for e in entries]
    paths = 0
    while stack:
        node, path = stack.pop()
        if node in exits:
            paths += 1
            on_all = set(path) if on_all is None else on_all & set(path)
            assert paths < 200_000, "graph too large for path enumeration"
            continue
        for nxt in succ[node]:
            stack.append((nxt, path + [nxt]))
    assert on_all, "no node is on every entry-exit path"
    return max(on_all)


def _check_partition(g: Graph) -> None:
    groups = _subgraphs(g)
    assert sum(len(v) for v in groups.values()) == len(g.edges)  # a partition
    dominated: dict[int, int] = {}
    for node, ids in g.dominators.items():
        for k in ids:
            assert k not in dominated, f"subgraph {k} has two dominators"
            dominated[k] = node
    assert set(dominated) == set(groups), "every subgraph has exactly one dominator"
    for colour, edges in groups.items():
        assert _weakly_connected(g, edges), f"subgraph {colour} is not weakly connected"
        assert len({g.types[e] for e in edges}) == 1, "one semantics per subgraph"
        assert dominated[colour] == _absolute_dominator(g, edges), f"subgraph {colour}"


@pytest.mark.parametrize("seed", SEEDS)
def test_subgraphs_and_dominators_match_brute_force(seed: int) -> None:
    policy = "ZYXW"[seed % 4]
    text = random_dag(seed, 4 + seed % 9)
    with raptor.Context():
        base = (f"raptor-insert-codec-markers{{policy={policy}}},"
                f"raptor-assign-codec-semantics,raptor-induce-codec-subgraphs")
        before = read_graph(_run(text, base))
        _check_partition(before)
        after = read_graph(_run(text, base + ",raptor-coalesce-codec-subgraphs"))
        _check_partition(after)
        # Coalescing only merges: fewer or as many subgraphs, same edges.
        assert after.edges == before.edges
        assert len(_subgraphs(after)) <= len(_subgraphs(before))
        merged = defaultdict(set)
        for b, a in zip(before.colours, after.colours):
            merged[b].add(a)
        assert all(len(v) == 1 for v in merged.values()), "a subgraph was split"


@pytest.mark.parametrize("seed", SEEDS)
def test_marker_insertion_is_idempotent_and_bounded(seed: int) -> None:
    text = random_dag(seed, 3 + seed % 11)
    with raptor.Context():
        original = ir.Module.parse(text)
        block = original.body.operations[0].regions[0].blocks[0]
        num_args = len(block.arguments)
        ops = list(block.operations)
        edges = sum(1 for op in ops for v in op.operands if isinstance(v.type, ir.RankedTensorType))
        used_ports = sum(1 for a in block.arguments if list(a.uses)) + sum(
            1 for op in ops for r in op.results if list(r.uses))
        once = _run(text, "raptor-insert-codec-markers")
        twice = _run(str(once), "raptor-insert-codec-markers")
        assert str(once) == str(twice)
        marked = list(once.body.operations[0].regions[0].blocks[0].operations)
        mi = sum(op.name == "codec.mark_input" for op in marked)
        mo = sum(op.name == "codec.mark_output" for op in marked)
        # One input marker per edge, one output marker per used port.
        assert (mi, mo) == (edges, used_ports)
        v0, v2 = num_args + len(ops), num_args + len(marked)
        e2 = edges * 2 + used_ports
        assert v2 <= v0 + 3 * edges and e2 <= 4 * edges  # Theorem 4
        assert mi <= edges and mo <= edges  # Theorems 7 and 10


def test_random_graphs_are_varied() -> None:
    kinds = set(itertools.chain.from_iterable(
        random_dag(seed, 10).split() for seed in SEEDS))
    for op in ("nn.cat", "nn.split_with_sizes", "nn.max_pool2d", "nn.view", "nn.add"):
        assert op in kinds


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_structured_graphs_place_and_partition(name: str) -> None:
    with raptor.Context():
        placed = _run(GENERATORS[name](40), "raptor-insert-codec-markers,"
                      "raptor-assign-codec-semantics,raptor-coalesce-codec-subgraphs")
        _check_partition(read_graph(placed))


def _diamond(**changes) -> Graph:
    """0 -> 1 -> {2, 3} -> 4, one subgraph whose last node on every
    entry-exit path is 4 (the join; 0 and 1 are on every path too), and a
    second subgraph 4 -> 5 (dominated by 5)."""
    g = Graph(kinds=["arg", "op", "op", "op", "op", "op"],
              edges=[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)],
              colours=[7, 7, 7, 7, 7, 9], types=[("f32", "i8")] * 5 + [("f32", "f32")],
              dominators={4: [7], 5: [9]})
    for name, value in changes.items():
        setattr(g, name, value)
    return g


@pytest.mark.parametrize("broken, message", [
    ({"dominators": {2: [7], 5: [9]}}, "subgraph 7"),                    # not on the path through 3
    ({"dominators": {1: [7], 5: [9]}}, "subgraph 7"),                    # on every path, but not the last
    ({"dominators": {4: [7]}}, "exactly one dominator"),                 # subgraph 9 has none
    ({"dominators": {1: [7], 4: [7], 5: [9]}}, "two dominators"),
    ({"colours": [7] * 6, "types": [("f32", "i8")] * 6, "dominators": {4: [7]}},
     "subgraph 7"),                                                      # merged: 5 is now the last
    ({"types": [("f32", "i8")] * 4 + [("f32", "i32"), ("f32", "f32")]}, "one semantics"),
    ({"colours": [7, 9, 7, 7, 7, 9]}, "not weakly connected"),           # 9: edges 1 -> 2 and 4 -> 5
])
def test_the_partition_check_rejects_broken_placements(broken: dict, message: str) -> None:
    """The oracle of the tests above can fail: a placement broken by hand
    in each way it checks is rejected, the intact one passes."""
    _check_partition(_diamond())
    with pytest.raises(AssertionError, match=message):
        _check_partition(_diamond(**broken))
