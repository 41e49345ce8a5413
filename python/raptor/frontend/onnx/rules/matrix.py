"""Matrix operators: Gemm and MatMul by a constant 2-d weight become
``nn.linear`` (the weight transposed once at import, as torch stores it;
a MatMul followed by the Add of a bias vector is one linear layer), other
products ``nn.matmul``; CumSum of reals a linear layer by a constant
triangle of ones."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mlir import ir

from raptor.dialects import nn

from ..._decompositions import running_sum_matrix
from ..errors import Unsupported
from ..tensors import is_float, shape_of
from .base import rule

if TYPE_CHECKING:
    from ..state import ImportState


@rule("Gemm")
def _gemm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0:
        raise Unsupported("a transposed A (transA) or an alpha other than 1")
    x = im.value(node.input[0])
    name = node.input[1]
    w = im.value(name) if a.get("transB", 0) else im.transposed_param(name)
    bias = None
    if len(node.input) > 2 and node.input[2]:
        if a.get("beta", 1.0) != 1.0:
            raise Unsupported("a bias scaled by a beta other than 1")
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
    """Einsum of two operands as one batched matrix product: the indices in
    both operands and the output are the batch, those in both but not the
    output are contracted, each operand's own are its free indices
    (Funnel's attention: ``bind,bjnd->bnij``, ``bind,snd->bnis``,
    ``td,dnh->tnh``). Each operand is permuted to (batch, free, contracted)
    or (batch, contracted, free) and viewed as a matrix per batch entry, the
    product viewed back and permuted to the output's order; a product by a
    weight then becomes linear layers (raptor-convert-weight-products).
    Repeated indices in one operand (diagonals), indices summed within one
    operand and ellipses stay unsupported."""
    equation = a.get("equation", b"")
    equation = (equation.decode() if isinstance(equation, bytes) else str(equation)).replace(" ", "")
    inputs, arrow, out = equation.partition("->")
    operands = inputs.split(",")
    if not arrow or len(operands) != 2 or len(node.input) != 2 or "." in equation:
        raise Unsupported("an einsum other than a product of two operands")
    left, right = operands
    if any(len(set(t)) != len(t) for t in (left, right, out)) or set(out) - set(left + right) or \
            (set(left) ^ set(right)) - set(out):
        raise Unsupported("an einsum with a diagonal or a sum within one operand")
    x, y = im.value(node.input[0]), im.value(node.input[1])
    size = dict(zip(left, shape_of(x)))
    for letter, n in zip(right, shape_of(y)):
        if size.setdefault(letter, n) != n:
            raise Unsupported(f"an einsum whose index '{letter}' has two sizes (broadcast)")
    batch = [c for c in out if c in left and c in right]
    contracted = [c for c in left if c in right and c not in out]
    left_free = [c for c in left if c not in right]
    right_free = [c for c in right if c not in left]

    def matrix(value: ir.Value, letters: str, order: list[str], rows: list[str], cols: list[str]) -> ir.Value:
        perm = [letters.index(c) for c in order]
        if perm != list(range(len(perm))):
            value = nn.PermuteOp(value, perm).result
        shape = [size[c] for c in batch] + [math.prod(size[c] for c in rows), math.prod(size[c] for c in cols)]
        return nn.ViewOp(value, shape).result

    lhs = matrix(x, left, batch + left_free + contracted, left_free, contracted)
    rhs = matrix(y, right, batch + contracted + right_free, contracted, right_free)
    product = nn.MatmulOp(lhs, rhs).result
    order = batch + left_free + right_free
    product = nn.ViewOp(product, [size[c] for c in order]).result
    perm = [order.index(c) for c in out]
    return [product if perm == list(range(len(perm))) else nn.PermuteOp(product, perm).result]


@rule("CumSum")
def _cumsum(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """A running sum of reals along a constant axis as the linear map it
    is, by :func:`raptor.frontend._decompositions.running_sum_matrix` (as
    the torch frontend decomposes ``cumsum``): the axis moved last, one
    ``nn.linear`` by a constant weight, moved back."""
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("a running sum of integers")
    if not im.is_const(node.input[1]):
        raise Unsupported("a running sum along an axis computed at run time")
    rank = len(shape_of(x))
    axis = int(im.const(node.input[1]).reshape(-1)[0]) % rank
    matrix = running_sum_matrix(shape_of(x)[axis], bool(a.get("exclusive", 0)), bool(a.get("reverse", 0)))
    order = [d for d in range(rank) if d != axis] + [axis]
    moved = x if axis == rank - 1 else nn.PermuteOp(x, order).result
    y = nn.LinearOp(moved, im.param(f"{node.output[0]}.running_sum", matrix)).result
    return [y if axis == rank - 1 else nn.PermuteOp(y, [order.index(d) for d in range(rank)]).result]
