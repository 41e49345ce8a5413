"""Hand-made mutant of raptor.quant (fifth round): the quantization report
of a model with two inputs. The torch and onnxruntime references run a
model of one input, so the float32 side of such a model's report is the
float32 interpreter, and the report says so (it said "torch" while the
interpreter ran; run with two inputs, the reference would be given one)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir

import raptor
from raptor import cli, pim, quant, sources
from raptor._io import UserError
from raptor.quant import random_inputs
from raptor.quant.accuracy import metrics

from test_input_order import _Difference


def test_a_two_input_models_report_compares_with_torch_on_every_input(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _Difference().eval()
    torch.export.save(torch.export.export(model, (torch.randn(1, 8), torch.randn(1, 8))), tmp_path / "m.pt2")
    out = tmp_path / "out"
    assert cli.main(["compile", str(tmp_path / "m.pt2"), "-o", str(out), "--precision", "int8", "--report",
                     "--format", "none", "-q"]) == 0
    report = json.loads((out / "reports" / "quantization.json").read_text())
    assert report["fp32_oracle"] == "torch"
    module = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
    tensors = sources.load(str(tmp_path / "m.pt2"), weights_as="arrays").tensors
    held_out = random_inputs(module, 8, seed=1)
    assert sorted(held_out[0]) == ["first", "second"]
    for sample, row in zip(held_out, report["held_out"]["per_sample"], strict=True):
        with torch.no_grad():
            fp32 = model(*(torch.from_numpy(sample[k]) for k in ("first", "second"))).numpy()
        (int8,) = quant.reference(module, sample, tensors)
        want = metrics(int8, fp32)
        assert row["cosine"] == pytest.approx(want["cosine"], rel=1e-6)
        assert row["max_relative_error"] == pytest.approx(want["max_relative_error"], rel=1e-3)
        assert row["top1_agrees"] == want["top1_agrees"]


def test_a_rescale_outside_an_integer_only_program_is_refused_as_the_lowering_does(tmp_path: Path) -> None:
    """codec.rescale exists only in integer-only programs (fuse_rescales):
    the reference refuses one in a function without raptor.fixed_point_bits,
    in the lowering's words, rather than computing something no program
    computes; with the attribute it runs."""
    from test_integer_programs import _compiled, _reference

    class TwoConvolutions(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.b = torch.nn.Conv2d(4, 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.b(torch.relu(self.a(x)))

    torch.manual_seed(5)
    x = torch.randn(1, 3, 6, 6)
    result, tensors = _compiled(tmp_path, TwoConvolutions().eval(), x, "integer", "i", pimsim="none")
    path = tmp_path / "i" / "reports" / "quantized_model.mlir"
    text = path.read_text()
    assert "codec.rescale" in text and "raptor.fixed_point_bits" in text
    np.testing.assert_array_equal(pim.simulate(tmp_path / "i", x.numpy()).outputs["out0"],
                                  _reference(tmp_path / "i", x.numpy(), tensors))
    with raptor.Context():
        module = ir.Module.parse(text)
        del module.body.operations[0].attributes["raptor.fixed_point_bits"]
        path.write_text(module.operation.get_asm(enable_debug_info=True))
    with pytest.raises(UserError, match="codec.rescale rescales sums in integer-only programs only"):
        _reference(tmp_path / "i", x.numpy(), tensors)


def test_fixed_constants_saturate_to_int32() -> None:
    """A real constant in fixed point is round-half-even of value 2^F,
    saturated to int32: [-2^31, 2^31 - 1], infinities included."""
    from raptor.quant.interpreter import fixed_constant

    got = fixed_constant(np.array([1e10, -1e10, np.inf, -np.inf, 2.5, -1.5, 0.75]), 1).tolist()
    assert got == [2**31 - 1, -2**31, 2**31 - 1, -2**31, 5, -3, 2]


class _PaddedScores(torch.nn.Module):
    """A linear layer's outputs padded with 0.25 (a real value in an
    integer-only program: the decoded sums, in fixed point)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(4)
        self.fc = torch.nn.Linear(5, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.pad(self.fc(x), (1, 2), value=0.25)


def test_an_integer_only_pad_of_reals_equals_the_program(tmp_path: Path) -> None:
    """Seed 521700's survivor: the interpreter's integer-only rule for a
    constant pad of reals (its operands swapped went unnoticed). The program
    and the reference agree bit for bit, the padding is 0.25 in fixed point."""
    from pim_helpers import imported

    x = torch.randn(2, 5)
    w = tmp_path / "w.safetensors"
    module = imported(_PaddedScores().eval(), x, w)
    pim.compile(module, tmp_path / "out", weights=w, precision="int8", pimsim="none")
    program = pim.Program.load(tmp_path / "out")
    assert program.manifest["program"]["arithmetic"] == "integer"
    (got,) = program.simulate(x.numpy()).outputs.values()
    quantized = sources.load(str(tmp_path / "out" / "reports" / "quantized_model.mlir"), weights_as=None).module
    stored = raptor.weights.load(w)
    tensors = {name: stored[name] for name in raptor.weights.param_names(quantized)}
    (reference,) = quant.reference(quantized, {program.inputs[0][0]: x.numpy()}, tensors)
    assert np.array_equal(got, reference)
    assert np.all(got[:, 0] == 0.25) and np.all(got[:, -2:] == 0.25)
    with torch.no_grad():
        want = _PaddedScores().eval()(x).numpy()
    assert np.abs(got - want).max() <= 0.05 * np.abs(want).max()
