"""The ONNX frontend, checked against onnxruntime: models exported here
with torch.onnx.export (and graphs built with onnx.helper for what torch
does not emit) import onto the nn ops; the imported graph's output shapes
equal onnxruntime's, and its values (reference evaluator, or the PIM back
end's simulator) equal onnxruntime's outputs."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

import raptor
from raptor import pim, sources, weights as weights_io
from raptor.frontend.onnx import OnnxImportError, UnsupportedOperatorError, import_model, load_model

from nn_reference import evaluate


def _export(model: torch.nn.Module, *inputs: torch.Tensor, opset: int = 17, **kw) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model.eval(), inputs, buffer, dynamo=False, opset_version=opset,
                          input_names=[f"in{i}" for i in range(len(inputs))], **kw)
    return buffer.getvalue()


def _runtime(data: bytes, *inputs: np.ndarray) -> list[np.ndarray]:
    session = sources.onnxruntime_session(data)
    return session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})


def _result_shapes(module) -> list[list[int]]:
    from mlir import ir

    fn = next(op for op in module.body.operations if op.operation.name == "func.func")
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return [list(ir.RankedTensorType(t).shape) for t in ftype.results]


def _op_names(module) -> set[str]:
    return set(raptor.graph_summary(module)["functions"][0]["op_counts"])


def _check(data: bytes, *inputs: np.ndarray, expect: set[str] = frozenset(), rtol: float = 1e-5,
           **shapes) -> object:
    module, report, weights = import_model(onnx.load_from_string(data), shapes or None, strict=True)
    assert not report.generic
    assert expect <= _op_names(module), _op_names(module)
    reference = _runtime(data, *inputs)
    assert _result_shapes(module) == [list(r.shape) for r in reference]
    got = evaluate(module, list(inputs), weights)
    for g, r in zip(got, reference):
        assert np.abs(r).max() > 1e-3  # a meaningful comparison
        np.testing.assert_allclose(g, r, rtol=rtol, atol=rtol * np.abs(r).max())
    return module


class MobileBlock(torch.nn.Module):
    """MobileNet-style: conv-bn-ReLU6, depthwise conv, squeeze-excite with
    hard-sigmoid, hard-swish, max and average pooling, a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
                                        torch.nn.BatchNorm2d(8), torch.nn.ReLU6())
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.se = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Conv2d(8, 8, 1),
                                      torch.nn.Hardsigmoid())
        self.head = torch.nn.Linear(8 * 2 * 2 + 8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.stem(x)
        y = torch.nn.functional.hardswish(self.dw(y)) * self.se(y)
        a = torch.nn.functional.max_pool2d(y, 2)
        b = torch.nn.functional.avg_pool2d(a, 2, ceil_mode=True, count_include_pad=False)
        c = torch.nn.functional.adaptive_avg_pool2d(a, 1)
        return torch.softmax(self.head(torch.cat([b.flatten(1), c.flatten(1)], 1)), -1)


def test_convolutional_model_matches_onnxruntime() -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    _check(_export(MobileBlock(), x), x.numpy(),
           expect={"nn.convolution", "nn.hardtanh", "nn.max_pool2d", "nn.avg_pool2d",
                   "nn.adaptive_avg_pool2d", "nn.linear", "nn.softmax", "nn.cat"})


class Encoder(torch.nn.Module):
    """A transformer encoder layer with a class token (ViT's select) and a
    learned position table gathered by constant indices (Swin's)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.out = torch.nn.Linear(16, 16)
        self.norm = torch.nn.LayerNorm(16)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 16))
        self.table = torch.nn.Parameter(torch.randn(7, 16))
        self.register_buffer("index", torch.tensor([0, 3, 4, 1, 2]), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x[:, self.index] + self.table[:5]
        q, k, v = self.qkv(self.norm(x)).view(1, 5, 3, 2, 8).permute(2, 0, 3, 1, 4)
        attention = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, dim=-1) @ v
        y = x + self.out(attention.transpose(1, 2).reshape(1, 5, 16))
        y = y + self.mlp(y)
        return y[:, 0] + y[:, 1:3].mean(1)


def test_transformer_encoder_matches_onnxruntime() -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 5, 16)
    # (y[:, 1:3] reaches ONNX as a Gather by the constant indices [1, 2]: one slice)
    _check(_export(Encoder(), x, opset=20), x.numpy(), rtol=1e-4,
           expect={"nn.layer_norm", "nn.gelu", "nn.select", "nn.slice", "nn.matmul", "nn.linear"})


def test_erf_gelu_of_older_opsets_is_one_gelu() -> None:
    """Below opset 20 torch writes GELU as x * (1 + erf(x / sqrt 2)) * 0.5."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.GELU(), torch.nn.Linear(12, 3))
    x = torch.randn(2, 6)
    data = _export(model, x, opset=17)
    assert "Erf" in {n.op_type for n in onnx.load_from_string(data).graph.node}
    module = _check(data, x.numpy(), expect={"nn.gelu"})
    assert "nn.div" not in _op_names(module) and "nn.mul" not in _op_names(module)


def test_bert_configuration_matches_onnxruntime() -> None:
    """Token ids are an input: the word-embedding Gather becomes nn.embedding."""
    import transformers

    config = transformers.BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=80,
                                     attn_implementation="eager")
    torch.manual_seed(0)
    bert = transformers.BertModel(config, add_pooling_layer=False).eval()

    class Bert(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            return self.bert(input_ids=ids).last_hidden_state

    ids = torch.randint(0, 50, (1, 8))
    _check(_export(Bert(), ids, opset=20), ids.numpy(), rtol=1e-4, expect={"nn.embedding", "nn.layer_norm"})


def _model(nodes, inputs, outputs, initializers=(), opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10  # what onnxruntime reads
    return model


def _tensor(name: str, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_operators_torch_does_not_emit() -> None:
    """Asymmetric (SAME_UPPER) convolution padding, Gemm with an untransposed
    weight, Squeeze/Unsqueeze/ReduceMean by axes inputs, Expand, Split,
    Slice with steps, Pad, Clip with one bound, Pow and Sqrt, Transpose."""
    rng = np.random.default_rng(0)
    init = [numpy_helper.from_array(rng.standard_normal((4, 3, 2, 2)).astype(np.float32), "w"),
            numpy_helper.from_array(rng.standard_normal((30, 6)).astype(np.float32), "g"),
            numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "gb"),
            numpy_helper.from_array(np.array([1], np.int64), "ax1"),
            numpy_helper.from_array(np.array([2, 3], np.int64), "ax23"),
            numpy_helper.from_array(np.array([2, 1, 1, 1], np.int64), "shape"),
            numpy_helper.from_array(np.array([2, 2], np.int64), "split"),
            numpy_helper.from_array(np.array([0, 1], np.int64), "starts"),
            numpy_helper.from_array(np.array([100, -1], np.int64), "ends"),
            numpy_helper.from_array(np.array([2, 3], np.int64), "axes"),
            numpy_helper.from_array(np.array([1, 2], np.int64), "steps"),
            numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 0, 0, 2], np.int64), "pads"),
            numpy_helper.from_array(np.array(0.1, np.float32), "lo"),
            numpy_helper.from_array(np.array(2.0, np.float32), "two")]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("Clip", ["c", "lo"], ["r"]),
        helper.make_node("Split", ["r", "split"], ["s0", "s1"], axis=1),
        helper.make_node("Slice", ["s0", "starts", "ends", "axes", "steps"], ["sl"]),
        helper.make_node("Pad", ["sl", "pads"], ["p"]),
        helper.make_node("ReduceMean", ["s1"], ["m"], axes=[2, 3], keepdims=1),
        helper.make_node("Expand", ["m", "shape"], ["e"]),
        helper.make_node("Squeeze", ["e", "ax23"], ["sq"]),
        helper.make_node("Unsqueeze", ["sq", "ax1"], ["un"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "g", "gb"], ["y0"]),
        helper.make_node("Pow", ["y0", "two"], ["y1"]),
        helper.make_node("Sqrt", ["y1"], ["y2"]),
        helper.make_node("Transpose", ["un"], ["y3"], perm=[0, 2, 1]),
    ]
    model = _model(nodes, [_tensor("x", [1, 3, 7, 8])], [_tensor("y2", [1, 6]), _tensor("y3", [2, 2, 1])], init)
    onnx.checker.check_model(model)
    x = rng.standard_normal((1, 3, 7, 8)).astype(np.float32)
    module = _check(model.SerializeToString(), x, expect={"nn.constant_pad_nd", "nn.clamp", "nn.pow"})
    assert "nn.linear" in _op_names(module)


def test_constant_subgraphs_are_folded() -> None:
    """Shape arithmetic and tables computed from constants become data; a
    GatherElements over more than 64 positions (BERT's token types) too."""
    table = numpy_helper.from_array(np.arange(100, dtype=np.float32).reshape(1, 100) / 7, "table")
    index = numpy_helper.from_array(np.arange(70, dtype=np.int64)[::-1].reshape(1, 70).copy(), "index")
    nodes = [helper.make_node("GatherElements", ["table", "index"], ["t"], axis=1),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("ConstantOfShape", ["s"], ["ones"],
                              value=numpy_helper.from_array(np.array([2.0], np.float32))),
             helper.make_node("Mul", ["t", "ones"], ["t2"]),
             helper.make_node("Add", ["x", "t2"], ["y"])]
    model = _model(nodes, [_tensor("x", [1, 70])], [_tensor("y", [1, 70])], [table, index])
    x = np.random.default_rng(1).standard_normal((1, 70)).astype(np.float32)
    module, report, weights = import_model(model, strict=True)
    assert report.folded == 4 and _op_names(module) == {"nn.add", "nn.constant"}
    np.testing.assert_allclose(evaluate(module, [x], weights)[0], _runtime(model.SerializeToString(), x)[0],
                               rtol=1e-6)


def test_nan_guard_after_softmax_is_nan_to_num() -> None:
    """Where(IsNaN(p), 0, p), which exported decoder attention writes; a
    fully masked row really makes NaN here."""
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    nodes = [helper.make_node("Softmax", ["x"], ["p"], axis=-1), helper.make_node("IsNaN", ["p"], ["n"]),
             helper.make_node("Where", ["n", "zero", "p"], ["y"])]
    model = _model(nodes, [_tensor("x", [3, 4])], [_tensor("y", [3, 4])], [zero])
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    x[1] = -np.inf
    module = _check(model.SerializeToString(), x, expect={"nn.nan_to_num"})
    assert _op_names(module) == {"nn.softmax", "nn.nan_to_num"}
    assert not np.isnan(_runtime(model.SerializeToString(), x)[0]).any()


def test_dynamic_input_needs_a_shape() -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_tensor("x", ["batch", 4])], [_tensor("y", None)])
    with pytest.raises(OnnxImportError, match=r"input 'x' has a dynamic shape \[batch, 4\]: give its sizes "
                                              r"with --input-shape x=N,4"):
        import_model(model)
    module, _, _ = import_model(model, {"x": [3, 4]})
    assert _result_shapes(module) == [[3, 4]]
    with pytest.raises(OnnxImportError, match="does not match the graph's shape"):
        import_model(model, {"x": [3, 5]})
    with pytest.raises(OnnxImportError, match="'z', which is not a graph input"):
        import_model(model, {"z": [3, 4]})


def test_unsupported_operators_are_named_in_one_line_or_kept_generic() -> None:
    nodes = [helper.make_node("Erf", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("Erf", ["b"], ["c"]), helper.make_node("Reciprocal", ["c"], ["y"])]
    model = _model(nodes, [_tensor("x", [2, 3])], [_tensor("y", [2, 3])])
    with pytest.raises(UnsupportedOperatorError) as error:
        import_model(model, strict=True)
    assert str(error.value) == ("ONNX operators without an nn op: Erf (2), Reciprocal (1); import without "
                                "strict mode to keep them as nn.aten")
    module, report, _ = import_model(model)
    assert report.generic == {"onnx.Erf": 2, "onnx.Reciprocal": 1}
    assert "nn.relu" in _op_names(module)
    assert 'nn.aten "onnx.Erf"(%arg0) {input_ports = ["input"]}' in str(module)


def test_bad_models_name_the_cause(tmp_path: Path) -> None:
    old = _model([helper.make_node("Relu", ["x"], ["y"])], [_tensor("x", [2])], [_tensor("y", [2])], opset=9)
    with pytest.raises(OnnxImportError, match=r"unsupported ONNX opset 9 \(supported: 13-23"):
        import_model(old)
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(_export(torch.nn.Linear(3, 2), torch.randn(1, 3))[:40])
    with pytest.raises(OnnxImportError, match="'.*corrupt.onnx' is not an ONNX model"):
        load_model(corrupt)
    with pytest.raises(OnnxImportError, match="no such file"):
        load_model(tmp_path / "missing.onnx")


def test_a_matrix_product_read_beside_its_bias_keeps_its_value() -> None:
    """MatMul by a weight, then Add of a bias vector (one linear layer),
    while a Relu also reads the product: the Relu must see the product
    without the bias (fusing it into the one value both read would add the
    bias to the Relu's input). Against onnxruntime."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32) + 2, "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"]),
             helper.make_node("Relu", ["m"], ["z"])]
    model = _model(nodes, [_tensor("x", [2, 4])], [_tensor("y", [2, 3]), _tensor("z", [2, 3])], [w, b])
    _check(model.SerializeToString(), rng.standard_normal((2, 4)).astype(np.float32))


_AXES = numpy_helper.from_array(np.array([3], dtype=np.int64), "axes")


@pytest.mark.parametrize("node, initializers", [
    (helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0), [_AXES]),
    (helper.make_node("ReduceMean", ["x", "below"], ["y"]),
     [numpy_helper.from_array(np.array([-4], dtype=np.int64), "below")]),
    (helper.make_node("Softmax", ["x"], ["y"], axis=3), []),
    (helper.make_node("Concat", ["x", "x"], ["y"], axis=-4), []),
    (helper.make_node("Squeeze", ["x", "axes"], ["y"]), [_AXES]),
    (helper.make_node("LayerNormalization", ["x", "w"], ["y"], axis=3),
     [numpy_helper.from_array(np.ones(4, dtype=np.float32), "w")]),
], ids=lambda v: v.op_type if hasattr(v, "op_type") else "")
def test_an_axis_outside_the_rank_is_the_models_error(node, initializers) -> None:
    """ONNX allows axes -r..r-1 for a rank-r tensor; an axis past them (3 or
    -4 of rank 3) names the node, where reducing it modulo the rank would
    silently use another dimension (onnxruntime refuses these models too)."""
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", None)], initializers, opset=18)
    with pytest.raises(OnnxImportError, match=rf"^{node.op_type} node '' has axis -?[34], outside -3..2 for its "
                                              r"rank-3 tensor$"):
        import_model(model)
    with pytest.raises(Exception):
        onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_small_cnn_simulated_on_the_pim_back_end_equals_onnxruntime(tmp_path: Path) -> None:
    """The whole way: ONNX -> nn -> PIM program -> simulator, against onnxruntime."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU6(),
                                torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4))
    x = torch.randn(1, 3, 8, 8)
    data = _export(model, x)
    module, report, tensors = import_model(onnx.load_from_string(data), strict=True)
    w = tmp_path / "cnn.safetensors"
    weights_io.save(w, tensors)
    pim.compile(module, tmp_path / "cnn", weights=w, pimsim="none", source="test")
    simulation = pim.simulate(tmp_path / "cnn", x.numpy())
    (output,) = simulation.outputs.values()
    (reference,) = _runtime(data, x.numpy())
    assert output.shape == reference.shape
    assert np.abs(output - reference).max() <= 1e-4 * np.abs(reference).max()


def test_pad_takes_befores_then_afters_of_its_axes_and_refuses_a_wrong_count() -> None:
    """Pad's pads are all the befores, then all the afters, of the listed
    axes (opset 18's axes input): (1, 2) on axis 3 and (0, 3) on axis 2
    against onnxruntime; a pads list not twice the axes is one error."""
    rng = np.random.default_rng(0)
    init = [numpy_helper.from_array(np.array([1, 0, 2, 3], np.int64), "pads"),
            numpy_helper.from_array(np.array([3, 2], np.int64), "axes")]
    nodes = [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"])]
    model = _model(nodes, [_tensor("x", [1, 2, 3, 4])], [_tensor("y", [1, 2, 6, 7])], init, opset=18)
    onnx.checker.check_model(model)
    module = _check(model.SerializeToString(), rng.standard_normal((1, 2, 3, 4)).astype(np.float32),
                    expect={"nn.constant_pad_nd"})
    assert _result_shapes(module) == [[1, 2, 6, 7]]
    init[0] = numpy_helper.from_array(np.array([1, 0, 2], np.int64), "pads")
    bad = _model(nodes, [_tensor("x", [1, 2, 3, 4])], [_tensor("y", [1, 2, 6, 7])], init, opset=18)
    with pytest.raises(OnnxImportError, match=r"Pad '.*' has 3 pads for 2 axes \(expected 4\)"):
        import_model(bad)
    init[0] = numpy_helper.from_array(np.array([1, 0, 2, 3, 0], np.int64), "pads")
    bad = _model(nodes, [_tensor("x", [1, 2, 3, 4])], [_tensor("y", [1, 2, 6, 7])], init, opset=18)
    with pytest.raises(OnnxImportError, match=r"Pad '.*' has 5 pads for 2 axes \(expected 4\)"):
        import_model(bad)


@pytest.mark.parametrize("node, message", [
    (helper.make_node("Gemm", ["x"], ["y"], name="g"), r"node 'g' \(Gemm\) has 1 input; the operator takes 2 to 3"),
    (helper.make_node("Relu", ["x", "x"], ["y"], name="r"), r"node 'r' \(Relu\) has 2 inputs; the operator takes 1$"),
    (helper.make_node("Concat", [], ["y"], axis=0, name="c"), r"node 'c' \(Concat\) has 0 inputs; the operator takes at least 1"),
])
def test_nodes_with_the_wrong_number_of_inputs_are_refused(node, message: str) -> None:
    """An ONNX file is untrusted input: arities are checked against the
    operator's schema before a rule indexes them (a one-input Gemm was an
    IndexError traceback)."""
    model = _model([node], [_tensor("x", [2, 4])], [_tensor("y", [2, 4])])
    with raptor.Context(), pytest.raises(OnnxImportError, match=message):
        import_model(model)


@pytest.mark.parametrize("equation, x_shape, y_shape, weight", [
    ("bind,bjnd->bnij", (1, 4, 2, 3), (1, 5, 2, 3), False),  # Funnel's content scores
    ("bnij,bjnd->bind", (1, 2, 4, 5), (1, 5, 2, 3), False),  # and its attention's values
    ("bind,snd->bnis", (1, 4, 2, 3), (2, 2, 3), True),  # segment scores: a weight per head
    ("td,dnh->tnh", (6, 4), (4, 2, 3), True),  # relative positions by a kernel
    ("ij,kj->ik", (3, 4), (5, 4), True),
    ("ij,jk->ki", (3, 4), (4, 5), False),  # the output transposed
])
def test_two_operand_einsums_are_one_batched_matrix_product(equation: str, x_shape, y_shape, weight: bool) -> None:
    rng = np.random.default_rng(0)
    y = rng.standard_normal(y_shape).astype(np.float32)
    x = rng.standard_normal(x_shape).astype(np.float32)
    inputs, init = [_tensor("x", list(x_shape))], [numpy_helper.from_array(y, "y")] if weight else []
    if not weight:
        inputs.append(_tensor("y", list(y_shape)))
    model = _model([helper.make_node("Einsum", ["x", "y"], ["z"], equation=equation)], inputs,
                   [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], init)
    _check(model.SerializeToString(), x, *([] if weight else [y]), expect={"nn.matmul"} if not weight else set())


@pytest.mark.parametrize("equation", ["ii,ij->ij", "ij,jk->i", "...ij,jk->...ik"])
def test_einsums_with_diagonals_or_one_sided_sums_are_named(equation: str) -> None:
    model = _model([helper.make_node("Einsum", ["x", "y"], ["z"], equation=equation)],
                   [_tensor("x", [3, 3]), _tensor("y", [3, 4])],
                   [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    with pytest.raises(UnsupportedOperatorError, match="Einsum"):
        import_model(model, None, strict=True)


def test_tile_by_constant_repeats_is_a_concatenation() -> None:
    rng = np.random.default_rng(0)
    reps = numpy_helper.from_array(np.array([1, 3, 2], np.int64), "reps")
    model = _model([helper.make_node("Tile", ["x", "reps"], ["z"])], [_tensor("x", [2, 2, 3])],
                   [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], [reps])
    _check(model.SerializeToString(), rng.standard_normal((2, 2, 3)).astype(np.float32), expect={"nn.cat"})


@pytest.mark.parametrize("attributes", [{"auto_pad": "SAME_UPPER", "strides": [2, 2]},
                                        {"output_shape": [8, 8], "strides": [2, 2]}, {}],
                         ids=["auto-pad", "output-shape", "explicit"])
def test_a_conv_transpose_with_automatic_padding_or_an_output_shape_stays_generic(attributes: dict) -> None:
    """Each alone keeps it generic, and the strict error says why (the
    phases need explicit padding); the same node without them imports as
    one convolution."""
    weight = numpy_helper.from_array(np.ones((3, 2, 2, 2), np.float32), "w")
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attributes)
    model = _model([node], [_tensor("x", [1, 3, 4, 4])], [_tensor("y", None)], [weight])
    if not attributes:
        module, report, _ = import_model(model, strict=True)
        assert "nn.convolution" in _op_names(module) and not report.generic
        return
    with pytest.raises(UnsupportedOperatorError) as error:
        import_model(model, strict=True)
    assert str(error.value).startswith("ONNX operators without an nn op: ConvTranspose (1: a transposed "
                                       "convolution with automatic padding or an output shape);")


@pytest.mark.parametrize("attributes, reason", [({"beta": 0.5}, "a bias scaled by a beta other than 1"),
                                                ({"alpha": 2.0}, "a transposed A (transA) or an alpha other than 1")],
                         ids=["beta", "alpha"])
def test_a_gemm_the_linear_rule_declines_is_named_with_its_reason(attributes: dict, reason: str) -> None:
    weight = numpy_helper.from_array(np.ones((3, 4), np.float32), "w")
    bias = numpy_helper.from_array(np.ones(4, np.float32), "b")
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], **attributes)
    model = _model([node], [_tensor("x", [2, 3])], [_tensor("y", [2, 4])], [weight, bias])
    with pytest.raises(UnsupportedOperatorError) as error:
        import_model(model, strict=True)
    assert f"Gemm (1: {reason})" in str(error.value)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_softmax_over_another_axis_than_the_last_runs_on_the_pim_back_end(tmp_path: Path, axis: int) -> None:
    """ConvBERT's span-based kernel normalizes over a middle axis: imported
    as it is, moved last and back by raptor-normalize-row-ops (the PIM
    lowering normalizes rows); the program against onnxruntime."""
    model = _model([helper.make_node("Softmax", ["x"], ["y"], axis=axis)], [_tensor("x", [3, 5, 4])],
                   [_tensor("y", [3, 5, 4])])
    x = np.random.default_rng(0).standard_normal((3, 5, 4)).astype(np.float32)
    module, report, tensors = import_model(model, strict=True)
    w = tmp_path / "w.safetensors"
    weights_io.save(w, tensors)
    pim.compile(module, tmp_path / "p", weights=w, pimsim="none", source="test")
    (output,) = pim.simulate(tmp_path / "p", x).outputs.values()
    (reference,) = _runtime(model.SerializeToString(), x)
    assert output.shape == reference.shape and np.abs(output - reference).max() <= 1e-6


@pytest.mark.parametrize("op, attributes", [
    ("AveragePool", {"kernel_shape": [2], "strides": [2]}),
    ("AveragePool", {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "count_include_pad": 0}),
    ("AveragePool", {"kernel_shape": [3], "pads": [1, 1], "count_include_pad": 1, "ceil_mode": 1}),
    ("MaxPool", {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ("MaxPool", {"kernel_shape": [2], "dilations": [2]})])
def test_one_dimensional_pooling_runs_on_the_pim_back_end(tmp_path: Path, op: str, attributes: dict) -> None:
    """SEW's AvgPool1d exports as a 1-d AveragePool: pooled as a map of one
    row and viewed back; the program against onnxruntime."""
    node = helper.make_node(op, ["x"], ["y"], **attributes)
    probe = _model([node], [_tensor("x", [1, 3, 11])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    x = np.random.default_rng(0).standard_normal((1, 3, 11)).astype(np.float32)
    (reference,) = _runtime(probe.SerializeToString(), x)
    model = _model([node], [_tensor("x", [1, 3, 11])], [_tensor("y", list(reference.shape))])
    module, report, tensors = import_model(model, strict=True)
    w = tmp_path / "w.safetensors"
    weights_io.save(w, tensors)
    pim.compile(module, tmp_path / "p", weights=w, pimsim="none", source="test")
    (output,) = pim.simulate(tmp_path / "p", x).outputs.values()
    assert output.shape == reference.shape and np.abs(output - reference).max() <= 1e-6


class _PaddedPool(torch.nn.Module):
    """A convolution, a constant pad of 0 and a max pooling (BiT's stem)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        padded = torch.nn.functional.pad(self.conv(x), (1, 1, 1, 1), value=0.0)
        return torch.nn.functional.max_pool2d(padded, 3, 2)


def test_the_onnx_reference_is_the_model_not_onnxruntimes_rewrite_of_it(tmp_path: Path) -> None:
    """`--check` on an ONNX model compares with onnxruntime running the
    graph as written: its optimized session folds a Pad of 0 into the
    following MaxPool, whose own padding is -inf, so border windows whose
    values are all negative read their maximum instead of the 0 the model
    pads with (onnxruntime 1.31: 0.21 off torch here). The reference and the
    compiled program both equal eager torch."""
    torch.manual_seed(0)
    model = _PaddedPool().eval()
    x = torch.randn(1, 3, 16, 16)
    path = tmp_path / "padded_pool.onnx"
    path.write_bytes(_export(model, x))
    with torch.no_grad():
        want = model(x).numpy()
    assert np.abs(want).max() > 0.5 and (want == 0).any()  # zeros from the pad win some windows
    loaded = sources.load(str(path))
    try:
        (got,) = loaded.reference(x.numpy())
        np.testing.assert_allclose(got, want, atol=1e-5)
    finally:
        loaded.cleanup()
    raptor_command = [sys.executable, "-m", "raptor"]
    subprocess.run([*raptor_command, "compile", str(path), "-o", str(tmp_path / "out"), "-q"], check=True)
    checked = subprocess.run([*raptor_command, "simulate", str(tmp_path / "out"), "--check", "--json", "-q"],
                             capture_output=True, text=True, check=True)
    report = json.loads(checked.stdout)
    assert report["reference"] == "onnxruntime" and report["max_error_relative"] < 1e-5
