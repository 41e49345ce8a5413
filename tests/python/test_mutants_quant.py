"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/quant/: the accuracy metrics by hand, and an explicit zero padding of
int8 codes (policy W keeps the padded input's encoding) against float32 torch."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import export, randomize
from torch import nn

import raptor
from raptor import pim, quant, weights
from raptor.frontend.torch import import_program
from raptor.quant.accuracy import metrics


def test_metrics_by_hand() -> None:
    # q = [1, 2], f = [1, 4]: |q - f| = [0, 2]; peak |f| = 4, mean |f| = 2.5;
    # cosine = (1 + 8) / (sqrt(5) sqrt(17)).
    m = metrics(np.array([1.0, 2.0]), np.array([1.0, 4.0]))
    assert m == pytest.approx({"max_relative_error": 0.5, "mean_relative_error": 0.4,
                               "cosine": 9 / math.sqrt(85)})
    assert metrics(np.array([[0.0, 3.0, 1.0]]), np.array([[0.5, 2.0, 1.0]]))["top1_agrees"] is True


def test_metrics_of_empty_outputs_are_exact() -> None:
    assert metrics(np.zeros(0), np.zeros(0)) == {"max_relative_error": 0.0, "mean_relative_error": 0.0,
                                                 "cosine": 1.0}


class PaddedCnn(nn.Module):
    """conv -> explicit zero padding (aten.constant_pad_nd) -> conv -> linear."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 4, 3), nn.Conv2d(4, 4, 3)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.pad(torch.relu(self.c1(x)), (1, 1, 1, 1))
        return self.fc(torch.relu(self.c2(y)).flatten(1))


def test_int8_zero_padding_pads_with_the_code_of_zero(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = randomize(PaddedCnn()).eval()
    x = torch.randn(1, 3, 6, 6)
    ep = export(model, x)
    module, _ = import_program(ep)
    assert "nn.constant_pad_nd" in str(module)
    path = tmp_path / "m.safetensors"
    tensors = weights.from_exported_program(ep, module)
    weights.save(path, tensors)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "out", weights=path, precision="int8", policy="W",
                placement="local", calibration=samples, pimsim="none")
    saved = ir.Module.parse((tmp_path / "out" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(path))
    (got,) = pim.simulate(tmp_path / "out", x.numpy()).outputs.values()
    np.testing.assert_array_equal(got, want)
    with torch.no_grad():
        exact = model(x).numpy()
    assert np.abs(got - exact).max() < 0.1 * np.abs(exact).max()


def test_the_interpreter_reads_gelus_approximation_and_its_default() -> None:
    """nn.gelu without `approximate` is the exact GELU (the attribute's
    default, elided when printed); `approximate = "tanh"` is torch's tanh
    form: against torch on values where the two differ (to 1e-6: the
    interpreter repeats the programs' float32 steps, whose 1 + erf(x / sqrt 2)
    keeps about 1e-7 of absolute precision where x < -3)."""
    from raptor.quant.interpreter import evaluate

    x = np.linspace(-4, 4, 16, dtype=np.float32).reshape(1, 16)
    for attribute, approximate in (("", "none"), (' {approximate = "tanh"}', "tanh")):
        text = ("func.func @main(%x: tensor<1x16xf32> {nn.input = \"x\"}) -> tensor<1x16xf32> {\n"
                f"  %y = nn.gelu %x{attribute} : tensor<1x16xf32>\n"
                "  return %y : tensor<1x16xf32>\n}\n")
        module = ir.Module.parse(text, context=raptor.Context())
        (got,) = evaluate(module, {"x": x}, {}, mode="fp32")
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate=approximate).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    exact = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    tanh = torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh").numpy()
    assert np.abs(exact - tanh).max() > 1e-4  # the two forms are told apart here
