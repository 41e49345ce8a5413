"""Hand-made mutants of raptor.sweep that no other test pinned: the Pareto
front (a point equal in one objective and better in the other dominates),
and a sweep spec's option defaults, which are `raptor compile`'s (the C++
CompileOptions the command line reads, and its documented 4 calibration
inputs)."""

from __future__ import annotations

from raptor import _raptor
from raptor.sweep.pareto import non_dominated
from raptor.sweep.spec import OPTIONS


def test_a_point_better_in_one_objective_and_equal_in_the_other_dominates() -> None:
    """(latency, interval): (1, 5) beats (1, 6) (same latency, shorter
    interval) and (2, 5); (3, 1) is alone in the shortest interval; equal
    pairs stay on the front together."""
    assert non_dominated([(1, 5), (1, 6), (2, 5), (3, 1)]) == [True, False, False, True]
    assert non_dominated([(2, 2), (2, 2), (3, 3)]) == [True, True, False]
    assert non_dominated([(1, 9), (2, 8), (3, 7)]) == [True, True, True]
    assert non_dominated([]) == []


def test_spec_defaults_are_raptor_compiles() -> None:
    compiled = _raptor.CompileOptions()
    assert {k: OPTIONS[k].default for k in ("precision", "policy", "placement", "replicate", "replication_budget",
                                           "algorithm")} == {
        "precision": compiled.precision, "policy": compiled.policy, "placement": compiled.placement,
        "replicate": compiled.replicate, "replication_budget": compiled.replication_budget,
        "algorithm": compiled.algorithm}
    assert OPTIONS["calibration_samples"].default == 4  # raptor compile --help: "(default: 4)"
    assert OPTIONS["arithmetic"].default == "auto" and OPTIONS["follow_rows"].default is None
    assert OPTIONS["mode"].default == "latency" and OPTIONS["check"].default is False
