"""Element-wise operators and activations: arithmetic (a constant scalar
operand as the op's ``scalar`` attribute), ReLU, sigmoid, tanh, GELU (also
torch's erf expansion of it), softmax, clipping, hard sigmoid and swish,
the inverse cosine (a polynomial),
powers, the NaN guard of exported attention, selections (Where), and the identities (Identity,
inference Dropout, a Cast to the same type)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from mlir import ir

from raptor.dialects import nn

from ..._acos import AcosOps, acos_of
from ..._bounds import clamp_bound, is_identity
from ..errors import Unsupported
from ..tensors import decode, is_float, shape_of
from .base import RULES, Rule, axis_in, rule

if TYPE_CHECKING:
    from ..state import ImportState


def _scalar_attr(array: np.ndarray) -> ir.Attribute:
    v = array.reshape(-1)[0].item()
    if isinstance(v, bool):
        raise Unsupported("a boolean scalar operand")
    if isinstance(v, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)
    return ir.FloatAttr.get(ir.F64Type.get(), float(v))


_BINARY = {"Add": nn.AddOp, "Sub": nn.SubOp, "Mul": nn.MulOp, "Div": nn.DivOp}


def _near(im: ImportState, name: str, value: float) -> bool:
    return im.is_const(name) and im.const(name).size == 1 and \
        abs(float(im.const(name).reshape(-1)[0]) - value) <= 1e-6 * abs(value)


def _sole_consumer(im: ImportState, name: str, op_type: str) -> tuple[int, Any] | None:
    users = im.consumers.get(name, [])
    if len(users) != 1 or im.users[name] != 1 or im.graph.node[users[0]].op_type != op_type:
        return None
    return users[0], im.graph.node[users[0]]


def _erf_input(im: ImportState, node: Any) -> str | None:
    """x, for the Div of a tensor x by sqrt 2 (or Mul by 1/sqrt 2) an erf GELU starts with."""
    if node.op_type not in ("Div", "Mul") or len(node.input) != 2:
        return None
    x, c = node.input
    scaled = node.op_type == "Div" and _near(im, c, math.sqrt(2)) or \
        node.op_type == "Mul" and _near(im, c, math.sqrt(0.5))
    return x if scaled and not im.is_const(x) else None


def _halved(im: ImportState, node: Any) -> str | None:
    """x, for a Mul of a tensor x by 0.5."""
    if node.op_type != "Mul" or len(node.input) != 2:
        return None
    for x, c in (node.input, node.input[::-1]):
        if _near(im, c, 0.5) and not im.is_const(x):
            return x
    return None


def _producer(im: ImportState, name: str) -> tuple[int, Any] | None:
    return next(((i, n) for i, n in enumerate(im.graph.node) if name in n.output), None)


def _erf_gelu(im: ImportState, node: Any, index: int) -> list[ir.Value] | None:
    """An erf GELU as one ``nn.gelu``: ``x * (1 + erf(x / sqrt 2)) * 0.5``
    (torch's GELU below opset 20: Div (or Mul by 1/sqrt 2) -> Erf -> Add 1 ->
    Mul x -> Mul 0.5) or ``(x * 0.5) * (1 + erf(x / sqrt 2))`` (transformers'
    own gelu, as ESM's exporter gives it, the halving node first), matched at
    whichever of its nodes on x comes first."""
    x = _erf_input(im, node)
    starts = [(index, node)] if x is not None else []
    if x is None and (x := _halved(im, node)) is not None:
        starts = [(i, im.graph.node[i]) for i in im.consumers.get(x, []) if _erf_input(im, im.graph.node[i]) == x]
    for start in starts:
        chain, name = [start], start[1].output[0]
        for op_type in ("Erf", "Add", "Mul"):
            found = _sole_consumer(im, name, op_type)
            if found is None:
                break
            chain.append(found)
            name = found[1].output[0]
        if len(chain) != 4:
            continue
        (_, erf), (_, add), (_, mul) = chain[1], chain[2], chain[3]
        one = [n for n in add.input if n != erf.output[0]]
        other = [n for n in mul.input if n != add.output[0]]
        if len(one) != 1 or not _near(im, one[0], 1.0) or len(other) != 1:
            continue
        if other[0] == x:  # times x, then halved
            half = _sole_consumer(im, mul.output[0], "Mul")
            if half is None or _halved(im, half[1]) != mul.output[0]:
                continue
            chain.append(half)
            out = half[1].output[0]
        else:  # times x halved before
            halving = _producer(im, other[0])
            if halving is None or _halved(im, halving[1]) != x or _sole_consumer(im, other[0], "Mul") != chain[3]:
                continue
            chain.append(halving)
            out = mul.output[0]
        im.skip.update(i for i, _ in chain if i != index)
        im.values[out] = nn.GeluOp(im.value(x)).result
        return [None]
    return None


def _floats(im: ImportState, name: str) -> bool:
    """Whether an input holds floating-point elements."""
    return im.const(name).dtype.kind == "f" if im.is_const(name) else is_float(im.value(name))


@rule("Add", "Sub", "Mul", "Div")
def _binary(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if node.op_type in ("Div", "Mul") and (fused := _erf_gelu(im, node, index)) is not None:
        return fused
    op = _BINARY[node.op_type]
    lhs, rhs = node.input[0], node.input[1]
    if node.op_type == "Div" and not _floats(im, lhs) and not _floats(im, rhs):
        # nn.div divides as torch's `/` (a float quotient); ONNX's Div of
        # integers truncates (token-id arithmetic: `ids // 2` exports as it):
        # left generic, for the token-table analysis (TokenTables.cpp).
        raise Unsupported("a division of integers (ONNX truncates it)")
    if node.op_type == "Add" and im.is_const(lhs) and not im.is_const(rhs):
        lhs, rhs = rhs, lhs  # commutative: the tensor goes first
    if node.op_type == "Mul" and im.is_const(lhs) and not im.is_const(rhs):
        lhs, rhs = rhs, lhs
    x = im.value(lhs)
    if im.is_const(rhs) and im.const(rhs).size == 1 and im.const(rhs).ndim <= len(shape_of(x)) \
            and not (rhs in im.initializers and im.const(rhs).ndim > 0):
        c = im.const(rhs)
        if c.dtype.kind in "iub" and is_float(x):
            c = c.astype(np.float64)
        return [op(x, scalar=_scalar_attr(c)).result]
    return [op(x, other=im.value(rhs)).result]


def _unary(op_class: type) -> Rule:
    def convert(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
        return [op_class(im.value(node.input[0])).result]
    return convert


for _name, _op in {"Relu": nn.ReluOp, "Sigmoid": nn.SigmoidOp, "Tanh": nn.TanhOp,
                   "Neg": nn.NegOp, "Exp": nn.ExpOp, "Cos": nn.CosOp, "Sin": nn.SinOp}.items():
    RULES[_name] = _unary(_op)


@rule("Identity")
def _identity(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    return [im.value(node.input[0])]


@rule("Dropout")
def _dropout(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if len(node.output) > 1 and node.output[1]:
        raise Unsupported("dropout mask")
    training = im.optional_const(node, 2)
    if training is not None and bool(training):
        raise Unsupported("training-mode dropout")
    return [im.value(node.input[0])]


@rule("Cast")
def _cast(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    to = im.types.get(a["to"])
    if to is None or to[0]() != ir.RankedTensorType(x.type).element_type:
        raise Unsupported("a Cast that converts the element type")
    return [x]


@rule("Pow")
def _pow(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    exponent = im.const(node.input[1])
    if exponent.size != 1 or not is_float(x):
        raise Unsupported("a tensor exponent")
    return [nn.PowOp(x, float(exponent.reshape(-1)[0])).result]


@rule("Sqrt")
def _sqrt(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("an integer square root")
    return [nn.PowOp(x, 0.5).result]


@rule("Abs")
def _abs(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """``|x| = relu(x) + relu(-x)``, as the torch frontend decomposes it
    (frontend/_decompositions.py): the back end has no absolute value."""
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("an integer absolute value")
    return [nn.AddOp(nn.ReluOp(x).result, other=nn.ReluOp(nn.NegOp(x).result).result).result]


@rule("Softplus")
def _softplus(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """``relu(x) + log1p(exp(-|x|))``, as the torch frontend decomposes it
    (frontend/_decompositions.py): no comparison at run time, no overflow."""
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("an integer softplus")
    (absolute,) = _abs(im, node, a, index)
    tail = nn.Log1pOp(nn.ExpOp(nn.NegOp(absolute).result).result).result
    return [nn.AddOp(nn.ReluOp(x).result, other=tail).result]


@rule("PRelu")
def _prelu(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """``relu(x) - slope relu(-x)`` (the slope broadcast as ONNX does), as
    the torch frontend decomposes PReLU (frontend/_decompositions.py)."""
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("an integer PReLU")
    negative = nn.MulOp(nn.ReluOp(nn.NegOp(x).result).result, other=im.value(node.input[1])).result
    return [nn.SubOp(nn.ReluOp(x).result, other=negative).result]


def _exponential_linear(x: ir.Value, alpha: float, scale: float, input_scale: float) -> ir.Value:
    """scale (relu(x) + alpha (exp(input_scale min(x, 0)) - 1)), as the
    torch frontend decomposes ELU, SELU and CELU."""
    f64 = ir.F64Type.get()
    negative = nn.NegOp(nn.ReluOp(nn.NegOp(x).result).result).result
    if input_scale != 1.0:
        negative = nn.MulOp(negative, scalar=ir.FloatAttr.get(f64, input_scale)).result
    tail = nn.SubOp(nn.ExpOp(negative).result, scalar=ir.FloatAttr.get(f64, 1.0)).result
    y = nn.AddOp(nn.ReluOp(x).result, other=nn.MulOp(tail, scalar=ir.FloatAttr.get(f64, alpha)).result).result
    return y if scale == 1.0 else nn.MulOp(y, scalar=ir.FloatAttr.get(f64, scale)).result


@rule("Elu", "Selu", "Celu")
def _elu(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported(f"an integer {node.op_type}")
    if node.op_type == "Selu":  # ONNX's defaults are SELU's constants
        alpha, gamma = a.get("alpha", 1.67326319217681884765625), a.get("gamma", 1.05070102214813232421875)
        return [_exponential_linear(x, alpha, gamma, 1.0)]
    alpha = a.get("alpha", 1.0)
    return [_exponential_linear(x, alpha, 1.0, 1.0 / alpha if node.op_type == "Celu" else 1.0)]


@rule("LeakyRelu")
def _leaky_relu(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """``relu(x) - alpha relu(-x)``, as the torch frontend decomposes it
    (frontend/_decompositions.py): exact, and the back end has no leaky ReLU."""
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("an integer leaky ReLU")
    f64 = ir.F64Type.get()
    negative = nn.MulOp(nn.ReluOp(nn.NegOp(x).result).result, scalar=ir.FloatAttr.get(f64, a.get("alpha", 0.01))).result
    return [nn.SubOp(nn.ReluOp(x).result, other=negative).result]


@rule("IsNaN")
def _is_nan(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value | None]:
    """``Where(IsNaN(p), c, p)`` (the NaN guard of exported attention) as
    ``nn.nan_to_num`` replacing NaN only."""
    p = node.input[0]
    found = _sole_consumer(im, node.output[0], "Where")
    if found is None:
        raise Unsupported("an IsNaN that is not a NaN guard")
    where_index, where = found
    cond, c, other = where.input
    if cond != node.output[0] or other != p or not im.is_const(c) or im.const(c).size != 1 \
            or im.const(c).ndim > len(shape_of(im.value(p))) or not is_float(im.value(p)):
        raise Unsupported("an IsNaN that is not a NaN guard")
    im.skip.add(where_index)
    inf = float("inf")
    im.values[where.output[0]] = nn.NanToNumOp(im.value(p), nan=float(im.const(c).reshape(-1)[0]),
                                               posinf=inf, neginf=-inf).result
    return [None]


@rule("Where")
def _where(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """``Where(condition, X, Y)`` as ``nn.where`` (the NaN guard is taken by
    IsNaN above; a known condition, eager attention's causal mask, becomes
    arithmetic in raptor-expand-selects)."""
    condition, x, y = (im.value(name) for name in node.input)
    return [nn.WhereOp(condition, x, y).result]


@rule("Gelu")
def _gelu(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    return [nn.GeluOp(im.value(node.input[0]), approximate=decode(a.get("approximate", "none"))).result]


@rule("Softmax")
def _softmax(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """Over any axis (ConvBERT's span-based kernel: (12, 9, 1) over its 9
    offsets); raptor-normalize-row-ops moves another axis than the last
    last for the PIM lowering, which normalizes rows."""
    x = im.value(node.input[0])
    return [nn.SoftmaxOp(x, axis_in(node, a.get("axis", -1), len(shape_of(x))), half_to_float=False).result]


def _f64(x: float) -> ir.Attribute:
    return ir.FloatAttr.get(ir.F64Type.get(), x)


def _affine(x: ir.Value, scale: float, shift: float) -> ir.Value:
    scaled = x if scale == 1.0 else nn.MulOp(x, scalar=_f64(scale)).result
    return scaled if shift == 0.0 else nn.AddOp(scaled, scalar=_f64(shift)).result


_NN_ACOS = AcosOps(relu=lambda x: nn.ReluOp(x).result, neg=lambda x: nn.NegOp(x).result,
                   add=lambda a, b: nn.AddOp(a, other=b).result, mul=lambda a, b: nn.MulOp(a, other=b).result,
                   affine=_affine, at_least=lambda x, lo: nn.ClampOp(x, min=lo).result,
                   between=lambda x, lo, hi: nn.HardtanhOp(x, min_val=lo, max_val=hi).result,
                   sqrt=lambda x: nn.PowOp(x, 0.5).result)


@rule("Acos")
def _acos(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    # Yoso's attention, of cosines: a polynomial (frontend/_acos.py).
    x = im.value(node.input[0])
    if not is_float(x):
        raise Unsupported("the inverse cosine of integers")
    return [acos_of(x, _NN_ACOS)]


@rule("Clip")
def _clip(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    lo, hi = im.optional_const(node, 1), im.optional_const(node, 2)
    if lo is None and hi is None:
        return [x]
    if lo is not None and hi is not None:
        return [nn.HardtanhOp(x, min_val=float(lo), max_val=float(hi)).result]
    kw = {"min": float(lo)} if lo is not None else {"max": float(hi)}
    return [nn.ClampOp(x, **kw).result]


@rule("Max", "Min")
def _bound(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    """A float tensor's Max / Min with a constant of one value: a clamp; by
    -inf (+inf), the tensor itself (frontend/_bounds.py decides, as for
    .pt2)."""
    names = [n for n in node.input if n]
    if len(names) != 2:
        raise Unsupported("a maximum or minimum of other than two inputs")
    x_name, c_name = names if not im.is_const(names[0]) else names[::-1]
    if im.is_const(x_name) or not im.is_const(c_name):
        raise Unsupported("a maximum or minimum of two tensors")
    x = im.value(x_name)
    bound = clamp_bound(im.const(c_name), shape_of(x)) if is_float(x) else None
    if bound is None:
        raise Unsupported("a bound that is not one value within the tensor's shape")
    maximum = node.op_type == "Max"
    if is_identity(bound, maximum):
        return [x]
    return [nn.ClampOp(x, **{"min" if maximum else "max": bound}).result]


def _hardsigmoid(x: ir.Value, alpha: float, beta: float) -> ir.Value:
    # clamp(alpha x + beta, 0, 1) = hardtanh(x + beta/alpha, 0, 1/alpha) * alpha
    f64 = ir.F64Type.get()
    shifted = nn.AddOp(x, scalar=ir.FloatAttr.get(f64, beta / alpha)).result
    clipped = nn.HardtanhOp(shifted, min_val=0.0, max_val=1.0 / alpha).result
    return nn.DivOp(clipped, scalar=ir.FloatAttr.get(f64, 1.0 / alpha)).result


@rule("HardSigmoid")
def _hard_sigmoid(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    alpha, beta = a.get("alpha", 0.2), a.get("beta", 0.5)
    if alpha <= 0:
        raise Unsupported("an alpha of at most 0")
    return [_hardsigmoid(im.value(node.input[0]), alpha, beta)]


@rule("HardSwish")
def _hard_swish(im: ImportState, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    return [nn.MulOp(x, other=_hardsigmoid(x, 1.0 / 6.0, 0.5)).result]
