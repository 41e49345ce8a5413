"""``raptor import`` of .pt2 and .onnx files: outputs, and bad input as one
line, exit code 1 and no output file."""

from __future__ import annotations

import contextlib
import io
import subprocess
import tempfile
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper

from raptor import weights as weights_io
from raptor._io import parse_module

import raptor
from raptor.cli import main

from nn_reference import evaluate


def _raptor(*args: str) -> subprocess.CompletedProcess[str]:
    """``raptor ARGS`` in this process (a subprocess would import torch
    again for each case); its exit code and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["raptor", *args], code, out.getvalue(), err.getvalue())


def test_the_command_runs_as_a_program(files: dict[str, Path]) -> None:
    result = subprocess.run([sys.executable, "-m", "raptor", "import", str(files["onnx"]), "--input-shape",
                             "image=2,3,6,6", "--summary"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "input  image: tensor<2x3x6x6xf32>" in result.stdout


class Small(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.hardswish(self.conv(x))
        return self.fc(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("models")
    torch.manual_seed(0)
    model = Small().eval()
    x = torch.randn(1, 3, 6, 6)
    torch.export.save(torch.export.export(model, (x,), strict=False), d / "small.pt2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), d / "small.onnx", dynamo=False, opset_version=17, input_names=["image"],
                          dynamic_axes={"image": {0: "batch"}})
    with torch.no_grad():
        np.save(d / "expected.npy", model(x).numpy())
    np.save(d / "x.npy", x.numpy())
    return {"dir": d, "pt2": d / "small.pt2", "onnx": d / "small.onnx"}


def _outputs(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir())


def test_pt2_import_writes_ir_and_weights(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "small.mlir"
    result = _raptor("import", str(files["pt2"]), "-o", str(out), "--strict")
    assert result.returncode == 0, result.stderr
    assert _outputs(tmp_path) == ["small.mlir", "small.safetensors"]
    module = parse_module(out.read_text(), str(out), raptor.Context())
    got = evaluate(module, [np.load(files["dir"] / "x.npy")], weights_io.load(tmp_path / "small.safetensors"))
    np.testing.assert_allclose(got[0], np.load(files["dir"] / "expected.npy"), rtol=1e-5, atol=1e-6)


def test_onnx_import_with_an_input_shape(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "small.mlir"
    result = _raptor("import", str(files["onnx"]), "--input-shape", "image=1,3,6,6", "-o", str(out), "--strict")
    assert result.returncode == 0, result.stderr
    assert "generic: none" in result.stderr
    module = parse_module(out.read_text(), str(out), raptor.Context())
    got = evaluate(module, [np.load(files["dir"] / "x.npy")], weights_io.load(tmp_path / "small.safetensors"))
    np.testing.assert_allclose(got[0], np.load(files["dir"] / "expected.npy"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["pt2", "onnx"])
def test_import_in_the_papers_graph_conventions(files: dict[str, Path], tmp_path: Path, kind: str) -> None:
    """--paper-conventions pads explicitly (docs/codec.md); the values stay
    those of eager torch."""
    out = tmp_path / "small.mlir"
    shape = ["--input-shape", "image=1,3,6,6"] if kind == "onnx" else []
    result = _raptor("import", str(files[kind]), *shape, "-o", str(out), "--paper-conventions")
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.count("nn.constant_pad_nd") == 1 and "padding = array<i64: 0, 0>" in text
    module = parse_module(text, str(out), raptor.Context())
    got = evaluate(module, [np.load(files["dir"] / "x.npy")], weights_io.load(tmp_path / "small.safetensors"))
    np.testing.assert_allclose(got[0], np.load(files["dir"] / "expected.npy"), rtol=1e-5, atol=1e-6)


def _unsupported_onnx(path: Path) -> None:
    graph = helper.make_graph([helper.make_node("Erf", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def _old_onnx(path: Path) -> None:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)]), path)


@pytest.mark.parametrize("case, message", [
    ("truncated.pt2", "is not a torch.export file: "),
    ("truncated.onnx", "is not an ONNX model: DecodeError"),
    ("dynamic.onnx", "input 'image' has a dynamic shape [batch, 3, 6, 6]: give its sizes with "
                     "--input-shape image=N,3,6,6"),
    ("opset8.onnx", "unsupported ONNX opset 8"),
    ("erf.onnx", "ONNX operators without an nn op: Erf (1)"),
    ("badshape.onnx", "--input-shape 'image=1,x' is not NAME=SIZE,SIZE,..."),
    ("missing.pt2", "cannot read"),
    ("dynamic.pt2", "dynamic.pt2: input 'x' has a dynamic shape [s"),
    ("model.txt", "expected a .pt2 (torch.export.save) or .onnx file"),
])
def test_bad_input_is_one_line_and_writes_nothing(files: dict[str, Path], tmp_path: Path, case: str,
                                                  message: str) -> None:
    source = tmp_path / case
    args: list[str] = []
    if case.startswith("truncated"):
        source.write_bytes(files[case.split(".")[1]].read_bytes()[:300])
    elif case == "dynamic.onnx":
        source = files["onnx"]
    elif case == "opset8.onnx":
        _old_onnx(source)
    elif case == "erf.onnx":
        _unsupported_onnx(source)
        args = ["--strict"]
    elif case == "badshape.onnx":
        source = files["onnx"]
        args = ["--input-shape", "image=1,x"]
    elif case == "dynamic.pt2":
        class Scale(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x * 2

        ep = torch.export.export(Scale(), (torch.randn(3, 4),), dynamic_shapes=({0: torch.export.Dim("n")},))
        torch.export.save(ep, source)
    elif case == "model.txt":
        source.write_text("not a model")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    result = _raptor("import", str(source), "-o", str(out_dir / "m.mlir"), *args)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if not line.startswith("[")]
    assert len(errors) == 1 and errors[0].startswith("raptor: error: "), result.stderr
    assert message in errors[0]
    assert _outputs(out_dir) == []


def test_input_shape_is_for_onnx_only(files: dict[str, Path]) -> None:
    result = _raptor("import", str(files["pt2"]), "--input-shape", "x=1,3,6,6")
    assert result.returncode == 1
    assert "--input-shape applies to .onnx models only" in result.stderr


def test_compile_and_check_an_onnx_file_against_onnxruntime(files: dict[str, Path], tmp_path: Path) -> None:
    """`raptor compile MODEL.onnx` imports it (static shapes) and `raptor
    simulate --check` compares the simulated output with onnxruntime's; a
    dynamic ONNX input is one line pointing at `raptor import --input-shape`."""
    import json

    torch.manual_seed(0)
    model = Small().eval()
    x = torch.randn(1, 3, 6, 6)
    static = tmp_path / "static.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), static, dynamo=False, opset_version=17, input_names=["image"])
    result = _raptor("compile", str(static), "-o", str(tmp_path / "prog"))
    assert result.returncode == 0, result.stderr
    np.save(tmp_path / "x.npy", x.numpy())
    result = _raptor("simulate", str(tmp_path / "prog"), "--check", "--input", f"image={tmp_path / 'x.npy'}",
                     "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reference"] == "onnxruntime" and report["max_error_relative"] < 1e-5
    with torch.no_grad():  # and onnxruntime itself agrees with eager torch on this input
        scale = float(model(x).abs().max())
    assert report["max_error"] < 1e-5 * scale
    result = _raptor("compile", str(files["onnx"]), "-o", str(tmp_path / "dynamic"))
    errors = [line for line in result.stderr.splitlines() if line.startswith("raptor: error:")]
    assert result.returncode == 1 and len(errors) == 1 and "--input-shape" in errors[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "dynamic").exists()


def test_model_files_are_read_by_summary_and_codec_report(files: dict[str, Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """summary and codec-report import a .pt2 file as compile does (no
    weights file is left behind, in a temporary directory of this test's
    own: other processes' temporaries come and go in the system's); an ONNX
    file with a dynamic batch is refused in one line that says what to do."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    before = set(Path(tempfile.gettempdir()).glob("raptor-*.safetensors"))
    assert before == set()
    result = _raptor("summary", str(files["pt2"]))
    assert result.returncode == 0, result.stderr
    assert "nn.convolution" in result.stdout and "output" in result.stdout
    report = _raptor("codec-report", str(files["pt2"]), "--json")
    assert report.returncode == 0, report.stderr
    assert '"paper_conventions": false' in report.stdout
    assert set(Path(tempfile.gettempdir()).glob("raptor-*.safetensors")) == before
    dynamic = _raptor("codec-report", str(files["onnx"]))
    assert dynamic.returncode == 1 and dynamic.stdout == ""
    assert len(dynamic.stderr.strip().splitlines()) == 1 and "--input-shape image=N,3,6,6" in dynamic.stderr
