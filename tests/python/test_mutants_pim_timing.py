"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
passes/pim/PeriodicAnalysis.cpp: a send reads its data from local memory, so
its weight is the local read time, whatever the write time is. Checked against
the timing simulator (pimsim-nn's rules, a separate implementation) on the
two-core pipeline of test_pim_timing with local reads 40 times slower than writes."""

from __future__ import annotations

from pathlib import Path

from test_pim_timing import PIPELINE, measured_chip, program


def test_the_periodic_interval_prices_a_send_as_a_local_read(tmp_path: Path) -> None:
    chip = measured_chip()
    chip["chip_config"]["core_config"]["local_memory_config"]["read_latency_cycle"] = 40
    p = program(tmp_path, PIPELINE, chip=chip)
    simulated = p.time(throughput=True).interval_ns
    periodic = p.periodic()
    assert periodic.status == "ok" and periodic.cycle_cores == [0]
    # The send of 512 bytes alone reads 512 / 64 = 8 words at 40 cycles (1 ns):
    # 320 ns, against 8 ns were it priced as a write.
    assert abs(periodic.interval_ns - simulated) <= 0.01 * simulated, (periodic.interval_ns, simulated)
    (tmp_path / "base").mkdir()
    base = program(tmp_path / "base", PIPELINE).periodic().interval_ns
    assert periodic.interval_ns - base > 300
