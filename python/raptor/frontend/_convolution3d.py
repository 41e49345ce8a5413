"""A 3-d convolution (video models: torchvision's R3D, MC3, R(2+1)D) as
one 2-d convolution.

Output frame o reads input frames o * s_t + k (k < k_t, after the
temporal padding); stacking those frames on the channels (k major) makes
it a 2-d convolution by the kernel with its temporal taps moved to the
channels. Every output frame at once: the frames' stacks side by side
along the width, each padded by the spatial padding and to whole strides
(so no window spans two frames), one 2-d convolution, and a view and a
permutation that put the frames back on their own dimension (each frame's
columns past its output width cropped). The crossbars hold the kernel
once; the input is copied k_t times (its frames' stacks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

aten = torch.ops.aten


def convolution3d(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: Sequence[int],
                  padding: Sequence[int], dilation: Sequence[int], groups: int) -> Any:
    """``aten.convolution`` of a 5-d input (not transposed), or
    ``NotImplemented`` (groups, dilation)."""
    if input.dim() != 5 or groups != 1 or any(d != 1 for d in dilation):
        return NotImplemented
    n, c, _, h, w = input.shape
    co, _, kt, kh, kw = weight.shape
    (st, sh, sw), (pt, ph, pw) = stride, padding
    t_out = (input.shape[2] + 2 * pt - kt) // st + 1
    w_out = (w + 2 * pw - kw) // sw + 1
    block = -(-(w + 2 * pw) // sw) * sw  # a frame's columns, padded to whole strides
    x = aten.constant_pad_nd.default(input, [pw, block - w - pw, 0, 0, pt, pt])
    stacks = [x[:, :, o * st:o * st + kt].permute(0, 2, 1, 3, 4).reshape(n, kt * c, h, block)
              for o in range(t_out)]
    z = stacks[0] if t_out == 1 else aten.cat.default(stacks, 3)
    if kw > sw:  # the last frame's windows reach past its block
        z = aten.constant_pad_nd.default(z, [0, kw - sw])
    kernel = weight.permute(0, 2, 1, 3, 4).reshape(co, kt * c, kh, kw)
    y = aten.convolution.default(z, kernel, bias, [sh, sw], [ph, 0], [1, 1], False, [0, 0], 1)
    h_out = y.shape[2]
    y = y[:, :, :, :t_out * block // sw].reshape(n, co, h_out, t_out, block // sw)[:, :, :, :, :w_out]
    return y.permute(0, 1, 3, 2, 4)
