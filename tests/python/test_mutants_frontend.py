"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/frontend/: near misses of the pattern rewrites, checked against eager
torch through the reference evaluator of nn IR."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import raptor
from raptor import weights as weights_io
from raptor.frontend.torch import ImportOptions, import_program
from raptor.zoo import decomposition_table

from nn_reference import evaluate


class _RepeatKV(torch.nn.Module):
    """Llama's repeat_kv (unsqueeze at 2, expand, reshape: each head repeated in
    place) or, with `dim=1`, its near miss: the whole set of heads tiled."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, s, d = x.shape
        if self.dim == 2:
            return x.unsqueeze(2).expand(b, h, 2, s, d).reshape(b, h * 2, s, d)
        return x.unsqueeze(1).expand(b, 2, h, s, d).reshape(b, 2 * h, s, d)


@pytest.mark.parametrize("dim, fan_outs", [(2, 1), (1, 0)])
def test_fan_out_fires_on_repeat_kv_only(dim: int, fan_outs: int) -> None:
    # Shapes chosen so that the near miss passes every shape test of the
    # pattern (2 heads, repeated 2 times): only the unsqueezed dimension differs.
    model = _RepeatKV(dim).eval()
    x = torch.randn(1, 2, 3, 4)
    with torch.no_grad():
        ep = torch.export.export(model, (x,), strict=False).run_decompositions(decomposition_table())
        expected = model(x).numpy()
    with raptor.Context():
        module, report = import_program(ep, ImportOptions())
        assert report.rewrites["fan_out"] == fan_outs
        if fan_outs == 0:  # (the evaluator has no rule for nn.fan_out itself)
            got = evaluate(module, [x.numpy()], weights_io.from_exported_program(ep, module))
            np.testing.assert_array_equal(got[0], expected)


def _reshape_model(node_name: str) -> object:
    """x + reshape(c, [4]) with a constant c of 6 elements: the constant
    reshape cannot be evaluated."""
    from onnx import TensorProto, helper, numpy_helper

    c = numpy_helper.from_array(np.ones((2, 3), np.float32), "c")
    shape = numpy_helper.from_array(np.array([4], np.int64), "shape")
    nodes = [helper.make_node("Reshape", ["c", "shape"], ["r"], name=node_name),
             helper.make_node("Add", ["x", "r"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [c, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("node_name, shown", [("bad_reshape", "'bad_reshape' (Reshape)"),
                                              ("", "'Reshape' (Reshape)")])
def test_a_constant_node_that_cannot_be_evaluated_is_named(node_name: str, shown: str) -> None:
    from raptor.frontend.onnx import OnnxImportError, import_model

    with pytest.raises(OnnxImportError) as err:
        import_model(_reshape_model(node_name), context=raptor.Context())
    assert str(err.value).startswith(f"cannot evaluate the constant ONNX node {shown}: ")
