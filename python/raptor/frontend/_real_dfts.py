"""The real or imaginary part of a discrete Fourier transform of real data
as products by constant matrices.

FNet mixes tokens with ``torch.fft.fftn(x, dim=(1, 2)).real``, which
torch.export leaves as ``select(view_as_real(_fft_c2c(x as complex)), -1,
0)``: complex tensors, which no back end here holds. Along one dimension of
size N the transform is the matrix F = C - i S (C[k, n] = cos(2 pi k n / N),
S[k, n] = sin(2 pi k n / N); + i S for the inverse); over several
dimensions it is their product, so its real part is the sum over the
subsets T of the dimensions with an even count of sine factors of
(-1)^(|T| / 2) times C or S applied along each dimension (the imaginary part:
odd counts), each a linear layer with a constant weight, the dimension
moved last and back. FNet's (12, 32) transform becomes C_s X C_h - S_s X S_h:
four products by constant matrices, which crossbars hold.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import torch
from torch import fx

from ._fx_rewrites import Computed, _is

aten = torch.ops.aten
COMPLEX = (torch.complex64, torch.complex128)


def dft_matrices(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(C, S) of an n-point transform, float32 (angles reduced exactly:
    k n mod n before the cosine)."""
    k = torch.arange(n, dtype=torch.float64)
    angle = 2 * math.pi * ((k[:, None] * k[None, :]) % n) / n
    return torch.cos(angle).float(), torch.sin(angle).float()


def _node(graph: fx.Graph, like: fx.Node, target: Any, args: tuple, val: torch.Tensor) -> fx.Node:
    node = graph.call_function(target, args)
    node.meta = {**like.meta, "val": val}
    return node


def _along(graph: fx.Graph, like: fx.Node, x: fx.Node, dim: int, matrix: torch.Tensor, name: str,
           constant: set[fx.Node], values: dict[fx.Node, Any]) -> fx.Node:
    """``matrix`` applied along ``dim`` of ``x`` (a linear layer by a
    constant, the dimension moved last and back)."""
    val = x.meta["val"]
    last = val.dim() - 1
    weight = _node(graph, like, Computed(matrix, name), (), matrix)
    constant.add(weight)
    values[weight] = matrix
    swap = list(range(val.dim()))
    swap[dim], swap[last] = last, dim
    if dim != last:
        x = _node(graph, like, aten.permute.default, (x, swap), val.permute(swap))
    y = _node(graph, like, aten.linear.default, (x, weight), x.meta["val"].new_empty(x.meta["val"].shape))
    if dim != last:
        y = _node(graph, like, aten.permute.default, (y, swap), val.new_empty(val.shape))
    return y


def real_dfts(graph: fx.Graph, constant: set[fx.Node], values: dict[fx.Node, Any]) -> int:
    """Replaces each real or imaginary part of a transform of real data
    (this module's docstring); returns how many."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.select.int) or not _is(node.args[0], aten.view_as_real.default):
            continue
        fft = node.args[0].args[0]
        if not _is(fft, aten._fft_c2c.default) or not _is(fft.args[0], aten._to_copy.default):
            continue
        cast, (dims, normalization, forward) = fft.args[0], fft.args[1:4]
        x = cast.args[0]
        val = x.meta.get("val") if isinstance(x, fx.Node) else None
        rank = node.args[0].meta["val"].dim()
        if (cast.kwargs.get("dtype") not in COMPLEX or val is None or not val.dtype.is_floating_point
                or node.args[1] % rank != rank - 1 or node.args[2] not in (0, 1)):
            continue
        dims = sorted(d % val.dim() for d in dims)
        part, sign = node.args[2], -1 if forward else 1
        points = math.prod(val.shape[d] for d in dims)
        scale = {0: 1.0, 1: 1 / math.sqrt(points), 2: 1 / points}[normalization]
        with graph.inserting_before(node):
            total = None
            for sines in itertools.product((False, True), repeat=len(dims)):
                t = sum(sines)
                if t % 2 != part:
                    continue
                # (sign i)^t: real (-1)^(t/2) sign^t; imaginary (-1)^((t-1)/2) sign^t.
                coefficient = (-1) ** (t // 2) * sign ** t * scale
                y = x
                for d, sine in zip(dims, sines):
                    c, s = dft_matrices(val.shape[d])
                    y = _along(graph, node, y, d, s if sine else c, "dft_sin" if sine else "dft_cos", constant,
                               values)
                if coefficient != 1:
                    y = _node(graph, node, aten.mul.Tensor, (y, coefficient), val.new_empty(val.shape))
                total = y if total is None else _node(graph, node, aten.add.Tensor, (total, y),
                                                      val.new_empty(val.shape))
        total.meta = dict(node.meta)
        node.replace_all_uses_with(total)
        graph.erase_node(node)
        count += 1
    return count
