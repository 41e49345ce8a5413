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
    # The send of 256 bytes alone reads 256 / 64 = 4 words at 40 cycles (1 ns):
    # 160 ns, against 4 ns were it priced as a write.
    assert abs(periodic.interval_ns - simulated) <= 0.01 * simulated, (periodic.interval_ns, simulated)
    (tmp_path / "base").mkdir()
    base = program(tmp_path / "base", PIPELINE).periodic().interval_ns
    assert periodic.interval_ns - base > 150


def test_before_any_setbw_the_periodic_analysis_takes_32_bit_elements(tmp_path: Path) -> None:
    """pimsim-nn's files need no setbw (the IR verifier insists on one): a
    core_0.json whose mvmul comes first has 32-bit inputs and outputs, as
    the timing simulator (a separate implementation) takes them: 32
    one-bit DAC passes, as pim-target.md's measured `ibiw` 32 row (16160 ns
    with 8-bit outputs), and 32-bit outputs."""
    import json

    import raptor
    from mlir import ir
    from raptor import _raptor, pim

    from test_pim_timing import HEAD, MVMUL, NETWORK, core

    directory = tmp_path / "p"
    with raptor.Context():
        text = HEAD.format(n=128, attributes="") + core(MVMUL, groups=1).replace("{n}", "128") + "}\n"
        _raptor.emit_pim(ir.Module.parse(text), str(directory), "json")
    first = directory / "core_0.json"
    instructions = [i for i in json.loads(first.read_text()) if i["op"] != "setbw"]
    assert [i["op"] for i in instructions] == ["sldi", "sldi", "sldi", "mvmul"]
    first.write_text(json.dumps(instructions))
    # Local writes 1000 times slower: the 512 bytes of 32-bit outputs take
    # 8 words, 8 us, where the measured row wrote 2 words at 1 ns; were they
    # 33-bit, 9 words.
    chip = measured_chip()
    chip["chip_config"]["core_config"]["local_memory_config"]["write_latency_cycle"] = 1000
    (directory / "chip.json").write_text(json.dumps(chip))
    (directory / "network.json").write_text(json.dumps(NETWORK))
    p = pim.Program.load(directory, "pimsim")
    simulated = p.time(throughput=True).interval_ns
    periodic = p.periodic()
    expected = 16160 + 8 * 1000 - 2
    assert periodic.status == "ok" and abs(simulated - expected) <= 0.01 * expected, simulated
    assert abs(periodic.interval_ns - simulated) <= 0.001 * simulated, (periodic.interval_ns, simulated)


def test_a_cycles_transfer_is_named_by_its_sending_and_receiving_cores(tmp_path: Path) -> None:
    """The periodic report names a transfer on the critical cycle by the
    cores it joins, written by hand from the program: core 1's mvmul and
    send to core 0 (which receives and applies a relu) close the cycle
    through the first transfer of core 1, 'transfer 0 of core 1 to core 0'
    (tag 7, 256 bytes). (On PIPELINE, where core 0 sends its transfer 0,
    the transfer's index and the sending core are both 0.)"""
    from test_pim_timing import HEAD_8, MVMUL, core

    reversed_pipeline = (core(HEAD_8 + "    pim.recv r2 from 1 size 256 tag 7\n    pim.vrelu r2, r2 len 256 : i8\n") +
                         core(MVMUL + "    pim.send r3 to 0 size 256 tag 7\n", index=1, groups=1))
    periodic = program(tmp_path, reversed_pipeline).periodic()
    assert periodic.status == "ok" and periodic.cycle_cores == [1]
    named = {e["from"] for e in periodic.cycle} | {e["to"] for e in periodic.cycle}
    assert "transfer 0 of core 1 to core 0 (tag 7, 256 bytes)" in named, named
