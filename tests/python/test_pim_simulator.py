"""Raptor's functional simulator on hand-written pim programs: instruction
semantics against numpy, loops, rendezvous, event registers, and the
faults it reports (deadlocks, out-of-bounds accesses)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import raptor
from raptor import _raptor, pim

HEAD = """pim.chip @m cores 2 crossbars 2 of [8, 8] memory 4096 {{
  pim.io @x "input" name "x" at 0 : tensor<{n}xf32> layout #layout.layout<({n}):(1)>
  pim.io @y "input" name "y" at 256 : tensor<{n}xf32> layout #layout.layout<({n}):(1)>
  pim.io @z "output" name "z" at 512 : tensor<{m}xf32> layout #layout.layout<({m}):(1)>
"""


def run(tmp_path: Path, body: str, x: np.ndarray, y: np.ndarray | None = None, m: int | None = None,
        extra: str = "") -> tuple[np.ndarray, dict]:
    """Compiles the chip text (input x at global 0, y at 256, output z at
    512) with raptor-emit-pim and simulates it."""
    n = x.size
    text = HEAD.format(n=n, m=m or n) + extra + body + "}\n"
    with raptor.Context():
        module = ir.Module.parse(text)
        _raptor.emit_pim(module, str(tmp_path / "p"), "both")
    y = np.zeros(n, np.float32) if y is None else y
    result = pim.simulate(tmp_path / "p", {"x": x.astype(np.float32), "y": y.astype(np.float32)})
    return result.outputs["z"], result.stats


LOAD = """    pim.setbw 32, 32
    pim.sldi r0, 0
    pim.sldi r1, 0
    pim.sldi r2, 1024
    pim.ld r2, r0 size {b}
    pim.sldi r1, 256
    pim.sldi r3, 2048
    pim.ld r3, r0 size {b}
    pim.sldi r4, 3072
"""
STORE = """    pim.sldi r1, 512
    pim.st r0, r4 size {b}
"""

RNG = np.random.default_rng(0)
X = RNG.standard_normal(16).astype(np.float32)
Y = RNG.standard_normal(16).astype(np.float32) + 2.5


@pytest.mark.parametrize("op, expect", [
    ("pim.vvadd r4, r2, r3", X + Y),
    ("pim.vvsub r4, r2, r3", X - Y),
    ("pim.vvmul r4, r2, r3", X * Y),
    ("pim.vvmax r4, r2, r3", np.maximum(X, Y)),
    ("pim.ext.vvdiv r4, r2, r3", X / Y),
    ("pim.vrelu r4, r2", np.maximum(X, 0)),
    ("pim.vtanh r4, r2", np.tanh(X)),
    ("pim.vsigm r4, r2", 1 / (1 + np.exp(-X))),
    ("pim.vmv r4, r2", X),
    ("pim.ext.vexp r4, r2", np.exp(X)),
    ("pim.ext.vrsqrt r4, r3", 1 / np.sqrt(Y)),
])
def test_element_wise_instructions(op: str, expect: np.ndarray, tmp_path: Path) -> None:
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + f"    {op} len 16 : f32\n" + STORE.format(b=64) + "  }\n"
    z, stats = run(tmp_path, body, X, Y)
    np.testing.assert_allclose(z, expect, rtol=2e-6, atol=1e-6)
    assert stats["total"]["vector_ops"] == 1


@pytest.mark.parametrize("op, expect", [
    ("pim.vvdmul r4, r2, r3", np.dot(X, Y)),
    ("pim.vavg r4, r2", X.mean()),
    ("pim.ext.vredmax r4, r2", X.max()),
])
def test_reductions_write_one_element(op: str, expect: float, tmp_path: Path) -> None:
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + f"    {op} len 16 : f32\n" + STORE.format(b=4) + "  }\n"
    z, _ = run(tmp_path, body, X, Y, m=1)
    np.testing.assert_allclose(z[0], expect, rtol=2e-6)


def test_broadcast_fills_with_the_first_element(tmp_path: Path) -> None:
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + "    pim.ext.vbcast r4, r3 len 16 : f32\n" + \
        STORE.format(b=64) + "  }\n"
    z, _ = run(tmp_path, body, X, Y)
    np.testing.assert_allclose(z, np.full(16, Y[0]), rtol=0)


def test_matrix_vector_products_against_numpy(tmp_path: Path) -> None:
    m = (X[:16].reshape(4, 4))
    v = Y[:4]
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.ext.vmatvec r4, r2, r3 rows 4 len 4 : f32
    pim.sldi r5, 3088
    pim.ext.vvecmat r5, r2, r3 rows 4 len 4 : f32
    pim.sldi r1, 512
    pim.st r0, r4 size 32
  }
"""
    z, _ = run(tmp_path, body, X, Y, m=8)
    np.testing.assert_allclose(z[:4], m @ v, rtol=2e-6)
    np.testing.assert_allclose(z[4:], v @ m, rtol=2e-6)


def test_mvmul_multiplies_every_crossbar_of_a_group(tmp_path: Path) -> None:
    """A group of two 8x8 crossbars holding a 6 x 10 tile (rows [1, 7),
    columns [0, 10) of a 7 x 12 matrix): 16 outputs, the last 6 zero;
    the relu flag clamps."""
    w = np.random.default_rng(1).standard_normal((7, 12)).astype(np.float32)
    dense = ", ".join(f"{v:.8e}" for v in w.T.ravel())  # the weight tensor is 12 x 7 (n, k)
    extra = f"  pim.weight @w dense<[{dense}]> : tensor<84xf32>\n"
    group = "    pim.group 0 crossbars 2 weight @w matrix #layout.layout<(7,12):(1,7)> rows [1, 7] cols [0, 10]\n"
    body = ("  pim.core 0 {\n" + group + LOAD.format(b=64) +
            "    pim.mvmul r4, r2, group 0 mbiw 8\n    pim.sldi r5, 3200\n"
            "    pim.mvmul r5, r2, group 0 mbiw 8 {relu = true}\n" + STORE.format(b=64) +
            "    pim.sldi r1, 576\n    pim.st r0, r5 size 64\n  }\n")
    x = X.copy()
    text = HEAD.format(n=16, m=32) + extra + body + "}\n"
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(text), str(tmp_path / "p"), "none")
    out = pim.simulate(tmp_path / "p", {"x": x, "y": Y}).outputs["z"]
    expect = np.zeros(16, np.float32)
    expect[:10] = x[:6] @ w[1:7, :10]
    np.testing.assert_allclose(out[:16], expect, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[16:], np.maximum(expect, 0), rtol=1e-5, atol=1e-6)


def test_repeat_strides_registers_and_restores_them(tmp_path: Path) -> None:
    """Four relus of 4 elements walking input and output, then a copy that
    uses the restored registers (the first chunk again)."""
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.repeat 2 [r2 += 32, r4 += 32] {
      pim.repeat 2 [r2 += 16, r4 += 16] {
        pim.vrelu r4, r2 len 4 : f32
      }
    }
    pim.vvadd r4, r4, r2 len 4 : f32
""" + STORE.format(b=64) + "  }\n"
    z, stats = run(tmp_path, body, X, Y)
    expect = np.maximum(X, 0)
    expect[:4] += X[:4]
    np.testing.assert_allclose(z, expect, rtol=1e-6)
    assert stats["total"]["vector_ops"] == 5


def test_scalar_instructions_compute_addresses(tmp_path: Path) -> None:
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.sldi r5, 8
    pim.sldi r6, 2
    pim.smul r7, r5, r6
    pim.smuli r7, r7, 2
    pim.ssub r7, r7, r6
    pim.saddi r7, r7, 2
    pim.sadd r7, r2, r7
    pim.vmv r4, r7 len 4 : f32
""" + STORE.format(b=16) + "  }\n"
    z, _ = run(tmp_path, body, X, Y, m=4)
    np.testing.assert_array_equal(z, X[8:12])  # byte offset ((8 * 2) * 2 - 2) + 2 = 32


def test_send_and_receive_move_data_between_cores(tmp_path: Path) -> None:
    body = ("  pim.core 0 {\n" + LOAD.format(b=64) + "    pim.send r2 to 1 size 64 tag 5\n  }\n"
            "  pim.core 1 {\n    pim.sldi r4, 0\n    pim.recv r4 from 0 size 64 tag 5\n"
            "    pim.vrelu r4, r4 len 16 : f32\n    pim.sldi r0, 0\n" + STORE.format(b=64) + "  }\n")
    z, stats = run(tmp_path, body, X, Y)
    np.testing.assert_array_equal(z, np.maximum(X, 0))
    assert stats["cores"][0]["sent_bytes"] == 64 and stats["cores"][1]["received_bytes"] == 64


def _events(wait_value: int) -> str:
    return ("  pim.core 0 {\n" + LOAD.format(b=64) + "    pim.sync 1 event 3\n    pim.sync 1 event 3\n"
            "    pim.vmv r4, r2 len 16 : f32\n  }\n"
            "  pim.core 1 {\n" + LOAD.format(b=64) + f"    pim.wait event 3 value {wait_value}\n"
            "    pim.vvadd r4, r2, r3 len 16 : f32\n" + STORE.format(b=64) + "  }\n")


def test_wait_blocks_until_the_event_count_is_reached(tmp_path: Path) -> None:
    z, _ = run(tmp_path, _events(2), X, Y)
    np.testing.assert_allclose(z, X + Y, rtol=1e-6)


def test_a_wait_that_is_never_satisfied_is_a_deadlock(tmp_path: Path) -> None:
    with pytest.raises(pim.SimulationError, match=r"deadlock: no core can proceed; core 1 waits for event "
                                                   r"register 3 to reach 3 \(it holds 2\)"):
        run(tmp_path, _events(3), X, Y)


def test_crossed_receives_deadlock_and_say_who_waits(tmp_path: Path) -> None:
    body = """  pim.core 0 {
    pim.sldi r2, 0
    pim.recv r2 from 1 size 16 tag 1
    pim.send r2 to 1 size 16 tag 2
  }
  pim.core 1 {
    pim.sldi r2, 0
    pim.recv r2 from 0 size 16 tag 2
    pim.send r2 to 0 size 16 tag 1
  }
"""
    with pytest.raises(pim.SimulationError) as e:
        run(tmp_path, body, X, Y)
    assert str(e.value).startswith("deadlock: no core can proceed;")
    assert "core 0 waits to receive 16 bytes from core 1 (record 1, tag 1)" in str(e.value)
    assert "core 1 waits to receive 16 bytes from core 0 (record 1, tag 2)" in str(e.value)


def test_an_address_computed_at_run_time_is_checked_when_used(tmp_path: Path) -> None:
    """sld loads a register from memory, so the verifier cannot bound it;
    the simulator reports the access with the core and the record."""
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.sld r5, r2
    pim.vrelu r4, r5 len 4 : f32
""" + STORE.format(b=16) + "  }\n"
    x = X.copy()
    x[0] = np.frombuffer(np.int32(100000).tobytes(), np.float32)[0]  # the address the program loads
    with pytest.raises(pim.SimulationError,
                       match=r"core 0, record 10 \(vrelu\): local access \[100000, 100016\) outside the core's 4096 bytes"):
        run(tmp_path, body, x, Y, m=4)


def test_global_memory_accesses_are_bounded(tmp_path: Path) -> None:
    body = """  pim.core 0 {
    pim.sldi r0, 0
    pim.sldi r1, 100000
    pim.sldi r2, 0
    pim.ld r2, r0 size 64
  }
"""
    with pytest.raises(pim.SimulationError, match=r"global access \[100000, 100064\) outside the"):
        run(tmp_path, body, X, Y)


def test_inputs_are_checked_by_name_and_shape(tmp_path: Path) -> None:
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + "    pim.vmv r4, r2 len 16 : f32\n" + STORE.format(b=64) + "  }\n"
    run(tmp_path, body, X, Y)
    program = pim.Program.load(tmp_path / "p")
    with pytest.raises(pim.UserError, match=r"input 'x' has shape \(4,\) but the model expects \(16,\)"):
        program.simulate({"x": np.zeros(4, np.float32), "y": Y})
    with pytest.raises(pim.UserError, match=r"the model has no input 'w' \(inputs: x, y\)"):
        program.simulate({"w": X})
    with pytest.raises(pim.UserError, match=r"missing input\(s\): y"):
        program.simulate({"x": X})


def test_the_instruction_budget_stops_a_program_too_long_to_run(tmp_path: Path) -> None:
    """Two nested loops of 2^31-1 iterations (4.6e18 instructions) end in a
    fault naming the budget, not a hang; emission skips the unrolled files."""
    body = """  pim.core 0 {
    pim.sldi r2, 0
    pim.repeat 2147483647 [] {
      pim.repeat 2147483647 [] {
        pim.vrelu r2, r2 len 4 : f32
      }
    }
  }
"""
    text = HEAD.format(n=16, m=16) + body + "}\n"
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(text), str(tmp_path / "p"), "both")
    summary = pim.Program.load(tmp_path / "p").manifest["program"]
    assert summary["unrolled_instructions"] == 1 + (2**31 - 1) ** 2  # the sldi and the loop body
    assert "unrolled program" in summary["pimsim_skipped"]
    with pytest.raises(pim.SimulationError, match=r"executed 100000 instructions without finishing"):
        pim.simulate(tmp_path / "p", {"x": X, "y": Y}, max_instructions=100_000)


def test_the_budget_counts_every_executed_instruction(tmp_path: Path) -> None:
    """The program below executes 9 setup, 4 loop-body and 2 store
    instructions: a budget of exactly 15 runs it, 14 does not."""
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.repeat 4 [r2 += 16, r4 += 16] {
      pim.vrelu r4, r2 len 4 : f32
    }
""" + STORE.format(b=64) + "  }\n"
    run(tmp_path, body, X, Y)
    program = pim.Program.load(tmp_path / "p")
    result = program.simulate({"x": X, "y": Y}, max_instructions=15)
    assert result.stats["total"]["instructions"] == 15
    np.testing.assert_array_equal(result.outputs["z"], np.maximum(X, 0))
    with pytest.raises(pim.SimulationError, match="executed 14 instructions"):
        program.simulate({"x": X, "y": Y}, max_instructions=14)
    with pytest.raises(pim.UserError, match="max_instructions must be positive"):
        program.simulate({"x": X, "y": Y}, max_instructions=0)


def test_an_operand_beyond_the_touched_memory_does_not_move_the_others(tmp_path: Path) -> None:
    """The first access to far local bytes grows the core's memory: the
    other operands of the same instruction must still be the ones read and
    written (x + 0 lands at r4, not in memory freed by the growth)."""
    body = """  pim.core 0 {
    pim.setbw 32, 32
    pim.sldi r0, 0
    pim.sldi r1, 0
    pim.sldi r2, 0
    pim.ld r2, r0 size 64
    pim.sldi r4, 64
    pim.sldi r5, 4000
    pim.vvadd r4, r2, r5 len 16 : f32
    pim.sldi r6, 3000
    pim.lmv r6, r4 len 64
    pim.sldi r1, 512
    pim.st r0, r6 size 64
  }
"""
    z, _ = run(tmp_path, body, X, Y)
    np.testing.assert_array_equal(z, X)
