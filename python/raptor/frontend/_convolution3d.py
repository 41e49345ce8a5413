"""A 3-d convolution (video models: torchvision's R3D, MC3, R(2+1)D) as
one 2-d convolution.

Output frame o reads input frames o * s_t + k * d_t (k < k_t, after the
temporal padding); stacking those frames on the channels makes it a 2-d
convolution by the kernel with its temporal taps moved to the channels
(within each group: channels ordered group, tap, channel, so that a group
still owns one run of channels). Every output frame at once: the frames'
stacks side by side along the width, each padded by the spatial padding
and to whole strides (so no window spans two frames), one 2-d
convolution, and a view and a permutation that put the frames back on
their own dimension (each frame's columns past its output width cropped).
The crossbars hold the kernel once; the input is copied k_t times (its
frames' stacks).

`frame_plan` is the geometry, shared by the torch importer (aten ops,
`convolution3d`) and the ONNX one (`Conv` on 5-d inputs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

aten = torch.ops.aten


@dataclass(frozen=True)
class FramePlan:
    """Where a 3-d convolution's 2-d stand-in reads and writes."""

    pad: tuple[int, ...]  # constant_pad_nd of the 5-d input (width, height, time; begin, end)
    starts: tuple[int, ...]  # each output frame's first input frame, after the padding
    step: int  # input frames between two taps (the temporal dilation)
    taps: int  # temporal taps
    block: int  # a frame's columns in the side-by-side stacks (a whole number of strides)
    tail: int  # columns padded after the last stack (its windows reach past its block)
    width: int  # output columns per frame

    @property
    def frames(self) -> int:
        return len(self.starts)


def frame_plan(size: Sequence[int], kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
               dilation: Sequence[int]) -> FramePlan:
    """The plan of a 3-d convolution of input frames (t, h, w) by a kernel
    (k_t, k_h, k_w), symmetric padding."""
    (t, _, w), (kt, _, kw), (st, _, sw), (pt, _, pw), (dt, _, dw) = size, kernel, stride, padding, dilation
    reach_t, reach_w = (kt - 1) * dt + 1, (kw - 1) * dw + 1
    frames = (t + 2 * pt - reach_t) // st + 1
    block = -(-(w + 2 * pw) // sw) * sw
    return FramePlan(pad=(pw, block - w - pw, 0, 0, pt, pt), starts=tuple(o * st for o in range(frames)),
                     step=dt, taps=kt, block=block, tail=max(0, reach_w - sw),
                     width=(w + 2 * pw - reach_w) // sw + 1)


def stacked_kernel(weight: torch.Tensor) -> torch.Tensor:
    """The 2-d kernel (c_out, k_t * c_in / groups, k_h, k_w), taps major
    within each group's channels."""
    co, cg, kt, kh, kw = weight.shape
    return weight.permute(0, 2, 1, 3, 4).reshape(co, kt * cg, kh, kw)


def convolution3d(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: Sequence[int],
                  padding: Sequence[int], dilation: Sequence[int], groups: int) -> Any:
    """``aten.convolution`` of a 5-d input (not transposed), or
    ``NotImplemented``."""
    if input.dim() != 5:
        return NotImplemented
    n, c, _, h, _ = input.shape
    co = weight.shape[0]
    plan = frame_plan(input.shape[2:], weight.shape[2:], stride, padding, dilation)
    x = aten.constant_pad_nd.default(input, list(plan.pad))
    reach = (plan.taps - 1) * plan.step + 1
    stacks = [x[:, :, s:s + reach:plan.step].reshape(n, groups, c // groups, plan.taps, h, plan.block)
              .permute(0, 1, 3, 2, 4, 5).reshape(n, plan.taps * c, h, plan.block) for s in plan.starts]
    z = stacks[0] if plan.frames == 1 else aten.cat.default(stacks, 3)
    if plan.tail:
        z = aten.constant_pad_nd.default(z, [0, plan.tail])
    y = aten.convolution.default(z, stacked_kernel(weight), bias, list(stride[1:]), [padding[1], 0],
                                 list(dilation[1:]), False, [0, 0], groups)
    columns = plan.block // stride[2]
    y = y[:, :, :, :plan.frames * columns].reshape(n, co, y.shape[2], plan.frames, columns)[:, :, :, :, :plan.width]
    return y.permute(0, 1, 3, 2, 4)
