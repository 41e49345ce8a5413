"""The exact maximum cycle ratio (passes/spatial/CycleRatio) against two
independent oracles: a brute force over all simple cycles (small graphs) and
digraphx's minimum cycle ratio solver (larger graphs); witnesses, deadlocks,
the bisection cross-check, bad input and the `raptor cycle-ratio` command."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from raptor import spatial
from raptor._io import UserError
from raptor.spatial import cycle_ratio as cr

RAPTOR = [sys.executable, "-m", "raptor"]
Edge = tuple[int, int, int, int]


# --- the brute-force oracle -------------------------------------------------

def simple_cycles(nodes: int, edges: list[Edge]):
    """Every simple cycle as edge indices, each once: it starts at its
    smallest node, and parallel edges make distinct cycles."""
    out: list[list[int]] = [[] for _ in range(nodes)]
    for i, (u, _, _, _) in enumerate(edges):
        out[u].append(i)

    def extend(start: int, node: int, path: list[int], seen: set[int]):
        for e in out[node]:
            v = edges[e][1]
            if v == start:
                yield path + [e]
            elif v > start and v not in seen:
                seen.add(v)
                yield from extend(start, v, path + [e], seen)
                seen.discard(v)

    for start in range(nodes):
        yield from extend(start, start, [], {start})


def brute_force(nodes: int, edges: list[Edge]) -> tuple[str, Fraction | None]:
    best, deadlock = None, False
    for cycle in simple_cycles(nodes, edges):
        weight = sum(edges[e][2] for e in cycle)
        distance = sum(edges[e][3] for e in cycle)
        if distance == 0:
            deadlock = True
        elif best is None or Fraction(weight, distance) > best:
            best = Fraction(weight, distance)
    if deadlock:
        return "deadlock", None
    return ("acyclic", None) if best is None else ("ok", best)


def check_witness(edges: list[Edge], result: cr.CycleRatio) -> None:
    """The witness is a simple cycle in order with the reported totals; for
    "ok" its ratio is the result's, for "deadlock" its distance is 0."""
    cycle = result.cycle
    assert cycle, "a witness cycle"
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        assert edges[a][1] == edges[b][0], f"edges {a} and {b} do not chain"
    sources = [edges[e][0] for e in cycle]
    assert len(set(sources)) == len(sources), "the witness repeats a node"
    assert result.weight == sum(edges[e][2] for e in cycle)
    assert result.distance == sum(edges[e][3] for e in cycle)
    if result.status == "ok":
        assert Fraction(result.weight, result.distance) == result.ratio
    else:
        assert result.status == "deadlock" and result.distance == 0


def random_small_graph(seed: int, weights: int = 20, distances: int = 3) -> tuple[int, list[Edge]]:
    rng = random.Random(seed)
    nodes = rng.randint(1, 7)
    zero = rng.choice([0.0, 0.15, 0.4])
    edges = [(rng.randrange(nodes), rng.randrange(nodes), rng.randint(-weights, weights),
              0 if rng.random() < zero else rng.randint(1, distances))
             for _ in range(rng.randint(0, 14))]
    return nodes, edges


SMALL_SEEDS = range(600)


@pytest.mark.parametrize("chunk", range(12))
def test_small_random_graphs_match_the_brute_force(chunk: int) -> None:
    statuses = set()
    for seed in SMALL_SEEDS[chunk::12]:
        nodes, edges = random_small_graph(seed)
        status, ratio = brute_force(nodes, edges)
        result = cr.max_cycle_ratio(nodes, edges)
        assert (result.status, result.ratio) == (status, ratio), (seed, nodes, edges)
        if status != "acyclic":
            check_witness(edges, result)
        else:
            assert result.cycle == []
        statuses.add(status)
    assert statuses == {"ok", "deadlock", "acyclic"}  # the sample covers all three


def test_extreme_weights_and_distances_stay_exact() -> None:
    # Weights near +-2^40 and distances near 2^20: the exact arithmetic's
    # range, where doubles cannot tell the cycles apart.
    for seed in range(150):
        rng = random.Random(seed)
        nodes = rng.randint(1, 6)
        edges = [(rng.randrange(nodes), rng.randrange(nodes),
                  rng.choice([1, -1]) * (2**40 - 1 - rng.randrange(1000)),
                  rng.choice([1, 2**20 - 1 - rng.randrange(1000)]))
                 for _ in range(rng.randint(1, 12))]
        status, ratio = brute_force(nodes, edges)
        result = cr.max_cycle_ratio(nodes, edges)
        assert (result.status, result.ratio) == (status, ratio), seed
        if status == "ok":
            check_witness(edges, result)


@pytest.mark.parametrize("options", [{"max_iterations": 0}, {"tolerance": 10.0}])
def test_certification_repairs_a_stopped_or_coarse_howard(options: dict) -> None:
    # Howard stopped at its first policy, or blind to value gains below 10x
    # their size: the certification's positive cycles must still reach the
    # exact maximum.
    repaired = 0
    for seed in SMALL_SEEDS[:300]:
        nodes, edges = random_small_graph(seed)
        status, ratio = brute_force(nodes, edges)
        result = cr.max_cycle_ratio(nodes, edges, **options)
        assert (result.status, result.ratio) == (status, ratio), seed
        if status == "ok":
            check_witness(edges, result)
            repaired += result.certification_checks > 1
    assert repaired >= 10  # the repair path ran, not only the first check


def test_ratios_a_double_cannot_separate() -> None:
    # Cycle A = 0 -> 1 -> 0 has ratio 10^12, cycle B = 0 -> 1 -> 2 -> 0 has
    # 10^12 + 1 (1e-12 relative). At node 1, Howard's values are about
    # X = 2^36 and B's gain is 1, below the default tolerance 1e-9 * X:
    # floating-point Howard stops at A, and the integer check finds B.
    x, r = 2**36, 10**12
    edges = [(0, 1, -x, 0), (1, 0, x + r, 1), (1, 2, x - 1000, 0), (2, 0, r + 1001, 1)]
    assert brute_force(3, edges) == ("ok", Fraction(r + 1))
    result = cr.max_cycle_ratio(3, edges)
    assert result.ratio == r + 1 and result.cycle == [0, 2, 3]
    assert result.certification_checks == 2  # Howard's candidate was A
    assert cr.bisect_cycle_ratio(3, edges).hi == r + 1


# --- digraphx on larger graphs ----------------------------------------------

def event_graph(seed: int, nodes: int, degree: int) -> list[Edge]:
    """A random event graph without parallel edges (digraphx keeps one edge
    per node pair): distance-0 edges follow a random order of the events (no
    deadlock); the others have distance 1..3, and some go backwards."""
    rng = random.Random(seed)
    order = list(range(nodes))
    rng.shuffle(order)
    rank = {v: i for i, v in enumerate(order)}
    pairs: set[tuple[int, int]] = set()
    edges = []
    while len(edges) < degree * nodes:
        u, v = rng.randrange(nodes), rng.randrange(nodes)
        if (u, v) in pairs:
            continue
        pairs.add((u, v))
        d = rng.randint(1, 3) if rank[u] >= rank[v] else rng.choice([0, 0, 1])
        edges.append((u, v, rng.randint(-200, 1000), d))
    return edges


def digraphx_max_ratio(nodes: int, edges: list[Edge]) -> tuple[float, float]:
    """digraphx's minimum cycle ratio of the negated weights, negated (float),
    and the ratio of the cycle it returns."""
    from digraphx import MinCycleRatioSolver

    graph: dict[int, dict[int, dict[str, int]]] = {u: {} for u in range(nodes)}
    for u, v, w, d in edges:
        graph[u][v] = {"cost": -w, "time": d}
    start = float(sum(abs(w) for _, _, w, _ in edges) + 1)  # above every cycle's ratio
    ratio, cycle = MinCycleRatioSolver(graph).run({u: 0.0 for u in range(nodes)}, start)
    assert cycle, "digraphx found no cycle"
    return -ratio, -sum(e["cost"] for e in cycle) / sum(e["time"] for e in cycle)


@pytest.mark.parametrize("seed, nodes, degree", [
    (1, 200, 2), (2, 300, 4), (3, 1000, 2), (4, 1000, 3), (5, 2000, 2), (6, 3000, 3)])
def test_larger_graphs_match_digraphx(seed: int, nodes: int, degree: int) -> None:
    edges = event_graph(seed, nodes, degree)
    result = cr.max_cycle_ratio(nodes, edges)
    assert result.status == "ok"
    check_witness(edges, result)
    theirs, their_cycle = digraphx_max_ratio(nodes, edges)
    assert float(result.ratio) == pytest.approx(theirs, rel=1e-12, abs=1e-9)
    assert their_cycle == pytest.approx(theirs, rel=1e-12)
    assert result.ratio in cr.bisect_cycle_ratio(nodes, edges)
    # Howard stopped at its first policy, or nearly blind: the certification's
    # searches (subtree disassembly on the whole graph) reach the same maximum.
    for options in ({"max_iterations": 0}, {"tolerance": 1e3}):
        repaired = cr.max_cycle_ratio(nodes, edges, **options)
        assert repaired.ratio == result.ratio, options
        check_witness(edges, repaired)
    assert cr.max_cycle_ratio(nodes, edges, max_iterations=0).certification_checks > 1


# --- structure: deadlocks, acyclic graphs, loops, parallel edges, components --

def test_a_zero_distance_cycle_is_a_deadlock_reported_first() -> None:
    # A ratio-5 cycle 0 <-> 1 and a distance-0 cycle 2 -> 3 -> 4 -> 2.
    edges = [(0, 1, 5, 1), (1, 0, 5, 1), (2, 3, 1, 0), (3, 4, 2, 0), (4, 2, 3, 0), (4, 0, 9, 0)]
    result = cr.max_cycle_ratio(5, edges)
    assert result.status == "deadlock" and result.ratio is None
    assert result.cycle == [2, 3, 4] and result.weight == 6 and result.distance == 0
    assert result.to_json()["ratio_num"] is None
    assert cr.bisect_cycle_ratio(5, edges).status == "deadlock"
    loop = cr.max_cycle_ratio(3, [(0, 1, 1, 1), (2, 2, 4, 0)])
    assert (loop.status, loop.cycle, loop.weight) == ("deadlock", [1], 4)


def test_acyclic_graphs_have_no_ratio() -> None:
    dag = [(0, 1, 3, 0), (1, 2, 4, 2), (0, 2, -1, 1), (3, 2, 7, 3)]
    for nodes, edges in [(4, dag), (0, []), (5, []), (6, dag)]:
        result = cr.max_cycle_ratio(nodes, edges)
        assert (result.status, result.ratio, result.cycle) == ("acyclic", None, [])
        bracket = cr.bisect_cycle_ratio(nodes, edges)
        assert (bracket.status, bracket.lo, bracket.hi) == ("acyclic", None, None)


def test_self_loops_parallel_edges_and_components() -> None:
    edges = [
        (0, 0, 7, 2),   # self loop, 7/2
        (1, 2, 4, 1),   # 1 <-> 2 with parallel edges: 4 + 6 / 2 = 5 or 4 + 9 / 3 = 13/3
        (2, 1, 6, 1),
        (2, 1, 9, 2),
        (3, 4, -5, 1),  # a component of negative ratio, -4
        (4, 3, -3, 1),
    ]
    result = cr.max_cycle_ratio(7, edges)  # node 6 has no edges
    assert result.ratio == 5 and result.cycle == [1, 2]
    check_witness(edges, result)
    alone = cr.max_cycle_ratio(5, [edges[4], edges[5]])
    assert alone.ratio == -4 and alone.cycle == [0, 1]
    bracket = cr.bisect_cycle_ratio(5, [edges[4], edges[5]])
    assert (bracket.lo, bracket.hi) == (-5, -4)
    heavy_parallel = cr.max_cycle_ratio(3, [edges[1], edges[3], edges[2]])
    assert heavy_parallel.ratio == 5 and heavy_parallel.cycle == [0, 2]
    assert cr.max_cycle_ratio(1, [(0, 0, 7, 2)]).ratio == Fraction(7, 2)


def test_bisection_brackets_the_exact_ratio() -> None:
    for seed in SMALL_SEEDS[:300]:
        nodes, edges = random_small_graph(seed)
        exact = cr.max_cycle_ratio(nodes, edges)
        bracket = cr.bisect_cycle_ratio(nodes, edges)
        assert bracket.status == exact.status
        assert bracket.probes <= 64
        if exact.status == "ok":
            assert bracket.hi == bracket.lo + 1 and exact.ratio in bracket, seed


def test_bisection_probes_stay_within_64_at_the_widest_range() -> None:
    # 2^20 nodes and weights +-(2^40 - 1): the initial bracket is about 2^61 wide.
    nodes, w = 2**20, 2**40 - 1
    edges = [(0, 1, w, 0), (1, 0, -w + 3, 2), (2, 3, -w, 1), (3, 2, w, 1)]
    graph = cr.EventGraph(nodes, edges)
    bracket = graph.bisect()
    assert Fraction(3, 2) in bracket and bracket.probes <= 64
    assert bracket.probes >= 60  # the range was that wide: log2(2^61)
    assert graph.max_cycle_ratio().ratio == Fraction(3, 2)


# --- the Python API and bad input -------------------------------------------

def test_api_objects_and_json() -> None:
    graph = spatial.EventGraph(3, np.array([[0, 1, 3, 0], [1, 2, 4, 1], [2, 0, 5, 1]]))
    assert (graph.nodes, graph.num_edges) == (3, 3)
    result = graph.max_cycle_ratio()
    assert isinstance(result, spatial.CycleRatio) and result.ratio == 6
    assert result.to_json() == {
        "status": "ok", "ratio_num": 6, "ratio_den": 1, "cycle": [0, 1, 2], "weight": 12,
        "distance": 2, "howard_iterations": result.howard_iterations,
        "certification_checks": 1}
    assert graph.bisect().to_json() == {"status": "ok", "lo": 5, "hi": 6,
                                        "probes": graph.bisect().probes}
    assert spatial.max_cycle_ratio(2, [(0, 1, 1, 1), (1, 0, 2, 2)]).ratio == 1


@pytest.mark.parametrize("nodes, edges, message", [
    (-1, [], r"node count must be between 0 and 2\^20 = 1048576 \(got -1\)"),
    (2**20 + 1, [], r"node count must be between 0 and 2\^20 = 1048576 \(got 1048577\)"),
    (2, [(0, 2, 1, 1)], r"edge 0 \(0 -> 2\): node 2 is outside 0..1"),
    (2, [(0, 1, 1, 1), (-1, 1, 1, 1)], r"edge 1 \(-1 -> 1\): node -1 is outside"),
    (0, [(0, 0, 1, 1)], "the graph has no nodes"),
    (2, [(0, 1, 1, -1)], "negative distance -1"),
    (2, [(0, 1, 2**40, 1)], r"weight 1099511627776 is outside the supported range \(\|w\| < 2\^40"),
    (2, [(0, 1, -2**40, 1)], "weight -1099511627776 is outside"),
    (2, [(0, 1, 1, 2**20)], r"distance 1048576 is outside the supported range \(below 2\^20"),
    (2, [(0, 1, 1)], "edge 0 must be .from, to, weight, distance."),
    (2, [(0, 1, 1.5, 1)], "four integers"),
    (2, [(0, 1, True, 1)], "four integers"),
    (2, [(0, 1, 2**70, 1)], "outside 64 bits"),
    (2, np.array([[0, 1, 1.0, 1]]), "edges must be integers"),
    (2, np.array([[0, 1, 1]]), r"shape \(E, 4\)"),
    ("2", [], "node count must be an integer"),
])
def test_bad_graphs_are_refused_with_one_line(nodes, edges, message) -> None:
    with pytest.raises(ValueError, match=message) as info:
        cr.EventGraph(nodes, edges)
    assert "\n" not in str(info.value)


def test_bad_options_are_refused() -> None:
    graph = cr.EventGraph(1, [(0, 0, 1, 1)])
    with pytest.raises(ValueError, match="tolerance"):
        graph.max_cycle_ratio(tolerance=-1.0)
    with pytest.raises(ValueError, match="tolerance"):
        graph.max_cycle_ratio(tolerance=float("nan"))


@pytest.mark.parametrize("text, message", [
    ('{"nodes": 2, "edges": [[0, 1, 3', "is not JSON"),
    ("[1, 2]", 'expected {"nodes": N, "edges"'),
    ('{"nodes": 2}', 'expected {"nodes": N, "edges"'),
    ('{"nodes": "2", "edges": []}', '"nodes" must be an integer'),
    ('{"nodes": 2, "edges": {}}', '"edges" must be a list'),
    ('{"nodes": 2, "edges": [[0, 1, 3]]}', "edge 0 must be"),
    ('{"nodes": 2, "edges": [[0, 7, 3, 1]]}', "node 7 is outside 0..1"),
    ('{"nodes": 2, "edges": [[0, 1, 3, -2]]}', "negative distance -2"),
])
def test_malformed_graph_files(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "graph.json"
    bad.write_text(text)
    with pytest.raises(UserError, match=message) as info:
        cr.load_graph(bad)
    assert str(info.value).startswith(f"'{bad}'") and "\n" not in str(info.value)
    with pytest.raises(UserError, match="cannot read"):
        cr.load_graph(tmp_path / "missing.json")


# --- raptor cycle-ratio -------------------------------------------------------

def run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(RAPTOR + ["cycle-ratio"] + args, input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_command_prints_json(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    edges = [[0, 1, 3, 0], [1, 2, 4, 1], [2, 0, 4, 1], [1, 1, 7, 2]]
    path.write_text(json.dumps({"nodes": 3, "edges": edges}))
    result = run([str(path), "--json", "--bisect"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {k: report[k] for k in ("status", "ratio_num", "ratio_den", "cycle")} == {
        "status": "ok", "ratio_num": 11, "ratio_den": 2, "cycle": [0, 1, 2]}
    assert report["weight"] == 11 and report["distance"] == 2
    assert report["bisection"]["lo"] == 5 and report["bisection"]["hi"] == 6
    deadlock = run(["-", "--json"], stdin='{"nodes": 2, "edges": [[0, 1, 1, 0], [1, 0, 2, 0]]}')
    assert json.loads(deadlock.stdout) == {
        "status": "deadlock", "ratio_num": None, "ratio_den": None, "cycle": [0, 1], "weight": 3,
        "distance": 0, "howard_iterations": 0, "certification_checks": 0}
    acyclic = run(["-", "--json"], stdin='{"nodes": 2, "edges": [[0, 1, 1, 1]]}')
    assert json.loads(acyclic.stdout)["status"] == "acyclic"


def test_command_prints_a_summary() -> None:
    result = run(["-", "--bisect"], stdin='{"nodes": 2, "edges": [[0, 1, 3, 0], [1, 0, 4, 2]]}')
    assert result.returncode == 0, result.stderr
    assert "maximum cycle ratio 7/2 = 3.5 ns per iteration" in result.stdout
    assert "0 (0->1 w=3 d=0), 1 (1->0 w=4 d=2)" in result.stdout
    assert "bisection: 3 < ratio <= 4" in result.stdout


@pytest.mark.parametrize("stdin, message", [
    ('{"nodes": 2, "edges": [[0, 5, 1, 1]]}', "node 5 is outside 0..1"),
    ('{"nodes": 2, "edges": [[0, 1, 1, -1]]}', "negative distance -1"),
    ('{"nodes": 2, "edges": [[0, 1', "is not JSON"),
    ('{"nodes": 2, "edges": [[0, "a", 1, 1]]}', "four integers"),
])
def test_command_reports_bad_input_in_one_line(stdin: str, message: str) -> None:
    result = run(["-", "--json"], stdin=stdin)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("raptor: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_command_reports_a_missing_file(tmp_path: Path) -> None:
    result = run([str(tmp_path / "none.json")])
    assert result.returncode == 1
    assert result.stderr == f"raptor: error: cannot read '{tmp_path / 'none.json'}': " \
                            "No such file or directory\n"
