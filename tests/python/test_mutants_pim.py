"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/pim/: the periodic report's text, its figures converted by hand."""

from __future__ import annotations

from fractions import Fraction

from raptor.pim.timing import Periodic, format_periodic


def test_the_periodic_report_shows_milliseconds() -> None:
    p = Periodic(status="ok", reason="", recurrence_ns=Fraction(5_000_001, 2), interval_ns=3_250_000.0,
                 bound="busiest core", busiest_core=3, busiest_core_work_ns=3_250_000.0,
                 global_service_ns=1_000_000.0, nodes=1234, edges=5678,
                 cycle=[{"weight_ns": 500_000, "what": "send", "from": "c0:1", "to": "c3:2"},
                        {"weight_ns": 2_000_000.5, "what": "mvm", "from": "c3:2", "to": "c0:1"}],
                 cycle_edges=2, cycle_weight_ns=2_500_001, cycle_distance=1, cycle_cores=[0, 3])
    assert format_periodic(p, "out").splitlines() == [
        "out: interval estimate 3.2500 ms (bound: busiest core)",
        "  recurrence 2.5000 ms: a cycle of 2 events over 1 iteration(s) across 2 core(s) (0, 3)",
        "  busiest core 3: 3.2500 ms of work; global memory 1.0000 ms of service",
        "  event graph: 1,234 events, 5,678 edges",
        "       2.0000 ms  mvm: c3:2 -> c0:1",
        "       0.5000 ms  send: c0:1 -> c3:2"]
