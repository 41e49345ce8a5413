"""Normalisation and reductions: inference BatchNormalization,
LayerNormalization, InstanceNormalization (a layer norm of each channel,
then the per-channel affine map) and the reductions ReduceMean, ReduceSum
(float: the mean times the count), ReduceL2 and ReduceMax (nn.amax)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mlir import ir

from raptor.dialects import nn

from ..errors import Unsupported
from ..tensors import is_float, shape_of
from .base import axes_of, axis_in, rule

if TYPE_CHECKING:
    from ..state import ImportState


@rule("BatchNormalization")
def _batch_norm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("training_mode", 0) or any(o for o in node.output[1:]):
        raise Unsupported("training mode, or the running statistics as outputs")
    x, scale, b, mean, var = (im.value(n) for n in node.input[:5])
    op = nn.BatchNormOp(x, scale, b, mean, var, momentum=float(a.get("momentum", 0.9)),
                        eps=float(a.get("epsilon", 1e-5)))
    return [op.results[0]]


@rule("LayerNormalization")
def _layer_norm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if any(o for o in node.output[1:]):
        raise Unsupported("the saved mean and inverse deviation as outputs")
    x = im.value(node.input[0])
    shape = shape_of(x)
    axis = axis_in(node, a.get("axis", -1), len(shape))
    weight, bias = im.tensor(node, 1), im.tensor(node, 2)
    return [nn.LayerNormOp(x, shape[axis:], weight=weight, bias=bias,
                           eps=float(a.get("epsilon", 1e-5))).result]


def _count(n: int) -> ir.Attribute:
    return ir.FloatAttr.get(ir.F64Type.get(), float(n))


def _reduction_axes(im: ImportState, node: Any, a: dict[str, Any], x: ir.Value) -> list[int] | None:
    """The node's axes of ``x`` (all when none are given); None for an
    empty axes list with ``noop_with_empty_axes``."""
    shape = shape_of(x)
    axes = axes_of(im, node, a, 1)
    if not axes:
        if a.get("noop_with_empty_axes", 0):
            return None
        axes = list(range(len(shape)))
    if not is_float(x):
        raise Unsupported("an integer reduction")
    return [axis_in(node, d, len(shape)) for d in axes]


def _reduced(im: ImportState, node: Any, a: dict[str, Any], x: ir.Value) -> tuple[ir.Value, int] | None:
    """The mean of ``x`` over the node's axes and the number of elements
    each mean is over; None for an empty axes list with
    ``noop_with_empty_axes``."""
    dims = _reduction_axes(im, node, a, x)
    if dims is None:
        return None
    shape = shape_of(x)
    return nn.MeanOp(x, dim=dims, keepdim=bool(a.get("keepdims", 1))).result, math.prod(shape[d] for d in dims)


@rule("ReduceMean")
def _reduce_mean(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    reduced = _reduced(im, node, a, x)
    return [x if reduced is None else reduced[0]]


@rule("ReduceMax")
def _reduce_max(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    dims = _reduction_axes(im, node, a, x)
    return [x if dims is None else nn.AmaxOp(x, dim=dims, keepdim=bool(a.get("keepdims", 1))).result]


@rule("ReduceSum")
def _reduce_sum(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    # A sum as the mean times the count: nn.mean is the reduction the back end lowers.
    x = im.value(node.input[0])
    reduced = _reduced(im, node, a, x)
    return [x if reduced is None else nn.MulOp(reduced[0], scalar=_count(reduced[1])).result]


@rule("ReduceL2")
def _reduce_l2(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    # sqrt(sum(x * x)); raptor-expand-powers turns a quotient by it into a
    # product by rsqrt.
    x = im.value(node.input[0])
    squares = nn.MulOp(x, other=x).result
    reduced = _reduced(im, node, a, squares)
    if reduced is None:
        return [nn.PowOp(squares, 0.5).result]
    return [nn.PowOp(nn.MulOp(reduced[0], scalar=_count(reduced[1])).result, 0.5).result]


@rule("InstanceNormalization")
def _instance_norm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    if len(shape) < 3 or not all(im.is_const(n) for n in node.input[1:3]):
        raise Unsupported("not a normalisation of channels with constant scale and bias")
    rows = nn.ViewOp(x, [shape[0], shape[1], math.prod(shape[2:])]).result
    normed = nn.LayerNormOp(rows, [math.prod(shape[2:])], eps=float(a.get("epsilon", 1e-5))).result
    out = nn.ViewOp(normed, shape).result
    channel = [1, shape[1]] + [1] * (len(shape) - 2)
    scale, bias = (im.param(f"{n}.channel", im.const(n).reshape(channel)) for n in node.input[1:3])
    return [nn.AddOp(nn.MulOp(out, other=scale).result, other=bias).result]
