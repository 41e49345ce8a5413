"""Hand-made mutants of raptor.cli, third round (docs/mutation.md): the text
``raptor cycle-ratio`` prints (a critical cycle's weight and distance, the
ellipsis after eight edges, an integral ratio, a deadlock's weight) on
event graphs whose answers are counted by hand, and ``raptor simulate``'s
documented default seed."""

from __future__ import annotations

import argparse

from raptor.cli import build_parser
from raptor.cli.scheduling import format_cycle_ratio
from raptor.spatial.cycle_ratio import EventGraph


def _text(nodes: int, edges: list[list[int]]) -> list[str]:
    graph = EventGraph(nodes, edges)
    return format_cycle_ratio("g.json", graph, graph.max_cycle_ratio()).splitlines()


def test_a_critical_cycle_is_printed_with_its_weight_then_its_distance() -> None:
    """One cycle 0 -> 1 -> 0 of weights 3 + 4 = 7 over distances 0 + 2 = 2:
    ratio 7/2, weight 7, distance 2."""
    lines = _text(2, [[0, 1, 3, 0], [1, 0, 4, 2]])
    assert lines[0] == "g.json: 2 nodes, 2 edges"
    assert lines[1] == "maximum cycle ratio 7/2 = 3.5 ns per iteration"
    assert lines[2] == "critical cycle (weight 7, distance 2): 0 (0->1 w=3 d=0), 1 (1->0 w=4 d=2)"


def test_an_integral_ratio_is_printed_as_an_integer_and_a_unit_fraction_as_a_fraction() -> None:
    """Weights 5 + 7 = 12 over distance 3: 4 exactly; weight 1 over distance 3: 1/3."""
    assert _text(2, [[0, 1, 5, 1], [1, 0, 7, 2]])[1] == "maximum cycle ratio 4 ns per iteration"
    assert _text(1, [[0, 0, 1, 3]])[1] == "maximum cycle ratio 1/3 = 0.333333 ns per iteration"


def test_eight_edges_are_listed_in_full_and_nine_with_an_ellipsis() -> None:
    """A ring of n nodes, each edge of weight 1 and distance 1: one cycle of
    n edges (ratio 1); the listing shows at most eight of them."""
    def ring(n: int) -> list[str]:
        return _text(n, [[i, (i + 1) % n, 1, 1] for i in range(n)])

    eight = ring(8)[2]
    assert eight.startswith("critical cycle (weight 8, distance 8): ")
    assert eight.count("->") == 8 and "..." not in eight
    nine = ring(9)[2]
    assert nine.startswith("critical cycle (weight 9, distance 9): ")
    assert nine.count("->") == 8 and nine.endswith(", ... (9 edges)")


def test_a_deadlock_names_the_weight_of_its_distance_zero_cycle() -> None:
    """Edges of weights 1 and 2, both of distance 0: weight 3 (distance 0)."""
    lines = _text(2, [[0, 1, 1, 0], [1, 0, 2, 0]])
    assert lines[1] == "deadlock: a cycle of distance-0 edges (weight 3): 0 (0->1 w=1 d=0), 1 (1->0 w=2 d=0)"


def test_simulate_seed_defaults_to_zero() -> None:
    """`raptor simulate --help` documents seed 0 as the random inputs' default."""
    simulate = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["simulate"]
    assert simulate.parse_args(["dir"]).seed == 0
    assert "(default: 0)" in " ".join(simulate.format_help().split())
