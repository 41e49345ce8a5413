"""A model's inputs keep their names and their order from the source to the
program: a function of two inputs of one shape (where a swap type-checks and
gives another result) compiled from .pt2 and ONNX, then simulated with its
inputs given by name, against torch and onnxruntime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

from raptor import pim, sources

RAPTOR = [sys.executable, "-m", "raptor"]


class _Difference(torch.nn.Module):
    """fc(second) - 2 first: the inputs are used in the other order than declared."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
        return self.fc(second) - 2 * first


def _compile(source: Path, out: Path) -> pim.Program:
    run = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(out), "-q", "--format", "none"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return pim.Program.load(out)


def test_pt2_inputs_keep_their_names_and_order(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _Difference().eval()
    a, b = torch.randn(1, 8), torch.randn(1, 8)
    torch.export.save(torch.export.export(model, (a, b)), tmp_path / "m.pt2")
    program = _compile(tmp_path / "m.pt2", tmp_path / "out")
    assert [(name, shape) for name, shape, _ in program.inputs] == [("first", (1, 8)), ("second", (1, 8))]
    with torch.no_grad():
        want, swapped = model(a, b).numpy(), model(b, a).numpy()
    got = next(iter(program.simulate({"first": a.numpy(), "second": b.numpy()}).outputs.values()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert not np.allclose(got, swapped, atol=1e-3)  # the order is observable here
    # By name, not by position: the mapping's order does not matter.
    again = next(iter(program.simulate({"second": b.numpy(), "first": a.numpy()}).outputs.values()))
    np.testing.assert_array_equal(again, got)


def test_onnx_inputs_keep_their_names_and_order(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    two = np.array(2.0, dtype=np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["y", "w"], ["yw"]), helper.make_node("Mul", ["x", "two"], ["x2"]),
         helper.make_node("Sub", ["yw", "x2"], ["out"])],
        "difference",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(two, "two")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, tmp_path / "m.onnx")
    program = _compile(tmp_path / "m.onnx", tmp_path / "out")
    assert [name for name, _, _ in program.inputs] == ["x", "y"]
    x, y = rng.standard_normal((1, 8)).astype(np.float32), rng.standard_normal((1, 8)).astype(np.float32)
    (want,) = sources.onnxruntime_session(str(tmp_path / "m.onnx")).run(None, {"x": x, "y": y})
    got = next(iter(program.simulate({"x": x, "y": y}).outputs.values()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(Exception, match="no input 'z'"):
        program.simulate({"x": x, "z": y})
