"""Float32 arithmetic as the PIM programs compute it.

An int8 program with float32 between its codecs (a transformer's layer
norms, GELUs and softmaxes) equals its quantized reference bit for bit only
if both round alike: one differing last bit that lands on an encoding's
rounding boundary takes the neighbouring code, and attention spreads it to
every position. torch's kernels add in their own (vectorized, pairwise)
orders and use their own float32 libm, so the reference interpreter
computes these operators here instead, step for step as the lowering
emits them (passes/conversion/SpatialToPim: AttentionOps.cpp,
VectorOps.cpp) and the simulator executes them (compiled without fused
multiply-adds):

- transcendental functions (exp, erf, tanh, sigmoid, log1p, cos, sin) in
  float64 rounded once to float32, as simulator/VectorMath.h defines them
  for the vector unit and for the compiler's constant evaluation;
- sums in the programs' order: a norm's statistics (a dot product with
  1/n, or pairwise beyond ``ORDERED_SUM_LIMIT`` elements), a softmax's
  denominator, a mean, a pooling window, a matrix product's terms, each
  added in order from the first;
- the float32 steps of GELU, SiLU and the norms, each rounded.

tests/python/test_vector_unit.py compiles each operator alone and checks
the simulated program against the reference interpreter for equality.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["ORDERED_SUM_LIMIT", "avg_pool2d", "cos", "erf", "exp", "folded", "gelu", "log1p", "matmul", "mean", "norm",
           "ordered_sum", "pairwise_sum", "pow", "rsqrt", "sigmoid", "silu", "sin", "softmax", "tanh"]

#: Above this many elements the programs sum a norm's statistics pairwise
#: (AttentionOps.cpp, kOrderedSumLimit).
ORDERED_SUM_LIMIT = 4096


def ordered_sum(terms: np.ndarray) -> np.ndarray:
    """The float32 sums of ``terms`` over the last axis, added in order
    from the first term (``vvdmul``'s accumulation; numpy's cumulative sum
    adds sequentially in the array's type, where its ``sum`` pairs)."""
    terms = np.asarray(terms, np.float32)
    if terms.shape[-1] == 0:
        return np.zeros(terms.shape[:-1], np.float32)
    return np.cumsum(terms, axis=-1, dtype=np.float32)[..., -1]


def pairwise_sum(terms: np.ndarray) -> np.ndarray:
    """The float32 sums of ``terms`` over the last axis as the programs add
    them pairwise: the first half plus the second, the odd element left
    over added to the first sum, until one remains."""
    t = np.asarray(terms, np.float32)
    n = t.shape[-1]
    while n > 1:
        half = n // 2
        folded = t[..., :half] + t[..., half:2 * half]
        if n % 2:
            folded[..., 0] += t[..., n - 1]
        t, n = folded, half
    return t[..., 0] if n else np.zeros(t.shape[:-1], np.float32)


def _mean_of(terms: np.ndarray, inverse: np.float32) -> np.ndarray:
    """A dot product with n copies of 1/n, or a pairwise sum times 1/n."""
    if terms.shape[-1] > ORDERED_SUM_LIMIT:
        return pairwise_sum(terms) * inverse
    return ordered_sum(terms * inverse)


def norm(x: np.ndarray, dims: int, weight: np.ndarray | None, bias: np.ndarray | None, eps: float,
         center: bool) -> np.ndarray:
    """A layer norm (``center``) or RMS norm of ``x`` over its last
    ``dims`` dimensions, affine by ``weight`` and ``bias`` when given, in
    the programs' float32 steps."""
    x = np.asarray(x, np.float32)
    rows = x.reshape(x.shape[:x.ndim - dims] + (-1,))
    n = rows.shape[-1]
    inverse = np.float32(1.0 / n)
    if center:
        rows = rows - _mean_of(rows, inverse)[..., None]
    squares = rows * rows  # (a dot product of the rows with themselves, then a product by 1/n)
    variance = (pairwise_sum(squares) if n > ORDERED_SUM_LIMIT else ordered_sum(squares)) * inverse
    scale = rsqrt(variance + np.float32(eps))
    out = (rows * scale[..., None]).reshape(x.shape)
    if weight is not None:
        out = out * np.asarray(weight, np.float32)
    if bias is not None:
        out = out + np.asarray(bias, np.float32)
    return out


def _rounded(name: str, x: np.ndarray) -> np.ndarray:
    """torch's ``name`` function of float32 ``x`` in float64, rounded to
    float32 once, as the vector unit's transcendental functions and the
    compiler's constant evaluation compute (simulator/VectorMath.h): the
    same bits on every libm, where float32 libms (and torch's) differ in
    the last one."""
    import torch

    return getattr(torch, name)(torch.from_numpy(np.asarray(x, np.float64))).numpy().astype(np.float32)


#: ``ext.vexp``, ``ext.verf``, ``vtanh``, ``vsigm``, ``ext.vlog1p`` on float32,
#: and the compiler's cos and sin of known values.
exp, erf, tanh, sigmoid, log1p, cos, sin = (functools.partial(_rounded, name)
                                            for name in ("exp", "erf", "tanh", "sigmoid", "log1p", "cos", "sin"))


def pow(x: np.ndarray, exponent: float) -> np.ndarray:  # noqa: A001 (the operator's name)
    """x ** float32(exponent), in float64 rounded once (compile-time powers)."""
    return (np.asarray(x, np.float64) ** np.float64(np.float32(exponent))).astype(np.float32)


def rsqrt(x: np.ndarray) -> np.ndarray:
    """1 / sqrt(x), both correctly rounded float32 steps."""
    return np.float32(1.0) / np.sqrt(np.asarray(x, np.float32))


def folded(x, alpha: float = 1.0, reciprocal: bool = False) -> np.ndarray:
    """A known operand as the lowering and the compiler fold it, in float64
    rounded once: float32(x) times ``alpha``, or its reciprocal (a quotient
    by a known divisor becomes a product)."""
    wide = np.asarray(x, np.float32).astype(np.float64)
    return np.asarray(1.0 / wide if reciprocal else wide * alpha, np.float64).astype(np.float32)


def silu(x: np.ndarray) -> np.ndarray:
    """``vsigm``, then its product with x."""
    x = np.asarray(x, np.float32)
    return sigmoid(x) * x


def softmax(x: np.ndarray) -> np.ndarray:
    """A softmax over the last axis: the maximum subtracted, ``exp``, the
    ordered sum of the exponentials, each divided by it."""
    x = np.asarray(x, np.float32)
    e = exp(x - x.max(axis=-1, keepdims=True))
    return e / ordered_sum(e)[..., None]  # (a dot product with ones)


#: float(1 / sqrt(2)) and float(sqrt(2 / pi)), the constants of the lowering's GELUs.
_RSQRT2 = np.float32(1.0 / np.sqrt(2.0))
_SQRT_2_OVER_PI = np.float32(np.sqrt(2.0 / np.pi))


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """The GELU as the lowering's steps: exact, 0.5 x (1 + erf(x / sqrt 2))
    with x / sqrt 2 a product by the float32 reciprocal; ``tanh``,
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x = np.asarray(x, np.float32)
    if approximate == "tanh":
        inner = (((x * x) * x) * np.float32(0.044715) + x) * _SQRT_2_OVER_PI
        return ((tanh(inner) + np.float32(1.0)) * x) * np.float32(0.5)
    return ((erf(x * _RSQRT2) + np.float32(1.0)) * x) * np.float32(0.5)


def mean(x: np.ndarray, dims: list[int], keepdim: bool) -> np.ndarray:
    """A mean at run time: the float32 sum over ``dims`` (all when empty),
    added in row-major order of the reduced positions from 0, times
    float32(1 / count)."""
    x = np.asarray(x, np.float32)
    reduced = sorted({d % x.ndim for d in dims} if dims else range(x.ndim))
    kept = [d for d in range(x.ndim) if d not in reduced]
    rows = np.transpose(x, kept + reduced).reshape([x.shape[d] for d in kept] + [-1])
    out = ordered_sum(rows) * np.float32(1.0 / max(rows.shape[-1], 1))
    if keepdim:
        out = out.reshape([1 if d in reduced else x.shape[d] for d in range(x.ndim)])
    return np.asarray(out, np.float32)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A matrix product of float32 operands at run time (``ext.vvecmat``
    per row of ``a``): each output the ordered sum over the contracted
    dimension of rounded products, from the first; batch dimensions
    broadcast."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    out = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]), np.float32)
    for k in range(a.shape[-1]):
        out += a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return out


def avg_pool2d(x: np.ndarray, kernel: list[int], stride: list[int], padding: list[int], ceil_mode: bool,
               count_include_pad: bool, divisor: int | None) -> np.ndarray:
    """2-d average pooling of NCHW float32 ``x`` as the lowering computes
    it: the window's first tap, then the others added in row-major order
    (padding reads zeros), times float32(1 / count), count as torch's
    avg_pool2d takes it."""
    import torch
    import torch.nn.functional as F

    x = np.asarray(x, np.float32)
    (KH, KW), (sh, sw), (ph, pw) = kernel, stride or kernel, padding
    H, W = x.shape[-2:]
    OH, OW = F.avg_pool2d(torch.zeros(1, 1, H, W), kernel, stride or kernel, padding, ceil_mode).shape[-2:]
    bottom = max(ph, (OH - 1) * sh + KH - H - ph)
    right = max(pw, (OW - 1) * sw + KW - W - pw)
    padded = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(ph, bottom), (pw, right)])
    out = None
    for kh in range(KH):
        for kw in range(KW):
            tap = padded[..., kh:kh + (OH - 1) * sh + 1:sh, kw:kw + (OW - 1) * sw + 1:sw]
            out = tap.copy() if out is None else out + tap

    def counts(size: int, n: int, k: int, s: int, p: int) -> tuple[np.ndarray, np.ndarray]:
        start = np.arange(n) * s - p
        end = np.minimum(start + k, size + p)
        return end - start, np.minimum(end, size) - np.maximum(start, 0)

    (whole_h, inside_h), (whole_w, inside_w) = counts(H, OH, KH, sh, ph), counts(W, OW, KW, sw, pw)
    count = (np.full((OH, OW), divisor) if divisor else
             np.outer(whole_h, whole_w) if count_include_pad else np.outer(inside_h, inside_w))
    return out * (1.0 / count.astype(np.float64)).astype(np.float32)
