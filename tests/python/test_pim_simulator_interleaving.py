"""The functional simulator's random interleavings (`interleaving_seed`,
`raptor simulate --interleaving-seed`): a program whose result depends on
the order in which cores run (a wait satisfied by another sender's signal)
gives other outputs under some seed, a race-free one the same under all;
and compiled programs whose readers' event registers pass from sender to
sender (spatial::EventRegisters) stay race-free."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import raptor
from raptor import _raptor, pim, sources

X = np.random.default_rng(0).standard_normal(16).astype(np.float32)


def _signals(wrong_event: int) -> str:
    """Core 0 stores relu(x) to z and signals core 2 on event 0; core 1
    signals core 2 on `wrong_event`; core 2 waits for one token of event 0,
    then doubles z in place."""
    return f"""pim.chip @m cores 3 crossbars 1 of [8, 8] memory 4096 {{
  pim.io @x "input" name "x" at 0 : tensor<16xf32> layout #layout.layout<(16):(1)>
  pim.io @z "output" name "z" at 512 : tensor<16xf32> layout #layout.layout<(16):(1)>
  pim.core 0 {{
    pim.setbw 32, 32
    pim.sldi r0, 0
    pim.sldi r1, 0
    pim.sldi r2, 1024
    pim.ld r2, r0 size 64
    pim.vrelu r2, r2 len 16 : f32
    pim.sldi r1, 512
    pim.st r0, r2 size 64
    pim.sync 2 event 0
  }}
  pim.core 1 {{
    pim.sync 2 event {wrong_event}
  }}
  pim.core 2 {{
    pim.setbw 32, 32
    pim.wait event 0 value 1
    pim.sldi r0, 0
    pim.sldi r1, 512
    pim.sldi r2, 1024
    pim.ld r2, r0 size 64
    pim.vvadd r2, r2, r2 len 16 : f32
    pim.st r0, r2 size 64
    pim.wait event {wrong_event} value 1
  }}
}}
"""


def _emitted(tmp_path: Path, text: str) -> pim.Program:
    with raptor.Context():
        module = ir.Module.parse(text)
        _raptor.emit_pim(module, str(tmp_path / "p"), "binary")
    return pim.Program.load(tmp_path / "p")


def test_a_race_between_two_senders_shows_under_some_interleaving(tmp_path: Path) -> None:
    """In turn, core 0 runs first and z is 2 relu(x); when core 1's token
    arrives first, core 2 doubles z before core 0 stored it."""
    program = _emitted(tmp_path, _signals(wrong_event=0))
    np.testing.assert_array_equal(program.simulate(X).outputs["z"], 2 * np.maximum(X, 0))
    outcomes = {program.simulate(X, interleaving_seed=seed).outputs["z"].tobytes() for seed in range(1, 17)}
    assert len(outcomes) > 1


def test_a_race_free_program_computes_the_same_under_every_interleaving(tmp_path: Path) -> None:
    program = _emitted(tmp_path, _signals(wrong_event=1))
    for seed in range(1, 17):
        np.testing.assert_array_equal(program.simulate(X, interleaving_seed=seed).outputs["z"],
                                      2 * np.maximum(X, 0))


def test_an_interleaving_seed_must_be_positive(tmp_path: Path) -> None:
    program = _emitted(tmp_path, _signals(wrong_event=1))
    with pytest.raises(pim.UserError, match="interleaving_seed must be a positive 64-bit integer, not 0"):
        program.simulate(X, interleaving_seed=0)
    cli = subprocess.run([sys.executable, "-m", "raptor", "simulate", str(tmp_path / "p"), "--timing",
                          "--interleaving-seed", "3"], capture_output=True, text=True)
    assert cli.returncode == 1 and "--interleaving-seed orders the functional simulation" in cli.stderr


def test_the_command_runs_an_interleaving(tmp_path: Path) -> None:
    _emitted(tmp_path, _signals(wrong_event=1))
    np.save(tmp_path / "x.npy", X)
    cli = subprocess.run([sys.executable, "-m", "raptor", "simulate", str(tmp_path / "p"), "--input",
                          f"x={tmp_path / 'x.npy'}", "--interleaving-seed", "7", "--output", f"z={tmp_path / 'z.npy'}"],
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), 2 * np.maximum(X, 0))


def test_event_registers_passed_between_senders_keep_programs_race_free(tmp_path: Path) -> None:
    """ShuffleNetV2 f32 through global memory, whole tensors per task: a
    reader hears from more senders than it has event registers (55: the
    channel shuffles gather their maps; streamed rows read 16 at most), so
    registers change hands (each time after the reader's last wait on it
    reached the new sender). Its outputs equal torch in turn and under
    random interleavings. Handing registers over without that condition
    gives other outputs under every seed tried (errors of 0.27-0.51;
    checked by hand)."""
    model = sources.load("shufflenet_v2")
    pim.compile(model.module, tmp_path / "p", weights=model.weights, pimsim="json", transfers="global", row_block=0)
    senders: dict[int, set[int]] = collections.defaultdict(set)
    for path in (tmp_path / "p").glob("core_*.json"):
        core = int(path.stem.split("_")[1])
        for instruction in json.loads(path.read_text()):
            if instruction["op"] in ("sync", "wait"):
                assert 0 <= instruction["event_register"] < 32
            if instruction["op"] == "sync":
                senders[instruction["core"]].add(core)
    assert max(len(s) for s in senders.values()) > 32
    program = pim.Program.load(tmp_path / "p")
    x = np.random.default_rng(1).standard_normal(program.inputs[0][1]).astype(np.float32)
    (reference,) = model.reference(x)
    for seed in (None, 1, 2, 3):
        out = program.simulate(x, interleaving_seed=seed).outputs
        np.testing.assert_allclose(next(iter(out.values())), reference, rtol=1e-4, atol=1e-4)
