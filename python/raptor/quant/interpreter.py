"""A torch interpreter of ``nn`` graphs with materialized codecs.

It is the oracle of quantized compilation: in ``fp32`` mode codecs are
identities (the source view: calibration reads the data at each
``codec.observe``); in ``int8`` mode it computes what the PIM programs
compute (passes/codec/Quantization.h): encoders round to int8 codes, int8
convolutions and linear layers sum codes exactly (float64 holds them) with
their bias in accumulator units, decoders scale back to float32, and every
other operator runs in float32 as the programs compute it: torch's
operations where they round alike, else the programs' own steps and order
of additions (vector_unit.py: norms, softmax, means, pooling, matrix
products, transcendental functions). Integer parts and the float32
operators between codecs then equal the programs' bit for bit (float32
convolutions and linear layers, which only policy Z leaves, still sum in
torch's order).

When the function carries ``raptor.fixed_point_bits`` F (an integer-only
program, simulator/FixedPoint.h), every real value is an int32 y
standing for y 2^-F instead: codecs requantize with the programs' fixed
multipliers, and the operators that run between them (sums, ReLU, clamps,
pooling, means, concatenation, padding, views) compute on those integers
exactly as the vector unit does, wrapping at 32 bits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from mlir import ir

from .. import _raptor, port_names
from .._io import UserError
from . import vector_unit

__all__ = ["Codes", "OperatorError", "Sums", "encoding_of", "evaluate", "quantize_per_channel", "scale_of"]

INT8_MAX = np.float32(127.0)
#: Attention probabilities are encoded as round(32767 p) (16-bit codes).
PROBABILITY_LEVELS = np.float32(32767.0)
#: The zero point of an offset encoding (non-negative data, all 255 codes).
OFFSET_ZERO = -127
#: Data whose symmetric scale (amax / 127) is at least this many times the
#: scale of its range spread over all 255 codes gets an affine encoding: a
#: GELU's, SiLU's or hardswish's output (minimum -0.17, -0.28, -0.375 against
#: maxima of several units) gains more than half a bit; a range about as
#: wide below 0 as above keeps the symmetric encoding, whose zero point 0
#: costs no instruction.
AFFINE_GAIN = 1.5
#: The smallest scale of an activation's encoding, float32's epsilon as
#: torch's observers take it: data that calibration saw within a few
#: epsilons of 0 (a random-init EfficientNet's squeeze-excitation after a
#: saturated SiLU) is encoded as zeros instead of by a scale so small that
#: the requantization into it (sums' scale over it) has no fixed-point form.
MIN_ACTIVATION_SCALE = np.float32(np.finfo(np.float32).eps)


#: Matrix operators the compiler computes when every operand is known.
_HOST_MATRIX_OPS = ("nn.convolution", "nn.linear", "nn.matmul")


def scale_of(amax: float) -> np.float32:
    """A symmetric encoding's scale for data of absolute maximum ``amax``."""
    a = np.float32(amax)
    return a / INT8_MAX if a > 0 and np.isfinite(a) else np.float32(1.0)


def encoding_of(amax: float, minimum: float) -> tuple[np.float32, int]:
    """(scale, zero point) of a subgraph whose data spans [minimum, ...]
    with absolute maximum ``amax``: offset (zero -127, 255 codes over
    [0, amax]) for non-negative data; affine (255 codes over [minimum,
    amax], the zero point where 0 falls) for data reaching less far below 0
    than above, when that is ``AFFINE_GAIN`` times finer than symmetric;
    else symmetric; never below ``MIN_ACTIVATION_SCALE``."""
    if minimum >= 0:
        a = np.float32(amax)
        scale, zero = (a / np.float32(254.0) if a > 0 and np.isfinite(a) else np.float32(1.0)), OFFSET_ZERO
    elif np.isfinite(amax) and 2 * amax >= AFFINE_GAIN * (amax - minimum):  # (then -minimum <= amax / 3)
        scale = max(np.float32((amax - minimum) / 254.0), MIN_ACTIVATION_SCALE)
        # codes = round(x / scale) + zero: minimum at -127, amax at 127
        zero = int(np.clip(round(-127 - minimum / float(scale)), -127, 127))
    else:
        scale, zero = scale_of(amax), 0
    return max(scale, MIN_ACTIVATION_SCALE), zero


def quantize_per_channel(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and scales of a weight, one scale per output channel (dim 0)."""
    w = np.asarray(weight, dtype=np.float32).reshape(weight.shape[0], -1)
    amax = np.abs(w).max(axis=1) if w.size else np.zeros(w.shape[0], np.float32)
    scales = np.array([scale_of(a) for a in amax], dtype=np.float32)
    codes = np.clip(np.rint(w / scales[:, None]), -127, 127).astype(np.float32)
    return codes.reshape(weight.shape), scales


@dataclass
class Codes:
    """Encoded data: int8 codes (held exactly in float64) of one subgraph."""

    values: Any  # torch.Tensor
    subgraph: int


@dataclass
class Sums:
    """The int32 sums of an int8 matrix operator and its decoder's scales."""

    values: Any  # torch.Tensor (float64, exact integers)
    scales: np.ndarray  # per output channel
    channel_dim: int


def _attr(a: ir.Attribute) -> Any:
    for cast in (ir.DenseI64ArrayAttr, ir.DenseF64ArrayAttr):
        try:
            return list(cast(a))
        except ValueError:
            pass
    for cast in (ir.BoolAttr, ir.IntegerAttr, ir.FloatAttr, ir.StringAttr):
        try:
            return cast(a).value
        except ValueError:
            pass
    return a


def _attrs(op: ir.Operation) -> dict[str, Any]:
    out = {}
    for entry in op.attributes:
        name = entry if isinstance(entry, str) else entry.name
        out[name] = _attr(op.attributes[name])
    return out


def _semantics(op: ir.Operation) -> tuple[int, str, str]:
    """(id, source, target) of a codec op's ``#codec.sem<id : s -> t>``."""
    text = str(op.attributes["semantics"])
    inner = text[text.index("<") + 1:text.rindex(">")]
    ident, types = inner.split(":", 1)
    source, target = (t.strip() for t in types.split("->"))
    return int(ident), source, target


def _wrap(v: Any) -> Any:
    """int64 tensors wrapped to int32, as the vector unit's arithmetic."""
    return ((v + 2**31) % 2**32) - 2**31


def requantize(x: Any, multipliers: np.ndarray, offset: int = 0) -> Any:
    """round(x * m) + offset as integer-only programs compute it
    (simulator/FixedPoint.h) on an int64 tensor of int32 values, with
    ``multipliers`` broadcast against ``x``; the constants come from the
    C++ that the lowering uses (``_raptor.fixed_steps``)."""
    import torch

    m = np.asarray(multipliers, dtype=np.float64)
    values, where = np.unique(m, return_inverse=True)
    try:
        table = np.array([_raptor.fixed_steps(float(v)) for v in values], dtype=np.int64)
    except ValueError as e:  # (the lowering refuses the same multiplier with a diagnostic)
        raise UserError(f"a requantization multiplier has no fixed-point form: {e}") from None
    steps = table[where.reshape(-1)].reshape(*m.shape, table.shape[1])
    k = [torch.from_numpy(np.ascontiguousarray(steps[..., i])) for i in range(steps.shape[-1])]
    high, low, high_left = k[0], k[1], k[2]
    hi = x >> 16
    lo = _wrap(x - _wrap(hi << 16))
    total = _wrap(_wrap(hi * high) << high_left)
    for i, product in enumerate((hi * low, lo * high, lo * low)):
        left, pre, rounding, right, used = k[3 + 5 * i:8 + 5 * i]
        term = _wrap(_wrap(product) << left) >> pre
        total = _wrap(total + used * (_wrap(term + rounding) >> right))
    return _wrap((_wrap(total + k[18]) >> k[19]) + offset)


def _shift_term(p: Any, exponent: int) -> Any:
    """A product term brought to the result's unit as the instructions do
    (``_raptor.term_shift``: a left shift, or a rounded right one)."""
    left, pre, rounding, right = _raptor.term_shift(exponent)
    return _wrap((_wrap(p << left) >> pre) + rounding) >> right


def fixed_product(x: Any, y: Any, bits: int) -> Any:
    """x y of two int32 fixed-point tensors (unit 2^-bits) as integer
    programs compute it (simulator/FixedPoint.h: four 31-bit partial
    products, each brought to the unit, then added)."""
    xh, yh = x >> 15, y >> 15
    xl, yl = _wrap(x - _wrap(xh << 15)), _wrap(y - _wrap(yh << 15))
    total = _shift_term(_wrap(xh * yh), 30 - bits)
    total = _wrap(total + _shift_term(_wrap(xh * yl), 15 - bits))
    total = _wrap(total + _shift_term(_wrap(xl * yh), 15 - bits))
    return _wrap(total + _shift_term(_wrap(xl * yl), -bits))


#: The fraction bits of vsigm / vtanh in integer programs (Q15).
ACTIVATION_BITS = 15


def fixed_activation(x: Any, bits: int, tanh: bool = False) -> Any:
    """sigmoid (or tanh) of int32 fixed point (unit 2^-bits): clamped to
    +-32, to Q15, the function rounded half to even (as the simulator's
    vsigm / vtanh), back."""
    import torch

    bound = 2**31 - 1 if bits >= 26 else 32 << bits  # (simulator/FixedPoint.h: activationBound)
    q = _shift_term(torch.clamp(x, -bound, bound), ACTIVATION_BITS - bits).double() / 2.0**ACTIVATION_BITS
    f = torch.tanh(q) if tanh else 1.0 / (1.0 + torch.exp(-q))
    return _shift_term(torch.round(f * 2.0**ACTIVATION_BITS).long(), bits - ACTIVATION_BITS)


def fixed_constant(value: Any, bits: int) -> Any:
    """A real constant as an integer-only program holds it: round half to
    even of value 2^bits, as float32 (the lowering's constant vectors),
    saturated to int32."""
    import torch

    with np.errstate(over="ignore"):  # (beyond float32: +-inf, saturated below)
        v = np.float32(np.rint(np.asarray(value, dtype=np.float64) * 2.0**bits)).astype(np.float64)
    return torch.from_numpy(np.asarray(np.clip(np.nan_to_num(v, nan=0.0), -2.0**31, 2.0**31 - 1), dtype=np.int64))


def fixed_point_bits(module: ir.Module) -> int | None:
    """The F of an integer-only program (``raptor.fixed_point_bits`` on the function), or None."""
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    attrs = func.operation.attributes
    return ir.IntegerAttr(attrs["raptor.fixed_point_bits"]).value if "raptor.fixed_point_bits" in attrs else None


def evaluate(module: ir.Module, inputs: Mapping[str, np.ndarray], weights: Mapping[str, np.ndarray], *,
             mode: str = "fp32", encodings: Mapping[int, tuple[float, int]] | None = None,
             observe: Callable[[int, np.ndarray], None] | None = None,
             observe_values: Callable[[np.ndarray], None] | None = None) -> list[np.ndarray]:
    """Runs the module's function on ``inputs`` (by ``nn.input`` name).

    ``mode`` 'fp32' or 'int8'; ``encodings`` the calibrated (scale, zero
    point) per subgraph id (int8; default: the ``scale`` and ``zero_point``
    attributes of the ``codec.observe`` ops); ``observe(subgraph, data)``
    is called at every calibration point of activations (fp32),
    ``observe_values(data)`` with the model's inputs and every float
    result computed from them (fp32)."""
    import torch

    if mode not in ("fp32", "int8"):
        raise ValueError(f"unknown mode '{mode}' (expected fp32 or int8)")
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    block = func.regions[0].blocks[0]
    arg_attrs = ir.ArrayAttr(func.attributes["arg_attrs"]) if "arg_attrs" in func.attributes else []
    if encodings is None:
        encodings = {}
        for op in block.operations:
            if op.operation.name == "codec.observe" and "scale" in op.attributes:
                zero = ir.IntegerAttr(op.attributes["zero_point"]).value if "zero_point" in op.attributes else 0
                encodings[_semantics(op.operation)[0]] = (ir.FloatAttr(op.attributes["scale"]).value, zero)
    env: dict[Any, Any] = {}
    known: set[Any] = set()  # compile-time values (weights and what is computed from them)
    for i, arg in enumerate(block.arguments):
        attrs = ir.DictAttr(arg_attrs[i]) if i < len(arg_attrs) else None
        if attrs is not None and "nn.param" in attrs:
            name = ir.StringAttr(attrs["nn.param"]).value
            if name not in weights:
                raise UserError(f"the weights have no tensor '{name}'")
            env[arg] = torch.from_numpy(np.ascontiguousarray(weights[name], dtype=np.float32))
            known.add(arg)
        elif attrs is not None and "nn.input" in attrs:
            name = ir.StringAttr(attrs["nn.input"]).value
            if name not in inputs:
                raise UserError(f"missing input '{name}'")
            env[arg] = torch.from_numpy(np.ascontiguousarray(inputs[name], dtype=np.float32))
            if observe_values is not None:
                observe_values(env[arg].numpy())
    int8 = mode == "int8"
    bits = fixed_point_bits(module) if int8 else None
    if bits is not None:  # the host's conversion of the inputs to fixed point (token ids stay integers)
        for arg in block.arguments:
            if arg in env and arg not in known and not isinstance(ir.RankedTensorType(arg.type).element_type,
                                                                   ir.IntegerType):
                env[arg] = fixed_constant(env[arg].numpy(), bits).double()

    def encoding(subgraph: int) -> tuple[np.float32, int]:
        if subgraph not in encodings:
            raise UserError(f"encoded subgraph {subgraph} has no calibrated scale")
        s, z = encodings[subgraph]
        return np.float32(s), int(z)

    def f32(v: Any) -> Any:
        if isinstance(v, (Codes, Sums)):
            raise UserError("an f32 operator reads encoded data (a decoder is missing)")
        return v

    outputs: list[np.ndarray] = []
    for view in block.operations:
        op = view.operation
        name = op.name
        if name == "func.return":
            for v in op.operands:
                value = f32(env[v])
                # The host reads an integer-only program's fixed point.
                outputs.append((value.double() * 2.0**-bits).float().numpy() if bits is not None else value.numpy())
            break
        operands = [env[v] for v in op.operands]
        # Compile-time: computed from weights alone, or data in the IR (an
        # interpolation matrix as a linear layer's weight).
        constant = name == "nn.constant" or (bool(op.operands) and all(v in known for v in op.operands))
        a = _attrs(op)
        if name == "codec.rescale":
            _bind(env, known, op, [_rescale(op, operands[0], int8, bits, encoding)], constant)
            continue
        if name.startswith("codec."):
            ident, _, target = _semantics(op)
            x = operands[0]
            if name == "codec.observe":
                if observe is not None and not constant and not isinstance(x, (Codes, Sums)):
                    observe(ident, x.numpy())
                result = x
            elif not int8 or constant:
                result = x  # fp32 view, or a weight (its matrix operator quantizes it per channel)
            elif bits is not None:
                result = _fixed_codec(name, ident, x, bits, encoding)
            elif name == "codec.encode":
                s, z = encoding(ident)
                t = f32(x) * torch.tensor(np.float32(1.0) / s)
                if z:  # offset: x / s + zero in float32, then rounded
                    t = t + torch.tensor(np.float32(z))
                result = Codes(torch.clamp(torch.round(t), -127, 127).double(), ident)
            else:  # decode
                if isinstance(x, Sums):
                    shape = [1] * x.values.dim()
                    shape[x.channel_dim] = -1
                    s = torch.from_numpy(x.scales).reshape(shape)
                    result = x.values.float() * s
                elif isinstance(x, Codes):
                    s, z = encoding(ident)
                    result = x.values.float() * torch.tensor(s)
                    if z:
                        result = result + torch.tensor(np.float32(-z) * s)
                else:
                    raise UserError(f"codec.decode of subgraph {ident} reads f32 data")
            _bind(env, known, op, [result], constant)
            continue
        try:
            if bits is not None and not constant:
                results = _run_fixed(name, op, operands, [v in known for v in op.operands], a, bits, encoding, f32)
            elif constant and name in _HOST_MATRIX_OPS:
                # The compiler sums these in float64 and rounds to float32
                # (passes/nn/ConstantEvaluator.cpp): so does the reference,
                # and an integer program's constants match it bit for bit.
                wide = [o.double() if isinstance(o, torch.Tensor) else o for o in operands]
                results = [r.float() for r in _run(name, op, wide, a, int8, encoding, f32, constant=True)]
            else:
                results = _run(name, op, operands, a, int8, encoding, f32, constant,
                               len(op.operands) > 1 and op.operands[1] in known)
        except OperatorError:
            raise
        except UserError as e:
            raise OperatorError(op.location, str(e)) from None
        except (RuntimeError, IndexError, ValueError, TypeError) as e:
            # torch's own complaint (a shape it refuses, an index out of
            # range) about this operator, said where the operator is.
            raise OperatorError(op.location, f"{_display_name(op)}: {' '.join(str(e).split())}") from None
        if observe_values is not None and not constant:
            for r in results:
                if isinstance(r, torch.Tensor) and r.is_floating_point() and r.numel():
                    observe_values(r.numpy())
        _bind(env, known, op, results, constant)
    return outputs


def _rescale(op: ir.Operation, x: Any, int8: bool, bits: int | None,
             encoding: Callable[[int], tuple[np.float32, int]]) -> Any:
    """codec.rescale: decode the sums, clamp to [min, max], encode; in an
    integer-only program one requantization by s_x s_w[n] / s_out, the
    clamp one of codes."""
    import torch

    low = ir.FloatAttr(op.attributes["min"]).value if "min" in op.attributes else None
    high = ir.FloatAttr(op.attributes["max"]).value if "max" in op.attributes else None
    ident = int(str(op.attributes["to"]).split("<", 1)[1].split(":", 1)[0])

    def clamped(value: Any) -> Any:
        return torch.clamp(value, low, high) if low is not None or high is not None else value

    if not int8:  # fp32: the source view
        return clamped(x)
    if not isinstance(x, Sums):
        raise UserError("codec.rescale reads the sums of an int8 matrix operator")
    if bits is None:  # (only fuse_rescales makes them, for integer-only programs; the lowering refuses others)
        raise UserError("codec.rescale rescales sums in integer-only programs only (the function needs "
                        "raptor.fixed_point_bits)")
    s, z = encoding(ident)
    shape = [1] * x.values.dim()
    shape[x.channel_dim] = -1
    m = (x.scales.astype(np.float64) / float(s)).reshape(shape)
    q = requantize(_wrap(x.values.long()), m, z)

    def code(bound: float | None, default: int) -> int:  # (passes/codec/Quantization.h: codeBounds)
        return default if bound is None else int(np.clip(np.rint(bound / float(s)) + z, -127, 127))

    return Codes(torch.clamp(q, code(low, -127), code(high, 127)).double(), ident)


def _fixed_codec(name: str, ident: int, x: Any, bits: int,
                 encoding: Callable[[int], tuple[np.float32, int]]) -> Any:
    """An integer-only program's encoder (fixed point times 2^-F / s plus
    the zero point, clamped) or decoder (sums times s_x s_w[n] 2^F, codes
    minus their zero point times s 2^F)."""
    import torch

    if name == "codec.encode":
        if isinstance(x, (Codes, Sums)):
            raise UserError(f"codec.encode of subgraph {ident} reads encoded data")
        s, z = encoding(ident)
        q = requantize(x.long(), np.array(2.0**-bits / float(s)), z)
        return Codes(torch.clamp(q, -127, 127).double(), ident)
    if isinstance(x, Sums):
        shape = [1] * x.values.dim()
        shape[x.channel_dim] = -1
        m = (x.scales.astype(np.float64) * 2.0**bits).reshape(shape)
        return requantize(_wrap(x.values.long()), m).double()  # (the crossbars' sums wrap at 32 bits)
    if isinstance(x, Codes):
        s, z = encoding(ident)
        return requantize(x.values.long() - z, np.array(float(s) * 2.0**bits)).double()
    raise UserError(f"codec.decode of subgraph {ident} reads f32 data")


def _run_fixed(name: str, op: ir.Operation, x: list[Any], known: list[bool], a: dict[str, Any], bits: int,
               encoding: Callable[[int], tuple[np.float32, int]], f32: Callable[[Any], Any]) -> list[Any]:
    """An operator of an integer-only program on fixed-point values (float64
    tensors of int32 values) as the lowering's vector instructions compute
    it; int8 operators and views as in :func:`_run`."""
    import torch
    import torch.nn.functional as F

    kind = name.removeprefix("nn.")
    if any(isinstance(v, (Codes, Sums)) for v in x) or kind in _FIXED_VIEWS or \
            kind in ("token_positions", "last_token"):
        return _run(name, op, x, a, True, encoding, f32)
    # Compile-time operands (biases, constants) as fixed point.
    x = [fixed_constant(v.numpy(), bits) if k and isinstance(v, torch.Tensor) and v.is_floating_point()
         else v.long() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v, k in zip(x, known)]
    ports, _ = port_names(op)
    arg = dict(zip(ports, x))
    self = arg.get("self", x[0] if x else None)

    def real(t: Any) -> Any:
        return t.double()

    def const(value: float) -> Any:  # (scalars and bounds pass through float32 in the lowering)
        return fixed_constant(np.array(np.float32(value)), bits)

    if kind in ("add", "sub"):
        if a.get("alpha", 1.0) != 1.0:
            raise UserError(f"'{name}' with alpha != 1 has no integer-only rule")
        rhs = arg.get("other")
        rhs = const(a.get("scalar", 0.0)) if rhs is None else rhs
        return [real(_wrap(self + rhs if kind == "add" else self - rhs))]
    if kind == "relu":
        return [real(torch.clamp(self, min=0))]
    if kind in ("sigmoid", "tanh"):
        return [real(fixed_activation(self, bits, kind == "tanh"))]
    if kind == "silu":
        return [real(fixed_product(self, fixed_activation(self, bits), bits))]
    if kind == "mul":
        rhs = arg.get("other")
        rhs = const(a.get("scalar", 0.0)) if rhs is None else rhs
        return [real(fixed_product(self, rhs, bits))]
    if kind == "div" and arg.get("other") is None:  # a product by the float32 reciprocal, as the lowering
        reciprocal = vector_unit.folded(a.get("scalar", 1.0), reciprocal=True)
        return [real(fixed_product(self, const(float(reciprocal)), bits))]
    if kind == "neg":
        return [real(_wrap(-self))]
    if kind in ("hardtanh", "clamp"):
        lo = a.get("min_val", -1.0) if kind == "hardtanh" else a.get("min")
        hi = a.get("max_val", 1.0) if kind == "hardtanh" else a.get("max")
        y = self
        if lo is not None:
            y = torch.maximum(y, const(lo))
        if hi is not None:  # -max(-y, -hi)
            y = _wrap(-torch.maximum(_wrap(-y), _wrap(-const(hi))))
        return [real(y)]
    if kind == "max_pool2d":
        out = F.max_pool2d(self.double(), a["kernel_size"], a.get("stride") or None, a.get("padding", 0),
                           a.get("dilation", 1), a.get("ceil_mode", False))
        return [out, torch.empty(0, dtype=torch.int64)]
    if kind in ("avg_pool2d", "adaptive_avg_pool2d"):
        t = self.double()
        if kind == "adaptive_avg_pool2d":
            h, w = t.shape[-2:]
            oh, ow = a["output_size"]
            k = [h // oh, w // ow]
            window = dict(kernel_size=k, stride=k, padding=0, ceil_mode=False, count_include_pad=True,
                          divisor_override=None)
        else:
            window = dict(kernel_size=a["kernel_size"], stride=a.get("stride") or None, padding=a.get("padding", 0),
                          ceil_mode=a.get("ceil_mode", False), count_include_pad=a.get("count_include_pad", True),
                          divisor_override=a.get("divisor_override"))
        sums = F.avg_pool2d(t, **{**window, "divisor_override": 1})
        if window["divisor_override"]:
            counts = torch.full_like(sums, float(window["divisor_override"]))
        else:  # torch's divisor: the window's valid taps over its average of ones
            ones = torch.ones_like(t)
            counts = torch.round(F.avg_pool2d(ones, **{**window, "divisor_override": 1})
                                 / F.avg_pool2d(ones, **window))
        sums = _wrap(sums.round().long())
        return [real(requantize(sums, (1.0 / counts).numpy()))]
    if kind == "mean":
        dims = a.get("dim")
        count = self.numel() // max((self.sum(dim=dims) if dims else self.sum()).numel(), 1)
        # More values than the headroom sums are shifted right (rounded) first.
        shift = max((count - 1).bit_length() - _raptor.FIXED_POINT_HEADROOM, 0)
        addend = _wrap(self + (1 << (shift - 1))) >> shift if shift else self
        total = addend.sum(dim=dims, keepdim=a.get("keepdim", False)) if dims else addend.sum()
        return [real(requantize(_wrap(total), np.array(2.0**shift / count)))]
    if kind == "constant_pad_nd":
        value = fixed_constant(np.array(a.get("value", 0.0)), bits)
        return [real(F.pad(self.double(), a["pad"], value=float(value)))]
    if kind == "cat":
        return [real(torch.cat([v.long() for v in x], a.get("dim", 0)))]
    if kind == "embedding":  # rows of the table in fixed point, picked by the (unscaled) ids
        return [real(F.embedding(arg["indices"].long(), arg["weight"].double()))]
    raise UserError(f"'{name}' has no integer-only rule (the PIM lowering refuses it too)")


#: Operators that only move elements: the same on fixed point as on floats.
_FIXED_VIEWS = ("view", "permute", "expand", "slice", "select", "split_with_sizes", "clone", "fan_out", "upsample_nearest2d",
                "as_strided", "constant")


class OperatorError(UserError):
    """The interpreter could not run one operator: ``location`` is the
    operator's (the model's node), ``message`` names the operator and why."""

    def __init__(self, location: ir.Location, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location, self.message = location, message


def _display_name(op: ir.Operation) -> str:
    """The operator as the user knows it: the aten target of a generic op."""
    if op.name == "nn.aten":
        return ir.StringAttr(op.attributes["target"]).value
    return op.name


def _bind(env: dict[Any, Any], known: set[Any], op: ir.Operation, results: list[Any], constant: bool) -> None:
    for r, v in zip(op.results, results):
        env[r] = v
        if constant:
            known.add(r)


#: Operators computed by the vector_unit function of their name.
_VECTOR_UNIT_FUNCTIONS = ("exp", "tanh", "sigmoid", "log1p", "cos", "sin", "rsqrt", "silu")


def _numpy(function: Callable[[np.ndarray], np.ndarray], x: Any) -> Any:
    import torch

    out = np.asarray(function(x.numpy()), np.float32)  # (0-d stays 0-d)
    return torch.from_numpy(out if out.flags.c_contiguous else out.copy())


def _run(name: str, op: ir.Operation, x: list[Any], a: dict[str, Any], int8: bool,
         encoding: Callable[[int], tuple[np.float32, int]], f32: Callable[[Any], Any],
         constant: bool = False, other_known: bool = False) -> list[Any]:
    """One operator in float32 (or on codes keeping their encoding);
    ``constant``: every operand is known at compile time (the compiler's
    constant evaluation computes it); ``other_known``: the second is."""
    import torch
    import torch.nn.functional as F

    ports, _ = port_names(op)
    arg = dict(zip(ports, x))
    kind = name.removeprefix("nn.")
    if kind in ("convolution", "linear") and isinstance(arg.get("input"), Codes):
        return [_matrix(kind, arg, a, encoding)]
    if kind == "scaled_dot_product_attention" and isinstance(arg.get("query"), Codes):
        return [_attention(arg, a, encoding)]
    codes = [v for v in x if isinstance(v, Codes)]
    if codes:  # an int8 operator that keeps its input's encoding (W policies)
        raw = [v.values if isinstance(v, Codes) else v for v in x]
        if kind == "constant_pad_nd":  # padding holds the code of 0
            a = {**a, "value": float(encoding(codes[0].subgraph)[1])}
        out = _run(name, op, raw, a, False, encoding, lambda v: v)
        return [Codes(v, codes[0].subgraph) if isinstance(v, torch.Tensor) and v.is_floating_point() else v
                for v in out]
    x = [f32(v) for v in x]
    arg = dict(zip(ports, x))
    self = arg.get("self", x[0] if x else None)
    other = arg.get("other")
    if kind in ("add", "sub", "mul", "div"):
        rhs = other if other is not None else a.get("scalar", 0.0)
        alpha = a.get("alpha", 1.0)
        # The lowering folds a known divisor into its float32 reciprocal, and
        # it and the compiler's constant evaluation fold alpha into a known
        # operand, each in float64 rounded once.
        known_rhs = other is None or other_known or constant
        if known_rhs and ((kind == "div" and not constant) or alpha != 1.0):
            numbers = rhs.numpy() if isinstance(rhs, torch.Tensor) else rhs
            rhs = torch.from_numpy(vector_unit.folded(numbers, alpha, reciprocal=kind == "div"))
            kind, alpha = ("mul" if kind == "div" else kind), 1.0
        if kind == "add":
            return [self + rhs * alpha if alpha != 1.0 else self + rhs]
        if kind == "sub":
            return [self - rhs * alpha if alpha != 1.0 else self - rhs]
        return [self * rhs if kind == "mul" else self / rhs]
    # Float32 functions and reductions as the programs and the compiler's
    # constant evaluation compute them (vector_unit.py), where torch's
    # differ in the last bit.
    if kind in _VECTOR_UNIT_FUNCTIONS:
        return [_numpy(getattr(vector_unit, kind), self)]
    if kind == "gelu":
        return [_numpy(lambda v: vector_unit.gelu(v, a.get("approximate", "none")), self)]
    if kind == "softmax" and constant:  # the compiler's, in float64 (ConstantEvaluator.cpp)
        return [torch.softmax(self.double(), a["dim"]).float()]
    if kind == "softmax" and a["dim"] in (-1, self.dim() - 1):
        return [_numpy(vector_unit.softmax, self)]
    if kind == "pow" and constant:
        return [_numpy(lambda v: vector_unit.pow(v, a["exponent"]), self)]
    if kind == "mean" and not constant:
        return [_numpy(lambda v: vector_unit.mean(v, list(a.get("dim") or []), a.get("keepdim", False)), self)]
    unary = {"relu": torch.relu, "neg": torch.neg, "clone": torch.clone}
    if kind in unary:
        return [unary[kind](self)]
    if kind == "hardtanh":
        return [F.hardtanh(self, a.get("min_val", -1.0), a.get("max_val", 1.0))]
    if kind == "clamp":
        return [torch.clamp(self, a.get("min"), a.get("max"))]
    if kind == "softmax":
        return [torch.softmax(self, a["dim"])]
    if kind == "pow":
        return [torch.pow(self, a["exponent"])]
    if kind == "where":
        return [torch.where(arg["condition"].bool(), arg["self"], arg["other"])]
    if kind == "convolution":
        if a.get("transposed", False):
            raise UserError("transposed convolutions are not interpreted")
        return [F.conv2d(arg["input"], arg["weight"], arg.get("bias"), a["stride"], a["padding"],
                         a.get("dilation", [1, 1]), a.get("groups", 1))]
    if kind == "linear":
        return [F.linear(arg["input"], arg["weight"], arg.get("bias"))]
    if kind == "matmul":
        if not constant and self.dim() >= 2 and other.dim() >= 2:
            return [_numpy(lambda v: vector_unit.matmul(v, other.numpy()), self)]
        return [torch.matmul(self, other)]
    if kind == "batch_norm":
        out = F.batch_norm(arg["input"], arg["running_mean"], arg["running_var"], arg["weight"], arg["bias"],
                           False, 0.0, a.get("eps", 1e-5))
        return [out, torch.empty(0), torch.empty(0)]
    if kind == "layer_norm" and constant:  # the compiler's, in float64 (ConstantEvaluator.cpp)
        wide = [None if arg.get(k) is None else arg[k].double() for k in ("input", "weight", "bias")]
        return [F.layer_norm(*wide[:1], a["normalized_shape"], *wide[1:], a.get("eps", 1e-5)).float()]
    if kind in ("layer_norm", "rms_norm"):
        eps = a.get("eps", 1e-5) if kind == "layer_norm" else a.get("eps")
        weight, bias = (None if arg.get(k) is None else arg[k].numpy() for k in ("weight", "bias"))
        return [_numpy(lambda v: vector_unit.norm(v, len(a["normalized_shape"]), weight, bias,
                                                 float(np.finfo(np.float32).eps) if eps is None else eps,
                                                 kind == "layer_norm"), arg["input"])]
    if kind == "mean":  # at compile time: float64 sums over the count, rounded (ConstantEvaluator.cpp)
        dims = a.get("dim")
        wide = self.double()
        return [(wide.mean(dim=dims, keepdim=a.get("keepdim", False)) if dims else wide.mean()).float()]
    if kind == "max_pool2d":
        out = F.max_pool2d(self, a["kernel_size"], a.get("stride") or None, a.get("padding", 0),
                           a.get("dilation", 1), a.get("ceil_mode", False))
        return [out, torch.empty(0, dtype=torch.int64)]
    if kind == "avg_pool2d" and not constant:
        return [_numpy(lambda v: vector_unit.avg_pool2d(
            v, a["kernel_size"], a.get("stride") or None, a.get("padding", [0, 0]), a.get("ceil_mode", False),
            a.get("count_include_pad", True), a.get("divisor_override")), self)]
    if kind == "avg_pool2d":
        return [F.avg_pool2d(self, a["kernel_size"], a.get("stride") or None, a.get("padding", 0),
                             a.get("ceil_mode", False), a.get("count_include_pad", True), a.get("divisor_override"))]
    if kind == "adaptive_avg_pool2d" and not constant:  # the lowering's: windows as large as their stride
        (H, W), (oh, ow) = self.shape[-2:], a["output_size"]
        if H % oh == 0 and W % ow == 0:
            k = [H // oh, W // ow]
            return [_numpy(lambda v: vector_unit.avg_pool2d(v, k, k, [0, 0], False, True, None), self)]
    if kind == "adaptive_avg_pool2d":
        return [F.adaptive_avg_pool2d(self, a["output_size"])]
    if kind == "upsample_nearest2d":
        inp = arg.get("input", self)
        if a.get("output_size"):
            return [F.interpolate(inp, size=a["output_size"], mode="nearest")]
        return [F.interpolate(inp, scale_factor=a["scale_factors"], mode="nearest")]
    if kind == "cat":
        return [torch.cat(x, a.get("dim", 0))]
    if kind == "split_with_sizes":
        return list(torch.split(self, a["split_sizes"], a.get("dim", 0)))
    if kind == "slice":
        dim, step = a.get("dim", 0), a.get("step", 1)
        n = self.shape[dim]
        start, end = a.get("start", 0), a.get("end", n)
        return [self.narrow(dim, 0, n)[(slice(None),) * (dim % self.dim()) + (slice(start, end, step),)]]
    if kind == "select":
        return [self.select(a["dim"], a["index"])]
    if kind == "index":  # the leading dimensions by integer tensors (Swin's relative-position table)
        return [self[tuple(i.long() for i in x[1:])]]
    if kind == "view":
        return [self.reshape(a["size"])]
    if kind == "as_strided":  # of the row-major element sequence (fresh storage: no offset of its own)
        return [self.flatten().clone().as_strided(a["size"], a["stride"], a.get("storage_offset", 0))]
    if kind == "permute":
        return [self.permute(a["dims"])]
    if kind == "expand":
        return [self.expand(a["size"])]
    if kind == "constant_pad_nd":
        return [F.pad(self, a["pad"], value=a.get("value", 0.0))]
    if kind == "constant":
        data = _dense_values(ir.DenseElementsAttr(op.attributes["value"]))
        return [torch.from_numpy(data.astype(np.float32) if np.issubdtype(data.dtype, np.floating) else data)]
    if kind == "token_positions":  # RoBERTa's position ids: tokens numbered past the padding
        return [token_positions(self, a["padding_idx"], a.get("offset", 0), a.get("base"))]
    if kind == "last_token":  # a sequence classifier's last token that is not padding
        return [last_token(arg["input"], arg["ids"], a["padding_idx"], "counted" in a)]
    if kind == "embedding":
        return [F.embedding(arg["indices"].long(), arg["weight"], a.get("padding_idx", -1)
                            if a.get("padding_idx", -1) >= 0 else None)]
    if kind == "scaled_dot_product_attention":
        return [F.scaled_dot_product_attention(arg["query"], arg["key"], arg["value"], arg.get("attn_mask"),
                                               is_causal=a.get("is_causal", False), scale=a.get("scale"),
                                               enable_gqa=a.get("enable_gqa", False))]
    if kind == "fan_out":
        return [torch.repeat_interleave(arg["input"], a["repeats"], dim=a.get("dim", 1))]
    if kind == "kv_cache":
        return [arg["key"], arg["value"]]
    if kind == "rotary_embedding":
        from ..frontend._fx_rewrites import rotary_positional_embeddings

        return [rotary_positional_embeddings(arg["input"], arg["cos"], arg["sin"], a.get("head_dim"))]
    raise UserError(f"the reference interpreter has no rule for '{_display_name(op)}'")


def token_positions(ids: Any, padding_idx: int, offset: int = 0, base: int | None = None) -> Any:
    """``nn.token_positions``: along the last dimension, the ids other than
    ``padding_idx`` numbered from ``base + offset + 1`` on, padding holding
    ``base`` (``padding_idx`` when None: transformers'
    create_position_ids_from_input_ids; OPT's positions from its mask are
    ``padding_idx`` 0, ``base`` 1)."""
    import torch

    mask = (ids.long() != padding_idx).long()
    return (torch.cumsum(mask, dim=-1) + offset) * mask + (padding_idx if base is None else base)


def last_token(x: Any, ids: Any, padding_idx: int, counted: bool = False) -> Any:
    """``nn.last_token``: ``x[b, argmax_i(i * (ids[b, i] != padding_idx))]``
    (transformers' sequence classifiers; position 0 when all are padding);
    ``counted``: at the count of ids that are not padding, less one (MBart's
    decoder start token; 0 when all are padding)."""
    import torch

    kept = (ids.long() != padding_idx).long()
    if counted:
        return x[torch.arange(x.shape[0]), (kept.sum(-1) - 1).clamp(min=0)]
    positions = torch.arange(ids.shape[-1]) * kept
    return x[torch.arange(x.shape[0]), positions.argmax(-1)]


def _dense_values(attr: ir.DenseElementsAttr) -> np.ndarray:
    """The elements of a dense attribute. MLIR's buffer protocol reads a
    splat of i1 ``true`` (one packed byte) as eight trues and then falses,
    so boolean splats (a transformer's all-true attention mask) are
    expanded here."""
    element = ir.ShapedType(attr.type).element_type
    if attr.is_splat and isinstance(element, ir.IntegerType) and element.width == 1:
        return np.full(ir.ShapedType(attr.type).shape, ir.BoolAttr(attr.get_splat_value()).value, dtype=bool)
    return np.array(attr)


def _matrix(kind: str, arg: dict[str, Any], a: dict[str, Any],
            encoding: Callable[[int], tuple[np.float32, int]]) -> Sums:
    """An int8 convolution or linear layer: exact sums of (code - zero)
    times weight codes plus the bias in accumulator units (float64 holds
    them exactly; the programs pad with the code of 0 and fold the zero
    point into the bias, which is the same)."""
    import torch
    import torch.nn.functional as F

    x: Codes = arg["input"]
    weight = arg["weight"]
    if isinstance(weight, (Codes, Sums)):
        raise UserError(f"an int8 {kind} needs a compile-time weight")
    codes, channel = quantize_per_channel(weight.numpy())
    s_x, zero = encoding(x.subgraph)
    scales = (s_x * channel).astype(np.float32)
    values = x.values - zero
    w = torch.from_numpy(codes).double()
    bias = arg.get("bias")
    b = None
    if bias is not None:
        units = np.rint(bias.numpy().astype(np.float32) / scales)
        b = torch.from_numpy(np.clip(units, -2.0**31, 2147483520.0)).double()
    if kind == "linear":
        return Sums(F.linear(values, w, b), scales, values.dim() - 1)
    out = F.conv2d(values, w, b, a["stride"], a["padding"], a.get("dilation", [1, 1]), a.get("groups", 1))
    return Sums(out, scales, 1)


def _attention(arg: dict[str, Any], a: dict[str, Any], encoding: Callable[[int], tuple[np.float32, int]]) -> Sums:
    """int8 attention as the programs compute it: exact products of codes,
    scores scaled by s_q s_k in float32, a float32 softmax, probabilities
    encoded as round(32767 p), output sums of their products with the value
    codes (scale s_v / 32767)."""
    import torch

    q, k, v = arg["query"], arg["key"], arg["value"]
    if not all(isinstance(t, Codes) for t in (q, k, v)):
        raise UserError("int8 attention needs the query, key and value encoded")
    depth = q.values.shape[-1]
    factor = np.float32(a["scale"]) if a.get("scale") is not None else np.float32(1.0 / np.sqrt(depth))
    (s_q, z_q), (s_k, z_k), (s_v, z_v) = encoding(q.subgraph), encoding(k.subgraph), encoding(v.subgraph)
    s_scores = (s_q * s_k) * factor
    queries, keys, values = q.values - z_q, k.values - z_k, v.values - z_v
    groups = q.values.shape[1] // keys.shape[1]
    if groups > 1:  # grouped-query attention: each key head serves `groups` query heads
        keys, values = keys.repeat_interleave(groups, 1), values.repeat_interleave(groups, 1)
    scores = (queries @ keys.transpose(-1, -2)).float() * torch.tensor(s_scores)
    length, source = scores.shape[-2:]
    if a.get("is_causal", False):
        scores = scores + torch.triu(torch.full((length, source), float("-inf")), 1)
    mask = arg.get("attn_mask")
    if mask is not None:
        scores = scores + (torch.where(mask, 0.0, float("-inf")) if mask.dtype == torch.bool else mask)
    p = torch.from_numpy(vector_unit.softmax(scores.numpy()))  # (the programs' order of additions)
    codes = torch.clamp(torch.round(p * torch.tensor(PROBABILITY_LEVELS)), -32767, 32767).double()
    out = codes @ values
    s_out = np.float32(s_v * (np.float32(1.0) / PROBABILITY_LEVELS))
    return Sums(out, np.full(out.shape[-1], s_out, np.float32), out.dim() - 1)
