"""The periodic diagnostic's fields (raptor periodic, Program.periodic())
against independent computations: its interval is the largest of its three
bounds, its critical cycle is a closed walk whose weights and distances sum
to the cycle's totals and whose ratio is the recurrence, and its busiest
core's work and global memory's service are what the timing simulator
measures for one inference of the same program."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import torch

from raptor import pim

from pim_helpers import compile_and_run, randomize
from test_pipeline import Convolutions


@pytest.fixture(scope="module")
def pipelined(tmp_path_factory: pytest.TempPathFactory) -> pim.Program:
    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("periodic") / "p"
    compile_and_run(randomize(Convolutions()), torch.randn(1, 3, 20, 20), directory, replication_budget=1.0,
                    pipeline=3)
    return pim.Program.load(directory)


def test_the_interval_is_the_largest_bound_and_names_it(pipelined: pim.Program) -> None:
    p = pipelined.periodic()
    assert p.status == "ok"
    bounds = {"recurrence": float(p.recurrence_ns), "core work": p.busiest_core_work_ns,
              "global memory": p.global_service_ns}
    assert p.interval_ns == max(bounds.values())
    assert bounds[p.bound] == p.interval_ns


def test_the_critical_cycle_is_a_closed_walk_whose_sums_are_the_totals(pipelined: pim.Program) -> None:
    p = pipelined.periodic()
    cycle = p.cycle
    assert len(cycle) == p.cycle_edges >= 1
    for edge, following in zip(cycle, cycle[1:] + cycle[:1]):
        assert edge["to"] == following["from"]
    assert sum(e["weight_ns"] for e in cycle) == p.cycle_weight_ns
    assert sum(e["distance"] for e in cycle) == p.cycle_distance >= 1
    assert p.recurrence_ns == Fraction(p.cycle_weight_ns, p.cycle_distance)
    # The cores the cycle's events belong to, read from the event names ("core N: ...").
    named = {int(e["from"].split(":")[0].split()[1]) for e in cycle if e["from"].startswith("core ")}
    assert set(p.cycle_cores) >= named and p.cycle_cores == sorted(p.cycle_cores)
    # The event graph holds at least the cycle, and every core loop has its back edge.
    assert p.nodes >= len({e["from"] for e in cycle}) and p.edges >= p.cycle_edges


def test_core_work_and_global_service_are_what_the_timing_simulator_measures(pipelined: pim.Program) -> None:
    """One inference of the timing simulator: a core's work is its units'
    busy time and the dispatch and retirement around its instructions,
    without its waits; global memory's busy time is its service."""
    p = pipelined.periodic()
    timing = pipelined.time()
    work = [c.matrix_ns + c.vector_ns + c.memory_ns + c.communication_ns + c.pipeline_ns - c.blocked_ns
            for c in timing.cores]
    # The analysis prices each instruction alone, the simulator issues them
    # in a pipeline: 1.4% apart on this program's busiest core (a copy of
    # the grouped convolution, whose last row tile serves 6 positions per
    # MVM: a window gathered and its MVM run per position).
    assert p.busiest_core_work_ns == pytest.approx(max(work), rel=0.02)
    # Cores within a hair of each other may be ranked either way: the one named must be among the busiest.
    assert work[p.busiest_core] == pytest.approx(max(work), rel=0.001)
    assert p.global_service_ns == pytest.approx(timing.global_busy_ns, rel=0.01)
    assert timing.global_requests > 0 and p.global_service_ns > 0
