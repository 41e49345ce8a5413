"""Hand-made mutants of raptor.weights, third round (docs/mutation.md): what
``save`` stores (float arrays as float32, integer arrays as themselves, read
back with the safetensors package itself) and the float32 values
``from_exported_program`` takes from a state dict of any float type
(bfloat16 included, which numpy cannot hold)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch
from mlir import ir
from safetensors.numpy import load_file

import raptor
from raptor import weights


def test_save_stores_floats_as_float32_and_integers_as_they_are(tmp_path) -> None:
    path = tmp_path / "w.safetensors"
    ids = np.array([3, -1, 2**40], np.int64)
    table = np.linspace(0, 1, 6, dtype=np.float64).reshape(2, 3)
    weights.save(path, {"ids": ids, "table": table, "mask": np.array([1, 0], np.uint8)})
    stored = load_file(str(path))
    assert stored["ids"].dtype == np.int64 and stored["ids"].tolist() == [3, -1, 2**40]
    assert stored["mask"].dtype == np.uint8
    assert stored["table"].dtype == np.float32
    np.testing.assert_array_equal(stored["table"], table.astype(np.float32))


def test_from_exported_program_gives_float32_of_every_float_weight() -> None:
    text = ('func.func @main(%x: tensor<2xf32>, %a: tensor<3xf32> {nn.param = "a"}, '
            '%b: tensor<2xf32> {nn.param = "b"}, %c: tensor<2xi64> {nn.param = "c"}) -> tensor<2xf32> {\n'
            '  return %x : tensor<2xf32>\n}\n')
    module = ir.Module.parse(text, context=raptor.Context())
    a = torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)
    b = torch.tensor([0.1, 0.2], dtype=torch.float64)
    ep = SimpleNamespace(state_dict={"a": a, "b": torch.nn.Parameter(b)}, constants={"c": torch.tensor([7, 8])})
    out = weights.from_exported_program(ep, module)
    assert list(out) == ["a", "b", "c"]
    assert out["a"].dtype == out["b"].dtype == np.float32
    assert out["a"].tolist() == [1.5, -2.25, 3.0]
    np.testing.assert_array_equal(out["b"], np.array([0.1, 0.2], np.float32))
    assert out["c"].dtype == np.int64 and out["c"].tolist() == [7, 8]
