"""The maximum cycle ratio where the answer is not easy: several cycles
through one hub compete, with distances above 1, and the winner is neither
the heaviest cycle nor the one of least distance nor the one whose edges
have the largest single ratio (so a solver that sums weights, ignores
distances, or stops at the first cycle found gets another answer). Each
graph is compared with the brute force over every simple cycle
(test_cycle_ratio.brute_force), with the witness checked edge by edge,
through the Python API and `raptor cycle-ratio --json`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from raptor.spatial import cycle_ratio as cr

from test_cycle_ratio import brute_force, check_witness, simple_cycles

Edge = tuple[int, int, int, int]


def competing(seed: int) -> tuple[int, list[Edge]]:
    """Cycles through node 0 and chords between their nodes, redrawn until
    the conditions of the module's docstring hold."""
    rng = random.Random(seed)
    while True:
        nodes, edges = 1, []
        for _ in range(rng.randint(3, 5)):
            ring = [0] + list(range(nodes, nodes + rng.randint(1, 3)))
            nodes += len(ring) - 1
            for a, b in zip(ring, ring[1:] + [0]):
                edges.append((a, b, rng.randint(1, 60), rng.randint(1, 4)))
        for _ in range(rng.randint(0, 3)):
            edges.append((rng.randrange(nodes), rng.randrange(nodes), rng.randint(1, 60), rng.randint(1, 4)))
        cycles = [(sum(edges[e][2] for e in c), sum(edges[e][3] for e in c)) for c in simple_cycles(nodes, edges)]
        ratios = sorted((Fraction(w, d) for w, d in cycles), reverse=True)
        best = ratios[0]
        winners = [(w, d) for w, d in cycles if Fraction(w, d) == best]
        heaviest = max(w for w, _ in cycles)
        least = min(d for _, d in cycles)
        steepest = max(Fraction(w, d) for _, _, w, d in edges)
        if (len(ratios) >= 4 and ratios[1] >= best * Fraction(4, 5) and all(d > 1 for _, d in winners)
                and all(w < heaviest for w, _ in winners) and all(d > least for _, d in winners)
                and steepest > best):
            return nodes, edges


SEEDS = range(40)


@pytest.mark.parametrize("chunk", range(4))
def test_competing_cycles_match_the_brute_force(chunk: int) -> None:
    for seed in SEEDS[chunk::4]:
        nodes, edges = competing(seed)
        status, ratio = brute_force(nodes, edges)
        result = cr.max_cycle_ratio(nodes, edges)
        assert (result.status, result.ratio) == (status, ratio), (seed, nodes, edges)
        check_witness(edges, result)
        # Edges given in another order: the same ratio, a witness in the new numbering.
        order = list(range(len(edges)))
        random.Random(seed).shuffle(order)
        shuffled = [edges[i] for i in order]
        again = cr.max_cycle_ratio(nodes, shuffled)
        assert again.ratio == ratio
        check_witness(shuffled, again)
        assert again.ratio in cr.bisect_cycle_ratio(nodes, edges)


def test_the_command_reports_the_competing_winner(tmp_path) -> None:
    nodes, edges = competing(7)
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"nodes": nodes, "edges": [list(e) for e in edges]}))
    out = subprocess.run([sys.executable, "-m", "raptor", "cycle-ratio", str(path), "--json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    _, ratio = brute_force(nodes, edges)
    assert Fraction(report["ratio_num"], report["ratio_den"]) == ratio
    assert report["weight"] == sum(edges[e][2] for e in report["cycle"])
    assert report["distance"] == sum(edges[e][3] for e in report["cycle"])
    assert Fraction(report["weight"], report["distance"]) == ratio
