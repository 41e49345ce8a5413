"""Convolution and pooling: Conv (asymmetric or automatic padding as an
explicit pad in front; a 1-d one as a 2-d one of unit height, a 3-d one
as a 2-d one of its frames' stacks side by side),
ConvTranspose (one convolution per output phase), MaxPool,
AveragePool over two spatial dimensions, GlobalAveragePool over any."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from mlir import ir

import torch

from raptor.dialects import nn

from ..._convolution3d import frame_plan, stacked_kernel
from ..._transposed_convolution import dilated, phase_plan, phase_taps
from ..errors import Unsupported
from ..tensors import decode, shape_of
from .base import rule

if TYPE_CHECKING:
    from ..state import ImportState


def _conv_padding(im: ImportState, a: dict[str, Any], x: ir.Value, kernel: list[int],
                  strides: list[int], dilations: list[int]) -> tuple[ir.Value, list[int]]:
    """Symmetric padding for the op, an explicit pad op in front otherwise."""
    n = len(kernel)
    auto = decode(a.get("auto_pad", "NOTSET"))
    spatial = shape_of(x)[2:]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begins, ends = [], []
        for size, k, s, d in zip(spatial, kernel, strides, dilations):
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small = total // 2
            begins.append(small if auto == "SAME_UPPER" else total - small)
            ends.append(total - begins[-1])
    elif auto == "VALID":
        begins, ends = [0] * n, [0] * n
    else:
        pads = list(a.get("pads", [0] * (2 * n)))
        begins, ends = pads[:n], pads[n:]
    if begins == ends:
        return x, begins
    pad: list[int] = []
    for b, e in reversed(list(zip(begins, ends))):
        pad += [b, e]
    return nn.ConstantPadNdOp(x, pad, value=0.0).result, [0] * n


@rule("Conv")
def _conv(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    b = im.tensor(node, 2)
    if len(shape_of(x)) == 5:
        return [_conv3d(im, node, a, x, b)]
    one_d = len(shape_of(x)) == 3 and im.is_const(node.input[1])
    # A 1-d convolution is a 2-d one of unit height: its weight gets the
    # height at import (a weight of its own), its input a view.
    w = im.param(f"{node.input[1]}.2d", im.const(node.input[1])[:, :, None, :]) if one_d \
        else im.value(node.input[1])
    kernel = shape_of(w)[2:]
    n = len(kernel) - 1 if one_d else len(kernel)  # the node's spatial axes (the defaults' length)
    strides = list(a.get("strides", [1] * n))
    dilations = list(a.get("dilations", [1] * n))
    if one_d:
        x, (padding,) = _conv_padding(im, a, x, kernel[1:], strides, dilations)
        strides, dilations = [1, *strides], [1, *dilations]
        rows = shape_of(x)
        x, padding = nn.ViewOp(x, [rows[0], rows[1], 1, rows[2]]).result, [0, padding]
    else:
        x, padding = _conv_padding(im, a, x, kernel, strides, dilations)
    out = nn.ConvolutionOp(x, w, strides, padding, dilations, bias=b, transposed=False,
                           output_padding=[0] * len(kernel), groups=a.get("group", 1)).result
    if one_d:
        sizes = shape_of(out)
        out = nn.ViewOp(out, [sizes[0], sizes[1], sizes[3]]).result
    return [out]


def _conv3d(im: ImportState, node: Any, a: dict[str, Any], x: ir.Value, b: ir.Value | None) -> ir.Value:
    """A 3-d convolution of a constant weight as one 2-d convolution
    (frontend/_convolution3d.py: the plan the torch importer follows)."""
    if not im.is_const(node.input[1]):
        raise Unsupported("a 3-d convolution of a weight computed at run time")
    weight = torch.from_numpy(im.const(node.input[1]).copy())
    kernel = list(weight.shape[2:])
    strides, dilations = list(a.get("strides", [1] * 3)), list(a.get("dilations", [1] * 3))
    groups = int(a.get("group", 1))
    x, padding = _conv_padding(im, a, x, kernel, strides, dilations)
    n, c, t, h, w = shape_of(x)
    plan = frame_plan((t, h, w), kernel, strides, padding, dilations)
    if any(plan.pad):
        x = nn.ConstantPadNdOp(x, list(plan.pad), value=0.0).result
    reach = (plan.taps - 1) * plan.step + 1
    stacks = []
    for start in plan.starts:
        frames = nn.SliceOp(x, dim=2, start=start, end=start + reach, step=plan.step).result
        frames = nn.ViewOp(frames, [n, groups, c // groups, plan.taps, h, plan.block]).result
        frames = nn.PermuteOp(frames, [0, 1, 3, 2, 4, 5]).result
        stacks.append(nn.ViewOp(frames, [n, plan.taps * c, h, plan.block]).result)
    z = stacks[0] if len(stacks) == 1 else nn.CatOp(stacks, dim=3).result
    if plan.tail:
        z = nn.ConstantPadNdOp(z, [0, plan.tail], value=0.0).result
    kernel_value = im.param(f"{node.input[1]}.frames", stacked_kernel(weight).contiguous().numpy())
    y = nn.ConvolutionOp(z, kernel_value, strides[1:], [padding[1], 0], dilations[1:], bias=b, transposed=False,
                         output_padding=[0, 0], groups=groups).result
    co, rows, columns = weight.shape[0], shape_of(y)[2], plan.block // strides[2]
    if shape_of(y)[3] != plan.frames * columns:
        y = nn.SliceOp(y, dim=3, start=0, end=plan.frames * columns).result
    y = nn.ViewOp(y, [n, co, rows, plan.frames, columns]).result
    if plan.width != columns:
        y = nn.SliceOp(y, dim=4, start=0, end=plan.width).result
    return nn.PermuteOp(y, [0, 1, 3, 2, 4]).result


@rule("ConvTranspose")
def _conv_transpose(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """A transposed convolution of a constant weight as one convolution per
    output phase and a pixel shuffle (frontend/_transposed_convolution.py;
    the phases' taps computed at import, dilation as zero taps); a 1-d one
    as 2-d of unit height."""
    x = im.value(node.input[0])
    if not im.is_const(node.input[1]):
        raise Unsupported("a transposed convolution of a weight computed at run time")
    weight = im.const(node.input[1])
    one_d = len(shape_of(x)) == 3
    if one_d:
        weight = weight[:, :, None, :]
    n = 1 if one_d else 2
    if len(shape_of(x)) != n + 2 or decode(a.get("auto_pad", "NOTSET")) != "NOTSET" or "output_shape" in a:
        raise Unsupported("a transposed convolution with automatic padding or an output shape")
    dilation = list(a.get("dilations", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    stride, begin, end = list(a.get("strides", [1] * n)), pads[:n], pads[n:]
    extra = list(a.get("output_padding", [0] * n))
    if one_d:
        x = nn.ViewOp(x, [shape_of(x)[0], shape_of(x)[1], 1, shape_of(x)[2]]).result
        stride, begin, end, extra, dilation = [1, *stride], [0, *begin], [0, *end], [0, *extra], [1, *dilation]
    groups = int(a.get("group", 1))
    weight = dilated(torch.from_numpy(weight.copy()), dilation).contiguous().numpy()
    batch, _, h, w = shape_of(x)
    plan = phase_plan((h, w), weight.shape[2:], stride, begin, end, extra)
    bias = im.optional_const(node, 2)
    taps, phase_bias = phase_taps(torch.from_numpy(weight.copy()),
                                  None if bias is None else torch.from_numpy(bias.copy()), stride, groups)
    taps_value = im.param(f"{node.input[1]}.phases", taps.contiguous().numpy())
    bias_value = None if phase_bias is None else im.param(f"{node.input[2]}.phases", phase_bias.contiguous().numpy())
    if any(plan.pad):
        x = nn.ConstantPadNdOp(x, list(plan.pad), value=0.0).result
    z = nn.ConvolutionOp(x, taps_value, [1, 1], [0, 0], [1, 1], bias=bias_value, transposed=False,
                         output_padding=[0, 0], groups=groups).result
    channels, (sh, sw), (qh, qw) = groups * weight.shape[1], stride, plan.rows
    y = nn.ViewOp(z, [batch, channels, sh, sw, qh, qw]).result
    y = nn.PermuteOp(y, [0, 1, 4, 2, 5, 3]).result
    y = nn.ViewOp(y, [batch, channels, qh * sh, qw * sw]).result
    for axis, (start, size, full) in enumerate(zip(plan.crop, plan.out, (qh * sh, qw * sw)), 2):
        if (start, start + size) != (0, full):
            y = nn.SliceOp(y, dim=axis, start=start, end=start + size).result
    if one_d:
        y = nn.ViewOp(y, [batch, channels, plan.out[1]]).result
    return [y]


def _pool_params(a: dict[str, Any], n: int) -> tuple[list[int], list[int], list[int]]:
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    if decode(a.get("auto_pad", "NOTSET")) not in ("NOTSET", "VALID") or pads[:n] != pads[n:]:
        raise Unsupported("asymmetric or automatic pooling padding")
    return kernel, strides, pads[:n]


def _one_row(a: dict[str, Any]) -> dict[str, Any]:
    """A 1-d pooling's attributes for the 2-d pooling of a map of one row
    (N, C, 1, L): SEW's AvgPool1d."""
    a = dict(a)
    a["kernel_shape"] = [1, *a["kernel_shape"]]
    for name in ("strides", "dilations"):
        if name in a:
            a[name] = [1, *a[name]]
    if "pads" in a:
        pads = list(a["pads"])
        a["pads"] = [0, pads[0], 0, pads[1]]
    return a


def _pooled(x: ir.Value, pool: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """`pool` (2-d) of x, a 1-d map viewed as one row and back."""
    shape = shape_of(x)
    if len(shape) == 4:
        return pool(x)
    y = pool(nn.ViewOp(x, [shape[0], shape[1], 1, shape[2]]).result)
    out = shape_of(y)
    return nn.ViewOp(y, [out[0], out[1], out[3]]).result


@rule("MaxPool")
def _max_pool(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    rank = len(shape_of(x))
    if rank not in (3, 4) or (len(node.output) > 1 and node.output[1]) or a.get("storage_order", 0):
        raise Unsupported("not a 1-d or 2-d max pooling")
    a = _one_row(a) if rank == 3 else a
    kernel, strides, pads = _pool_params(a, 2)
    return [_pooled(x, lambda v: nn.MaxPool2dOp(v, kernel, stride=strides, padding=pads,
                                                dilation=list(a.get("dilations", [1, 1])),
                                                ceil_mode=bool(a.get("ceil_mode", 0))).results[0])]


@rule("AveragePool")
def _avg_pool(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    rank = len(shape_of(x))
    a = _one_row(a) if rank == 3 else a
    if rank not in (3, 4) or list(a.get("dilations", [1, 1])) != [1, 1]:
        raise Unsupported("not a 1-d or 2-d average pooling")
    kernel, strides, pads = _pool_params(a, 2)
    return [_pooled(x, lambda v: nn.AvgPool2dOp(v, kernel, stride=strides, padding=pads,
                                                ceil_mode=bool(a.get("ceil_mode", 0)),
                                                count_include_pad=bool(a.get("count_include_pad", 0))).result)]


@rule("GlobalAveragePool")
def _global_avg_pool(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """The mean over every spatial axis: a 1-d or 3-d map viewed as 2-d
    (its leading spatial axes as rows)."""
    x = im.value(node.input[0])
    shape = shape_of(x)
    if len(shape) < 3:
        raise Unsupported("no spatial axis")
    if len(shape) != 4:
        rows = 1
        for size in shape[2:-1]:
            rows *= size
        x = nn.ViewOp(x, [shape[0], shape[1], rows, shape[-1]]).result
    y = nn.AdaptiveAvgPool2dOp(x, [1, 1]).result
    return [y if len(shape) == 4 else nn.ViewOp(y, [*shape[:2], *[1] * (len(shape) - 2)]).result]
