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


def test_before_any_setbw_the_periodic_analysis_takes_32_bit_elements(tmp_path: Path) -> None:
    """pimsim-nn's files need no setbw (the IR verifier insists on one): a
    core_0.json whose mvmul comes first has 32-bit inputs and outputs, as
    the timing simulator (a separate implementation) takes them, 32
    one-bit DAC passes, about 4x the 8-bit 5194 ns, and 32-bit outputs."""
    import json

    import raptor
    from mlir import ir
    from raptor import _raptor, pim

    from test_pim_timing import HEAD, MVMUL, NETWORK, core

    directory = tmp_path / "p"
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(HEAD + core(MVMUL, groups=1) + "}\n"), str(directory), "json")
    first = directory / "core_0.json"
    instructions = [i for i in json.loads(first.read_text()) if i["op"] != "setbw"]
    assert [i["op"] for i in instructions] == ["sldi", "sldi", "mvmul"]
    first.write_text(json.dumps(instructions))
    # Local writes 1000 times slower: the 512 bytes of 32-bit outputs take
    # 8 words, 8 us; were they 33-bit, 9 words.
    chip = measured_chip()
    chip["chip_config"]["core_config"]["local_memory_config"]["write_latency_cycle"] = 1000
    (directory / "chip.json").write_text(json.dumps(chip))
    (directory / "network.json").write_text(json.dumps(NETWORK))
    p = pim.Program.load(directory, "pimsim")
    simulated = p.time(throughput=True).interval_ns
    periodic = p.periodic()
    assert periodic.status == "ok" and simulated > 4 * 5000 + 8000, simulated
    assert abs(periodic.interval_ns - simulated) <= 0.001 * simulated, (periodic.interval_ns, simulated)
