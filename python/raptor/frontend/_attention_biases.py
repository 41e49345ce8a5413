"""Attention whose additive mask is computed at run time, spelled out.

``nn.scaled_dot_product_attention`` lowers with a compile-time mask only
(a padding or causal mask the compiler folds into its kernels).
Wav2Vec2-Conformer's relative positions add a bias computed from the
queries (``q + pos_bias_v`` times the projected position embeddings,
shifted) as the mask: such an attention is imported as what it computes,
``softmax(q k^T * scale + mask) v``, two products of activations, an add
and a softmax, which the back end lowers one by one. Grouped-query
attention (``enable_gqa``: fewer key and value heads, each serving a run
of query heads) repeats each key and value head for its queries first.

A boolean mask computed at run time (transformers' masks from an
``attention_mask`` input: padding, with a causal mask or without) becomes
the additive mask ``(float(mask) - 1) * FLT_MAX``: zero where a key is
kept, the most negative float where it is not, whose exponential in the
softmax is exactly zero, as torch's ``-inf`` is. A query that keeps no
key is torch's zero row: the output is multiplied by
``min(mean(float(mask)) * 2 * S, 1)`` over the S keys, 0 for such a row
and exactly 1 for any other (the mean of k ones times 2S is at least
about 2k). Both are arithmetic on the mask's float values, which
raptor-fold-token-arithmetic states as lookups of the ``attention_mask``
input, the only way the ISA (no comparisons) reads it.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import fx

from ._fx_rewrites import _is

aten = torch.ops.aten
#: The additive mask of a key a boolean mask drops: float32's most negative
#: finite value (finite, so that the lookups stating it are exact products).
_DROPPED = float(torch.finfo(torch.float32).max)
#: aten.scaled_dot_product_attention's arguments, in order.
_ARGUMENTS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")


def _node(graph: fx.Graph, like: fx.Node, target: Any, args: tuple, val: torch.Tensor,
          kwargs: dict[str, Any] | None = None) -> fx.Node:
    node = graph.call_function(target, args, kwargs or {})
    node.meta = {**like.meta, "val": val}
    return node


def _repeated_heads(graph: fx.Graph, like: fx.Node, t: fx.Node, heads: int) -> fx.Node:
    """(B, H_kv, L, D) with each head repeated for its H / H_kv query heads
    (torch's ``enable_gqa``: query head h reads head h // (H / H_kv))."""
    val = t.meta["val"]
    b, kv_heads, length, depth = val.shape
    group = heads // kv_heads
    single = _node(graph, like, aten.view.default, (t, [b, kv_heads, 1, length, depth]),
                   val.view(b, kv_heads, 1, length, depth))
    spread = _node(graph, like, aten.expand.default, (single, [b, kv_heads, group, length, depth]),
                   single.meta["val"].expand(b, kv_heads, group, length, depth))
    dense = torch.contiguous_format
    copied = _node(graph, like, aten.clone.default, (spread,), spread.meta["val"].clone(memory_format=dense),
                   {"memory_format": dense})
    return _node(graph, like, aten.view.default, (copied, [b, heads, length, depth]),
                 copied.meta["val"].view(b, heads, length, depth))


def _boolean_mask(graph: fx.Graph, like: fx.Node, mask: fx.Node) -> tuple[fx.Node, fx.Node]:
    """The additive mask of a boolean ``mask`` and the factor zeroing the
    queries that keep no key (the module docstring says why both are
    exact)."""
    val = mask.meta["val"]
    kept_val = val.to(torch.float32)
    kept = _node(graph, like, aten._to_copy.default, (mask,), kept_val, {"dtype": torch.float32})
    shifted = _node(graph, like, aten.add.Tensor, (kept, -1.0), kept_val)
    bias = _node(graph, like, aten.mul.Tensor, (shifted, _DROPPED), kept_val)
    share_val = kept_val.mean(-1, keepdim=True)
    share = _node(graph, like, aten.mean.dim, (kept, [-1], True), share_val)
    scaled = _node(graph, like, aten.mul.Tensor, (share, 2.0 * val.shape[-1]), share_val)
    some = _node(graph, like, aten.clamp.default, (scaled, None, 1.0), share_val)
    return bias, some


def run_time_attention_biases(graph: fx.Graph, constant: set[fx.Node]) -> int:
    """Spells out each attention whose float or boolean mask is not a
    constant (no causal flag, no dropout; as many key as query heads, one
    key head for all, or a whole number of query heads per key head under
    ``enable_gqa``); returns how many."""
    count = 0
    # One additive mask per boolean mask, shared by the layers that read it.
    biases: dict[fx.Node, tuple[fx.Node, fx.Node]] = {}
    for node in list(graph.nodes):
        if not _is(node, aten.scaled_dot_product_attention.default):
            continue
        a = dict(zip(_ARGUMENTS, node.args)) | dict(node.kwargs)
        mask = a.get("attn_mask")
        if not isinstance(mask, fx.Node) or mask in constant or a.get("dropout_p", 0.0) or a.get("is_causal"):
            continue
        q, k, v = (a[n].meta["val"] for n in ("query", "key", "value"))
        boolean = mask.meta["val"].dtype == torch.bool
        if not (mask.meta["val"].dtype.is_floating_point or boolean) or q.dim() != 4:
            continue
        heads, kv_heads = q.shape[1], k.shape[1]
        # (One key and value head serves every query head by broadcasting,
        # without enable_gqa: Falcon's multi-query attention.)
        if kv_heads != heads and not ((a.get("enable_gqa") or kv_heads == 1) and heads % kv_heads == 0):
            continue
        scale = a.get("scale") or 1 / math.sqrt(q.shape[-1])
        scores_val = q.new_empty([*q.shape[:-1], k.shape[-2]])
        with graph.inserting_before(node):
            some = None
            if boolean:
                if mask not in biases:
                    biases[mask] = _boolean_mask(graph, node, mask)
                mask, some = biases[mask]
            key, value = a["key"], a["value"]
            if kv_heads != heads:
                key, value = (_repeated_heads(graph, node, t, heads) for t in (key, value))
            keys = _node(graph, node, aten.permute.default, (key, [0, 1, 3, 2]),
                         key.meta["val"].transpose(-2, -1))
            scores = _node(graph, node, aten.matmul.default, (a["query"], keys), scores_val)
            scaled = _node(graph, node, aten.mul.Tensor, (scores, scale), scores_val)
            biased = _node(graph, node, aten.add.Tensor, (scaled, mask), scores_val)
            weights = _node(graph, node, aten._softmax.default, (biased, -1, False), scores_val)
            out = _node(graph, node, aten.matmul.default, (weights, value), node.meta["val"])
            if some is not None:
                out = _node(graph, node, aten.mul.Tensor, (out, some), node.meta["val"])
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
