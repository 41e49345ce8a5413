"""``torch.gather`` by a constant index tensor as data movement.

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
- otherwise, while the offsets form at most ``MAX_RUNS`` runs of
  consecutive elements, ``x`` flattened, the slices of those runs
  concatenated, and a view to the index's shape.

Beyond that the gather stays as it is (the back end's one-line error).
"""

from __future__ import annotations

import math
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


def _node(graph: fx.Graph, like: fx.Node, target: Any, args: tuple, shape: list[int]) -> fx.Node:
    node = graph.call_function(target, args)
    node.meta = {**like.meta, "val": like.meta["val"].new_empty(shape)}
    return node


def _strided(graph: fx.Graph, node: fx.Node, source: fx.Node, origin: int, strides: list[int]) -> fx.Node:
    """``as_strided`` reading ``origin + sum(p[k] * strides[k])``, the
    dimensions of negative stride reversed."""
    shape = list(node.meta["val"].shape)
    backwards = [d for d, s in enumerate(strides) if s < 0]
    start = origin + sum(strides[d] * (shape[d] - 1) for d in backwards)
    out = _node(graph, node, aten.as_strided.default,
                (source, shape, [abs(s) for s in strides], start), shape)
    for d in backwards:
        out = _runs_of(graph, node, out, d, list(range(shape[d] - 1, -1, -1)))
        out.meta = {**node.meta, "val": node.meta["val"].new_empty(shape)}
    return out


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
        shape = list(source.meta["val"].shape)
        index = evaluate(index_node, values)
        dim %= len(shape)
        if (not isinstance(index, torch.Tensor) or index.dtype not in (torch.int64, torch.int32)
                or index.dim() != len(shape) or index.numel() == 0
                or any(index.shape[d] > shape[d] for d in range(len(shape)) if d != dim)
                or bool(((index < -shape[dim]) | (index >= shape[dim])).any())):
            continue  # (torch's own error at run time)
        flat = _flat_offsets(shape, dim, index % shape[dim])
        with graph.inserting_before(node):
            if (affine := _affine(flat)) is not None:
                out = _strided(graph, node, source, *affine)
            elif len(index_runs(flat.flatten().tolist())) <= MAX_RUNS:
                line = _node(graph, source, aten.view.default, (source, [math.prod(shape)]), [math.prod(shape)])
                gathered = _runs_of(graph, node, line, 0, flat.flatten().tolist())
                gathered.meta = {**node.meta, "val": node.meta["val"].new_empty([flat.numel()])}
                out = _node(graph, node, aten.view.default, (gathered, list(index.shape)), list(index.shape))
            else:
                continue
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
