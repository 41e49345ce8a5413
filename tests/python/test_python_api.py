"""The Python API: generated op classes, parsing, C++ passes through PassManager."""

from __future__ import annotations

import json

import pytest
from mlir import ir, passmanager
from mlir.dialects import func

import raptor
from raptor.dialects import nn

F32 = ir.F32Type.get


def _tensor(*shape: int) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), F32())


def _build_block(ctx: ir.Context) -> ir.Module:
    """conv -> relu -> residual add -> view, built with the generated op classes."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("block", ([_tensor(1, 3, 8, 8), _tensor(3, 3, 3, 3)], [_tensor(1, 192)]))
        f.arg_attrs = ir.ArrayAttr.get([
            ir.DictAttr.get({"nn.input": ir.StringAttr.get("x")}),
            ir.DictAttr.get({"nn.param": ir.StringAttr.get("conv.weight")}),
        ])
        block = f.add_entry_block()
        x, w = block.arguments
        with ir.InsertionPoint(block):
            # No result types given: the C++ shape inference supplies them.
            conv = nn.ConvolutionOp(x, w, stride=[1, 1], padding=[1, 1], dilation=[1, 1])
            relu = nn.ReluOp(conv.result)
            add = nn.AddOp(relu.result, other=x)
            view = nn.ViewOp(add.result, size=[1, -1])
            func.ReturnOp([view.result])
    return module


def test_generated_op_classes_build_a_verified_graph(ctx: ir.Context) -> None:
    module = _build_block(ctx)
    assert module.operation.verify()
    ops = list(module.body.operations[0].regions[0].blocks[0].operations)
    assert [op.name for op in ops] == ["nn.convolution", "nn.relu", "nn.add", "nn.view", "func.return"]
    assert str(ops[0].result.type) == "tensor<1x3x8x8xf32>"
    assert str(ops[3].result.type) == "tensor<1x192xf32>"  # -1 inferred as 3*8*8
    # Walking the IR yields the generated classes, not plain OpViews.
    assert isinstance(ops[0], nn.ConvolutionOp)
    assert list(ops[0].attributes["stride"]) == [1, 1]


def test_custom_syntax_round_trips(ctx: ir.Context) -> None:
    text = str(_build_block(ctx))
    assert "nn.convolution %arg0, %arg1" in text
    assert "nn.relu %0 : tensor<1x3x8x8xf32>" in text
    again = ir.Module.parse(text)
    assert str(again) == text


def test_plain_context_knows_raptor_dialects() -> None:
    # `import raptor` registers the dialects globally: a plain Context parses nn.
    with ir.Context():
        module = ir.Module.parse(
            "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = nn.relu %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}")
        assert "nn.relu" in str(module)


def test_shape_inference_rejects_bad_operands(ctx: ir.Context) -> None:
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("bad", ([_tensor(2, 5), _tensor(4, 6)], []))
        block = f.add_entry_block()
        with ir.InsertionPoint(block), pytest.raises(ir.MLIRError, match="do not match weight in-features"):
            nn.LinearOp(block.arguments[0], block.arguments[1])


def test_declared_type_mismatch_is_a_verifier_error(ctx: ir.Context) -> None:
    text = ("func.func @f(%a: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x5xf32> {\n"
            "  %0 = nn.linear %a, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>\n"
            "  return %0 : tensor<2x5xf32>\n}")
    with pytest.raises(ir.MLIRError, match="incompatible with return type"):
        ir.Module.parse(text)


def test_summarize_pass_runs_from_passmanager(ctx: ir.Context, tmp_path) -> None:
    module = _build_block(ctx)
    out = tmp_path / "summary.json"
    pm = passmanager.PassManager.parse(
        f"builtin.module(raptor-summarize-graph{{format=json output={out}}})")
    pm.run(module.operation)
    summary = json.loads(out.read_text())
    (f,) = summary["functions"]
    assert f["name"] == "block"
    assert f["op_counts"] == {"nn.add": 1, "nn.convolution": 1, "nn.relu": 1, "nn.view": 1}
    assert f["num_weights"] == 1 and f["fp32_storage_bytes"] == 3 * 3 * 3 * 3 * 4
    assert [t["name"] for t in f["inputs"]] == ["x"]
    # The binding returns the same data without a file.
    assert raptor.graph_summary(module) == summary


def test_upstream_and_raptor_passes_mix(ctx: ir.Context) -> None:
    module = _build_block(ctx)
    pm = passmanager.PassManager.parse(
        "builtin.module(canonicalize,raptor-summarize-graph{output=/dev/null},cse)")
    pm.run(module.operation)
    assert module.operation.verify()


def test_port_names_follow_aten(ctx: ir.Context) -> None:
    module = ir.Module.parse("""
      func.func @f(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
        %c = nn.cat %a, %b {dim = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
        %s:2 = nn.split_with_sizes %c {split_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
        %k:2 = nn.kv_cache %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
        %g = nn.aten "aten.sub.Tensor"(%a, %b) {input_ports = ["self", "other"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
        return %c, %g : tensor<4x4xf32>, tensor<2x4xf32>
      }""")
    cat, split, cache, generic = list(module.body.operations[0].regions[0].blocks[0].operations)[:4]
    assert raptor.port_names(cat) == (["tensors[*]", "tensors[*]"], ["out"])
    assert raptor.port_names(split) == (["self"], ["out[*]", "out[*]"])
    assert raptor.port_names(cache) == (["key", "value"], ["out[0]", "out[1]"])
    assert raptor.port_names(generic) == (["self", "other"], ["out"])
    assert raptor.port_names(cat.operation) == raptor.port_names(cat)  # an Operation as well as an OpView


def test_unknown_pass_is_reported(ctx: ir.Context) -> None:
    with pytest.raises(ValueError, match="raptor-no-such-pass"):
        passmanager.PassManager.parse("builtin.module(raptor-no-such-pass)")
