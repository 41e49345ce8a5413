"""``acos`` without an inverse cosine, shared by the torch decomposition and
the ONNX rule (the back end has no inverse cosine; Yoso's attention takes
the acos of cosines).

Abramowitz and Stegun 4.4.46: ``acos(a) = sqrt(1 - a) * sum(c_i a^i)`` on
[0, 1], within 2e-8 (float32 rounding is 6e-8 at pi / 2), of ``|x|`` (a
sum of two ReLUs), mirrored for negative ``x`` by the sign
``clamp(x * 2^100, -1, 1)`` (exactly +-1 beyond 2^-100, where acos is
pi / 2 to float precision): ``pi / 2 + sign * (acos|x| - pi / 2)``, within
3e-7 of torch on [-1, 1]; the root's argument is kept from 0 (2^-100).
The formula is written once over the caller's operations (torch tensors
in a decomposition, nn values in the ONNX importer)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ACOS_COEFFICIENTS", "AcosOps", "acos_of"]

ACOS_COEFFICIENTS = (1.5707963050, -0.2145988016, 0.0889789874, -0.0501743046, 0.0308918810, -0.0170881256,
                     0.0066700901, -0.0012624911)


@dataclass(frozen=True)
class AcosOps:
    """The operations the formula needs, on the caller's values."""

    relu: Callable[[Any], Any]
    neg: Callable[[Any], Any]
    add: Callable[[Any, Any], Any]
    mul: Callable[[Any, Any], Any]
    #: ``affine(x, scale, shift)``: ``x * scale + shift``.
    affine: Callable[[Any, float, float], Any]
    #: ``at_least(x, lo)``: ``max(x, lo)``.
    at_least: Callable[[Any, float], Any]
    #: ``between(x, lo, hi)``: ``x`` clamped to [lo, hi].
    between: Callable[[Any, float, float], Any]
    sqrt: Callable[[Any], Any]


def acos_of(x: Any, ops: AcosOps) -> Any:
    """``acos(x)`` for ``x`` in [-1, 1] by the formula above."""
    magnitude = ops.add(ops.relu(x), ops.relu(ops.neg(x)))
    poly = ops.affine(magnitude, ACOS_COEFFICIENTS[-1], ACOS_COEFFICIENTS[-2])
    for c in reversed(ACOS_COEFFICIENTS[:-2]):
        poly = ops.affine(ops.mul(poly, magnitude), 1.0, c)
    root = ops.sqrt(ops.at_least(ops.affine(magnitude, -1.0, 1.0), 2.0**-100))
    sign = ops.between(ops.affine(x, 2.0**100, 0.0), -1.0, 1.0)
    half_pi = math.pi / 2
    return ops.affine(ops.mul(ops.affine(ops.mul(root, poly), 1.0, -half_pi), sign), 1.0, half_pi)
