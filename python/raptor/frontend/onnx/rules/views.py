"""Shape and view operators: Flatten, Reshape, Squeeze, Unsqueeze (all
``nn.view``), Transpose, Concat, Split, Slice, Gather (by constant
indices, or a table lookup), GatherElements (by constant indices), Expand
and constant Pad."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from mlir import ir

from raptor.dialects import nn

from ..._constant_gathers import MAX_RUNS, gather_plan
from ..._index_runs import index_runs
from ..errors import OnnxImportError, Unsupported
from ..tensors import decode, dense, is_float, shape_of
from .base import axes_of, axis_in, rule

if TYPE_CHECKING:
    from ..state import ImportState


def _view(x: ir.Value, shape: Sequence[int]) -> ir.Value:
    shape = [int(s) for s in shape]
    if shape_of(x) == shape:
        return x
    return nn.ViewOp(x, shape).result


@rule("Flatten")
def _flatten(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    axis = axis_in(node, a.get("axis", 1), len(shape) + 1) if shape else 0
    return [_view(x, [math.prod(shape[:axis]), math.prod(shape[axis:])])]


@rule("Reshape")
def _reshape(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    target = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    shape = shape_of(x)
    if not a.get("allowzero", 0):
        target = [shape[i] if t == 0 else t for i, t in enumerate(target)]
    if target.count(-1) == 1:
        known = math.prod(t for t in target if t != -1)
        target[target.index(-1)] = math.prod(shape) // known if known else 0
    return [_view(x, target)]


@rule("Squeeze")
def _squeeze(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    axes = axes_of(im, node, a, 1)
    drop = {axis_in(node, d, len(shape)) for d in axes} if axes else {i for i, s in enumerate(shape) if s == 1}
    if any(shape[d] != 1 for d in drop):
        raise OnnxImportError(f"Squeeze node '{node.name}' squeezes a dimension of size > 1")
    return [_view(x, [s for i, s in enumerate(shape) if i not in drop])]


@rule("Unsqueeze")
def _unsqueeze(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    axes = axes_of(im, node, a, 1) or []
    rank = len(shape) + len(axes)
    new = sorted(axis_in(node, d, rank) for d in axes)
    out, it = [], iter(shape)
    for i in range(rank):
        out.append(1 if i in new else next(it))
    return [_view(x, out)]


@rule("Transpose")
def _transpose(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    perm = list(a.get("perm", reversed(range(len(shape_of(x))))))
    if perm == list(range(len(perm))):
        return [x]
    return [nn.PermuteOp(x, perm).result]


@rule("Concat")
def _concat(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    tensors = [im.value(n) for n in node.input if n]
    return [nn.CatOp(tensors, dim=axis_in(node, a["axis"], len(shape_of(tensors[0])))).result]


@rule("Split")
def _split(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    axis = axis_in(node, a.get("axis", 0), len(shape))
    sizes = a.get("split")
    if sizes is None and len(node.input) > 1 and node.input[1]:
        sizes = [int(v) for v in im.const(node.input[1])]
    if sizes is None:
        parts = a.get("num_outputs", len(node.output))
        chunk = -(-shape[axis] // parts)
        sizes = [min(chunk, shape[axis] - i * chunk) for i in range(parts)]
    return list(nn.SplitWithSizesOp(x, list(sizes), dim=axis).results)


@rule("Slice")
def _slice(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = shape_of(x)
    starts = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    ends = [int(v) for v in im.const(node.input[2]).reshape(-1)]
    axes = axes_of(im, node, {}, 3) or list(range(len(starts)))
    steps = [int(v) for v in im.optional_const(node, 4).reshape(-1)] \
        if im.optional_const(node, 4) is not None else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        if step == 0:
            raise Unsupported("a slice step of 0")
        axis = axis_in(node, axis, len(shape))
        size = shape[axis]
        if step < 0:  # backwards (torch.flip exports as steps of -1): the picked positions
            start = min(max(start + size if start < 0 else start, 0), size - 1)
            end = min(max(end + size if end < 0 else end, -1), size - 1)
            picks = list(range(start, end, step))
            if not picks:
                raise Unsupported("an empty slice")
            x = _runs(x, axis, picks)
            continue
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        if start == 0 and end == size and step == 1:
            continue
        kw: dict[str, Any] = {"dim": axis, "step": step}
        if start:
            kw["start"] = start
        if end != size:
            kw["end"] = end
        x = nn.SliceOp(x, **kw).result
    return [x]


def _slice(x: ir.Value, axis: int, start: int, end: int, size: int) -> ir.Value:
    """x[start:end] along ``axis`` (x itself for the whole range)."""
    if start == 0 and end == size:
        return x
    kw: dict[str, Any] = {"dim": axis}
    if start:
        kw["start"] = start
    if end != size:
        kw["end"] = end
    return nn.SliceOp(x, **kw).result


def _runs(x: ir.Value, axis: int, picks: list[int]) -> ir.Value:
    """Positions ``picks`` of ``x`` along ``axis`` as the slices of their
    runs (frontend/_index_runs.py), concatenated."""
    size = shape_of(x)[axis]
    pieces = [_slice(x, axis, start, end, size) for start, end in index_runs(picks)]
    return pieces[0] if len(pieces) == 1 else nn.CatOp(pieces, dim=axis).result


@rule("GatherElements")
def _gather_elements(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """By a constant index (DeBERTa's relative positions): the plan of
    frontend/_constant_gathers.py, one ``as_strided`` or slices of runs."""
    if not im.is_const(node.input[1]):
        raise Unsupported("a GatherElements by computed indices")
    x = im.value(node.input[0])
    shape = shape_of(x)
    axis = axis_in(node, int(a.get("axis", 0)), len(shape))
    plan = gather_plan(shape, axis, torch.from_numpy(im.const(node.input[1]).astype(np.int64)))
    if plan is None:
        raise Unsupported("a GatherElements whose indices are out of range or form too many runs")
    if plan.columns is not None:
        x = _runs(x, axis, plan.columns)
    if plan.strided is not None:
        size, strides, start, backwards = plan.strided
        out = nn.AsStridedOp(x, size, strides, storage_offset=start).result
        for d in backwards:
            out = _runs(out, d, list(range(size[d] - 1, -1, -1)))
        return [out]
    line = _view(x, [math.prod(shape)])
    return [_view(_runs(line, 0, plan.runs), im.const(node.input[1]).shape)]


def scatter_sources(shape: Sequence[int], indices: np.ndarray) -> list[int]:
    """Where each element of ScatterND's output comes from, as a flat
    offset into data (``shape``, N elements) followed by the updates: the
    element itself, or N + the update element written there (a later
    index writing the same place wins, as onnxruntime does)."""
    k = indices.shape[-1]
    inner = math.prod(shape[k:])
    tuples = indices.reshape(-1, k)
    tuples = np.where(tuples < 0, tuples + np.array(shape[:k]), tuples)
    if ((tuples < 0) | (tuples >= np.array(shape[:k]))).any():
        raise Unsupported("ScatterND indices out of range")
    sources = np.arange(math.prod(shape))
    starts = np.ravel_multi_index(tuple(tuples.T), tuple(shape[:k])) * inner if len(tuples) else np.zeros(0, int)
    for j, start in enumerate(starts.tolist()):
        sources[start:start + inner] = sources.size + j * inner + np.arange(inner)
    return sources.tolist()


@rule("ScatterND")
def _scatter_nd(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """Writes at constant indices (Longformer's chunked attention fills
    diagonals) as the gather they are: the output's elements picked, by
    :func:`scatter_sources`, from data and updates laid end to end (the
    slices of their runs, frontend/_index_runs.py)."""
    if a.get("reduction", b"none") not in (b"none", "none"):
        raise Unsupported("a ScatterND with a reduction")
    if not im.is_const(node.input[1]):
        raise Unsupported("a ScatterND at computed indices")
    data, updates = im.value(node.input[0]), im.value(node.input[2])
    shape = shape_of(data)
    sources = scatter_sources(shape, im.const(node.input[1]).astype(np.int64))
    if len(index_runs(sources)) > MAX_RUNS:
        raise Unsupported(f"a ScatterND whose writes form more than {MAX_RUNS} runs")
    line = nn.CatOp([_view(data, [math.prod(shape)]), _view(updates, [math.prod(shape_of(updates))])], dim=0).result
    return [_view(_runs(line, 0, sources), shape)]


@rule("Gather")
def _gather(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    data_name, idx_name = node.input[0], node.input[1]
    axis = a.get("axis", 0)
    if not im.is_const(idx_name):
        # A table lookup: nn.embedding (rows of a weight by integer ids).
        weight = im.value(data_name)
        if axis != 0 or len(shape_of(weight)) != 2 or not is_float(weight):
            raise Unsupported("a gather by computed indices")
        return [nn.EmbeddingOp(weight, im.value(idx_name)).result]
    x = im.value(data_name)
    shape = shape_of(x)
    axis = axis_in(node, axis, len(shape))
    idx = im.const(idx_name).astype(np.int64)
    idx = np.where(idx < 0, idx + shape[axis], idx)
    if idx.ndim == 0:
        return [nn.SelectOp(x, axis, int(idx)).result]
    flat = idx.reshape(-1)
    if flat.size and ((flat < 0) | (flat >= shape[axis])).any():
        raise Unsupported("constant indices out of range")
    if flat.size:  # as slices of its runs (frontend/_index_runs.py), which the back end moves
        out = _runs(x, axis, flat.tolist())
    else:
        with ir.Location.name(idx_name):
            table = nn.ConstantOp(dense(flat)).result
        out = nn.IndexSelectOp(x, axis, table).result
    if idx.ndim == 1:
        return [out]
    return [_view(out, shape[:axis] + list(idx.shape) + shape[axis + 1:])]


@rule("Expand")
def _expand(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    target = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    size = list(np.broadcast_shapes(tuple(shape_of(x)), tuple(target)))
    if size == shape_of(x):
        return [x]
    return [nn.ExpandOp(x, size).result]


@rule("Tile")
def _tile(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """Tile by constant repeats (Funnel's decoder repeats its pooled
    sequence): the tensor concatenated with itself along each repeated
    dimension."""
    x = im.value(node.input[0])
    repeats = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    if len(repeats) != len(shape_of(x)) or any(r < 1 for r in repeats):
        raise Unsupported(f"Tile repeats {repeats} for a tensor of rank {len(shape_of(x))}")
    for dim, r in enumerate(repeats):
        if r > 1:
            x = nn.CatOp([x] * r, dim=dim).result
    return [x]


@rule("Pad")
def _pad(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if decode(a.get("mode", "constant")) != "constant":
        raise Unsupported("non-constant padding")
    x = im.value(node.input[0])
    rank = len(shape_of(x))
    pads = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    value = im.optional_const(node, 2)
    axes = axes_of(im, node, {}, 3) or list(range(rank))
    n = len(axes)
    if len(pads) != 2 * n:
        raise OnnxImportError(f"Pad '{node.name}' has {len(pads)} pads for {n} axes (expected {2 * n})")
    per = {axis_in(node, ax, rank): (before, after) for ax, before, after in zip(axes, pads[:n], pads[n:])}
    pad: list[int] = []
    for d in reversed(range(rank)):
        pad += list(per.get(d, (0, 0)))
    while pad[-2:] == [0, 0] and len(pad) > 2:
        pad = pad[:-2]
    fill = float(value.reshape(-1)[0]) if value is not None and value.size else 0.0
    return [nn.ConstantPadNdOp(x, pad, value=fill).result]
