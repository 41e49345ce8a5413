"""A maximum or minimum by a constant as a clamp, decided once for both
importers (torch: ``_fx_rewrites.bounds_by_constants``; ONNX: the ``Max``
and ``Min`` rule): the element-wise maximum and minimum of two tensors
have no lowering, but by a constant of one value they clamp.

XGLM holds its attention scores above the float's lowest value with
``torch.max(scores, finfo.min)``: a clamp, not the scores (it lifts -inf,
so a fully masked row softmaxes to a uniform row, not NaN). Only by -inf
(a maximum) or +inf (a minimum) is the result the tensor itself."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["clamp_bound", "is_identity"]


def clamp_bound(bound: np.ndarray, shape: Sequence[int]) -> float | None:
    """The one value of a constant ``bound`` that a maximum or minimum with
    a float tensor of ``shape`` clamps by; None when it is no clamp (empty,
    several values, or a bound that would widen the result)."""
    if bound.size == 0 or not np.all(bound == bound.flat[0]) or bound.ndim > len(shape) \
            or np.broadcast_shapes(bound.shape, tuple(shape)) != tuple(shape):
        return None
    return float(bound.flat[0])


def is_identity(bound: float, maximum: bool) -> bool:
    """Whether the maximum (``maximum``) or minimum by ``bound`` leaves
    every element as it is: by -inf or +inf respectively."""
    return bound == (-math.inf if maximum else math.inf)
