"""aten operator -> ``nn`` op conversion rules.

``nn`` operand and attribute names are aten's argument names, so most rules
only say which op class to build and how a few arguments change form. The
emitter normalises every call to a ``{aten argument name: value}`` dict first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from mlir import ir

from ..dialects import nn
from . import _fx_rewrites as rw

aten = torch.ops.aten

#: A converter gets the normalised arguments (tensors already ``ir.Value``s,
#: Python scalars as they are) and the result types, and builds an op, or
#: returns None when the call is outside what the ``nn`` op models (the
#: emitter then falls back to the generic ``nn.aten`` op).
Builder = Callable[[dict[str, Any], list[ir.Type]], ir.OpView | None]


@dataclass(frozen=True)
class Rule:
    """How one aten overload becomes an ``nn`` op."""

    op: type
    #: aten argument -> ``nn`` builder keyword (``None`` drops the argument).
    rename: dict[str, str | None] = field(default_factory=dict)
    #: Called on the keyword arguments before building; may return None.
    adapt: Callable[[dict[str, Any], list[ir.Type]], dict[str, Any] | None] | None = None
    #: Called on the fx node first: False keeps the call generic.
    accepts: Callable[[Any], bool] | None = None


def _binary(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    """A Python-scalar ``other`` becomes the ``scalar`` attribute; a scalar
    ``self`` (``0.3 - x``, as rsub decomposes) has no typed form: the call
    stays generic."""
    if not isinstance(kw.get("self_"), ir.Value):
        return None
    other = kw.get("other")
    if isinstance(other, ir.Value):
        return kw
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        return None
    kw.pop("other")
    kw["scalar"] = (ir.IntegerAttr.get(ir.IntegerType.get_signless(64), other)
                    if isinstance(other, int) else
                    ir.FloatAttr.get(ir.F64Type.get(), other))
    return kw


def _cat(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    """torch.cat skips 1-d tensors of no elements (its legacy rule, which
    an empty KV cache's past relies on): so does ``nn.cat``'s operand list."""
    def empty(t: Any) -> bool:
        return isinstance(t, ir.Value) and ir.RankedTensorType(t.type).shape == [0]

    kept = [t for t in kw["tensors"] if not empty(t)]
    if not kept:
        return None
    kw["tensors"] = kept
    return kw


def _alpha(kw: dict[str, Any], types: list[ir.Type]) -> dict[str, Any] | None:
    alpha = kw.get("alpha", 1)
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
        return None
    kw["alpha"] = float(alpha)
    return _binary(kw, types)


def _view_to_result(kw: dict[str, Any], types: list[ir.Type]) -> dict[str, Any]:
    """unsqueeze/squeeze/reshape: a view to the result shape."""
    return {"self_": kw["self_"], "size": list(ir.RankedTensorType(types[0]).shape)}


def _slice(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any]:
    if kw.get("start") in (None, 0):
        kw.pop("start", None)
    if kw.get("end") is None or kw["end"] >= rw.INT64_MAX:
        kw.pop("end", None)
    return kw


def _mean(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    if kw.pop("dtype", None) is not None:
        return None
    if not kw.get("dim"):
        kw.pop("dim", None)
    return kw


def _optional_attrs(*names: str) -> Callable[[dict[str, Any], list[ir.Type]], dict[str, Any]]:
    """Drops attributes given as None (aten's "not set")."""
    def adapt(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any]:
        for name in names:
            if kw.get(name) is None:
                kw.pop(name, None)
        return kw
    return adapt


def _attention(kw: dict[str, Any], types: list[ir.Type]) -> dict[str, Any]:
    """Unset scale and mask dropped; keys and values of one head broadcast
    over the query's heads (Falcon's multi-query attention, torch's
    broadcasting) are grouped-query attention with one group."""
    kw = _optional_attrs("scale", "attn_mask")(kw, types)
    query, key = (ir.RankedTensorType(kw[name].type).shape for name in ("query", "key"))
    if len(query) >= 3 and len(key) == len(query) and key[-3] == 1 < query[-3]:
        kw["enable_gqa"] = True
    return kw


def _batch_norm(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    # nn.batch_norm models the affine form; others stay generic.
    if kw.get("weight") is None or kw.get("bias") is None:
        return None
    return kw


def _upsample(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any]:
    if kw.get("output_size") is None:
        kw.pop("output_size", None)
    if kw.get("scale_factors") is None:
        kw.pop("scale_factors", None)
    else:
        kw["scale_factors"] = [float(s) for s in kw["scale_factors"]]
    return kw


def _scalars(kw: dict[str, Any], names: tuple[str, ...], optional: bool) -> bool:
    """Makes each named argument a float; an optional one that is None is
    dropped. False when one is not a number (a tensor: the op stays generic)."""
    for name in names:
        value = kw.get(name)
        if value is None and optional:
            kw.pop(name, None)
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        else:
            kw[name] = float(value)
    return True


def _clamp(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    """Scalar bounds only (a tensor bound stays generic); None means unbounded."""
    if not _scalars(kw, ("min", "max"), optional=True) or not ("min" in kw or "max" in kw):
        return None
    for name in ("min", "max"):
        if name in kw:
            kw[name] = ir.FloatAttr.get(ir.F64Type.get(), kw[name])
    return kw


def _floats(*names: str) -> Callable[[dict[str, Any], list[ir.Type]], dict[str, Any] | None]:
    def adapt(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
        return kw if _scalars(kw, names, optional=False) else None
    return adapt


def _square_root(kw: dict[str, Any], types: list[ir.Type]) -> dict[str, Any] | None:
    """``sqrt(x)`` as ``x ** 0.5`` of reals (the ONNX frontend's Sqrt too),
    which raptor-expand-powers turns into products by rsqrt."""
    if not isinstance(ir.RankedTensorType(types[0]).element_type, ir.FloatType):
        return None
    return {**kw, "exponent": 0.5}


def _index(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    """Index tensors for leading dimensions only (a None before one stays generic)."""
    indices = kw.get("indices")
    if not isinstance(indices, list) or not indices or not all(
            isinstance(v, ir.Value) for v in indices):
        return None
    return kw


def _plain_view(node: Any) -> bool:
    """as_strided of a contiguous tensor at offset 0 (what nn.as_strided means)."""
    source = node.args[0]
    val = source.meta.get("val") if hasattr(source, "meta") else None
    return val is not None and rw.contiguous(val)


def _as_strided(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    offset = kw.get("storage_offset")
    if offset is None:
        kw.pop("storage_offset", None)
    elif not isinstance(offset, int):
        return None
    if not all(isinstance(v, int) for v in list(kw["size"]) + list(kw["stride"])):
        return None
    kw["size"], kw["stride"] = list(kw["size"]), list(kw["stride"])
    return kw


def _nan_to_num(kw: dict[str, Any], _: list[ir.Type]) -> dict[str, Any] | None:
    return kw if _scalars(kw, ("nan", "posinf", "neginf"), optional=True) else None


RULES: dict[Any, Rule] = {
    aten.convolution.default: Rule(nn.ConvolutionOp),
    aten._native_batch_norm_legit_no_training.default: Rule(nn.BatchNormOp, adapt=_batch_norm),
    aten.linear.default: Rule(nn.LinearOp),
    aten.mm.default: Rule(nn.MatmulOp, {"mat2": "other"}),
    aten.bmm.default: Rule(nn.MatmulOp, {"mat2": "other"}),
    aten.matmul.default: Rule(nn.MatmulOp),
    aten.scaled_dot_product_attention.default: Rule(
        nn.ScaledDotProductAttentionOp, adapt=_attention),
    aten.layer_norm.default: Rule(nn.LayerNormOp, {"cudnn_enable": None}),
    aten.rms_norm.default: Rule(nn.RMSNormOp, adapt=_optional_attrs("eps")),
    rw.rotary_positional_embeddings: Rule(nn.RotaryEmbeddingOp),
    aten.add.Tensor: Rule(nn.AddOp, adapt=_alpha),
    aten.add.Scalar: Rule(nn.AddOp, adapt=_alpha),
    aten.sub.Tensor: Rule(nn.SubOp, adapt=_alpha),
    aten.sub.Scalar: Rule(nn.SubOp, adapt=_alpha),
    aten.mul.Tensor: Rule(nn.MulOp, adapt=_binary),
    aten.mul.Scalar: Rule(nn.MulOp, adapt=_binary),
    aten.div.Tensor: Rule(nn.DivOp, adapt=_binary),
    aten.div.Scalar: Rule(nn.DivOp, adapt=_binary),
    aten.relu.default: Rule(nn.ReluOp),
    aten.gelu.default: Rule(nn.GeluOp),
    aten.silu.default: Rule(nn.SiluOp),
    aten.sigmoid.default: Rule(nn.SigmoidOp),
    aten.tanh.default: Rule(nn.TanhOp),
    aten.neg.default: Rule(nn.NegOp),
    aten.rsqrt.default: Rule(nn.RsqrtOp),
    aten.exp.default: Rule(nn.ExpOp),
    aten.log1p.default: Rule(nn.Log1pOp),
    aten.cos.default: Rule(nn.CosOp),
    aten.sin.default: Rule(nn.SinOp),
    aten.clone.default: Rule(nn.CloneOp, {"memory_format": None}),
    aten._softmax.default: Rule(nn.SoftmaxOp),
    aten.mean.dim: Rule(nn.MeanOp, adapt=_mean),
    aten.mean.default: Rule(nn.MeanOp, adapt=_mean),
    aten.amax.default: Rule(nn.AmaxOp, adapt=_mean),
    aten.max_pool2d_with_indices.default: Rule(nn.MaxPool2dOp),
    aten.avg_pool2d.default: Rule(nn.AvgPool2dOp, adapt=_optional_attrs("divisor_override")),
    aten._adaptive_avg_pool2d.default: Rule(nn.AdaptiveAvgPool2dOp),
    aten.hardtanh.default: Rule(nn.HardtanhOp, adapt=_floats("min_val", "max_val")),
    aten.clamp.default: Rule(nn.ClampOp, adapt=_clamp),
    aten.pow.Tensor_Scalar: Rule(nn.PowOp, adapt=_floats("exponent")),
    aten.sqrt.default: Rule(nn.PowOp, adapt=_square_root),
    aten.nan_to_num.default: Rule(nn.NanToNumOp, adapt=_nan_to_num),
    aten.upsample_nearest2d.vec: Rule(nn.UpsampleNearest2dOp, adapt=_upsample),
    aten.cat.default: Rule(nn.CatOp, adapt=_cat),
    aten.where.self: Rule(nn.WhereOp),
    aten.split_with_sizes.default: Rule(nn.SplitWithSizesOp),
    aten.slice.Tensor: Rule(nn.SliceOp, adapt=_slice),
    aten.view.default: Rule(nn.ViewOp),
    aten._unsafe_view.default: Rule(nn.ViewOp),
    aten.reshape.default: Rule(nn.ViewOp, adapt=_view_to_result),
    aten.unsqueeze.default: Rule(nn.ViewOp, adapt=_view_to_result),
    aten.squeeze.dim: Rule(nn.ViewOp, adapt=_view_to_result),
    aten.squeeze.dims: Rule(nn.ViewOp, adapt=_view_to_result),
    aten.permute.default: Rule(nn.PermuteOp),
    aten.select.int: Rule(nn.SelectOp),
    aten.index_select.default: Rule(nn.IndexSelectOp),
    aten.index.Tensor: Rule(nn.IndexOp, adapt=_index),
    aten.alias.default: Rule(nn.AliasOp),
    aten.as_strided.default: Rule(nn.AsStridedOp, adapt=_as_strided, accepts=_plain_view),
    aten.expand.default: Rule(nn.ExpandOp, {"implicit": None}),
    aten.constant_pad_nd.default: Rule(nn.ConstantPadNdOp),
    aten.embedding.default: Rule(nn.EmbeddingOp, {"scale_grad_by_freq": None, "sparse": None}),
    rw.fan_out: Rule(nn.FanOutOp),
    rw.kv_cache: Rule(nn.KVCacheOp),
}


def target_name(target: Any) -> str:
    """The operator name used in diagnostics and ``nn.aten`` (``aten.add.Tensor``)."""
    markers = {
        rw.rotary_positional_embeddings: "xaten.rotary_positional_embeddings.default",
        rw.fan_out: "xaten.fan_out.Tensor",
        rw.kv_cache: "xaten.kv_cache.default",
    }
    if target in markers:
        return markers[target]
    if isinstance(target, torch._ops.OpOverload):
        ns, _, rest = target.name().partition("::")
        return f"{ns}.{rest}" if "." in rest else f"{ns}.{rest}.default"
    return getattr(target, "__name__", str(target))


def schema_arguments(target: Any) -> list[tuple[str, Any]]:
    """(name, default) of each argument, from the aten schema or marker signature."""
    if isinstance(target, torch._ops.OpOverload):
        return [(a.name, a.default_value if a.has_default_value() else None)
                for a in target._schema.arguments]
    import inspect
    return [(p.name, None if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(target).parameters.values()]
