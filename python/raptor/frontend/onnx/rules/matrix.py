"""Matrix operators: Gemm and MatMul by a constant 2-d weight become
``nn.linear`` (the weight transposed once at import, as torch stores it;
a MatMul followed by the Add of a bias vector is one linear layer), other
products ``nn.matmul``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mlir import ir

from raptor.dialects import nn

from ..errors import Unsupported
from ..tensors import shape_of
from .base import rule

if TYPE_CHECKING:
    from ..state import ImportState


@rule("Gemm")
def _gemm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0:
        raise Unsupported("transposed A or alpha")
    x = im.value(node.input[0])
    name = node.input[1]
    w = im.value(name) if a.get("transB", 0) else im.transposed_param(name)
    bias = None
    if len(node.input) > 2 and node.input[2]:
        if a.get("beta", 1.0) != 1.0:
            raise Unsupported("beta")
        c = im.const(node.input[2]) if im.is_const(node.input[2]) else None
        if c is None or c.ndim != 1 or c.shape[0] != shape_of(w)[0]:
            raise Unsupported("a bias that is not a vector")
        bias = im.value(node.input[2])
    return [nn.LinearOp(x, w, bias=bias).result]


@rule("MatMul")
def _matmul(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    name = node.input[1]
    if im.is_const(name) and im.const(name).ndim == 2 and len(shape_of(x)) >= 2 \
            and im.const(name).dtype.kind == "f":
        w = im.transposed_param(name)
        bias = None
        # MatMul + Add(bias vector) as one linear layer, as torch's nn.Linear.
        out = node.output[0]
        nxt = index + 1
        if im.users[out] == 1 and nxt < len(im.graph.node):
            add = im.graph.node[nxt]
            if add.op_type == "Add" and out in add.input:
                other = add.input[1] if add.input[0] == out else add.input[0]
                if other in im.initializers and im.const(other).shape == (shape_of(w)[0],):
                    bias = im.value(other)
                    im.skip.add(nxt)
                    result = nn.LinearOp(x, w, bias=bias).result
                    im.values[add.output[0]] = result
                    return [result]
        return [nn.LinearOp(x, w, bias=bias).result]
    return [nn.MatmulOp(x, im.value(name)).result]
