"""`raptor simulate --check` on models with several outputs or inputs:
every output compared with the model's own, in the program's order, each
relative to its own scale, the worst reported; int8 bit-exact only when
every output is; the inputs given to the model (eager torch, onnxruntime)
in the program's order. Also a transformers model exported as itself (its
output class with two fields set: BERT's last hidden state and pooler
output)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import cli

from pim_helpers import compile_source


class TwoScales(torch.nn.Module):
    """Two outputs of one shape, a hundred times apart in scale: swapped,
    or one compared with the other's scale, the figures show it."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Linear(6, 4)
        self.b = torch.nn.Linear(6, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(self.a(x)), 100 * self.b(x)


def _check(out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """What `raptor simulate OUT --check EXTRA...` prints (exit 0 asserted)."""
    capsys.readouterr()
    assert cli.main(["simulate", str(out), "--check", *extra]) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def two_scales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("two") / "two.pt2"
    torch.export.save(torch.export.export(TwoScales().eval(), (torch.randn(2, 6),)), path)
    return path


def test_every_output_is_compared_in_order(two_scales: Path, tmp_path: Path, capsys) -> None:
    compile_source(two_scales, tmp_path / "f32")
    report = json.loads(_check(tmp_path / "f32", capsys, "--json"))
    outputs = report["outputs"]
    assert [o["name"] for o in outputs] == ["out0", "out1"]
    assert all(o["max_error_relative"] < 2e-6 and not o["reference_all_zero"] for o in outputs)
    worst = max(outputs, key=lambda o: o["max_error_relative"])
    assert (report["max_error"], report["max_error_relative"]) == (worst["max_error"], worst["max_error_relative"])
    # Each relative to its own scale: the second output's absolute error,
    # a hundred times the scale, over its own largest value.
    assert outputs[1]["max_error"] > outputs[0]["max_error"]
    text = _check(tmp_path / "f32", capsys)
    assert "of the largest output; out0 " in text and "; out1 " in text


def test_int8_is_bit_exact_when_every_output_is(two_scales: Path, tmp_path: Path, capsys) -> None:
    compile_source(two_scales, tmp_path / "int8", precision="int8")
    report = json.loads(_check(tmp_path / "int8", capsys, "--json"))
    assert report["integer_reference_bit_exact"] and report["integer_reference_differing"] == 0
    assert len(report["outputs"]) == 2 and report["max_error_relative"] < 0.05
    assert "vs the integer reference: bit-exact" in _check(tmp_path / "int8", capsys)
    # One position of one output off: not bit-exact, that position counted.
    from raptor import pim
    from raptor.cli import programs

    program = pim.Program.load(tmp_path / "int8")
    arrays = {program.inputs[0][0]: np.random.default_rng(0).standard_normal(program.inputs[0][1]).astype(np.float32)}
    for off in ("out0", "out1"):
        outputs = dict(program.simulate(arrays).outputs)
        outputs[off] = outputs[off].copy()
        outputs[off].flat[3] += 0.5 * float(np.abs(outputs[off]).max())
        report = programs._check(program, arrays, outputs, str(tmp_path / "int8"), lambda m: None)
        assert not report["integer_reference_bit_exact"] and report["integer_reference_differing"] == 1, off


def test_a_transformers_model_exported_as_itself(tmp_path: Path, capsys) -> None:
    """BERT returning its output class: the last hidden state and the pooler
    output, both compared."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=97, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=32)
    model = transformers.BertModel(config).eval()
    path = tmp_path / "bert.pt2"
    torch.export.save(torch.export.export(model, (torch.randint(0, 97, (1, 10)),)), path)
    program = compile_source(path, tmp_path / "out")
    report = json.loads(_check(tmp_path / "out", capsys, "--json"))
    assert len(report["outputs"]) == 2 and report["max_error_relative"] < 2e-6
    ids = np.random.default_rng(1).integers(0, 97, (1, 10))
    got = list(program.simulate(ids).outputs.values())
    with torch.no_grad():
        want = model(torch.from_numpy(ids))
    for out, expected in zip(got, (want.last_hidden_state, want.pooler_output)):
        assert out.shape == tuple(expected.shape)
        assert np.abs(out - expected.numpy()).max() <= 2e-6 * float(expected.abs().max())


def _sweep_reference(path: Path) -> dict:
    """A sweep's prepared reference of the model at ``path``."""
    from raptor import sources
    from raptor.sweep import tasks

    model = sources.load(str(path))
    try:
        return tasks._reference(model)
    finally:
        model.cleanup()


def test_a_sweep_point_checks_every_output(two_scales: Path, tmp_path: Path) -> None:
    """A sweep's check (the reference saved once, each point's program
    simulated on it) compares every output, the worst reported: a reference
    moved at one position of either output shows."""
    from raptor import pim
    from raptor.sweep import point, tasks

    program = compile_source(two_scales, tmp_path / "f32")
    reference = _sweep_reference(two_scales)
    saved = tmp_path / "reference.npz"
    tasks.save_reference(saved, reference)
    assert point._check(program, saved)["max_error_relative"] < 2e-6
    for moved in range(2):
        ys = [y.copy() for y in reference["y"]]
        ys[moved].flat[2] += 0.5 * float(np.abs(ys[moved]).max())
        tasks.save_reference(saved, {"x": reference["x"], "y": ys})
        assert 0.3 < point._check(program, saved)["max_error_relative"] < 0.7, moved
    # The worst relative error is reported, not the largest absolute one:
    # the second output (a hundred times the scale) moved by 2% of its
    # largest value, more than the first moved by half of its own.
    ys = [y.copy() for y in reference["y"]]
    ys[0].flat[2] += 0.5 * float(np.abs(ys[0]).max())
    ys[1].flat[2] += 0.02 * float(np.abs(ys[1]).max())
    assert abs(ys[1].flat[2] - reference["y"][1].flat[2]) > abs(ys[0].flat[2] - reference["y"][0].flat[2])
    tasks.save_reference(saved, {"x": reference["x"], "y": ys})
    assert 0.3 < point._check(program, saved)["max_error_relative"] < 0.7
    tasks.save_reference(saved, {"error": "no model output"})
    with pytest.raises(pim.UserError, match="no model output"):
        point._check(program, saved)


class TwoInputs(torch.nn.Module):
    """Two inputs of one shape used differently: given to the model in the
    wrong order, its output changes."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.a = torch.nn.Linear(6, 4)
        self.b = torch.nn.Linear(6, 4)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.a(x)) + 3 * self.b(y)


@pytest.mark.parametrize("form", ["pt2", "onnx"])
def test_every_input_is_given_in_order(form: str, tmp_path: Path, capsys) -> None:
    """float32 and int8 from .pt2 and ONNX: the check runs the model on the
    program's random inputs in its order (swapped, the error would be of
    the output's size); a reference given the wrong number of inputs says
    so in one line."""
    from raptor import pim, sources

    model, example = TwoInputs().eval(), (torch.randn(2, 6), torch.randn(2, 6))
    path = tmp_path / f"two.{form}"
    if form == "pt2":
        torch.export.save(torch.export.export(model, example), path)
    else:
        with warnings.catch_warnings():  # (the TorchScript exporter's deprecation)
            warnings.simplefilter("ignore")
            torch.onnx.export(model, example, str(path), input_names=["x", "y"], dynamo=False, opset_version=17)
    compile_source(path, tmp_path / "f32")
    assert json.loads(_check(tmp_path / "f32", capsys, "--json"))["max_error_relative"] < 2e-6
    compile_source(path, tmp_path / "int8", precision="int8")
    report = json.loads(_check(tmp_path / "int8", capsys, "--json"))
    assert report["integer_reference_bit_exact"] and report["max_error_relative"] < 0.05
    x, y = (np.random.default_rng(seed).standard_normal((2, 6)).astype(np.float32) for seed in (1, 2))
    loaded = sources.load(str(path))
    try:
        (straight,), (swapped,) = loaded.reference(x, y), loaded.reference(y, x)
        with torch.no_grad():
            np.testing.assert_allclose(straight, model(torch.from_numpy(x), torch.from_numpy(y)).numpy(), atol=1e-6)
        assert np.abs(straight - swapped).max() > 0.1
        with pytest.raises(pim.UserError, match=r"takes 2 input\(s\), 1 given"):
            loaded.reference(x)
    finally:
        loaded.cleanup()


def test_a_sweep_point_checks_every_input(tmp_path: Path) -> None:
    """A sweep's check gives the model and the program the inputs
    ``raptor simulate --check`` draws, every one in order: two inputs of one
    shape (swapped, the error would be of the output's size), and token ids
    beside an attention mask, drawn inside their vocabularies (a float id
    would be no row of the table). A reference of another number of inputs
    is refused in one line."""
    from raptor import pim, quant, sources
    from raptor.sweep import point, tasks

    path = tmp_path / "two.pt2"
    torch.export.save(torch.export.export(TwoInputs().eval(), (torch.randn(2, 6), torch.randn(2, 6))), path)
    program = compile_source(path, tmp_path / "two")
    reference = _sweep_reference(path)
    drawn = quant.random_inputs(sources.load(str(path), weights_as=None).module, 1)[0]
    assert [x.tobytes() for x in reference["x"]] == [x.tobytes() for x in drawn.values()]
    saved = tmp_path / "reference.npz"
    tasks.save_reference(saved, reference)
    assert point._check(program, saved)["max_error_relative"] < 2e-6
    tasks.save_reference(saved, {"x": reference["x"][::-1], "y": reference["y"]})
    assert point._check(program, saved)["max_error_relative"] > 0.1
    tasks.save_reference(saved, {"x": reference["x"][:1], "y": reference["y"]})
    with pytest.raises(pim.UserError, match=r"holds 1 input\(s\); the program takes 2"):
        point._check(program, saved)

    import transformers

    torch.manual_seed(3)
    bert = transformers.BertModel(transformers.BertConfig(
        vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=8), add_pooling_layer=False).eval()
    ids, mask = torch.zeros(1, 6, dtype=torch.long), torch.ones(1, 6, dtype=torch.long)
    path = tmp_path / "bert.pt2"
    torch.export.save(torch.export.export(bert, (), {"input_ids": ids, "attention_mask": mask}), path)
    program = compile_source(path, tmp_path / "bert")
    reference = _sweep_reference(path)
    x_ids, x_mask = reference["x"]
    assert set(np.unique(x_mask)) == {0.0, 1.0} and x_ids.max() < 40 and np.all(x_ids == np.round(x_ids))
    tasks.save_reference(saved, reference)
    assert point._check(program, saved)["max_error_relative"] < 2e-6


def test_the_quantization_report_reads_every_output(two_scales: Path, tmp_path: Path, monkeypatch) -> None:
    """`--report` of a two-output model: each held-out row is the worst
    output's figures, recomputed here from eager torch and the integer
    reference output by output; the simulation is bit-exact at both, and
    not so against a reference moved at one position of the second."""
    import raptor
    from mlir import ir
    from raptor import quant, sources
    from raptor.quant.accuracy import metrics

    out = tmp_path / "int8"
    assert cli.main(["compile", str(two_scales), "-o", str(out), "--precision", "int8", "--report",
                     "--format", "none", "-q"]) == 0
    report = json.loads((out / "reports" / "quantization.json").read_text())
    assert report["fp32_oracle"] == "torch" and report["simulation"]["bit_exact"]
    module = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
    tensors = sources.load(str(two_scales), weights_as="arrays").tensors
    model = TwoScales().eval()
    worse_second = 0
    for sample, row in zip(quant.random_inputs(module, 8, seed=1), report["held_out"]["per_sample"], strict=True):
        with torch.no_grad():
            fp32 = [y.numpy() for y in model(torch.from_numpy(next(iter(sample.values()))))]
        each = [metrics(q, f) for q, f in zip(quant.reference(module, sample, tensors), fp32, strict=True)]
        assert row["max_relative_error"] == pytest.approx(max(m["max_relative_error"] for m in each), rel=1e-6)
        assert row["mean_relative_error"] == pytest.approx(max(m["mean_relative_error"] for m in each), rel=1e-6)
        assert row["cosine"] == pytest.approx(min(m["cosine"] for m in each), rel=1e-9)
        worse_second += each[1]["max_relative_error"] > each[0]["max_relative_error"]
    assert worse_second > 0  # (the first output alone would not give these rows)

    from raptor.quant import accuracy, interpreter

    evaluate = interpreter.evaluate

    def moved(module, sample, weights, mode):
        outputs = evaluate(module, sample, weights, mode=mode)
        if mode == "int8":
            outputs[1] = outputs[1].copy()
            outputs[1].flat[0] += 1.0
        return outputs

    monkeypatch.setattr(interpreter, "evaluate", moved)
    simulation = accuracy.program_report(str(out), tensors, held_out=1)["simulation"]
    assert not simulation["bit_exact"] and simulation["max_difference"] == pytest.approx(1.0, abs=1e-3)
