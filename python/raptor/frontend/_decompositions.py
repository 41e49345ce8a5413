"""Raptor's own decompositions, applied with torch's when an exported
program is decomposed (``raptor.zoo.decomposition_table``): operators the
back end has no lowering for, rewritten into ones it lowers.

- a 1-d convolution is a 2-d one of unit height (input and weight get a
  height of 1; the result loses it again);
- a 3-d convolution is one 2-d convolution of the frames' stacks side by
  side (frontend/_convolution3d.py);
- a transposed convolution (1-d or 2-d) is a convolution at
  the input's resolution with an output channel per phase and a pixel
  shuffle (frontend/_transposed_convolution.py);
- ``F.unfold`` and ``F.fold`` (``im2col``, ``col2im``) over windows that
  tile the map (kernel = stride, no padding or dilation: MobileViTV2's
  patches) are a reshape and a permutation; an overlapping unfold keeps
  torch's gather by constant indices (taken as slices), an overlapping
  fold (VOLO) is a grouped transposed convolution by a kernel of ones that
  routes each column to its tap (torch's is a scatter-add,
  ``aten.index_put``);
- a ``cumsum`` of reals is a linear map by the lower-triangular ones;
- PReLU is relu(x) - w relu(-x); ELU, SELU and CELU are relu(x) + alpha
  (exp(min(x, 0)) - 1), scaled;
- ``softplus`` is relu(x) + log1p(exp(-|x|)), without torch's run-time
  comparison against its threshold;
- ``flip`` is the concatenation of unit slices in reverse order;
  ``Tensor.unfold`` (sliding windows along one dimension) the slices of its
  windows stacked (a convolution of a batch of N maps is
  ``raptor-fold-batch-into-channels``'s, on nn for both frontends);
- group norm is a layer norm of each group (the input viewed as
  (N, groups, rest)) followed by the per-channel affine map; a batch norm
  by the input's own statistics (BiT's weight standardization, instance
  norm) is its means, reciprocal root and affine map;
- nearest resizing that is not a whole repeat of each element selects rows
  and columns by constant indices (:func:`nearest_indices`);
- bilinear and bicubic resizing are linear in their input: per axis a constant matrix
  product (an ``aten.linear`` whose weight is the interpolation matrix,
  :func:`interpolation_matrix`), the other axis moved last in between;
- adaptive average pooling whose output sizes do not divide the input is
  linear in the same way (:func:`adaptive_pooling_matrix`);
- a float ``abs`` is ``relu(x) + relu(-x)`` (torch's vector norm over
  dimensions of size 1 becomes one: ConvNeXt V2's response normalization
  on a 1 x 1 map), and ``leaky_relu`` is ``relu(x) - slope relu(-x)``
  (CSPDarknet's activation), both exact.

Each returns ``NotImplemented`` outside what it covers, and torch then
keeps (or decomposes) the operator as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch._decomp import decomposition_table as torch_decompositions

from ._acos import AcosOps, acos_of
from ._convolution3d import convolution3d
from ._transposed_convolution import transposed_convolution

aten = torch.ops.aten

__all__ = ["DECOMPOSITIONS", "adaptive_pooling_matrix", "interpolation_matrix", "nearest_indices",
           "running_sum_matrix"]


def _convolution(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: Sequence[int],
                 padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                 output_padding: Sequence[int], groups: int) -> Any:
    if transposed:
        return transposed_convolution(input, weight, bias, stride, padding, dilation, output_padding, groups)
    if input.dim() == 5:
        return convolution3d(input, weight, bias, stride, padding, dilation, groups)
    if input.dim() != 3:
        return NotImplemented
    out = aten.convolution.default(input.unsqueeze(2), weight.unsqueeze(2), bias, [1, stride[0]],
                                   [0, padding[0]], [1, dilation[0]], False, [0, 0], groups)
    return out.squeeze(2)


def _tiles(kernel: Sequence[int], dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int]) -> bool:
    """Windows that tile the map: kernel = stride, no dilation or padding."""
    return list(kernel) == list(stride) and all(d == 1 for d in dilation) and all(p == 0 for p in padding)


def _torch_default(op: Any, *args: Any) -> Any:
    """torch's own decomposition of ``op`` (ConvBERT's overlapping unfold:
    a gather by constant indices, which the importer takes as slices)."""
    return torch_decompositions[op](*args)


def _im2col(input: torch.Tensor, kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
            stride: Sequence[int]) -> Any:
    if (not _tiles(kernel_size, dilation, padding, stride) or input.dim() not in (3, 4)
            or input.shape[-2] % kernel_size[0] or input.shape[-1] % kernel_size[1]):
        return _torch_default(aten.im2col.default, input, kernel_size, dilation, padding, stride)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    kh, kw = kernel_size
    cols = x.reshape(n, c, h // kh, kh, w // kw, kw).permute(0, 1, 3, 5, 2, 4)
    cols = cols.reshape(n, c * kh * kw, (h // kh) * (w // kw))
    return cols if input.dim() == 4 else cols.squeeze(0)


def _col2im(input: torch.Tensor, output_size: Sequence[int], kernel_size: Sequence[int],
            dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int]) -> Any:
    if input.dim() not in (2, 3):
        return _torch_default(aten.col2im.default, input, output_size, kernel_size, dilation, padding, stride)
    if (not _tiles(kernel_size, dilation, padding, stride)
            or output_size[0] % kernel_size[0] or output_size[1] % kernel_size[1]):
        return _overlapping_col2im(input, output_size, kernel_size, dilation, padding, stride)
    cols = input if input.dim() == 3 else input.unsqueeze(0)
    (h, w), (kh, kw) = output_size, kernel_size
    n, c = cols.shape[0], cols.shape[1] // (kh * kw)
    x = cols.reshape(n, c, kh, kw, h // kh, w // kw).permute(0, 1, 4, 2, 5, 3).reshape(n, c, h, w)
    return x if input.dim() == 3 else x.squeeze(0)


def _overlapping_col2im(input: torch.Tensor, output_size: Sequence[int], kernel_size: Sequence[int],
                        dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int]) -> Any:
    """``F.fold`` of windows that overlap (VOLO's outlook attention: kernel
    3, padding 1, stride 2) sums each window's columns into the map: a
    transposed convolution of the columns as (N, C k_h k_w, rows, cols)
    images, one group per channel, by a kernel that routes column i k_w + j
    of a channel to tap (i, j) (torch's own decomposition is a scatter-add,
    ``aten.index_put``, which the back end does not lower)."""
    cols = input if input.dim() == 3 else input.unsqueeze(0)
    (h, w), (kh, kw) = output_size, kernel_size
    rows = [(size + 2 * p - d * (k - 1) - 1) // s + 1
            for size, k, d, p, s in zip((h, w), (kh, kw), dilation, padding, stride)]
    channels = cols.shape[1] // (kh * kw)
    # the columns' extent short of the map (at most stride - 1 rows)
    extra = [size - ((r - 1) * s - 2 * p + d * (k - 1) + 1)
             for size, r, k, d, p, s in zip((h, w), rows, (kh, kw), dilation, padding, stride)]
    route = np.zeros((channels * kh * kw, 1, kh, kw), np.float32)
    column = np.arange(channels * kh * kw)  # channel c's column i k_w + j -> tap (i, j)
    route[column, 0, (column % (kh * kw)) // kw, column % kw] = 1.0
    x = transposed_convolution(cols.reshape(cols.shape[0], cols.shape[1], rows[0], rows[1]),
                               torch.from_numpy(route), None, stride, padding, dilation, extra, channels)
    return x if input.dim() == 3 else x.squeeze(0)


def _flip(input: torch.Tensor, dims: Sequence[int]) -> Any:
    """``flip`` (the backward half of Sequencer's bidirectional LSTMs) as
    the concatenation of the unit slices of each dimension in reverse
    order: data the back end moves, no arithmetic."""
    x = input
    for d in sorted({d % input.dim() for d in dims}):
        n = x.shape[d]
        if n > 1:
            x = aten.cat.default([aten.slice.Tensor(x, d, i, i + 1) for i in reversed(range(n))], d)
    return x if x is not input else aten.clone.default(input)


def _batch_statistics_norm(input: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                           training: bool, momentum: float, eps: float) -> Any:
    """Batch norm by the input's own statistics (``F.batch_norm(...,
    training=True)``: BiT's weight standardization normalizes each output
    channel's weights so; ``F.instance_norm`` normalizes each sample's
    channels so) as means and a reciprocal root: the per-channel mean and
    biased variance over every dimension but the channels, then the affine
    map. On weights the compiler computes it all. Also returns the mean and
    the reciprocal deviation per channel, as aten does."""
    if input.dim() < 2 or not input.dtype.is_floating_point:
        return NotImplemented
    dims = [0] + list(range(2, input.dim()))
    mean = aten.mean.dim(input, dims, True)
    centered = input - mean
    rstd = aten.rsqrt.default(aten.mean.dim(centered * centered, dims, True) + eps)
    out = centered * rstd
    channels = [1, input.shape[1]] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(channels)
    if bias is not None:
        out = out + bias.reshape(channels)
    return out, mean.reshape(-1), rstd.reshape(-1)


def _unfold(input: torch.Tensor, dimension: int, size: int, step: int) -> Any:
    """``x.unfold(d, size, step)`` (HaloNet's overlapping blocks): the
    windows along ``d`` as slices stacked on a new dimension at ``d``, the
    window's own positions moved last, as aten's view lays them out."""
    if input.dim() == 0:
        return NotImplemented
    d = dimension % input.dim()
    count = (input.shape[d] - size) // step + 1  # at least 1: torch checks size and step
    windows = [aten.slice.Tensor(input, d, i * step, i * step + size).unsqueeze(d) for i in range(count)]
    stacked = windows[0] if count == 1 else aten.cat.default(windows, d)
    return stacked.movedim(d + 1, -1)


def _group_norm(input: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, n: int, c: int,
                hw: int, group: int, eps: float) -> Any:
    grouped = input.reshape(n, group, (c // group) * hw)
    normed = aten.layer_norm.default(grouped, [grouped.shape[-1]], None, None, eps)
    out = normed.reshape(input.shape)
    channel = [1, c] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(channel)
    if bias is not None:
        out = out + bias.reshape(channel)
    # native_group_norm's saved statistics (training only: unused in an
    # inference graph, and removed as dead code).
    mean = grouped.mean(-1)
    rstd = torch.rsqrt((grouped - mean.unsqueeze(-1)).pow(2).mean(-1) + eps)
    return out, mean, rstd


def interpolation_matrix(size: int, out: int, mode: str = "half_pixel", scale: float | None = None,
                         linear: bool = True, cubic: float | None = None, exclude_outside: bool = False) -> np.ndarray:
    """The (out, size) matrix of a 1-d resize: row ``o`` holds the weights
    of output ``o``'s source elements. ``mode`` maps output coordinates to
    input ones as ONNX's ``coordinate_transformation_mode`` (torch's
    ``align_corners=False`` is ``half_pixel``, ``True`` is
    ``align_corners``); ``scale`` is the given factor, which the mapping
    uses instead of ``out / size`` (torch's ``scale_factor``). ``linear``:
    interpolate between the two nearest elements (source coordinates
    clamped to the input), else take the nearest one below (torch's
    nearest, ONNX's ``floor``). ``cubic``: Keys' cubic convolution with
    that coefficient (ONNX's ``cubic_coeff_a``, torch's bicubic -0.75)
    over the four elements around the source coordinate, those outside
    the input read at its edge, or with ``exclude_outside`` left out and
    the other weights scaled to sum to 1."""
    ratio = 1.0 / scale if scale else size / out
    o = np.arange(out, dtype=np.float64)
    if mode == "align_corners":
        src = o * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    elif mode == "asymmetric":
        src = o * ratio
    elif mode in ("half_pixel", "pytorch_half_pixel"):
        src = (o + 0.5) * ratio - 0.5
        if mode == "pytorch_half_pixel" and out == 1:
            src = np.zeros(out)
    else:
        raise ValueError(f"unknown coordinate mode '{mode}'")
    matrix = np.zeros((out, size), np.float64)
    rows = np.arange(out)
    if cubic is not None:
        low = np.floor(src).astype(np.int64)
        for tap in (-1, 0, 1, 2):
            x = np.abs(src - (low + tap))  # the tap's distance, below 1 for the two nearest
            weight = np.where(x < 1, ((cubic + 2) * x - (cubic + 3)) * x * x + 1,
                              ((cubic * x - 5 * cubic) * x + 8 * cubic) * x - 4 * cubic)
            at = low + tap
            if exclude_outside:
                weight = np.where((at >= 0) & (at < size), weight, 0.0)
            np.add.at(matrix, (rows, np.clip(at, 0, size - 1)), weight)
        if exclude_outside:
            matrix /= matrix.sum(axis=1, keepdims=True)
        return matrix.astype(np.float32)
    if not linear:
        matrix[rows, np.clip(np.floor(src).astype(np.int64), 0, size - 1)] = 1.0
        return matrix.astype(np.float32)
    src = np.clip(src, 0.0, size - 1)
    low = np.floor(src).astype(np.int64)
    high = np.minimum(low + 1, size - 1)
    fraction = src - low
    np.add.at(matrix, (rows, low), 1.0 - fraction)
    np.add.at(matrix, (rows, high), fraction)
    return matrix.astype(np.float32)


def resize_last_two(x: torch.Tensor, height: np.ndarray, width: np.ndarray) -> torch.Tensor:
    """``x`` (..., H, W) resized by the (OH, H) and (OW, W) matrices: a
    linear map along W, then along H (moved last for it); an identity
    matrix is skipped."""
    def along_last(t: torch.Tensor, matrix: np.ndarray) -> torch.Tensor:
        if matrix.shape[0] == matrix.shape[1] and np.array_equal(matrix, np.eye(matrix.shape[0])):
            return t
        return aten.linear.default(t, torch.from_numpy(matrix))

    y = along_last(x, width)
    return along_last(y.transpose(-1, -2), height).transpose(-1, -2)


def _interpolated(input: torch.Tensor, output_size: Sequence[int] | None, align_corners: bool,
                  scales_h: float | None = None, scales_w: float | None = None, cubic: float | None = None) -> Any:
    """torch's bilinear resize, or with ``cubic`` its bicubic one (Keys'
    cubic convolution, edges read at the border), as one interpolation
    matrix per axis."""
    if input.dim() != 4 or output_size is None:
        return NotImplemented
    mode = "align_corners" if align_corners else "half_pixel"
    (h, w), (oh, ow) = input.shape[2:], output_size
    # torch ignores the given scales with align_corners.
    return resize_last_two(input, interpolation_matrix(h, oh, mode, None if align_corners else scales_h, cubic=cubic),
                           interpolation_matrix(w, ow, mode, None if align_corners else scales_w, cubic=cubic))


def _bilinear(input: torch.Tensor, output_size: Sequence[int] | None, align_corners: bool,
              scales_h: float | None = None, scales_w: float | None = None) -> Any:
    return _interpolated(input, output_size, align_corners, scales_h, scales_w)


def _bicubic(input: torch.Tensor, output_size: Sequence[int] | None, align_corners: bool,
             scales_h: float | None = None, scales_w: float | None = None) -> Any:
    """(torch's bicubic coefficient is -0.75; its own decomposition gathers
    each of the 16 taps by index, hundreds of ops per resize.)"""
    return _interpolated(input, output_size, align_corners, scales_h, scales_w, cubic=-0.75)


def _by_factors(resize: Callable[..., Any]) -> Callable[..., Any]:
    """The ``.vec`` overload of a resize: an output size, or scale factors
    from which torch computes it."""
    def vec(input: torch.Tensor, output_size: Sequence[int] | None, align_corners: bool,
            scale_factors: Sequence[float] | None) -> Any:
        if input.dim() != 4:
            return NotImplemented
        if output_size is None:
            if scale_factors is None:
                return NotImplemented
            output_size = [int(s * f) for s, f in zip(input.shape[2:], scale_factors)]
            return resize(input, output_size, align_corners, *scale_factors)
        return resize(input, output_size, align_corners)
    return vec


def nearest_indices(size: int, out: int, scale: float | None = None) -> np.ndarray:
    """The source index of each of ``out`` outputs of torch's 2-d nearest
    resize of ``size`` elements (``scale``: the given scale factor), as its
    kernel computes it in float32: ``min(floor(o * s), size - 1)``, ``s`` =
    1 / scale or size / out; twice the size takes each element twice
    whatever the scale (its shortcut: 5 rows by 2.1 are 0, 0, 1, 1, ...,
    where the 1-d kernel reads 0, 0, 0, 1, ...)."""
    if out == size:
        return np.arange(out)
    if out == 2 * size:
        return np.arange(out) // 2
    s = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)
    return np.minimum(np.floor(np.arange(out).astype(np.float32) * s).astype(np.int64), size - 1)


def _nearest(input: torch.Tensor, output_size: Sequence[int] | None,
             scale_factors: Sequence[float] | None) -> Any:
    """Nearest upsampling that is not a whole repeat of each element
    (GhostNetV2 resizes a 3 x 3 gate to 7 x 7; a scale factor of 2.5 on 7
    rows reads rows 0, 0, 0, 1, 1, 2, 2, 2, ...): a selection of rows, then of columns,
    by constant indices, which the importer takes as slices of their runs.
    Whole repeats stay the view the back end upsamples."""
    if input.dim() != 4 or (output_size is None and scale_factors is None):
        return NotImplemented
    sizes = input.shape[2:]
    scales = list(scale_factors) if output_size is None else [None, None]
    if output_size is None:
        output_size = [int(math.floor(float(n) * f)) for n, f in zip(sizes, scales)]
    picks = [nearest_indices(n, o, s) for n, o, s in zip(sizes, output_size, scales)]
    if all(o % n == 0 and np.array_equal(p, np.arange(o) // (o // n)) for n, o, p in zip(sizes, output_size, picks)):
        return NotImplemented
    out = input
    for dim, p in ((2, picks[0]), (3, picks[1])):
        if not np.array_equal(p, np.arange(len(p))):
            out = aten.index_select.default(out, dim, torch.from_numpy(p))
    return out


def adaptive_pooling_matrix(size: int, out: int) -> np.ndarray:
    """The (out, size) matrix of 1-d adaptive average pooling: row ``o``
    averages elements ``floor(o size / out)`` to ``ceil((o + 1) size / out)``
    (exclusive), torch's windows, which overlap or repeat elements when
    ``out`` does not divide ``size``."""
    matrix = np.zeros((out, size), np.float64)
    for o in range(out):
        start, end = (o * size) // out, -((-(o + 1) * size) // out)
        matrix[o, start:end] = 1.0 / (end - start)
    return matrix.astype(np.float32)


def _adaptive_avg_pool(input: torch.Tensor, output_size: Sequence[int]) -> Any:
    """Adaptive average pooling whose output sizes do not divide the input
    (VGG and AlexNet below 224 x 224: 2 x 2 -> 7 x 7) as the products of
    :func:`resize_last_two`; dividing sizes stay pooling, which the back end
    lowers as windows."""
    if input.dim() != 4:
        return NotImplemented
    (h, w), (oh, ow) = input.shape[2:], output_size
    if h % oh == 0 and w % ow == 0:
        return NotImplemented
    return resize_last_two(input, adaptive_pooling_matrix(h, oh), adaptive_pooling_matrix(w, ow))


def _torch_affine(x: torch.Tensor, scale: float, shift: float) -> torch.Tensor:
    scaled = x if scale == 1.0 else x * scale
    return scaled if shift == 0.0 else scaled + shift


_TORCH_ACOS = AcosOps(relu=aten.relu.default, neg=aten.neg.default, add=lambda a, b: a + b, mul=lambda a, b: a * b,
                      affine=_torch_affine, at_least=lambda x, lo: aten.clamp.default(x, lo),
                      between=lambda x, lo, hi: aten.clamp.default(x, lo, hi),
                      sqrt=lambda x: aten.pow.Tensor_Scalar(x, 0.5))


def _acos(input: torch.Tensor) -> Any:
    """``acos`` (Yoso's attention, of cosines) as a polynomial
    (frontend/_acos.py: the back end has no inverse cosine)."""
    if input.dtype != torch.float32:
        return NotImplemented
    return acos_of(input, _TORCH_ACOS)


def _abs(input: torch.Tensor) -> Any:
    """``|x|`` from operators the back end lowers (exact: one of the two
    terms is 0)."""
    if not input.dtype.is_floating_point:
        return NotImplemented
    return aten.relu.default(input) + aten.relu.default(aten.neg.default(input))


def running_sum_matrix(n: int, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """The (n, n) weight (out, in) of a running sum along n elements as a
    linear map: row i sums elements 0..i (``exclusive``: 0..i-1; ``reverse``:
    from the end, i..n-1 or i+1..n-1), torch's ``cumsum`` and ONNX
    ``CumSum``'s attributes."""
    matrix = np.tril(np.ones((n, n), np.float32), -1 if exclusive else 0)
    return np.ascontiguousarray(matrix.T) if reverse else matrix


def _cumsum(input: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> Any:
    """A running sum of real data (Mamba2's segment sums) is linear: the
    summed dimension moved last and multiplied by
    :func:`running_sum_matrix` (an ``aten.linear``, crossbars), then moved
    back. Token ids (integers) keep torch's."""
    if not input.dtype.is_floating_point or (dtype is not None and dtype != input.dtype) or input.dim() == 0:
        return NotImplemented
    matrix = torch.from_numpy(running_sum_matrix(input.shape[dim])).to(input.dtype)
    return aten.linear.default(input.movedim(dim, -1), matrix).movedim(-1, dim)


def _softplus(input: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """``softplus`` (Mamba's step sizes) as relu(b x) + log1p(exp(-|b x|)),
    over b: no comparison at run time (torch's own decomposition selects x
    above the threshold with a ``where`` on a ``gt``), and exp never
    overflows. Above a threshold of 15 or more the second term is below
    float32's rounding of x (torch returns x there); a lower threshold
    (a coarser softplus than the formula's) keeps torch's decomposition."""
    if not input.dtype.is_floating_point or threshold < 15.0:
        return NotImplemented
    x = input * beta if beta != 1.0 else input
    y = aten.relu.default(x) + aten.log1p.default(aten.exp.default(aten.neg.default(_abs(x))))
    return y / beta if beta != 1.0 else y


def _prelu(input: torch.Tensor, weight: torch.Tensor) -> Any:
    """PReLU (ESPNet, SRGAN, face detectors) as relu(x) - w relu(-x), w per
    channel (dimension 1) or one for all: exact, as leaky ReLU below
    (torch's decomposition selects by a run-time comparison)."""
    if not input.dtype.is_floating_point:
        return NotImplemented
    if weight.numel() > 1 and input.dim() > 2:
        weight = weight.reshape([-1] + [1] * (input.dim() - 2))
    return aten.relu.default(input) - aten.relu.default(aten.neg.default(input)) * weight


def _exponential_linear(input: torch.Tensor, alpha: float = 1.0, scale: float = 1.0,
                        input_scale: float = 1.0) -> Any:
    """ELU (and SELU, torch's scaled ELU) as scale (relu(x) + alpha
    (exp(input_scale min(x, 0)) - 1)), min(x, 0) = -relu(-x): no run-time
    comparison; exp on activations is an extension instruction."""
    if not input.dtype.is_floating_point:
        return NotImplemented
    negative = aten.neg.default(aten.relu.default(aten.neg.default(input)))
    y = aten.relu.default(input) + (aten.exp.default(negative * input_scale) - 1.0) * alpha
    return y * scale if scale != 1.0 else y


def _celu(input: torch.Tensor, alpha: float = 1.0) -> Any:
    """CELU: max(0, x) + alpha (exp(min(0, x) / alpha) - 1), an ELU of the
    input over alpha."""
    return _exponential_linear(input, alpha, 1.0, 1.0 / alpha)


def _leaky_relu(input: torch.Tensor, negative_slope: float = 0.01) -> Any:
    """``leaky_relu`` (CSPDarknet's activation) as relu(x) - slope relu(-x):
    exact (for x < 0, 0 - slope (-x) is slope x to the bit)."""
    if not input.dtype.is_floating_point:
        return NotImplemented
    return aten.relu.default(input) - aten.relu.default(aten.neg.default(input)) * negative_slope


#: The decompositions, by the aten overload they replace.
DECOMPOSITIONS = {
    aten.abs.default: _abs,
    aten.leaky_relu.default: _leaky_relu,
    aten.prelu.default: _prelu,
    aten.elu.default: _exponential_linear,
    aten.celu.default: _celu,
    aten.softplus.default: _softplus,
    aten.cumsum.default: _cumsum,
    aten.acos.default: _acos,
    aten.convolution.default: _convolution,
    aten.im2col.default: _im2col,
    aten.col2im.default: _col2im,
    aten.flip.default: _flip,
    aten.unfold.default: _unfold,
    aten.native_group_norm.default: _group_norm,
    aten._native_batch_norm_legit.no_stats: _batch_statistics_norm,
    aten.upsample_bilinear2d.default: _bilinear,
    aten.upsample_bilinear2d.vec: _by_factors(_bilinear),
    aten.upsample_bicubic2d.default: _bicubic,
    aten.upsample_bicubic2d.vec: _by_factors(_bicubic),
    aten.upsample_nearest2d.vec: _nearest,
    aten._adaptive_avg_pool2d.default: _adaptive_avg_pool,
}
