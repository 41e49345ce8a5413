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
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import fx

from ._fx_rewrites import _is

aten = torch.ops.aten
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


def run_time_attention_biases(graph: fx.Graph, constant: set[fx.Node]) -> int:
    """Spells out each attention whose float mask is not a constant (no
    causal flag, no dropout; as many key as query heads, or a whole number
    of query heads per key head under ``enable_gqa``); returns how many."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.scaled_dot_product_attention.default):
            continue
        a = dict(zip(_ARGUMENTS, node.args)) | dict(node.kwargs)
        mask = a.get("attn_mask")
        if not isinstance(mask, fx.Node) or mask in constant or a.get("dropout_p", 0.0) or a.get("is_causal"):
            continue
        q, k, v = (a[n].meta["val"] for n in ("query", "key", "value"))
        if not mask.meta["val"].dtype.is_floating_point or q.dim() != 4:
            continue
        heads, kv_heads = q.shape[1], k.shape[1]
        if kv_heads != heads and not (a.get("enable_gqa") and heads % kv_heads == 0):
            continue
        scale = a.get("scale") or 1 / math.sqrt(q.shape[-1])
        scores_val = q.new_empty([*q.shape[:-1], k.shape[-2]])
        with graph.inserting_before(node):
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
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
