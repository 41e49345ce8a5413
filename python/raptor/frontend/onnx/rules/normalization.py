"""Normalisation and reductions: inference BatchNormalization,
LayerNormalization and ReduceMean."""

from __future__ import annotations

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
