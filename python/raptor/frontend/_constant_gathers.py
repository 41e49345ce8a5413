"""``torch.gather`` (ONNX ``GatherElements``) by a constant index tensor as
data movement.

``gather(x, dim, index)`` reads ``x`` at the position of each index element
with its ``dim`` coordinate replaced by the index value. With the index
known at import (DeBERTa's relative-position attention: ``index[i, j] =
i - j + span`` over query and key positions, broadcast over batch and
heads), every output element reads one fixed element of ``x``'s row-major
sequence; the rewrite computes those flat offsets with torch and emits:

- when they are affine in the output coordinates (DeBERTa's, while no
  position is clamped), one ``as_strided`` view of ``x``, the dimensions
  whose stride is negative read backwards by reversing them (slices of
  single positions, concatenated);
- when the index is a function g of i - j (one other dimension i, the
  gathered one j: relative-position buckets, SEW-D's and DeBERTa-v2's log
  buckets, clamped relative positions), the I + J - 1 columns of g taken
  first (the slices of their runs), then the affine skew
  ``z[i, i - j + J - 1]``;
- otherwise, while the offsets form at most ``MAX_RUNS`` runs of
  consecutive elements, ``x`` flattened, the slices of those runs
  concatenated, and a view to the index's shape.

Beyond that the gather stays as it is (the back end's one-line error).
Both importers follow :func:`gather_plan`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import fx

from ._fx_rewrites import _is, _runs_of, evaluate
from ._index_runs import index_runs

aten = torch.ops.aten

#: The most runs of consecutive elements a non-affine gather is imported as.
MAX_RUNS = 4096


def _flat_offsets(shape: list[int], dim: int, index: torch.Tensor) -> torch.Tensor:
    """The row-major offset in ``x`` (of ``shape``) each output element of
    ``gather(x, dim, index)`` reads."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    flat = torch.zeros(index.shape, dtype=torch.int64)
    for d, n in enumerate(index.shape):
        coordinate = index.to(torch.int64) if d == dim else torch.arange(n).view(
            [n if k == d else 1 for k in range(index.dim())])
        flat = flat + coordinate * strides[d]
    return flat


def _affine(flat: torch.Tensor) -> tuple[int, list[int]] | None:
    """(offset, strides) with ``flat[p] == offset + sum(p[k] * strides[k])``
    for every p, or None."""
    origin = int(flat.flatten()[0])
    strides = []
    for d, n in enumerate(flat.shape):
        strides.append(int(flat.narrow(d, 1, 1).flatten()[0]) - origin if n > 1 else 0)
    grid = torch.full(flat.shape, origin, dtype=torch.int64)
    for d, (n, s) in enumerate(zip(flat.shape, strides)):
        grid = grid + torch.arange(n).view([n if k == d else 1 for k in range(flat.dim())]) * s
    return (origin, strides) if torch.equal(grid, flat) else None


@dataclass(frozen=True)
class GatherPlan:
    """How a gather by a constant index moves data (both importers emit
    it): ``columns``, when given, the positions along the gathered
    dimension taken first (the slices of their runs); then ``strided``
    (shape, strides, start, the dimensions read backwards) of one
    ``as_strided`` over the row-major sequence, or else ``runs``, the flat
    offsets each output element reads (at most MAX_RUNS runs)."""

    strided: tuple[list[int], list[int], int, list[int]] | None
    runs: list[int] | None
    columns: list[int] | None = None


def _relative_columns(index: torch.Tensor, dim: int) -> tuple[int, list[int]] | None:
    """(r, g) when ``index`` varies along ``dim`` (j) and one other
    dimension r (i) only, as a function of i - j: index[i, j] = g[i - j +
    J - 1] (relative-position buckets: SEW-D's and DeBERTa-v2's log buckets,
    clamped relative positions), else None."""
    varying = [d for d in range(index.dim()) if d != dim and index.shape[d] > 1
               and not torch.equal(index, index.narrow(d, 0, 1).expand_as(index))]
    if len(varying) != 1:
        return None
    r = varying[0]
    plane = index
    for d in range(index.dim()):
        if d not in (r, dim):
            plane = plane.narrow(d, 0, 1)
    plane = plane.reshape(index.shape[r], index.shape[dim]) if r < dim else \
        plane.reshape(index.shape[dim], index.shape[r]).t()
    rows, cols = plane.shape
    g = torch.full((rows + cols - 1,), -1, dtype=torch.int64)
    offset = (torch.arange(rows)[:, None] - torch.arange(cols)[None, :]) + cols - 1
    g[offset.flatten()] = plane.flatten().to(torch.int64)
    if not torch.equal(g[offset], plane.to(torch.int64)):
        return None
    return r, g.tolist()


def gather_plan(shape: list[int], dim: int, index: torch.Tensor) -> GatherPlan | None:
    """The plan of ``gather(x, dim, index)`` for ``x`` of ``shape``, or None
    (an index out of range or of another rank, or too many runs: torch's or
    the back end's error stands)."""
    dim %= len(shape)
    if (index.dtype not in (torch.int64, torch.int32) or index.dim() != len(shape) or index.numel() == 0
            or any(index.shape[d] > shape[d] for d in range(len(shape)) if d != dim)
            or bool(((index < -shape[dim]) | (index >= shape[dim])).any())):
        return None
    flat = _flat_offsets(shape, dim, index % shape[dim])
    out = list(index.shape)
    if (affine := _affine(flat)) is not None:
        origin, strides = affine
        backwards = [d for d, s in enumerate(strides) if s < 0]
        start = origin + sum(strides[d] * (out[d] - 1) for d in backwards)
        return GatherPlan((out, [abs(s) for s in strides], start, backwards), None)
    # A function of i - j: the columns g first (I + J - 1 of them), then
    # out[i, j] = z[i, i - j + J - 1], affine.
    if (relative := _relative_columns(index % shape[dim], dim)) is not None:
        r, columns = relative
        rows, cols = index.shape[r], index.shape[dim]
        skew = (torch.arange(rows).view([rows if d == r else 1 for d in range(index.dim())])
                - torch.arange(cols).view([cols if d == dim else 1 for d in range(index.dim())]) + cols - 1)
        selected = [len(columns) if d == dim else n for d, n in enumerate(shape)]
        inner = gather_plan(selected, dim, skew.expand(index.shape).contiguous())
        if inner is not None and inner.strided is not None:
            return GatherPlan(inner.strided, None, columns)
    runs = flat.flatten().tolist()
    return GatherPlan(None, runs) if len(index_runs(runs)) <= MAX_RUNS else None


def _node(graph: fx.Graph, like: fx.Node, target: Any, args: tuple, shape: list[int]) -> fx.Node:
    node = graph.call_function(target, args)
    node.meta = {**like.meta, "val": like.meta["val"].new_empty(shape)}
    return node


def constant_gathers(graph: fx.Graph, constant: set[fx.Node], values: dict[fx.Node, Any]) -> int:
    """Replaces each ``aten.gather`` by a constant index (this module's
    docstring); returns how many."""
    count = 0
    for node in list(graph.nodes):
        if node in constant or not _is(node, aten.gather.default) or node.kwargs.get("sparse_grad"):
            continue
        source, dim, index_node = node.args[:3]
        if not (isinstance(index_node, fx.Node) and index_node in constant and isinstance(dim, int)):
            continue
        index = evaluate(index_node, values)
        shape = list(source.meta["val"].shape)
        plan = gather_plan(shape, dim, index) if isinstance(index, torch.Tensor) else None
        if plan is None:
            continue
        with graph.inserting_before(node):
            if plan.columns is not None:
                source = _runs_of(graph, node, source, dim % len(shape), plan.columns)
                source.meta = {**node.meta, "val": node.meta["val"].new_empty(
                    [len(plan.columns) if d == dim % len(shape) else n for d, n in enumerate(shape)])}
            if plan.strided is not None:
                size, strides, start, backwards = plan.strided
                out = _node(graph, node, aten.as_strided.default, (source, size, strides, start), size)
                for d in backwards:
                    out = _runs_of(graph, node, out, d, list(range(size[d] - 1, -1, -1)))
                    out.meta = {**node.meta, "val": node.meta["val"].new_empty(size)}
            else:
                line = _node(graph, source, aten.view.default, (source, [math.prod(shape)]), [math.prod(shape)])
                gathered = _runs_of(graph, node, line, 0, plan.runs)
                gathered.meta = {**node.meta, "val": node.meta["val"].new_empty([len(plan.runs)])}
                out = _node(graph, node, aten.view.default, (gathered, list(index.shape)), list(index.shape))
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
