"""A transposed convolution as a convolution and a pixel shuffle.

A transposed convolution of stride s scatters each input position's
kernel-sized product into the output, s apart. Grouped by the output
positions' phase r = (o + padding) mod s, each phase is an ordinary
convolution of the input with the kernel taps m * s + r (m = 0 ..
ceil(k / s) - 1, reversed; taps beyond the kernel are zero), so one
convolution with C_out * s_h * s_w output channels computes every phase at
the input's resolution (no multiplications by inserted zeros), a pixel
shuffle interleaves the phases and a slice crops the padding. The weight's
rearrangement (zero padding, reshape, reversal, permutation) is traced on
the weight, which the compiler evaluates at compile time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

aten = torch.ops.aten


def _reversed(t: torch.Tensor, dim: int) -> torch.Tensor:
    return aten.index_select.default(t, dim, torch.arange(t.shape[dim] - 1, -1, -1))


def transposed_convolution(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                           stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                           output_padding: Sequence[int], groups: int) -> Any:
    """``aten.convolution`` with ``transposed=True`` on a 1-d or 2-d input
    (a 1-d one as 2-d of unit height), or ``NotImplemented`` (dilation)."""
    if input.dim() == 3:
        out = transposed_convolution(input.unsqueeze(2), weight.unsqueeze(2), bias, [1, stride[0]],
                                     [0, padding[0]], [1, dilation[0]], [0, output_padding[0]], groups)
        return NotImplemented if out is NotImplemented else out.squeeze(2)
    if input.dim() != 4 or any(d != 1 for d in dilation):
        return NotImplemented
    n, cin, h, w = input.shape
    _, cout_g, kh, kw = weight.shape
    (sh, sw), (ph, pw), (oh, ow), g = stride, padding, output_padding, groups
    mh, mw = -(-kh // sh), -(-kw // sw)
    out_h, out_w = (h - 1) * sh - 2 * ph + kh + oh, (w - 1) * sw - 2 * pw + kw + ow
    # Per group and phase (r_h, r_w): the taps m * s + r, reversed.
    taps = weight
    if (mh * sh, mw * sw) != (kh, kw):
        taps = aten.constant_pad_nd.default(taps, [0, mw * sw - kw, 0, mh * sh - kh])
    taps = taps.reshape(g, cin // g, cout_g, mh, sh, mw, sw)
    if mh > 1:
        taps = _reversed(taps, 3)
    if mw > 1:
        taps = _reversed(taps, 5)
    taps = taps.permute(0, 2, 4, 6, 1, 3, 5).reshape(g * cout_g * sh * sw, cin // g, mh, mw)
    phases_bias = None
    if bias is not None:
        phases_bias = bias.reshape(g * cout_g, 1).expand(g * cout_g, sh * sw).reshape(-1)
    # Phase rows q = 0 .. qh - 1 read input rows q - (mh - 1) .. q: the
    # input padded by mh - 1 before, and after as far as the output needs.
    qh, qw = max(h + mh - 1, -(-(out_h + ph) // sh)), max(w + mw - 1, -(-(out_w + pw) // sw))
    x = input
    if (mh, mw, qh, qw) != (1, 1, h, w):
        x = aten.constant_pad_nd.default(x, [mw - 1, qw - w, mh - 1, qh - h])
    z = aten.convolution.default(x, taps, phases_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], g)
    y = z.reshape(n, g * cout_g, sh, sw, qh, qw).permute(0, 1, 4, 2, 5, 3).reshape(n, g * cout_g, qh * sh, qw * sw)
    if (ph, pw, qh * sh, qw * sw) != (0, 0, out_h, out_w):
        y = y[:, :, ph:ph + out_h, pw:pw + out_w]
    return y
