"""Attention whose additive mask is computed at run time, spelled out.

``nn.scaled_dot_product_attention`` lowers with a compile-time mask only
(a padding or causal mask the compiler folds into its kernels).
Wav2Vec2-Conformer's relative positions add a bias computed from the
queries (``q + pos_bias_v`` times the projected position embeddings,
shifted) as the mask: such an attention is imported as what it computes,
``softmax(q k^T * scale + mask) v``, two products of activations, an add
and a softmax, which the back end lowers one by one.
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


def run_time_attention_biases(graph: fx.Graph, constant: set[fx.Node]) -> int:
    """Spells out each attention whose float mask is not a constant (no
    causal flag, no dropout, as many key as query heads); returns how
    many."""
    count = 0
    for node in list(graph.nodes):
        if not _is(node, aten.scaled_dot_product_attention.default):
            continue
        a = dict(zip(_ARGUMENTS, node.args)) | dict(node.kwargs)
        mask = a.get("attn_mask")
        if not isinstance(mask, fx.Node) or mask in constant or a.get("dropout_p", 0.0) or a.get("is_causal"):
            continue
        q, k, v = (a[n].meta["val"] for n in ("query", "key", "value"))
        if not mask.meta["val"].dtype.is_floating_point or q.dim() != 4 or k.shape[1] != q.shape[1]:
            continue
        scale = a.get("scale") or 1 / math.sqrt(q.shape[-1])
        scores_val = q.new_empty([*q.shape[:-1], k.shape[-2]])
        with graph.inserting_before(node):
            keys = _node(graph, node, aten.permute.default, (a["key"], [0, 1, 3, 2]), k.transpose(-2, -1))
            scores = _node(graph, node, aten.matmul.default, (a["query"], keys), scores_val)
            scaled = _node(graph, node, aten.mul.Tensor, (scores, scale), scores_val)
            biased = _node(graph, node, aten.add.Tensor, (scaled, mask), scores_val)
            weights = _node(graph, node, aten._softmax.default, (biased, -1, False), scores_val)
            out = _node(graph, node, aten.matmul.default, (weights, a["value"]), node.meta["val"])
        out.meta = dict(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        count += 1
    return count
