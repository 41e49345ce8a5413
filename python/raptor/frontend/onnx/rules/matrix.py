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


@rule("Einsum")
def _einsum(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """Einsum as a (batched) matrix product: ``...ij,jk->...ik`` or, with
    the right operand transposed, ``...ij,kj->...ik``; a product by a weight
    then becomes a linear layer (raptor-convert-weight-products)."""
    equation = a.get("equation", b"")
    equation = (equation.decode() if isinstance(equation, bytes) else str(equation)).replace(" ", "")
    inputs, arrow, out = equation.partition("->")
    operands = inputs.split(",")
    if not arrow or len(operands) != 2 or len(node.input) != 2 or "." in equation:
        raise Unsupported("an einsum other than a matrix product")
    left, right = operands
    if len(left) < 2 or len(right) != 2 or len(set(left)) != len(left) or len(set(right)) != 2:
        raise Unsupported("an einsum other than a matrix product")
    batch, i, j = left[:-2], left[-2], left[-1]
    if right == j + right[1] and right[1] not in left:
        k, transposed = right[1], False
    elif right == right[0] + j and right[0] not in left:
        k, transposed = right[0], True
    else:
        raise Unsupported("an einsum other than a matrix product")
    if out != batch + i + k:
        raise Unsupported("an einsum other than a matrix product")
    x, w = im.value(node.input[0]), im.value(node.input[1])
    if transposed:
        w = nn.PermuteOp(w, [1, 0]).result
    return [nn.MatmulOp(x, w).result]
