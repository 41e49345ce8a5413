"""Normalisation and reductions: inference BatchNormalization,
LayerNormalization, InstanceNormalization (a layer norm of each channel,
then the per-channel affine map) and ReduceMean."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mlir import ir

from raptor.dialects import nn

from ..errors import Unsupported
from ..tensors import is_float, shape_of
from .base import axes_of, rule

if TYPE_CHECKING:
    from ..state import ImportState


@rule("BatchNormalization")
def _batch_norm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("training_mode", 0) or any(o for o in node.output[1:]):
        raise Unsupported("training mode")
    x, scale, b, mean, var = (im.value(n) for n in node.input[:5])
    op = nn.BatchNormOp(x, scale, b, mean, var, momentum=float(a.get("momentum", 0.9)),
                        eps=float(a.get("epsilon", 1e-5)))
    return [op.results[0]]


@rule("LayerNormalization")
def _layer_norm(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if any(o for o in node.output[1:]):
        raise Unsupported("saved statistics")
    x = im.value(node.input[0])
    shape = shape_of(x)
    axis = a.get("axis", -1) % len(shape)
    weight, bias = im.tensor(node, 1), im.tensor(node, 2)
    return [nn.LayerNormOp(x, shape[axis:], weight=weight, bias=bias,
                           eps=float(a.get("epsilon", 1e-5))).result]


@rule("ReduceMean")
def _reduce_mean(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    rank = len(shape_of(x))
    axes = axes_of(im, node, a, 1)
    if not axes:
        if a.get("noop_with_empty_axes", 0):
            return [x]
        axes = list(range(rank))
    if not is_float(x):
        raise Unsupported("integer mean")
    return [nn.MeanOp(x, dim=[d % rank for d in axes], keepdim=bool(a.get("keepdims", 1))).result]


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
