"""A transposed convolution as a convolution and a pixel shuffle.

A transposed convolution of stride s scatters each input position's
kernel-sized product into the output, s apart. Grouped by the output
positions' phase r = (o + padding) mod s, each phase is an ordinary
convolution of the input with the kernel taps m * s + r (m = 0 ..
ceil(k / s) - 1, reversed; taps beyond the kernel are zero), so one
convolution with C_out * s_h * s_w output channels computes every phase at
the input's resolution (no multiplications by inserted zeros), a pixel
shuffle interleaves the phases and a slice crops the padding. A dilated
one is the undilated one by its kernel with zero taps in between.

Both importers use the same plan (:func:`phase_plan`) and taps
(:func:`phase_taps`): the torch one traces them on the weight at export
(the compiler evaluates the rearrangement), the ONNX one computes the taps
of its constant weight at import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

aten = torch.ops.aten


@dataclass(frozen=True)
class PhasePlan:
    """The geometry of a 2-d transposed convolution's phases: ``taps``
    (per axis, ceil(kernel / stride)), ``rows`` (per axis, the phase
    convolution's output positions), ``pad`` (of its input, as
    ``constant_pad_nd`` takes it: last axis first, before then after),
    ``out`` (the result's size per axis) and ``crop`` (where it starts in
    the interleaved phases)."""

    taps: tuple[int, int]
    rows: tuple[int, int]
    pad: tuple[int, int, int, int]
    out: tuple[int, int]
    crop: tuple[int, int]


def phase_plan(size: Sequence[int], kernel: Sequence[int], stride: Sequence[int], pad_begin: Sequence[int],
               pad_end: Sequence[int], output_padding: Sequence[int]) -> PhasePlan:
    """The phases of a transposed convolution of a (height, width) input."""
    taps, rows, out = [], [], []
    for n, k, s, b, e, extra in zip(size, kernel, stride, pad_begin, pad_end, output_padding):
        m = -(-k // s)
        o = (n - 1) * s - b - e + k + extra
        taps.append(m)
        out.append(o)
        # Phase positions q read input positions q - (m - 1) .. q: the input
        # padded by m - 1 before, and after as far as the output needs.
        rows.append(max(n + m - 1, -(-(o + b) // s)))
    (mh, mw), (qh, qw), (h, w) = taps, rows, size
    return PhasePlan((mh, mw), (qh, qw), (mw - 1, qw - w, mh - 1, qh - h), (out[0], out[1]),
                     (pad_begin[0], pad_begin[1]))


def dilated(weight: torch.Tensor, dilation: Sequence[int]) -> torch.Tensor:
    """A kernel with dilation - 1 zero taps between its taps: a dilated
    transposed convolution is the undilated one by this kernel."""
    if all(d == 1 for d in dilation):
        return weight
    cin, cout, kh, kw = weight.shape
    dh, dw = dilation
    spread = aten.constant_pad_nd.default(weight.reshape(cin, cout, kh, 1, kw, 1), [0, dw - 1, 0, 0, 0, dh - 1])
    spread = spread.reshape(cin, cout, kh * dh, kw * dw)
    return spread[:, :, :(kh - 1) * dh + 1, :(kw - 1) * dw + 1]


def _reversed(t: torch.Tensor, dim: int) -> torch.Tensor:
    return aten.index_select.default(t, dim, torch.arange(t.shape[dim] - 1, -1, -1))


def phase_taps(weight: torch.Tensor, bias: torch.Tensor | None, stride: Sequence[int],
               groups: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The phase convolution's weight (C_out * s_h * s_w, C_in / groups,
    taps_h, taps_w), per group and phase the taps m * s + r reversed, and
    its bias (each channel's for each of its phases) from a transposed
    convolution's weight (C_in, C_out / groups, k_h, k_w) and bias."""
    cin, cout_g, kh, kw = weight.shape
    (sh, sw), g = stride, groups
    mh, mw = -(-kh // sh), -(-kw // sw)
    taps = weight
    if (mh * sh, mw * sw) != (kh, kw):
        taps = aten.constant_pad_nd.default(taps, [0, mw * sw - kw, 0, mh * sh - kh])
    taps = taps.reshape(g, cin // g, cout_g, mh, sh, mw, sw)
    if mh > 1:
        taps = _reversed(taps, 3)
    if mw > 1:
        taps = _reversed(taps, 5)
    taps = taps.permute(0, 2, 4, 6, 1, 3, 5).reshape(g * cout_g * sh * sw, cin // g, mh, mw)
    if bias is None:
        return taps, None
    return taps, bias.reshape(g * cout_g, 1).expand(g * cout_g, sh * sw).reshape(-1)


def transposed_convolution(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                           stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                           output_padding: Sequence[int], groups: int) -> Any:
    """``aten.convolution`` with ``transposed=True`` on a 1-d or 2-d input
    (a 1-d one as 2-d of unit height; dilation as zero taps)."""
    if input.dim() == 3:
        out = transposed_convolution(input.unsqueeze(2), weight.unsqueeze(2), bias, [1, stride[0]],
                                     [0, padding[0]], [1, dilation[0]], [0, output_padding[0]], groups)
        return NotImplemented if out is NotImplemented else out.squeeze(2)
    if input.dim() != 4:
        return NotImplemented
    weight = dilated(weight, dilation)
    n, _, h, w = input.shape
    (sh, sw), channels = stride, groups * weight.shape[1]
    plan = phase_plan((h, w), weight.shape[2:], stride, padding, padding, output_padding)
    taps, phase_bias = phase_taps(weight, bias, stride, groups)
    x = aten.constant_pad_nd.default(input, list(plan.pad)) if any(plan.pad) else input
    z = aten.convolution.default(x, taps, phase_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], groups)
    (qh, qw), (oh, ow), (ch, cw) = plan.rows, plan.out, plan.crop
    y = z.reshape(n, channels, sh, sw, qh, qw).permute(0, 1, 4, 2, 5, 3).reshape(n, channels, qh * sh, qw * sw)
    if (ch, cw, qh * sh, qw * sw) != (0, 0, oh, ow):
        y = y[:, :, ch:ch + oh, cw:cw + ow]
    return y
