"""The timing simulator's rules where every measured configuration has two
parameters equal and so cannot tell them apart (simulator/TimingSimulator.cpp,
TimingConfig.cpp): local reads and writes at their own latencies, global
memory on its own clock, a crossbar's rows and columns, the accounts of
transfers, syncs and waits, the extension instructions' elements.

Every expected time is derived by hand from docs/timing.md's model (the
pipeline: 1 cycle of setbw decode, dispatch 4 cycles, retirement 3, at
least 1 of execution; local memory ceil(bytes / data_width) x latency x
period through one port; a message ceil(bytes / bus_width) flits at
latency[src][dst] ns plus 1 cycle; global memory ceil(bytes / data_width)
x latency x its period, a st acknowledged 1 cycle after its write, a
payload the network delivers written in at least 2 cycles; a recv's 8
cycles of handling; the matrix formula's front + 16.5 + 0.78125 x passes x
back), on ../shared/docs/pim-target.md's measured configuration with one
parameter changed. The expressions are spelled out term by term below.

Hand-made C++ mutants of 2026-12-06 (docs/mutation.md) that these kill: a
st's read timed at the write latency, chip.json's local read and write
latencies swapped, global memory timed at the local period, a crossbar's
DAC passes counted over its columns, its ADC conversions over its rows,
sync and wait counted as memory time, a receiver's wait ending at its write
instead of the payload's delivery, ext.vmatvec timed over `len` elements, a
core's messages leaving without waiting for the earlier ones (the FIFO), a
write-after-write hazard ignored, a ld's answer priced with a payload byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlir import ir

import raptor
from raptor import _raptor, pim


def chip(**changes) -> dict:
    """pim-target.md's measured configuration (1 ns clock, 128 x 128
    crossbars of 8-bit cells, 30 ns crossbar, two 10-cycle ADCs, 128 1-bit
    DACs, 16-wide vectors at 4 ns, 64-byte local and 16-byte global memory
    words at 1 cycle, 32-byte flits); `changes` maps a section ("matrix",
    "local", "global") to the fields it overrides."""
    matrix = {"xbar_array_count": 4, "xbar_size": [128, 128], "cell_precision": 8, "xbar_latency": 30,
              "dac_resolution": 1, "dac_latency_cycle": 1, "dac_count": 128, "sample_hold_latency_cycle": 1,
              "adc_resolution": 8, "adc_latency_cycle": 10, "adc_count": 2, "shift_adder_latency_cycle": 1,
              "input_buffer_latency_cycle": 1, "output_buffer_latency_cycle": 1}
    local = {"memory_size": 65536, "data_width": 64, "period": 1, "read_latency_cycle": 1, "write_latency_cycle": 1}
    global_ = {"memory_size": 1 << 20, "data_width": 16, "period": 1, "read_latency_cycle": 1,
               "write_latency_cycle": 1}
    matrix.update(changes.get("matrix", {}))
    local.update(changes.get("local", {}))
    global_.update(changes.get("global", {}))
    return {"chip_config": {
        "core_cnt": 2,
        "core_config": {"period": 1, "rob_size": 1, "vector_width": 16, "vector_latency_cycle": 4,
                        "matrix_config": matrix, "local_memory_config": local},
        "global_memory_config": global_,
        "network_config": {"bus_width": 32}}}


# 10 ns per flit between the cores, 15 to and from global memory (-10).
NETWORK = {"latency": {"-10": {"0": 15, "1": 15}, "0": {"1": 10, "-10": 15}, "1": {"0": 10, "-10": 15}}}


def program(tmp_path: Path, cores: str, config: dict, rows: int = 128, cols: int = 128) -> pim.Program:
    head = (f"pim.chip @m cores 2 crossbars 4 of [{rows}, {cols}] memory 65536 {{\n"
            f"  pim.weight @w dense<1.0> : tensor<{rows}x{cols}xf32>\n")
    directory = tmp_path / "p"
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(head + cores + "}\n"), str(directory), "none")
    (directory / "chip.json").write_text(json.dumps(config))
    (directory / "network.json").write_text(json.dumps(NETWORK))
    return pim.Program.load(directory)


def core(body: str, index: int = 0, group: str = "") -> str:
    return f"  pim.core {index} {{\n{group}{body}  }}\n"


# pim-target.md's programs: setbw 8, 8 (1 cycle of decode: the first unit
# instruction leaves issue at 1 ns and starts 4 cycles later, at 5 ns), the
# sldi free; r0:r1 is the global address 0.
HEAD = ("    pim.setbw 8, 8\n    pim.sldi r2, 0\n    pim.sldi r3, 1024\n    pim.sldi r4, 2048\n"
        "    pim.sldi r0, 0\n    pim.sldi r1, 0\n")
START = 1 + 4
RETIRE = 3


def test_a_store_reads_local_memory_at_the_read_latency(tmp_path: Path) -> None:
    """Local reads take 1 cycle per 64-byte word, writes 5: a st of 64
    bytes reads one word (1), sends 2 flits to global memory (2 x 15 + 1),
    which writes 4 words (4) and acknowledges a cycle later (1), answering
    without payload (0 flits + 1)."""
    config = chip(local={"read_latency_cycle": 1, "write_latency_cycle": 5})
    st = program(tmp_path / "st", core(HEAD + "    pim.st r0, r2 size 64\n"), config).time()
    assert st.latency_ns == START + 1 + (2 * 15 + 1) + 4 + 1 + (0 + 1) + RETIRE  # 46
    # A ld writes what the network delivers: its one word at the write
    # latency (5), more than the 2-cycle minimum: request 1 flit (15 + 1),
    # 4 words read (4), the answer (0 + 1), the write.
    ld = program(tmp_path / "ld", core(HEAD + "    pim.ld r2, r0 size 64\n"), config).time()
    assert ld.latency_ns == START + (15 + 1) + 4 + (0 + 1) + 5 + RETIRE  # 34
    # An lmv of 128 bytes: two words read (2 x 1), two written (2 x 5).
    lmv = program(tmp_path / "lmv", core(HEAD + "    pim.lmv r3, r2 len 128\n"), config)
    assert lmv.time().latency_ns == START + 2 * 1 + 2 * 5 + RETIRE  # 20
    # The periodic analysis (and the scheduler's cost of a local copy)
    # prices it by the same rule: TimingConfig::copyInstructionNs.
    assert lmv.periodic().busiest_core_work_ns == START + 2 * 1 + 2 * 5 + RETIRE
    long = program(tmp_path / "lmv-4096", core(HEAD + "    pim.lmv r3, r2 len 4096\n"), config)
    assert long.periodic().busiest_core_work_ns == START + 64 * 1 + 64 * 5 + RETIRE  # 392


def test_global_memory_runs_at_its_own_period(tmp_path: Path) -> None:
    """Global memory's period is 2 ns (the cores' and local memory's 1 ns):
    its 4 words of a 64-byte ld or st take 8 ns, the messages and the
    delivered write (at least 2 core cycles) keep the core's clock."""
    config = chip(**{"global": {"period": 2}})
    ld = program(tmp_path / "ld", core(HEAD + "    pim.ld r2, r0 size 64\n"), config).time()
    assert ld.latency_ns == START + (15 + 1) + 4 * 2 + (0 + 1) + 2 + RETIRE  # 35
    assert ld.global_busy_ns == 8
    st = program(tmp_path / "st", core(HEAD + "    pim.st r0, r2 size 64\n"), config).time()
    assert st.latency_ns == START + 1 + (2 * 15 + 1) + 4 * 2 + 1 + (0 + 1) + RETIRE  # 50


def mvmul_cycles(rows: int, cols: int, dac_count: int, input_bits: int = 8) -> float:
    """docs/timing.md's matrix formula on the measured chip: front = input
    buffer 1 + DAC 1 + ceil(30 ns / 1 ns) + sample-hold 1 = 33 cycles;
    passes = ceil(ibiw / 1) x ceil(rows / dac_count); back = ADC 10 +
    shift-add 1 + output buffer 1 + (ceil(cols / 2) - 1) x max(10, 1 + 1)."""
    passes = input_bits * -(-rows // dac_count)
    back = 10 + 1 + 1 + (-(-cols // 2) - 1) * 10
    return 33 + 16.5 + 0.78125 * passes * back


@pytest.mark.parametrize("rows, cols", [(128, 64), (64, 128)])
def test_a_crossbars_rows_feed_the_dacs_and_its_columns_the_adcs(rows: int, cols: int, tmp_path: Path) -> None:
    """A non-square crossbar with 64 DACs: its rows take ceil(rows / 64)
    input passes, its columns ceil(cols / 2) conversions per pass. The
    mvmul reads `rows` 8-bit inputs (rows / 64 words) and writes `cols`
    8-bit outputs (cols / 64 words). 128 x 64: 16 passes of 322 cycles
    (4074.5); 64 x 128: 8 passes of 642 (4062)."""
    config = chip(matrix={"xbar_size": [rows, cols], "dac_count": 64})
    group = (f"    pim.group 0 crossbars 1 weight @w matrix #layout.layout<({rows},{cols}):({cols},1)> "
             f"rows [0, {rows}] cols [0, {cols}]\n")
    body = HEAD + "    pim.mvmul r3, r2, group 0 mbiw 8\n"
    t = program(tmp_path, core(body, group=group), config, rows, cols).time()
    cycles = mvmul_cycles(rows, cols, 64)
    assert cycles == {(128, 64): 4074.5, (64, 128): 4062}[(rows, cols)]
    assert t.latency_ns == START + rows // 64 + cycles + cols // 64 + RETIRE
    assert t.cores[0].matrix_ns == rows // 64 + cycles + cols // 64


def test_a_transfer_counts_as_communication_and_its_waits_as_blocked(tmp_path: Path) -> None:
    """send 64 bytes 0 -> 1: the recv (from 5 ns) grants permission with a
    1-byte message (10 + 1), received at 16; the send (from 5) is blocked
    until then, reads one word (1) and sends 2 flits (2 x 10 + 1), which
    arrive at 38; the receiver is blocked from 5 to the delivery at 38,
    handles the payload 8 cycles and writes it in 2 (its one-word write
    being shorter): done at 48, retired at 51 (pim-target.md's measured
    51 ns). Both instructions are communication time, none is memory."""
    body0 = HEAD + "    pim.send r2 to 1 size 64 tag 1\n"
    body1 = HEAD + "    pim.recv r2 from 0 size 64 tag 1\n"
    t = program(tmp_path, core(body0) + core(body1, index=1), chip()).time()
    send, recv = t.cores
    assert t.latency_ns == 51
    assert send.blocked_ns == 16 - 5 and recv.blocked_ns == 38 - 5
    assert send.communication_ns == 17 - 5 and recv.communication_ns == 48 - 5
    assert send.memory_ns == 0 and recv.memory_ns == 0


def test_sync_and_wait_count_as_communication(tmp_path: Path) -> None:
    """Core 0's sync (at 5 ns) sends a 1-byte token (10 + 1) that arrives at
    16 and executes for the minimum cycle; core 1's wait (from 5) is
    blocked until then: 11 ns of communication, all of it blocked. Core 1's
    closing lmv of length 0 is its only memory time (1 cycle)."""
    body0 = HEAD + "    pim.sync 1 event 2\n"
    body1 = HEAD + "    pim.wait event 2 value 1\n    pim.lmv r2, r2 len 0\n"
    t = program(tmp_path, core(body0) + core(body1, index=1), chip()).time()
    sync, wait = t.cores
    assert sync.communication_ns == 1 and sync.memory_ns == 0
    assert wait.communication_ns == 16 - 5 and wait.blocked_ns == 16 - 5
    assert wait.memory_ns == 1


def test_a_matrix_vector_extension_is_timed_over_rows_times_len(tmp_path: Path) -> None:
    """ext.vmatvec rows 4 len 16 (f32): reads the 4 x 16 matrix (256 bytes,
    4 words) and the 16-element vector (64 bytes, 1 word), computes 64
    elements 16 at a time (4 x 4 ns), writes 4 elements (1 word)."""
    body = HEAD + "    pim.ext.vmatvec r4, r2, r3 rows 4 len 16 : f32\n"
    t = program(tmp_path, core(body), chip()).time()
    assert t.latency_ns == START + 4 + 1 + 64 // 16 * 4 + 1 + RETIRE  # 30
    assert t.cores[0].vector_ns == 4 + 1 + 16 + 1
    assert t.approximated == {"ext.vmatvec": 1}


def test_messages_from_one_core_leave_in_order(tmp_path: Path) -> None:
    """Two syncs of core 0 to core 1 go through core 0's one FIFO: the
    first (from 5 ns) arrives at 5 + 10 + 1 = 16; the second starts when
    the first retires (at 6 + 3 = 9, dispatched 4 cycles later: 13) but
    leaves only at 16, when the first has arrived, and arrives at 27. Core
    1 waits for both tokens from 5 to 27, then its lmv of length 0 issues
    when the wait retires (30) and retires at 30 + 4 + 1 + 3 = 38."""
    body0 = HEAD + "    pim.sync 1 event 0\n    pim.sync 1 event 0\n"
    body1 = HEAD + "    pim.wait event 0 value 2\n    pim.lmv r2, r2 len 0\n"
    t = program(tmp_path, core(body0) + core(body1, index=1), chip()).time()
    assert t.cores[1].blocked_ns == 27 - 5
    assert t.latency_ns == 38


def test_a_write_after_write_waits_for_the_earlier_write(tmp_path: Path) -> None:
    """With a reorder buffer of 4, a vrelu reading bytes of its own (8192)
    overlaps a long mvmul unless it writes where the mvmul writes (1024):
    then it starts after the mvmul's write. Its own time: 2 words read, 8
    groups of 16 elements at 4 ns, 2 words written (36 ns)."""
    config = chip()
    config["chip_config"]["core_config"]["rob_size"] = 4
    group = ("    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(128,128):(128,1)> "
             "rows [0, 128] cols [0, 128]\n")
    mvmul = HEAD + "    pim.sldi r5, 8192\n    pim.mvmul r3, r2, group 0 mbiw 8\n"
    alone = program(tmp_path / "a", core(mvmul, group=group), config).time().latency_ns
    apart = program(tmp_path / "b", core(mvmul + "    pim.sldi r6, 4096\n    pim.vrelu r6, r5 len 128 : i8\n",
                                         group=group), config).time().latency_ns
    same = program(tmp_path / "c", core(mvmul + "    pim.vrelu r3, r5 len 128 : i8\n", group=group),
                   config).time().latency_ns
    assert apart < alone + 10
    assert same >= alone + 2 + 32 + 2


# The periodic analysis (passes/pim/PeriodicAnalysis.cpp) prices each
# instruction alone by the same rules: hand-made mutants there that these
# kill: a ld's global service priced at the write latency and a st's at the
# read latency, setbw's input and output widths swapped.


def test_the_periodic_global_service_prices_loads_as_reads_and_stores_as_writes(tmp_path: Path) -> None:
    """Global memory reads a 16-byte word in 1 cycle and writes one in 3:
    per iteration two 64-byte ld (4 words read each) and one 64-byte st (4
    words written) keep it busy 4 + 4 + 12 = 20 ns."""
    config = chip(**{"global": {"read_latency_cycle": 1, "write_latency_cycle": 3}})
    body = HEAD + ("    pim.ld r2, r0 size 64\n    pim.ld r3, r0 size 64\n    pim.st r0, r4 size 64\n")
    periodic = program(tmp_path, core(body), config).periodic()
    assert periodic.status == "ok"
    assert periodic.global_service_ns == 4 * 1 + 4 * 1 + 4 * 3
    # The core's work, each instruction alone: setbw's cycle; a ld's request
    # (1 flit: 15 + 1), 4 words read, the answer without payload (0 flits
    # + 1), the delivered write (1 word, at least 2 cycles), 7 of pipeline:
    # 30 (pim-target.md's ld 64 row, 31 ns, less setbw's cycle); the st's
    # read (1), its 2 flits (2 x 15 + 1), 4 words written (4 x 3), the
    # acknowledgement (1) and the answer (0 + 1), 7 of pipeline: 53.
    ld = (15 + 1) + 4 + (0 + 1) + 2 + 7
    st = 1 + (2 * 15 + 1) + 4 * 3 + 1 + (0 + 1) + 7
    assert periodic.busiest_core_work_ns == 1 + 2 * ld + st


def test_the_periodic_work_of_an_int8_mvmul_takes_setbws_widths(tmp_path: Path) -> None:
    """setbw 8, 32 (int8 inputs, int32 sums), then one mvmul on a 128 x 128
    crossbar, looping: setbw's decode cycle (1 ns), then the mvmul alone:
    7 cycles of pipeline, 128 one-byte inputs read (2 words), the matrix's
    8 input passes (4062 cycles, docs/timing.md's 8-bit figure), 128 four-byte
    sums written (8 words): 1 + 7 + 2 + 4062 + 8 = 4080 ns of work, and the
    loop's interval."""
    group = ("    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(128,128):(128,1)> "
             "rows [0, 128] cols [0, 128]\n")
    body = HEAD.replace("setbw 8, 8", "setbw 8, 32") + "    pim.mvmul r3, r2, group 0 mbiw 8\n"
    assert mvmul_cycles(128, 128, 128) == 4062
    periodic = program(tmp_path, core(body, group=group), chip()).periodic()
    assert periodic.status == "ok"
    assert periodic.busiest_core_work_ns == 1 + 7 + 2 + 4062 + 8
    assert periodic.interval_ns == 4080
