"""Integer functions of token ids as lookups, on the exported FX graph.

Models compute on their ids before and besides the embeddings: BART,
MBart and T5 shift them right into decoder ids (a constant start token
concatenated with a slice of the ids, ``where(ids == -100, pad, ids)``),
Canine hashes character ids into buckets (``(ids + 1) * prime % buckets``),
ESM zeroes the embeddings of its mask token (``masked_fill(emb, ids == mask,
0)``) and counts it (``(ids == mask).sum(-1)``). The back end reads ids
only as the indices of ``nn.embedding``; this rewrite states each such
computation as lookups, exactly, from the contract that ids index the
vocabulary of the embeddings that read them (``0 <= id < K``, K the rows of
the smallest table read by the ids themselves, or, when none is, of the
tables their functions read).

Every tensor computed from one id input by data movement (views, slices,
concatenations and scatters, also with constants) and element-wise
operators (comparisons, integer arithmetic, ``where``, casts) is an
element-wise function of the ids at known positions: element ``p`` is
``tab[id, p]`` for the id at flat position ``idx[p]`` of the input (or a
constant where ``idx[p] < 0``). The analysis computes ``idx`` and ``tab``
with eager torch on the K possible ids, so it is exact by construction.
Its uses become:

- ``embedding(W, x)``: for each distinct column ``f`` of ``tab``, a table
  ``W[f]`` (``embedding(W, f)``, which the compiler computes) looked up by
  the ids, and the constant rows ``W[c]``; the rows are then picked by
  constant indices (slices and a concatenation: data movement);
- a floating-point use (a product, ``where`` or ``masked_fill`` by a mask of
  the ids, a float cast, a sum of a mask): the same lookup in a column table
  of the values, and ``where(m, a, b)`` as ``a * m + b * (1 - m)`` (exact for
  finite ``a`` and ``b``, as ``m`` is 0 or 1).
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch import fx

from ._fx_rewrites import Computed

aten = torch.ops.aten

#: Pure data movement: every tensor operand is data, and the output's
#: elements are elements of the operands.
MOVEMENT = frozenset({
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.unsqueeze.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.expand.default, aten.permute.default,
    aten.slice.Tensor, aten.select.int, aten.clone.default, aten.alias.default, aten.cat.default,
    aten.slice_scatter.default, aten.select_scatter.default, aten.copy.default, aten.transpose.int,
    aten.t.default, aten.lift_fresh_copy.default, aten.detach.default,
})

#: Element-wise operators (with broadcasting) the rewrite evaluates on the
#: possible ids.
ELEMENTWISE = frozenset({
    aten.eq.Scalar, aten.eq.Tensor, aten.ne.Scalar, aten.ne.Tensor, aten.lt.Scalar, aten.lt.Tensor,
    aten.le.Scalar, aten.le.Tensor, aten.gt.Scalar, aten.gt.Tensor, aten.ge.Scalar, aten.ge.Tensor,
    aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, aten.rsub.Scalar, aten.rsub.Tensor,
    aten.mul.Tensor, aten.mul.Scalar, aten.remainder.Scalar, aten.remainder.Tensor, aten.fmod.Scalar,
    aten.fmod.Tensor, aten.floor_divide.default, aten.div.Tensor_mode, aten.div.Scalar_mode,
    aten.where.self, aten.masked_fill.Scalar, aten.masked_fill.Tensor, aten.logical_not.default,
    aten.logical_and.default, aten.logical_or.default, aten.logical_xor.default, aten.bitwise_not.default,
    aten.bitwise_and.Tensor, aten.bitwise_or.Tensor, aten.bitwise_xor.Tensor, aten._to_copy.default,
    aten.abs.default, aten.neg.default, aten.clamp.default, aten.minimum.default, aten.maximum.default,
    aten.bitwise_and.Scalar, aten.bitwise_or.Scalar,
})

VIEWS = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)

#: Most elements (ids times positions) an analysed tensor may hold.
LIMIT = 1 << 26


class TokenTableError(ValueError):
    """A function of the ids that reaches outside the table it indexes."""


def _is(node: Any, *targets: Any) -> bool:
    return isinstance(node, fx.Node) and node.op == "call_function" and node.target in targets


def _val(node: fx.Node) -> Any:
    return node.meta.get("val")


def _meta(shape: Any, dtype: torch.dtype) -> torch.Tensor:
    return torch.empty(tuple(int(s) for s in shape), dtype=dtype, device="meta")


class _Rep:
    """``idx`` (flat input position per element, -1 for a constant) and
    ``tab`` (K x numel: the element's value for each possible id)."""

    def __init__(self, source: fx.Node, idx: torch.Tensor, tab: torch.Tensor) -> None:
        self.source, self.idx, self.tab = source, idx, tab


def _view_of(node: fx.Node, source: fx.Node) -> bool:
    while _is(node, *VIEWS):
        node = node.args[0]
    return node is source


class _Rewriter:
    def __init__(self, graph: fx.Graph, ids: list[fx.Node], constant: set[fx.Node],
                 values: dict[fx.Node, Any], evaluate: Any) -> None:
        self.graph, self.ids, self.constant, self.values, self.evaluate = graph, ids, constant, values, evaluate
        self.reps: dict[fx.Node, _Rep] = {}
        self.count = 0

    # -- which nodes are functions of the ids ---------------------------------
    def _derived(self) -> dict[fx.Node, fx.Node]:
        """Node -> its id input, for the nodes the analysis can take."""
        source = {n: n for n in self.ids}
        for node in self.graph.nodes:
            if node.op != "call_function" or node in self.constant:
                continue
            if node.target not in MOVEMENT and node.target not in ELEMENTWISE:
                continue
            inputs = node.all_input_nodes
            sources = {source[n] for n in inputs if n in source}
            if len(sources) != 1 or not all(n in source or n in self.constant for n in inputs):
                continue
            if not isinstance(_val(node), torch.Tensor):
                continue
            source[node] = next(iter(sources))
        return source

    def _vocabulary(self, source: dict[fx.Node, fx.Node], ids: fx.Node) -> int | None:
        direct, through = [], []
        for node in self.graph.nodes:
            if _is(node, aten.embedding.default) and source.get(node.args[1]) is ids:
                rows = int(_val(node.args[0]).shape[0])
                (direct if _view_of(node.args[1], ids) else through).append(rows)
        rows = direct or through
        return min(rows) if rows else None

    # -- the analysis ----------------------------------------------------------
    def _operand(self, node: Any, k: int) -> Any:
        if isinstance(node, fx.Node):
            return self.reps[node] if node in self.reps else self.evaluate(node, self.values)
        return node

    def _analyse(self, node: fx.Node, ids: fx.Node, k: int) -> _Rep | None:
        out = _val(node)
        if k * max(out.numel(), 1) > LIMIT:
            return None
        if node is ids:
            n = out.numel()
            return _Rep(ids, torch.arange(n).view(out.shape),
                        torch.arange(k, dtype=out.dtype)[:, None].expand(k, n))
        leaves = [a for a in node.all_input_nodes]
        if node.target in MOVEMENT:
            # Each operand's elements numbered globally: the op moves numbers.
            numbers, idx, tab, offset = {}, [], [], 0
            for leaf in leaves:
                rep = self.reps.get(leaf)
                value = rep.idx if rep else self.evaluate(leaf, self.values)
                if not isinstance(value, torch.Tensor):
                    return None
                numbers[leaf] = torch.arange(offset, offset + value.numel()).view(value.shape)
                offset += value.numel()
                idx.append(rep.idx.reshape(-1) if rep else torch.full((value.numel(),), -1))
                tab.append((rep.tab if rep else value.reshape(1, -1).expand(k, -1)).to(out.dtype))
            args = fx.node.map_arg(node.args, lambda n: numbers[n])
            kwargs = dict(fx.node.map_arg(node.kwargs, lambda n: numbers[n]))
            kwargs.pop("dtype", None)
            try:
                moved = node.target(*args, **kwargs)
            except Exception:  # (a movement torch refuses on int64: leave the node)
                return None
            if not isinstance(moved, torch.Tensor) or tuple(moved.shape) != tuple(out.shape):
                return None
            flat = moved.reshape(-1)
            return _Rep(ids, torch.cat(idx)[flat].view(out.shape), torch.cat(tab, 1)[:, flat])
        # Element-wise: every operand read at one position reads one id.
        rank = out.dim()
        idx = torch.full(tuple(out.shape), -1)
        for leaf in leaves:
            rep = self.reps.get(leaf)
            if rep is None:
                continue
            try:
                mine = rep.idx.expand(tuple(out.shape))
            except RuntimeError:
                return None
            clash = (idx >= 0) & (mine >= 0) & (idx != mine)
            if bool(clash.any()):
                return None
            idx = torch.where(mine >= 0, mine, idx)

        def batched(n: fx.Node) -> Any:
            rep = self.reps.get(n)
            if rep is None:
                return self.evaluate(n, self.values)
            shape = tuple(_val(n).shape)
            return rep.tab.reshape((k,) + (1,) * (rank - len(shape)) + shape)

        args = fx.node.map_arg(node.args, batched)
        kwargs = fx.node.map_arg(node.kwargs, batched)
        try:
            value = node.target(*args, **kwargs)
        except Exception:
            return None
        if not isinstance(value, torch.Tensor) or tuple(value.shape[1:]) != tuple(out.shape):
            return None
        return _Rep(ids, idx.clone(), value.reshape(k, -1))

    # -- emission ---------------------------------------------------------------
    def _constant(self, tensor: torch.Tensor, before: fx.Node) -> fx.Node:
        with self.graph.inserting_before(before):
            node = self.graph.call_function(Computed(tensor, "token_table"), ())
        node.meta["val"] = tensor
        self.constant.add(node)
        self.values[node] = tensor
        return node

    def _call(self, target: Any, args: tuple, meta: torch.Tensor, before: fx.Node) -> fx.Node:
        with self.graph.inserting_before(before):
            node = self.graph.call_function(target, args)
        node.meta = {**before.meta, "val": meta}
        return node

    def _lookup(self, rep: _Rep, shape: tuple[int, ...], before: fx.Node, table: fx.Node | None,
                rows: int | None, width: int, dtype: torch.dtype, k: int, where: str) -> fx.Node:
        """``shape + (width,)``: element p's row of ``table`` (a weight) at
        ``tab[id, p]``, or (``table`` None) ``tab[id, p]`` as ``dtype``
        (width 1)."""
        ids = rep.source
        n = int(_val(ids).numel())
        idx, tab = rep.idx.reshape(-1), rep.tab
        moving = (idx >= 0).nonzero().reshape(-1).tolist()
        fixed = (idx < 0).nonzero().reshape(-1).tolist()
        columns: dict[tuple, int] = {}
        functions: list[torch.Tensor] = []
        for p in moving:
            key = tuple(tab[:, p].tolist())
            if key not in columns:
                columns[key] = len(functions)
                functions.append(tab[:, p])
        constants = tab[0, fixed] if fixed else None
        if table is not None:
            picked = torch.cat(functions + ([constants] if constants is not None else []))
            if len(picked) and (int(picked.min()) < 0 or int(picked.max()) >= rows):
                bad = int(picked.min()) if int(picked.min()) < 0 else int(picked.max())
                raise TokenTableError(
                    f"node '{where}': an embedding of {rows} rows reads row {bad} computed from the token ids "
                    f"(ids 0..{k - 1}, the vocabulary of the tables they index)")
        pieces = []
        ids_shape = tuple(_val(ids).shape)
        for f in functions:
            if table is None:
                weight = self._constant(f.to(dtype).reshape(k, 1), before)
            elif rows == k and torch.equal(f.to(torch.int64), torch.arange(k)):
                weight = table
            else:
                index = self._constant(f.to(torch.int64), before)
                weight = self._call(aten.embedding.default, (table, index), _meta((k, width), dtype), before)
            looked = self._call(aten.embedding.default, (weight, ids), _meta(ids_shape + (width,), dtype), before)
            pieces.append(self._call(aten.view.default, (looked, [n, width]), _meta((n, width), dtype), before))
        if constants is not None:
            if table is None:
                pieces.append(self._constant(constants.to(dtype).reshape(-1, 1), before))
            else:
                index = self._constant(constants.to(torch.int64), before)
                pieces.append(self._call(aten.embedding.default, (table, index),
                                         _meta((len(fixed), width), dtype), before))
        order = torch.empty(len(idx), dtype=torch.int64)
        for p in moving:
            order[p] = columns[tuple(tab[:, p].tolist())] * n + int(idx[p])
        for j, p in enumerate(fixed):
            order[p] = len(functions) * n + j
        total = sum(int(_val(piece).shape[0]) for piece in pieces)
        out_shape = tuple(shape) + (width,)
        if len(pieces) == 1 and torch.equal(order, torch.arange(total)):
            flat = pieces[0]
        else:
            joined = pieces[0] if len(pieces) == 1 else self._call(
                aten.cat.default, (pieces, 0), _meta((total, width), dtype), before)
            index = self._constant(order, before)
            flat = self._call(aten.index_select.default, (joined, 0, index), _meta((len(order), width), dtype),
                              before)
        return self._call(aten.view.default, (flat, list(out_shape)), _meta(out_shape, dtype), before)

    def _values_of(self, x: fx.Node, before: fx.Node, dtype: torch.dtype, k: int,
                   transform: Any = None) -> fx.Node:
        """``x`` (a function of the ids) computed by lookups, as ``dtype``
        (after ``transform`` of its values)."""
        rep = self.reps[x]
        if transform is not None:
            rep = _Rep(rep.source, rep.idx, transform(rep.tab))
        shape = tuple(_val(x).shape)
        looked = self._lookup(rep, shape, before, None, None, 1, dtype, k, before.name)
        return self._call(aten.view.default, (looked, list(shape)), _meta(shape, dtype), before)

    def _sink(self, node: fx.Node, k: int) -> bool:
        """Rewrites a use of functions of the ids; whether it did."""
        val = _val(node)
        if _is(node, aten.embedding.default):
            weight, x = node.args[0], node.args[1]
            if x not in self.reps or weight in self.reps or _view_of(x, self.reps[x].source):
                return False
            table = _val(weight)
            out = self._lookup(self.reps[x], tuple(_val(x).shape), node, weight, int(table.shape[0]),
                               int(table.shape[1]), table.dtype, k, node.name)
            node.replace_all_uses_with(out)
            return True
        if not isinstance(val, torch.Tensor) or not val.dtype.is_floating_point:
            return False
        if _is(node, aten.where.self, aten.masked_fill.Scalar, aten.masked_fill.Tensor):
            if _is(node, aten.where.self):
                mask, a, b = node.args[:3]
            else:
                b, mask, a = node.args[:3]
            if mask not in self.reps or a in self.reps or b in self.reps:
                return False
            dtype = val.dtype
            on = self._values_of(mask, node, dtype, k, lambda t: t.to(torch.bool).to(dtype))
            off = self._values_of(mask, node, dtype, k, lambda t: (~t.to(torch.bool)).to(dtype))
            terms = []
            for value, weight in ((a, on), (b, off)):
                if not isinstance(value, fx.Node):
                    if value != 0:
                        terms.append(self._call(aten.mul.Tensor, (weight, float(value)), _meta(_val(weight).shape, dtype),
                                                node))
                    continue
                if value in self.constant:
                    data = self.evaluate(value, self.values)
                    if isinstance(data, torch.Tensor) and data.numel() and not bool(data.isfinite().all()):
                        return False
                    if isinstance(data, torch.Tensor) and not bool(data.any()):
                        continue
                terms.append(self._call(aten.mul.Tensor, (value, weight), _meta(torch.broadcast_shapes(
                    _val(value).shape, _val(weight).shape), dtype), node))
            if not terms:
                out = self._call(aten.mul.Tensor, (on, 0.0), _meta(_val(on).shape, dtype), node)
                terms = [out]
            out = terms[0]
            for t in terms[1:]:
                out = self._call(aten.add.Tensor, (out, t), _meta(torch.broadcast_shapes(
                    _val(out).shape, _val(t).shape), dtype), node)
            if tuple(_val(out).shape) != tuple(val.shape):
                out = self._call(aten.expand.default, (out, list(val.shape)), _meta(val.shape, dtype), node)
            node.replace_all_uses_with(out)
            return True
        if _is(node, aten.mul.Tensor, aten.add.Tensor, aten.sub.Tensor, aten.div.Tensor, aten._to_copy.default):
            changed = False
            for x in node.all_input_nodes:
                if x in self.reps and (_val(x).dtype == val.dtype or not _val(x).dtype.is_floating_point):
                    node.replace_input_with(x, self._values_of(x, node, val.dtype, k))
                    changed = True
            return changed
        return False

    def _sum(self, node: fx.Node, k: int) -> bool:
        """``sum(x)`` of a mask or count of the ids, used as a float: the sum
        of its values looked up as floats (``mean * n``)."""
        x = node.args[0] if node.args else None
        if not _is(node, aten.sum.dim_IntList, aten.sum.default) or x not in self.reps:
            return False
        users = list(node.users)
        if not users or not all(_is(u, aten._to_copy.default) and _val(u).dtype == torch.float32
                                and set(u.kwargs) <= {"dtype", "layout", "device"} for u in users):
            return False
        shape = tuple(_val(x).shape)
        dims = list(node.args[1]) if _is(node, aten.sum.dim_IntList) and len(node.args) > 1 and node.args[1] else \
            list(range(len(shape)))
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        values = self._values_of(x, node, torch.float32, k)
        n = 1
        for d in dims:
            n *= shape[d]
        out_shape = tuple(_val(node).shape)
        mean = self._call(aten.mean.dim, (values, dims, keepdim), _meta(out_shape, torch.float32), node)
        total = self._call(aten.mul.Tensor, (mean, float(n)), _meta(out_shape, torch.float32), node)
        for u in users:
            u.replace_all_uses_with(total)
        return True

    def run(self) -> int:
        source = self._derived()
        for ids in self.ids:
            k = self._vocabulary(source, ids)
            if k is None:
                continue
            for node in self.graph.nodes:
                if source.get(node) is not ids:
                    continue
                if node is not ids and any(n in source and n not in self.reps for n in node.all_input_nodes):
                    continue
                rep = self._analyse(node, ids, k)
                if rep is not None:
                    self.reps[node] = rep
            sinks = [n for n in self.graph.nodes if n.op == "call_function" and n not in self.reps
                     and any(self.reps.get(a) is not None and self.reps[a].source is ids for a in n.all_input_nodes)]
            for node in sinks:
                if self._sum(node, k) or self._sink(node, k):
                    self.count += 1
        return self.count


def token_tables(graph: fx.Graph, ids: list[fx.Node], constant: set[fx.Node], values: dict[fx.Node, Any],
                 evaluate: Any) -> int:
    """Rewrites the uses of integer functions of the token-id inputs ``ids``
    into lookups (module docstring); returns how many uses it rewrote.
    ``constant`` and ``values`` (the importer's compile-time nodes and their
    values) take the tables it adds."""
    if not ids:
        return 0
    return _Rewriter(graph, ids, constant, values, evaluate).run()
