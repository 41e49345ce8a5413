"""A reference evaluator of ``nn`` IR for tests: each op by its documented
meaning, computed with torch's functional operators, so that an import can
be compared with the model's own runtime (eager torch, onnxruntime)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from mlir import ir

from raptor.quant.interpreter import _dense_values


def _attr(op: Any, name: str, default: Any = None) -> Any:
    if name not in op.attributes:
        return default
    a = op.attributes[name]
    if isinstance(a, ir.BoolAttr):
        return a.value
    if isinstance(a, ir.IntegerAttr):
        return a.value
    if isinstance(a, ir.FloatAttr):
        return a.value
    if isinstance(a, ir.StringAttr):
        return a.value
    if isinstance(a, ir.DenseI64ArrayAttr):
        return list(a)
    if isinstance(a, ir.DenseF64ArrayAttr):
        return list(a)
    if isinstance(a, ir.DenseElementsAttr):  # (boolean splats read as the interpreter reads them)
        return torch.from_numpy(np.array(_dense_values(a)))
    return a


def _operand(env: dict, op: Any, name: str) -> torch.Tensor | None:
    value = getattr(op.opview, name)
    return None if value is None else env[value]


def _pair(values: list[int], default: int | None = None) -> list[int]:
    if not values:
        return [default, default] if default is not None else []
    return values * 2 if len(values) == 1 else values


def _binary(fn):
    def run(env: dict, op: Any) -> torch.Tensor:
        x = _operand(env, op, "self_")
        other = op.opview.other
        y = env[other] if other is not None else _attr(op, "scalar")
        if op.name in ("nn.add", "nn.sub") and _attr(op, "alpha", 1.0) != 1.0:
            y = y * _attr(op, "alpha")
        return fn(x, y)
    return run


def _as_strided(x: torch.Tensor, op: Any) -> torch.Tensor:
    flat = x.contiguous().reshape(-1)
    return torch.as_strided(flat, _attr(op, "size"), _attr(op, "stride"),
                            _attr(op, "storage_offset", 0)).clone()


def _run(env: dict, op: Any) -> list[torch.Tensor]:
    name = op.name
    o = lambda n: _operand(env, op, n)  # noqa: E731
    if name == "nn.constant":
        return [_attr(op, "value")]
    if name == "nn.convolution":
        n = len(o("weight").shape) - 2
        conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[n]
        return [conv(o("input"), o("weight"), o("bias"), _attr(op, "stride"), _attr(op, "padding"),
                     _attr(op, "dilation"), _attr(op, "groups", 1))]
    if name == "nn.linear":
        return [F.linear(o("input"), o("weight"), o("bias"))]
    if name == "nn.matmul":
        return [torch.matmul(o("self_"), o("other"))]
    if name == "nn.batch_norm":
        out = F.batch_norm(o("input"), o("running_mean"), o("running_var"), o("weight"), o("bias"),
                           False, 0.0, _attr(op, "eps", 1e-5))
        return [out, torch.empty(0), torch.empty(0)]
    if name == "nn.layer_norm":
        return [F.layer_norm(o("input"), _attr(op, "normalized_shape"), o("weight"), o("bias"),
                             _attr(op, "eps", 1e-5))]
    if name in ("nn.add", "nn.sub", "nn.mul", "nn.div"):
        fn = {"nn.add": torch.add, "nn.sub": torch.sub, "nn.mul": torch.mul, "nn.div": torch.div}[name]
        return [_binary(lambda a, b: fn(a, b))(env, op)]
    unary = {"nn.relu": torch.relu, "nn.sigmoid": torch.sigmoid, "nn.tanh": torch.tanh,
             "nn.neg": torch.neg, "nn.rsqrt": torch.rsqrt, "nn.silu": F.silu, "nn.exp": torch.exp,
             "nn.log1p": torch.log1p,
             "nn.clone": torch.clone, "nn.alias": torch.clone}
    if name in unary:
        return [unary[name](o("self_"))]
    if name == "nn.gelu":
        return [F.gelu(o("self_"), approximate=_attr(op, "approximate", "none"))]
    if name == "nn.nan_to_num":
        return [torch.nan_to_num(o("self_"), _attr(op, "nan", 0.0), _attr(op, "posinf"), _attr(op, "neginf"))]
    if name == "nn.where":
        return [torch.where(_operand(env, op, "condition").bool(), _operand(env, op, "self_"), _operand(env, op, "other"))]
    if name == "nn.pow":
        return [torch.pow(o("self_"), _attr(op, "exponent"))]
    if name == "nn.hardtanh":
        return [F.hardtanh(o("self_"), _attr(op, "min_val", -1.0), _attr(op, "max_val", 1.0))]
    if name == "nn.clamp":
        return [torch.clamp(o("self_"), _attr(op, "min"), _attr(op, "max"))]
    if name == "nn.softmax":
        return [torch.softmax(o("self_"), _attr(op, "dim"))]
    if name == "nn.mean":
        dims = _attr(op, "dim") or list(range(o("self_").dim()))
        return [torch.mean(o("self_"), dims, keepdim=_attr(op, "keepdim", False))]
    if name == "nn.amax":
        dims = _attr(op, "dim") or list(range(o("self_").dim()))
        return [torch.amax(o("self_"), dims, keepdim=_attr(op, "keepdim", False))]
    if name == "nn.max_pool2d":
        k = _pair(_attr(op, "kernel_size"))
        out, idx = F.max_pool2d(o("self_"), k, _pair(_attr(op, "stride")) or k, _pair(_attr(op, "padding"), 0),
                                _pair(_attr(op, "dilation"), 1), _attr(op, "ceil_mode", False), True)
        return [out, idx]
    if name == "nn.avg_pool2d":
        k = _pair(_attr(op, "kernel_size"))
        return [F.avg_pool2d(o("self_"), k, _pair(_attr(op, "stride")) or k, _pair(_attr(op, "padding"), 0),
                             _attr(op, "ceil_mode", False), _attr(op, "count_include_pad", True),
                             _attr(op, "divisor_override"))]
    if name == "nn.adaptive_avg_pool2d":
        return [F.adaptive_avg_pool2d(o("self_"), _attr(op, "output_size"))]
    if name == "nn.cat":
        return [torch.cat([env[v] for v in op.opview.tensors], _attr(op, "dim", 0))]
    if name == "nn.split_with_sizes":
        return list(torch.split(o("self_"), _attr(op, "split_sizes"), _attr(op, "dim", 0)))
    if name == "nn.slice":
        x = o("self_")
        dim = _attr(op, "dim", 0)
        index = [slice(None)] * x.dim()
        index[dim] = slice(_attr(op, "start"), _attr(op, "end"), _attr(op, "step", 1))
        return [x[tuple(index)]]
    if name == "nn.select":
        return [torch.select(o("self_"), _attr(op, "dim"), _attr(op, "index"))]
    if name == "nn.index_select":
        return [torch.index_select(o("self_"), _attr(op, "dim"), o("index").reshape(-1))]
    if name == "nn.index":
        return [o("self_")[tuple(env[v] for v in op.opview.indices)]]
    if name == "nn.as_strided":
        return [_as_strided(o("self_"), op)]
    if name == "nn.view":
        return [o("self_").reshape(_attr(op, "size"))]
    if name == "nn.permute":
        return [o("self_").permute(_attr(op, "dims"))]
    if name == "nn.expand":
        return [o("self_").expand(_attr(op, "size"))]
    if name == "nn.constant_pad_nd":
        return [F.pad(o("self_"), _attr(op, "pad"), value=_attr(op, "value", 0.0))]
    if name == "nn.fan_out":  # each slice along `dim` repeated `repeats` times (1: identity)
        return [torch.repeat_interleave(o("input"), _attr(op, "repeats"), dim=_attr(op, "dim", 1))]
    if name == "nn.embedding":
        return [F.embedding(o("indices"), o("weight"))]
    if name == "nn.scaled_dot_product_attention":
        return [F.scaled_dot_product_attention(o("query"), o("key"), o("value"), attn_mask=o("attn_mask"),
                                               is_causal=_attr(op, "is_causal", False),
                                               scale=_attr(op, "scale"),
                                               enable_gqa=_attr(op, "enable_gqa", False))]
    # A test that reaches an op without a rule fails here, naming it.
    raise LookupError(f"the reference evaluator has no rule for {name}")


def evaluate(module: ir.Module, inputs: list[np.ndarray], weights: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Runs the module's first function on ``inputs`` (user inputs in order)
    with ``weights`` for its ``nn.param`` arguments."""
    fn = next(op for op in module.body.operations if op.operation.name == "func.func")
    block = fn.regions[0].blocks[0]
    env: dict = {}
    user = iter(inputs)
    for arg, attrs in zip(block.arguments, ir.ArrayAttr(fn.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        data = weights[ir.StringAttr(attrs["nn.param"]).value] if "nn.param" in attrs else next(user)
        env[arg] = torch.from_numpy(np.array(data))  # a copy: writable, contiguous
    with torch.no_grad():
        for op in block.operations:
            if op.operation.name == "func.return":
                return [env[v].numpy() for v in op.operands]
            for result, value in zip(op.results, _run(env, op.operation)):
                env[result] = value
    raise ValueError("function without a return")
