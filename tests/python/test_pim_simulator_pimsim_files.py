"""The functional simulator reading pimsim-nn's own files (core_<i>.json
and core_<i>.pim) of hand-written programs, against hand computations:
paths the lowering never emits but a pimsim-nn program may contain (an MVM
with its relu flag set, scalar arithmetic, event registers, strided
loops unrolled, every element-wise instruction), each run from the JSON
form and from the binary form alone. The relu flag is also set by editing
the files (the JSON field, the binary record's g1), as a program from
another tool would carry it."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import raptor
from raptor import _raptor, pim

from test_pim_simulator import HEAD, LOAD, RNG, STORE, X, Y, _events


def _emit(tmp_path: Path, text: str) -> Path:
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(text), str(tmp_path / "p"), "both")
    return tmp_path / "p"


def _only(directory: Path, form: str) -> Path:
    """The directory with pimsim-nn's files of one form only (`.pim` is
    preferred when both exist, so the JSON form needs the binary removed)."""
    drop = ".pim" if form == "json" else ".json"
    for f in directory.glob(f"core_*{drop}"):
        f.unlink()
    return directory


def _simulate(directory: Path) -> np.ndarray:
    return pim.simulate(directory, {"x": X, "y": Y}, form="pimsim").outputs["z"]


FORMS = ["json", "binary"]

W = RNG.standard_normal((7, 12)).astype(np.float32)


def _group_text(relu: str) -> str:
    """A group of two 8 x 8 crossbars holding rows [1, 7) and columns [0, 10)
    of the 7 x 12 matrix W, one MVM (`relu`: its attribute text)."""
    return (HEAD.format(n=16, m=16) + "  pim.weight @w dense<[" + ", ".join(f"{v:.8e}" for v in W.T.ravel()) +
            "]> : tensor<84xf32>\n  pim.core 0 {\n    pim.group 0 crossbars 2 weight @w matrix "
            "#layout.layout<(7,12):(1,7)> rows [1, 7] cols [0, 10]\n" + LOAD.format(b=64) +
            f"    pim.mvmul r4, r2, group 0 mbiw 8{relu}\n" + STORE.format(b=64) + "  }\n}\n")


def _mvm() -> np.ndarray:
    """By hand: the tile is rows 1..6 and columns 0..9 of W, so outputs 0..9
    are x[0..5] W[1:7, :10] and outputs 10..15 (the second crossbar's unused
    columns) zero."""
    expect = np.zeros(16, np.float32)
    expect[:10] = X[:6] @ W[1:7, :10]
    return expect


@pytest.mark.parametrize("form", FORMS)
def test_an_mvm_with_relu_from_pimsim_files(form: str, tmp_path: Path) -> None:
    directory = _only(_emit(tmp_path, _group_text(" {relu = true}")), form)
    np.testing.assert_allclose(_simulate(directory), np.maximum(_mvm(), 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("form", FORMS)
def test_the_relu_flag_set_in_the_files_by_hand(form: str, tmp_path: Path) -> None:
    directory = _only(_emit(tmp_path, _group_text("")), form)
    assert np.min(_simulate(directory)) < 0  # (without the flag, negative outputs)
    if form == "json":
        path = directory / "core_0.json"
        program = json.loads(path.read_text())
        (mvm,) = [i for i in program if i["op"] == "mvmul"]
        mvm["relu"] = 1
        path.write_text(json.dumps(program))
    else:
        path = directory / "core_0.pim"
        data = bytearray(path.read_bytes())
        (count,) = struct.unpack_from("<I", data, 8)
        records = [12 + 20 * i for i in range(count)]
        (at,) = [r for r in records if data[r] == 9]  # mvmul is opcode 9
        struct.pack_into("<i", data, at + 8, 1)  # g1 = relu
        path.write_bytes(bytes(data))
    np.testing.assert_allclose(_simulate(directory), np.maximum(_mvm(), 0), rtol=1e-5, atol=1e-6)


ELEMENT_WISE = [
    ("pim.vvadd r4, r2, r3", X + Y),
    ("pim.vvsub r4, r2, r3", X - Y),
    ("pim.vvmul r4, r2, r3", X * Y),
    ("pim.vvmax r4, r2, r3", np.maximum(X, Y)),
    ("pim.vrelu r4, r2", np.maximum(X, 0)),
    ("pim.vtanh r4, r2", np.tanh(X)),
    ("pim.vsigm r4, r2", 1 / (1 + np.exp(-X))),
    ("pim.vmv r4, r3", Y),
]


@pytest.mark.parametrize("form", FORMS)
def test_element_wise_instructions_from_pimsim_files(form: str, tmp_path: Path) -> None:
    for k, (op, expect) in enumerate(ELEMENT_WISE):
        body = "  pim.core 0 {\n" + LOAD.format(b=64) + f"    {op} len 16 : f32\n" + STORE.format(b=64) + "  }\n"
        directory = _only(_emit(tmp_path / str(k), HEAD.format(n=16, m=16) + body + "}\n"), form)
        np.testing.assert_allclose(_simulate(directory), expect, rtol=2e-6, atol=1e-6, err_msg=op)


@pytest.mark.parametrize("form", FORMS)
def test_reductions_and_scalar_arithmetic_from_pimsim_files(form: str, tmp_path: Path) -> None:
    """vvdmul and vavg to one element each; an address computed by smul,
    smuli, ssub, saddi and sadd: ((8 * 2) * 2 - 2) + 2 = 32 bytes in, x[8]."""
    body = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.vvdmul r4, r2, r3 len 16 : f32
    pim.sldi r5, 3076
    pim.vavg r5, r2 len 16 : f32
    pim.sldi r5, 8
    pim.sldi r6, 2
    pim.smul r7, r5, r6
    pim.smuli r7, r7, 2
    pim.ssub r7, r7, r6
    pim.saddi r7, r7, 2
    pim.sadd r7, r2, r7
    pim.sldi r5, 3080
    pim.vmv r5, r7 len 1 : f32
""" + STORE.format(b=12) + "  }\n"
    directory = _only(_emit(tmp_path, HEAD.format(n=16, m=3) + body + "}\n"), form)
    z = _simulate(directory)
    np.testing.assert_allclose(z, [np.dot(X, Y), X.mean(), X[8]], rtol=2e-6)


@pytest.mark.parametrize("form", FORMS)
def test_event_registers_and_unrolled_loops_from_pimsim_files(form: str, tmp_path: Path) -> None:
    directory = _only(_emit(tmp_path / "events", HEAD.format(n=16, m=16) + _events(2) + "}\n"), form)
    np.testing.assert_allclose(_simulate(directory), X + Y, rtol=1e-6)
    loops = "  pim.core 0 {\n" + LOAD.format(b=64) + """    pim.repeat 2 [r2 += 32, r4 += 32] {
      pim.repeat 2 [r2 += 16, r4 += 16] {
        pim.vrelu r4, r2 len 4 : f32
      }
    }
    pim.vvadd r4, r4, r2 len 4 : f32
""" + STORE.format(b=64) + "  }\n"
    directory = _only(_emit(tmp_path / "loops", HEAD.format(n=16, m=16) + loops + "}\n"), form)
    expect = np.maximum(X, 0)
    expect[:4] += X[:4]  # the strided registers restored after the loops
    np.testing.assert_allclose(_simulate(directory), expect, rtol=1e-6)
