"""Model files as untrusted input (issue 27): ONNX nodes are checked
against their operator's schema and initializers against their data before
anything is imported, and a damaged .pt2 archive is refused wherever torch
fails on it. Each case is exit 1, one line, no traceback, and no output
file; the unedited model imports."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

RAPTOR = [sys.executable, "-m", "raptor"]


def _conv_model() -> onnx.ModelProto:
    """A convolution, a relu, a max pool and a flatten (opset 17)."""
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3], group=1),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Add", ["p", "p"], ["a"]),
             helper.make_node("Flatten", ["a"], ["y"], axis=1)]
    graph = helper.make_graph(
        nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 12])],
        [numpy_helper.from_array(rng.standard_normal((3, 2, 3, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _import(path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(RAPTOR + ["import", str(path), "-o", str(out)], capture_output=True, text=True,
                          timeout=300)


def _refused(path: Path, tmp_path: Path) -> str:
    out = tmp_path / "out.mlir"
    r = _import(path, out)
    assert r.returncode == 1, r.stderr
    error = [line for line in r.stderr.splitlines() if not line.startswith("[")]
    assert len(error) == 1 and error[0].startswith("raptor: error: ") and "Traceback" not in r.stderr, r.stderr
    assert not out.exists() and not out.with_suffix(".safetensors").exists()
    return error[0]


def _type(node: int, attribute: str, kind: int) -> Callable[[onnx.ModelProto], None]:
    def edit(m: onnx.ModelProto) -> None:
        next(a for a in m.graph.node[node].attribute if a.name == attribute).type = kind
    return edit


def _drop(node: int, attribute: str) -> Callable[[onnx.ModelProto], None]:
    def edit(m: onnx.ModelProto) -> None:
        kept = [a for a in m.graph.node[node].attribute if a.name != attribute]
        del m.graph.node[node].attribute[:]
        m.graph.node[node].attribute.extend(kept)
    return edit


def _empty_input(m: onnx.ModelProto) -> None:
    m.graph.node[3].input[0] = ""


def _lying_dims(m: onnx.ModelProto) -> None:
    m.graph.initializer[0].dims[0] = 2**40


def _huge_input(m: onnx.ModelProto) -> None:
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 2**62


@pytest.mark.parametrize("edit, message", [
    (_type(0, "group", TensorProto.FLOAT), "node 'Conv_0' (Conv): attribute 'group' is FLOAT, the operator takes INT"),
    (_drop(2, "kernel_shape"), "node 'MaxPool_2' (MaxPool) lacks its required attribute 'kernel_shape'"),
    (_empty_input, "node 'Add_3' (Add) leaves its required input 0 ('A') empty"),
    (_lying_dims, "initializer 'w' has shape [1099511627776, 2, 3, 3] (19791209299968 elements) but holds 216 "
                  "bytes of data"),
    (_huge_input, "input 'x' of shape [4611686018427387904, 2, 4, 4] has more elements than int64 counts"),
])
def test_malformed_onnx_nodes_and_tensors_are_one_line(tmp_path: Path, edit: Callable[[onnx.ModelProto], None],
                                                       message: str) -> None:
    """A wrong attribute type, a missing required attribute, an emptied
    required input (the rules indexed and read them: IndexError, TypeError
    tracebacks), an initializer whose dims claim more than its data (numpy
    was asked to reshape or allocate it), an input whose element count
    overflows int64."""
    model = _conv_model()
    good = tmp_path / "good.onnx"
    onnx.save(model, good)
    assert _import(good, tmp_path / "good.mlir").returncode == 0
    edit(model)
    bad = tmp_path / "bad.onnx"
    onnx.save(model, bad)
    assert message in _refused(bad, tmp_path)


def test_input_shapes_overflowing_int64_are_refused_at_the_input(tmp_path: Path) -> None:
    """Sizes given with --input-shape are checked as the graph's own are,
    before any value of that shape is typed."""
    model = _conv_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    source = tmp_path / "dynamic.onnx"
    onnx.save(model, source)
    r = subprocess.run(RAPTOR + ["import", str(source), "--input-shape", f"x={2**61},2,4,4", "-o",
                                 str(tmp_path / "m.mlir")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1] == (f"raptor: error: {source}: input 'x' of shape [{2**61}, 2, 4, 4] has more "
                                         "elements than int64 counts")
    assert not (tmp_path / "m.mlir").exists()


def test_commands_without_input_shape_say_how_to_give_one(tmp_path: Path) -> None:
    """raptor compile takes no --input-shape: a dynamic ONNX input names the
    raptor import command that fixes it; errors of other kinds get no such hint."""
    model = _conv_model()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    source = tmp_path / "dynamic.onnx"
    onnx.save(model, source)
    out = tmp_path / "program"
    r = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and not out.exists(), r.stderr
    assert r.stderr.splitlines()[-1] == (
        f"raptor: error: {source}: input 'x' has a dynamic shape: import it with static sizes first, "
        f"`raptor import {source} --input-shape x=N,2,4,4 -o model.mlir`")
    _empty_input(model)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    onnx.save(model, source)
    r = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "--input-shape" not in r.stderr and "leaves its required input 0" in r.stderr, \
        r.stderr


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c(x))


def test_a_pt2_archive_damaged_past_its_loading_is_one_line(tmp_path: Path) -> None:
    """A .pt2 whose model JSON has a guard list of the wrong type loads in
    torch and fails building the module (a TypeError traceback)."""
    good = tmp_path / "tiny.pt2"
    torch.export.save(torch.export.export(Tiny().eval(), (torch.randn(1, 3, 8, 8),)), good)
    assert _import(good, tmp_path / "good.mlir").returncode == 0
    source = zipfile.ZipFile(good)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("models/model.json"):
                model = json.loads(data)
                model["guards_code"] = 1.5
                data = json.dumps(model).encode()
            z.writestr(info.filename, data)
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(out.getvalue())
    assert f"'{bad}' is not a torch.export file: TypeError" in _refused(bad, tmp_path)


def test_a_pt2_of_another_archive_format_is_one_line_naming_no_assertion(tmp_path: Path) -> None:
    """torch's archive reader asserts on an unknown archive_format: the
    error is its words, without "AssertionError" (which reads as a crash of
    Raptor's; the fuzz harness classified it so)."""
    good = tmp_path / "tiny.pt2"
    torch.export.save(torch.export.export(Tiny().eval(), (torch.randn(1, 3, 8, 8),)), good)
    source = zipfile.ZipFile(good)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in source.infolist():
            data = source.read(info)
            z.writestr(info.filename, b"pt3" if info.filename.endswith("/archive_format") else data)
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(out.getvalue())
    error = _refused(bad, tmp_path)
    assert error.startswith(f"raptor: error: '{bad}' is not a torch.export file: ") and "Assertion" not in error, \
        error


def test_a_pt2_calling_a_custom_operator_nothing_defines_names_it(tmp_path: Path) -> None:
    """transformers' mixture-of-experts layers (Mixtral) export their routed
    expert products as a custom operator that only importing transformers
    defines; elsewhere torch fails with a bare "error when deserializing",
    the operator named only in the log it prints. The error names it, in one
    line, and nothing of torch's log is printed."""
    @torch.library.custom_op("raptor_untrusted::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @twice.register_fake
    def _(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

    class Custom(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.ops.raptor_untrusted.twice(x) + 1

    path = tmp_path / "custom.pt2"
    torch.export.save(torch.export.export(Custom(), (torch.randn(2, 3),)), path)
    assert _refused(path, tmp_path) == (f"raptor: error: '{path}' calls the custom operator "
                                        "raptor_untrusted.twice.default, which no loaded library defines and "
                                        "Raptor cannot lower")


def test_shape_arithmetic_past_int64_is_one_line(tmp_path: Path) -> None:
    """An input of 2^63 - 1 columns fits int64; its concatenation with
    itself does not (the fuzz harness's repro: MLIR's type constructor
    aborted the importer). The nn op's shape inference refuses it at the
    node."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2**63 - 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                               helper.make_node("Concat", ["r", "x"], ["y"], axis=1)], "g", [x], [y])
    source = tmp_path / "huge.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), source)
    error = _refused(source, tmp_path)
    assert "loc(\"Concat_1\"): cat along dim 1 of 'tensor<1x9223372036854775807xf32>'" in error and \
        error.endswith("overflows int64"), error
