"""Graph rewrites on an exported FX graph before it is emitted as ``nn``.

The paper behind codec placement (shared seed 000, Table 6) pattern-matches
RMSNorm and rotary positional embeddings into single operators before
adaptation, and its commutation table (Table 5) has a KV-head fan-out and a
KV-cache operator. These rewrites recognise those subgraphs in the aten graph
that ``torch.export`` produces and replace each by one node whose target is
one of the marker functions below, which the emitter maps to ``nn`` ops.

Every rewrite checks the whole pattern (operators, constants, shapes from
``meta['val']``) and leaves the graph unchanged where anything differs. The
marker functions compute what they stand for, so a rewritten graph still
runs in eager torch (the tests compare it with the original).
"""

from __future__ import annotations

import math

import operator
from collections.abc import Callable, Iterable
from typing import Any


import torch
from torch import fx

from ._index_runs import index_runs
from ._bounds import clamp_bound, is_identity

aten = torch.ops.aten

#: Upper bound torch.export writes for an open slice end (``x[..., k:]``).
INT64_MAX = 2**63 - 1


#: Operators that only re-index their input (no arithmetic).
LAYOUT_TARGETS = frozenset({
    aten.view.default, aten._unsafe_view.default, aten.reshape.default,
    aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims,
    aten.expand.default, aten.permute.default, aten.slice.Tensor,
    aten.clone.default,
})


def rotary_positional_embeddings(input: torch.Tensor, cos: torch.Tensor,
                                 sin: torch.Tensor, head_dim: int | None = None) -> torch.Tensor:
    """``xaten.rotary_positional_embeddings.default``: Llama's half rotation;
    with ``head_dim``, of each head packed in the last dimension."""
    if head_dim is not None:
        heads = input.reshape(*input.shape[:-1], -1, head_dim)
        rotated = rotary_positional_embeddings(heads, cos.unsqueeze(-2), sin.unsqueeze(-2))
        return rotated.reshape(input.shape)
    half = input.shape[-1] // 2
    rotated = torch.cat([-input[..., half:], input[..., :half]], dim=-1)
    return input * cos + rotated * sin


def fan_out(input: torch.Tensor, repeats: int, dim: int) -> torch.Tensor:
    """``xaten.fan_out.Tensor``: each KV head repeated ``repeats`` times."""
    return torch.repeat_interleave(input, repeats, dim=dim)


def kv_cache(key: torch.Tensor, value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``xaten.kv_cache.default`` with an empty cache: keys and values as given."""
    return key, value


class Computed:
    """The target of a node holding a tensor a rewrite computed (a token
    table, a DFT matrix): the importer emits it as a constant."""

    def __init__(self, tensor: torch.Tensor, name: str) -> None:
        self.tensor, self.__name__ = tensor, name

    def __call__(self) -> torch.Tensor:
        return self.tensor


def _is(node: Any, *targets: Any) -> bool:
    return isinstance(node, fx.Node) and node.op == "call_function" and node.target in targets


def _shape(node: fx.Node) -> tuple[int, ...]:
    return tuple(node.meta["val"].shape)


def _replace(graph: fx.Graph, old: fx.Node, target: Callable[..., Any],
             args: tuple[Any, ...], val: Any) -> fx.Node:
    with graph.inserting_before(old):
        new = graph.call_function(target, args)
    new.meta = dict(old.meta)
    new.meta["val"] = val
    old.replace_all_uses_with(new)
    return new


def drop_assertions(graph: fx.Graph) -> None:
    """Removes ``_assert_tensor_metadata`` checks left by no-op dtype casts."""
    for node in list(graph.nodes):
        if _is(node, aten._assert_tensor_metadata.default) and not node.users:
            graph.erase_node(node)


def data_dependent_shape(graph: fx.Graph) -> str | None:
    """The first node whose shape depends on the model's data (a size
    torch.export could not bound: ``n = x.max().item()``, then ``w[:n]``;
    Reformer's position count), as a one-line reason, or None. A PIM
    program is laid out for static shapes, and the rewrites below compare
    sizes, which such a shape cannot answer."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    for node in graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and free_unbacked_symbols(val):
            shape = tuple(str(d) for d in val.shape)
            return (f"node '{node.name}': its shape ({', '.join(shape)}) depends on the model's data at run time "
                    "(a size read from a tensor, as .item() gives); the PIM compiler needs static shapes")
    return None


def repeats_as_concatenations(graph: fx.Graph) -> int:
    """``x.repeat(r...)`` as the concatenation of ``r`` copies along each
    dimension (after unsqueezing the leading dimensions it adds); a repeat
    by ones is ``x`` itself (WavLM's, SEW-D's and DeBERTa-v2's
    ``repeat(1, 1, 1)``)."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.repeat.default) or len(node.args) != 2 or not isinstance(node.args[0], fx.Node):
            continue
        x, repeats = node.args
        if not all(isinstance(r, int) and r >= 1 for r in repeats) or len(repeats) < len(_shape(x)):
            continue
        val = x.meta["val"]
        out = x
        with graph.inserting_before(node):
            for _ in range(len(repeats) - len(_shape(x))):
                out = graph.call_function(aten.unsqueeze.default, (out, 0))
                val = val.unsqueeze(0)
                out.meta = {**node.meta, "val": val}
            for dim, r in enumerate(repeats):
                if r == 1:
                    continue
                out = graph.call_function(aten.cat.default, ([out] * r, dim))
                shape = list(val.shape)
                shape[dim] *= r
                val = val.new_empty(shape)
                out.meta = {**node.meta, "val": val}
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count


def drop_aliases(graph: fx.Graph) -> int:
    """``alias`` (the same tensor under another name: Funnel's pooled
    attention input) replaced by its input; an exported graph is
    functional, so no write can tell them apart."""
    count = 0
    for node in list(graph.nodes):
        if _is(node, aten.alias.default):
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
            count += 1
    return count


def contiguous(val: Any) -> bool:
    """Row-major strides (dims of size 1 may have any stride) at offset 0."""
    step = 1
    for size, stride in reversed(list(zip(val.shape, val.stride()))):
        if size != 1 and stride != step:
            return False
        step *= size
    return val.storage_offset() == 0


def as_strided_views(graph: fx.Graph) -> int:
    """``as_strided`` calls that only reshape a contiguous tensor (what
    adaptive pooling to 1x1 leaves behind) become ``aten.view``."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.as_strided.default):
            continue
        source = node.args[0]
        offset = node.args[3] if len(node.args) > 3 else node.kwargs.get("storage_offset")
        src, out = source.meta.get("val"), node.meta.get("val")
        if src is None or out is None or offset not in (None, 0) or not contiguous(src):
            continue
        if src.numel() != out.numel() or not contiguous(out):
            continue
        _replace(graph, node, aten.view.default, (source, list(out.shape)), out)
        graph.erase_node(node)
        count += 1
    return count


def shape_only_fills(graph: fx.Graph) -> int:
    """``full_like``, ``zeros_like`` and ``ones_like`` read only their
    input's static shape: as ``aten.full`` of that shape they depend on no
    value, so the importer folds them into ``nn.constant``."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.full_like.default, aten.zeros_like.default, aten.ones_like.default):
            continue
        val = node.meta.get("val")
        if val is None or any(not isinstance(d, int) for d in val.shape):
            continue
        fill = node.args[1] if _is(node, aten.full_like.default) else 0 if _is(node, aten.zeros_like.default) else 1
        with graph.inserting_before(node):
            full = graph.call_function(aten.full.default, (list(val.shape), fill), {"dtype": val.dtype})
        full.meta = dict(node.meta)
        node.replace_all_uses_with(full)
        graph.erase_node(node)
        count += 1
    return count


def sums_as_means(graph: fx.Graph) -> int:
    """A floating-point ``sum`` over dimensions as the ``mean`` over them
    times their element count: ``nn.mean`` is the reduction the back end
    lowers (L2 norms, attention pooling and variances sum this way)."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.sum.dim_IntList, aten.sum.default) or node.kwargs.get("dtype") is not None:
            continue
        source, val = node.args[0], node.meta.get("val")
        dims = node.args[1] if _is(node, aten.sum.dim_IntList) and len(node.args) > 1 else None
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        if val is None or not val.dtype.is_floating_point:
            continue
        shape = _shape(source)
        if not dims:  # (none or an empty list: every dimension)
            dims = list(range(len(shape)))
        n = 1
        for d in dims:
            n *= shape[d]
        with graph.inserting_before(node):
            mean = graph.call_function(aten.mean.dim, (source, list(dims), keepdim))
            scaled = graph.call_function(aten.mul.Tensor, (mean, float(n)))
        mean.meta = dict(node.meta)
        scaled.meta = dict(node.meta)
        node.replace_all_uses_with(scaled)
        graph.erase_node(node)
        count += 1
    return count


def _scalar_operand(node: fx.Node) -> tuple[Any, float] | None:
    """``(x, c)`` of a product or quotient of a tensor by a Python scalar."""
    if len(node.args) != 2:
        return None
    a, b = node.args
    if isinstance(b, (int, float)) and isinstance(a, fx.Node):
        return a, float(b)
    if _is(node, aten.mul.Tensor) and isinstance(a, (int, float)) and isinstance(b, fx.Node):
        return b, float(a)
    return None


def _erf_gelu_input(half: Any, shifted: Any) -> fx.Node | None:
    """``x`` when ``half`` is ``x * 0.5`` and ``shifted`` is ``erf(x / sqrt 2) + 1``
    (or ``erf(x * (1 / sqrt 2)) + 1``)."""
    if not (_is(half, aten.mul.Tensor) and _is(shifted, aten.add.Tensor)):
        return None
    scaled = _scalar_operand(half)
    if scaled is None or scaled[1] != 0.5 or len(shifted.args) != 2:
        return None
    x = scaled[0]
    erf, one = shifted.args if isinstance(shifted.args[1], (int, float)) else shifted.args[::-1]
    if one != 1 or shifted.kwargs.get("alpha", 1) != 1 or not _is(erf, aten.erf.default):
        return None
    inner = erf.args[0]
    factor = _scalar_operand(inner) if _is(inner, aten.div.Tensor, aten.mul.Tensor) else None
    if factor is None or factor[0] is not x:
        return None
    root = factor[1] if _is(inner, aten.div.Tensor) else 1.0 / factor[1] if factor[1] else 0.0
    return x if abs(root - 2.0**0.5) <= 1e-6 else None


def fuse_erf_gelus(graph: fx.Graph) -> int:
    """GELU written with ``erf`` (``x * 0.5 * (1 + erf(x / sqrt 2))``: ESM,
    older BERT ports) as ``aten.gelu``, which the back end computes; the
    ONNX frontend fuses the same subgraph (rules/elementwise.py)."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.mul.Tensor) or len(node.args) != 2:
            continue
        a, b = node.args
        x = _erf_gelu_input(a, b) or _erf_gelu_input(b, a)
        if x is None or _shape(x) != _shape(node):
            continue
        _replace(graph, node, aten.gelu.default, (x,), node.meta["val"])
        count += 1
    return count


def maxima_without_indices(graph: fx.Graph) -> int:
    """``max(x, dim)`` of which only the values are read (VOLO's head,
    ``x.max(1)[0]``) as ``amax(x, [dim])``; the indices have no lowering."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.max.dim) or not node.users:
            continue
        if not all(_is(u, operator.getitem) and u.args[1] == 0 for u in node.users):
            continue
        x, dim = node.args[0], node.args[1]
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        for user in list(node.users):
            _replace(graph, user, aten.amax.default, (x, [dim], keepdim), user.meta["val"])
            graph.erase_node(user)
        graph.erase_node(node)
        count += 1
    return count


def scalar_minus_tensors(graph: fx.Graph) -> int:
    """``sub(c, x)`` of a Python scalar ``c`` (``1 - x`` after decomposition:
    ESM's ``1 - mask_ratio_observed``) as ``neg(x) + c``, which is the same
    float (``c - x`` is ``c + (-x)`` exactly)."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.sub.Tensor) or len(node.args) != 2 or node.kwargs.get("alpha", 1) != 1:
            continue
        c, x = node.args
        if not isinstance(c, (int, float)) or isinstance(c, bool) or not isinstance(x, fx.Node):
            continue
        val = node.meta.get("val")
        if val is None or not val.dtype.is_floating_point or _shape(x) != tuple(val.shape):
            continue
        with graph.inserting_before(node):
            neg = graph.call_function(aten.neg.default, (x,))
            add = graph.call_function(aten.add.Tensor, (neg, c))
        neg.meta = {**node.meta, "val": x.meta["val"]}
        add.meta = dict(node.meta)
        node.replace_all_uses_with(add)
        graph.erase_node(node)
        count += 1
    return count


def decompose_addmm(graph: fx.Graph) -> int:
    """``addmm(bias, x, w)`` (GPT-2's Conv1D, weight (in, out)) as
    ``mm(x, w) + bias``: two typed ops instead of a generic one."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.addmm.default):
            continue
        bias, x, w = node.args[:3]
        if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
            continue
        val = node.meta["val"]
        with graph.inserting_before(node):
            mm = graph.call_function(aten.mm.default, (x, w))
            add = graph.call_function(aten.add.Tensor, (mm, bias))
        mm.meta = dict(node.meta)
        mm.meta["val"] = val
        add.meta = dict(node.meta)
        add.meta["val"] = val
        node.replace_all_uses_with(add)
        graph.erase_node(node)
        count += 1
    return count


def _match_rms_norm(mul_w: fx.Node) -> tuple[fx.Node, fx.Node, float] | None:
    """``weight * (x * rsqrt(mean(x**2, [-1], keepdim) + eps))`` -> parts."""
    if not _is(mul_w, aten.mul.Tensor) or len(mul_w.args) != 2:
        return None
    for weight, normed in (mul_w.args, mul_w.args[::-1]):
        if not (_is(normed, aten.mul.Tensor) and isinstance(weight, fx.Node)):
            continue
        x, rsqrt = normed.args
        if not _is(rsqrt, aten.rsqrt.default):
            x, rsqrt = rsqrt, x
        if not _is(rsqrt, aten.rsqrt.default):
            continue
        add = rsqrt.args[0]
        if not (_is(add, aten.add.Tensor) and isinstance(add.args[1], float)):
            continue
        mean = add.args[0]
        if not (_is(mean, aten.mean.dim) and list(mean.args[1]) in ([-1], [len(_shape(x)) - 1])
                and len(mean.args) > 2 and mean.args[2] is True):
            continue
        pow_ = mean.args[0]
        if not (_is(pow_, aten.pow.Tensor_Scalar) and pow_.args[0] is x and pow_.args[1] == 2):
            continue
        if _shape(weight) != _shape(x)[-1:]:
            continue
        return x, weight, float(add.args[1])
    return None


def fuse_rms_norm(graph: fx.Graph) -> int:
    """Replaces RMSNorm subgraphs by ``aten.rms_norm``; returns the count."""
    count = 0
    for node in list(graph.nodes):
        match = _match_rms_norm(node)
        if match is None:
            continue
        x, weight, eps = match
        _replace(graph, node, aten.rms_norm.default,
                 (x, [_shape(x)[-1]], weight, eps), node.meta["val"])
        count += 1
    return count


def _match_rotate_half(node: Any, x: fx.Node) -> bool:
    """``cat([-x[..., h:], x[..., :h]], -1)`` over the last dim of ``x``."""
    if not (_is(node, aten.cat.default) and len(node.args[0]) == 2):
        return False
    rank = len(_shape(x))
    if (node.args[1] if len(node.args) > 1 else 0) not in (-1, rank - 1):
        return False
    neg, first = node.args[0]
    if not _is(neg, aten.neg.default):
        return False
    second = neg.args[0]
    half = _shape(x)[-1] // 2

    def is_slice(s: Any, start: int, end: int) -> bool:
        if not (_is(s, aten.slice.Tensor) and s.args[0] is x):
            return False
        dim, lo, hi = (list(s.args[1:4]) + [0, None, None])[:3]
        step = s.args[4] if len(s.args) > 4 else 1
        return dim in (-1, rank - 1) and lo == start and step == 1 and (
            hi == end or (end == _shape(x)[-1] and hi in (INT64_MAX, None)))

    return is_slice(first, 0, half) and is_slice(second, half, _shape(x)[-1])


def fuse_rotary_embeddings(graph: fx.Graph) -> int:
    """``x * cos + rotate_half(x) * sin`` -> one rotary-embedding node."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.add.Tensor) or len(node.args) != 2:
            continue
        for mul_cos, mul_sin in (node.args, node.args[::-1]):
            if not (_is(mul_cos, aten.mul.Tensor) and _is(mul_sin, aten.mul.Tensor)):
                continue
            for x, cos in (mul_cos.args, mul_cos.args[::-1]):
                if not isinstance(x, fx.Node) or not isinstance(cos, fx.Node):
                    continue
                rot, sin = mul_sin.args
                if not _match_rotate_half(rot, x):
                    rot, sin = sin, rot
                if not (_match_rotate_half(rot, x) and isinstance(sin, fx.Node)):
                    continue
                if _shape(node) != _shape(x):
                    continue
                _replace(graph, node, rotary_positional_embeddings, (x, cos, sin),
                         node.meta["val"])
                count += 1
                break
            else:
                continue
            break
    return count


def fuse_fan_out(graph: fx.Graph) -> int:
    """Llama's repeat_kv, ``view(expand(unsqueeze(x, 2)))``, -> fan-out."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.view.default, aten._unsafe_view.default, aten.reshape.default):
            continue
        src = node.args[0]
        if _is(src, aten.clone.default):
            src = src.args[0]
        if not _is(src, aten.expand.default):
            continue
        unsq = src.args[0]
        if not (_is(unsq, aten.unsqueeze.default) and unsq.args[1] == 2):
            continue
        x = unsq.args[0]
        xs, es, out = _shape(x), _shape(src), _shape(node)
        if len(xs) != 4 or len(es) != 5:
            continue
        repeats = es[2]
        if es[:2] != xs[:2] or es[3:] != xs[2:] or out != (xs[0], xs[1] * repeats, *xs[2:]):
            continue
        _replace(graph, node, fan_out, (x, repeats, 1), node.meta["val"])
        count += 1
    return count


def insert_kv_cache(graph: fx.Graph) -> int:
    """Puts a KV-cache update between the keys/values and their fan-out.

    Decoder attention reads this step's keys and values through the cache;
    with no earlier positions the update returns them unchanged.
    """
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.scaled_dot_product_attention.default):
            continue
        key, value = node.args[1], node.args[2]
        fanned = _is(key, fan_out) and _is(value, fan_out)
        k_src, v_src = (key.args[0], value.args[0]) if fanned else (key, value)
        if _is(k_src, operator.getitem):
            continue  # already behind a cache
        with graph.inserting_before(key if fanned else node):
            cache = graph.call_function(kv_cache, (k_src, v_src))
            keys = graph.call_function(operator.getitem, (cache, 0))
            values = graph.call_function(operator.getitem, (cache, 1))
        cache.meta["val"] = (k_src.meta["val"], v_src.meta["val"])
        keys.meta["val"], values.meta["val"] = k_src.meta["val"], v_src.meta["val"]
        if fanned:
            key.replace_input_with(k_src, keys)
            value.replace_input_with(v_src, values)
        else:
            node.replace_input_with(key, keys)
            node.replace_input_with(value, values)
        count += 1
    return count


def constant_nodes(graph: fx.Graph, constant_inputs: Iterable[fx.Node]) -> set[fx.Node]:
    """Nodes computed from constants only (no user input, no weight)."""
    constant = set(constant_inputs)
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        inputs = node.all_input_nodes
        if all(n in constant for n in inputs) and node.target not in (
                rotary_positional_embeddings, fan_out, kv_cache):
            constant.add(node)
    return constant


def evaluate(node: fx.Node, values: dict[fx.Node, Any]) -> Any:
    """Evaluates a constant node with eager torch (memoized in ``values``)."""
    if node in values:
        return values[node]
    args = fx.node.map_arg(node.args, lambda n: evaluate(n, values))
    kwargs = fx.node.map_arg(node.kwargs, lambda n: evaluate(n, values))
    values[node] = node.target(*args, **kwargs)
    return values[node]


def fold_causal_masks(graph: fx.Graph, constant: set[fx.Node],
                      values: dict[fx.Node, Any]) -> int:
    """Replaces a constant lower-triangular attention mask by ``is_causal``."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.scaled_dot_product_attention.default) or len(node.args) < 4:
            continue
        mask = node.args[3]
        if not isinstance(mask, fx.Node) or mask not in constant:
            continue
        m = evaluate(mask, values)
        if m.dtype != torch.bool or m.dim() < 2:
            continue
        q_len, k_len = _shape(node.args[0])[-2], _shape(node.args[1])[-2]
        if tuple(m.shape[-2:]) != (q_len, k_len) or q_len != k_len:
            continue
        causal = torch.ones(q_len, k_len, dtype=torch.bool).tril()
        if not bool((m == causal).all()):
            continue
        args = list(node.args)
        args[3] = None
        kwargs = dict(node.kwargs)
        if len(args) > 5:
            args[5] = True
        else:
            kwargs["is_causal"] = True
        node.args, node.kwargs = tuple(args), kwargs
        count += 1
    return count


def slice_scatters(graph: fx.Graph) -> int:
    """``slice_scatter(x, src, dim, start, end)`` with step 1 (what an
    assignment to a slice, ``x[..., a:b] = src``, becomes: Funnel's relative
    attention) as the concatenation of ``x`` before the slice, ``src`` and
    ``x`` after it along ``dim`` (the empty parts left out)."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.slice_scatter.default):
            continue
        params = dict(zip(("dim", "start", "end", "step"), node.args[2:]), **node.kwargs)
        x, src = node.args[0], node.args[1]
        if params.get("step", 1) != 1 or not isinstance(src, fx.Node):
            continue
        shape = _shape(x)
        dim = params.get("dim", 0) % len(shape)
        size = shape[dim]

        def bound(value: Any, default: int) -> int:
            value = default if value is None else value
            return min(max(value + size if value < 0 else value, 0), size)

        start, end = bound(params.get("start"), 0), bound(params.get("end"), size)
        end = max(start, end)
        if _shape(src)[dim] != end - start:
            continue
        val = x.meta["val"]
        with graph.inserting_before(node):
            parts = []
            if start > 0:
                before = graph.call_function(aten.slice.Tensor, (x, dim, 0, start))
                before.meta = {**node.meta, "val": val.narrow(dim, 0, start)}
                parts.append(before)
            parts.append(src)
            if end < size:
                after = graph.call_function(aten.slice.Tensor, (x, dim, end, size))
                after.meta = {**node.meta, "val": val.narrow(dim, end, size - end)}
                parts.append(after)
            out = parts[0] if len(parts) == 1 else graph.call_function(aten.cat.default, (parts, dim))
        if out is not src:
            out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count


def copies(graph: fx.Graph) -> int:
    """``copy(x, src)`` (an assignment to all of ``x``, ``x[:] = src``,
    after export) is ``src`` broadcast to ``x``'s shape: ``src`` itself, or
    its expansion; a copy that converts the element type is left alone."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.copy.default) or not isinstance(node.args[1], fx.Node):
            continue
        x, src = node.args[0], node.args[1]
        if src.meta["val"].dtype != x.meta["val"].dtype:
            continue
        out = src
        if _shape(src) != _shape(x):
            out = _replace(graph, node, aten.expand.default, (src, list(_shape(x))), node.meta["val"])
        else:
            node.replace_all_uses_with(src)
        graph.erase_node(node)
        count += 1
    return count


def indexed_dimensions_first(graph: fx.Graph) -> int:
    """``t[:, ..., idx]`` (one index tensor, after ``None`` for the leading
    dimensions: LeViT's attention biases ``biases[:, idxs]``) as a permute
    bringing that dimension first, ``t'[idx]`` (``nn.index`` indexes leading
    dimensions) and a permute putting the index's dimensions back where
    aten puts them; run after constant_index_slices, which takes 1-d
    constant indices as slices."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.index.Tensor) or len(node.args) != 2:
            continue
        source, indices = node.args[0], list(node.args[1])
        given = [d for d, i in enumerate(indices) if i is not None]
        if len(given) != 1 or given[0] == 0 or not isinstance(indices[given[0]], fx.Node):
            continue
        k, index = given[0], indices[given[0]]
        rank, index_rank = len(_shape(source)), len(_shape(index))
        front = [k] + [d for d in range(rank) if d != k]
        # t'[idx] has the index's dimensions, then t's others in order:
        # aten puts the index's dimensions at k, after t's first k.
        back = list(range(index_rank, index_rank + k)) + list(range(index_rank)) + list(
            range(index_rank + k, index_rank + rank - 1))
        with graph.inserting_before(node):
            moved = graph.call_function(aten.permute.default, (source, front))
            picked = graph.call_function(aten.index.Tensor, (moved, [index]))
            out = graph.call_function(aten.permute.default, (picked, back))
        src = source.meta["val"]
        moved.meta = {**node.meta, "val": src.permute(front)}
        picked_shape = list(_shape(index)) + [src.shape[d] for d in range(rank) if d != k]
        picked.meta = {**node.meta, "val": src.new_empty(picked_shape)}
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count


def constant_index_slices(graph: fx.Graph, constant: set[fx.Node], values: dict[fx.Node, Any],
                          compile_time: set[fx.Node] = frozenset()) -> int:
    """``x[..., [i, j, ...], ...]`` (or ``index_select``: Swin's
    ``torch.roll``) by a constant 1-d index list along one dimension (a
    gather of channels or positions) as slices of its runs
    (frontend/_index_runs.py), where ``aten.index`` has no lowering. An
    ``aten.index`` of a tensor the compiler computes (``compile_time``:
    from weights and constants, timm's relative-position MLP over a
    constant table) stays one op the compiler computes: as slices, the
    38,416 picks of a 196-token bias made 38,416 ops per layer."""
    count = 0
    for node in list(graph.nodes):
        if node in constant:
            continue
        if _is(node, aten.index.Tensor):
            source, indices = node.args[0], list(node.args[1])
            if source in compile_time:
                continue
            given = [(d, i) for d, i in enumerate(indices) if i is not None]
        elif _is(node, aten.index_select.default):
            source = node.args[0]
            given = [(node.args[1] % len(_shape(source)), node.args[2])]
        else:
            continue
        if len(given) != 1 or not isinstance(given[0][1], fx.Node) or given[0][1] not in constant:
            continue
        dim, index_node = given[0]
        index = evaluate(index_node, values)
        size = _shape(source)[dim]
        if index.dim() != 1 or index.dtype not in (torch.int64, torch.int32) or len(index) == 0:
            continue
        picks = [int(i) % size for i in index.tolist() if -size <= int(i) < size]
        if len(picks) != len(index):
            continue  # (out of range: torch's own error at run time)
        with graph.inserting_before(node):
            out = _runs_of(graph, node, source, dim, picks)
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count


def bounds_by_constants(graph: fx.Graph, constant: set[fx.Node], values: dict[fx.Node, Any]) -> int:
    """``torch.max(x, c)`` / ``torch.min(x, c)`` of floats by a constant
    of one value as ``clamp(x, min=c)`` / ``clamp(x, max=c)`` (frontend/
    _bounds.py decides, as for ONNX); by -inf (+inf), x itself."""
    lower = (aten.maximum.default, aten.max.other)
    count = 0
    for node in list(graph.nodes):
        if not _is(node, *lower, aten.minimum.default, aten.min.other) or node in constant:
            continue
        x, c = node.args[0], node.args[1]
        if x in constant:
            x, c = c, x
        if not isinstance(c, fx.Node) or c not in constant or not isinstance(x, fx.Node):
            continue
        bound, val = evaluate(c, values), node.meta.get("val")
        if not isinstance(bound, torch.Tensor) or not bound.dtype.is_floating_point \
                or val is None or val.dtype != x.meta["val"].dtype:
            continue  # (a bound that promotes x is not a clamp)
        b, is_max = clamp_bound(bound.detach().double().numpy(), _shape(x)), node.target in lower
        if b is None:
            continue
        if is_identity(b, is_max):
            node.replace_all_uses_with(x)
        else:
            with graph.inserting_before(node):
                out = graph.call_function(aten.clamp.default, (x, b) if is_max else (x, None, b))
            out.meta = dict(node.meta)
            node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count


def _runs_of(graph: fx.Graph, node: fx.Node, source: fx.Node, dim: int, picks: list[int]) -> fx.Node:
    """The positions ``picks`` of ``source`` along ``dim`` as the slices of
    their runs, concatenated (the caller sets the result's meta)."""
    pieces = []
    for start, end in index_runs(picks):
        piece = graph.call_function(aten.slice.Tensor, (source, dim, start, end))
        piece.meta = {**node.meta, "val": source.meta["val"].narrow(dim, start, end - start)}
        pieces.append(piece)
    return pieces[0] if len(pieces) == 1 else graph.call_function(aten.cat.default, (pieces, dim))


def constant_multi_index_slices(graph: fx.Graph, constant: set[fx.Node], values: dict[fx.Node, Any]) -> int:
    """``x[..., I, J, ...]`` by constant integer index tensors on adjacent
    dimensions (ConvBERT's unfold of a padded sequence: ``I = a + b`` over
    kernel offsets and positions, ``J = 0``) as one gather along those
    dimensions merged: a view merging them, the slices of the runs of the
    flat indices (row-major over the broadcast indices, as aten orders its
    result), a view to aten's result shape (the broadcast index dimensions
    where the indexed ones were)."""
    count = 0
    for node in list(graph.nodes):
        if node in constant or not _is(node, aten.index.Tensor) or len(node.args) != 2:
            continue
        source, indices = node.args[0], list(node.args[1])
        given = [d for d, i in enumerate(indices) if i is not None]
        if len(given) < 2 or given != list(range(given[0], given[-1] + 1)):
            continue
        if not all(isinstance(indices[d], fx.Node) and indices[d] in constant for d in given):
            continue
        index = [evaluate(indices[d], values) for d in given]
        if any(not isinstance(i, torch.Tensor) or i.dtype not in (torch.int64, torch.int32) for i in index):
            continue
        shape = _shape(source)
        sizes = [shape[d] for d in given]
        try:
            index = list(torch.broadcast_tensors(*index))
        except RuntimeError:
            continue  # (torch's own error at run time)
        if index[0].numel() == 0 or any(bool(((i < -n) | (i >= n)).any()) for i, n in zip(index, sizes)):
            continue  # (out of range: torch's own error at run time)
        flat = torch.zeros(index[0].shape, dtype=torch.int64)
        for i, n in zip(index, sizes):
            flat = flat * n + i.to(torch.int64) % n
        first, last = given[0], given[-1]
        merged_shape = [*shape[:first], math.prod(sizes), *shape[last + 1:]]
        gathered_shape = [*shape[:first], flat.numel(), *shape[last + 1:]]
        with graph.inserting_before(node):
            merged = graph.call_function(aten.view.default, (source, merged_shape))
            merged.meta = {**node.meta, "val": source.meta["val"].new_empty(merged_shape)}
            gathered = _runs_of(graph, node, merged, first, flat.flatten().tolist())
            gathered.meta = {**node.meta, "val": source.meta["val"].new_empty(gathered_shape)}
            out = graph.call_function(aten.view.default, (gathered, list(node.meta["val"].shape)))
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
