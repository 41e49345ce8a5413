"""Resize (and opset 9's Upsample) of the two spatial dimensions of a 4-d
tensor: nearest by integer factors as ``nn.upsample_nearest2d`` (a view),
every other nearest, linear or cubic resize as the linear map it is, one constant
interpolation matrix per axis (``nn.linear``, the other axis moved last in
between: ``raptor.frontend._decompositions.interpolation_matrix``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from mlir import ir

from raptor.dialects import nn

from ..._decompositions import interpolation_matrix
from ..errors import Unsupported
from ..tensors import decode, dense, shape_of
from .base import rule

if TYPE_CHECKING:
    from ..state import ImportState

#: Coordinate modes whose mapping interpolation_matrix knows.
_MODES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric")


def _along_last(x: ir.Value, matrix: np.ndarray) -> ir.Value:
    if matrix.shape[0] == matrix.shape[1] and np.array_equal(matrix, np.eye(matrix.shape[0])):
        return x
    return nn.LinearOp(x, nn.ConstantOp(dense(matrix)).result).result


def _swap_last(x: ir.Value) -> ir.Value:
    return nn.PermuteOp(x, [0, 1, 3, 2]).result


@rule("Resize", "Upsample")
def _resize(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    if len(shape) != 4:
        raise Unsupported("not a resize of a 4-d tensor")
    upsample = node.op_type == "Upsample"
    scales = im.optional_const(node, 1 if upsample else 2)
    sizes = None if upsample else im.optional_const(node, 3)
    if scales is not None and scales.size == 0:
        scales = None
    if sizes is not None:
        out = [int(s) for s in sizes.reshape(-1)]
        factors = [None] * 4  # (the mapping uses out / in)
    elif scales is not None:
        factors = [float(s) for s in scales.reshape(-1)]
        out = [int(np.floor(n * f)) for n, f in zip(shape, factors)]
    else:
        raise Unsupported("neither scales nor sizes")
    if out[:2] != shape[:2] or a.get("antialias", 0) or a.get("axes") is not None:
        raise Unsupported("a resize of the batch or channel dimension, antialiasing or axes")
    mode = decode(a.get("mode", "nearest"))
    coordinates = "asymmetric" if upsample else decode(a.get("coordinate_transformation_mode", "half_pixel"))
    nearest = decode(a.get("nearest_mode", "round_prefer_floor"))
    if coordinates not in _MODES:
        raise Unsupported(f"coordinate_transformation_mode {coordinates}")
    if mode == "nearest":
        if nearest != "floor" and not upsample:
            raise Unsupported(f"nearest_mode {nearest}")
        if coordinates == "asymmetric" and all(o % n == 0 for o, n in zip(out[2:], shape[2:])) and \
                all(f is None or f == o // n for f, o, n in zip(factors[2:], out[2:], shape[2:])):
            return [nn.UpsampleNearest2dOp(x, output_size=out[2:]).result]
    elif mode not in ("linear", "cubic"):
        raise Unsupported(f"mode {mode}")
    cubic = float(a.get("cubic_coeff_a", -0.75)) if mode == "cubic" else None
    height, width = (interpolation_matrix(n, o, coordinates, f, linear=mode == "linear", cubic=cubic,
                                          exclude_outside=bool(a.get("exclude_outside", 0)))
                     for n, o, f in zip(shape[2:], out[2:], factors[2:]))
    y = _along_last(x, width)
    return [_swap_last(_along_last(_swap_last(y), height))]
