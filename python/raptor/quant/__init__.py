"""Quantized compilation: codec placement decides the number formats.

Under an int8 policy (shared seed 000) the codec passes place and
materialize encoders and decoders; calibration runs the float32 model on
sample inputs and records the absolute maximum at each encoded subgraph's
observation point (its absolute dominator), which gives the subgraph's one
scale; the back end then emits int8 crossbar weights and conversion
instructions exactly where the codecs are::

    from raptor import quant
    quant.prepare(module, policy="Y", placement="nonlocal")  # fold, place, materialize
    quant.calibrate(module, weights, quant.random_inputs(module, 4))
    quant.reference(module, inputs, weights)                 # what the programs compute

The numbers are those of passes/codec/Quantization.h (docs/quantization.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from .. import _raptor
from .._io import UserError, load_npy
from .interpreter import OperatorError, _semantics, encoding_of, evaluate, quantize_per_channel, scale_of

__all__ = ["Calibration", "OperatorError", "FIXED_POINT_HEADROOM", "calibrate", "fixed_point_bits", "fixed_point_refusal", "integer_refusal", "encoded_subgraphs", "shared_subgraphs", "encoding_of", "input_shapes", "load_samples", "prepare", "require_encoded",
           "quantize_per_channel", "random_input", "random_inputs", "reference", "scale_of", "token_vocabularies"]


def prepare(module: ir.Module, policy: str = "Y", placement: str = "nonlocal-coalesced") -> None:
    """Folds batch norms, then places and materializes codecs (in place; each
    requantizer applied as a decode and an encode, as the PIM back end runs it):
    the ``raptor-prepare-model`` phase of an int8 compile, with the compile's
    defaults (passes/pipeline/CompilePipeline.h).

    Raises UserError when the policy gives no operator of the model an INT8
    variant (nothing would be quantized)."""
    options = _raptor.CompileOptions()
    options.precision, options.policy, options.placement = "int8", policy, placement
    with module.context:
        _raptor.run_compile_phase(module, "prepare-model", options)
    require_encoded(module, policy)


def require_encoded(module: ir.Module, policy: str) -> None:
    """UserError unless the placement under ``policy`` encodes something."""
    if not encoded_subgraphs(module):
        # Policies select more operators in the order Z < Y < X < W (docs/codec.md).
        order = "ZYXW"
        broader = order[order.index(policy) + 1:] if policy in order else ""
        hint = (f"a broader policy ({', '.join(broader)}) may find some" if broader else
                "no policy quantizes its operators, compile it in fp32")
        raise UserError(f"policy {policy} gives no operator of this model an INT8 variant (nothing to quantize): "
                        f"{hint}")


def _block(module: ir.Module) -> ir.Block:
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    return func.regions[0].blocks[0]


def _observers(module: ir.Module) -> list[ir.Operation]:
    """The observation points of encoded activation subgraphs (not weights)."""
    block = _block(module)
    params = set()
    arg_attrs = ir.ArrayAttr(block.owner.attributes["arg_attrs"]) if "arg_attrs" in block.owner.attributes else []
    for i, arg in enumerate(block.arguments):
        if i < len(arg_attrs) and "nn.param" in ir.DictAttr(arg_attrs[i]):
            params.add(arg)
    compile_time = set(params)
    out = []
    for view in block.operations:
        op = view.operation
        # (as passes/nn/CompileTime: weights, data in the IR, what follows from them)
        if op.name == "nn.constant" or (op.operands and all(v in compile_time for v in op.operands)
                                        and op.name != "func.return"):
            compile_time.update(op.results)
            continue
        if op.name == "codec.observe":
            _, source, target = _semantics(op)
            if source == "f32" and target == "i8":  # (i32 sums are decoded with derived scales)
                out.append(op)
    return out


def encoded_subgraphs(module: ir.Module) -> list[int]:
    """Ids of the encoded activation subgraphs (each needs a scale)."""
    return sorted({_semantics(op)[0] for op in _observers(module)})


def input_shapes(module: ir.Module) -> dict[str, tuple[int, ...]]:
    """The ``nn.input`` arguments' names and shapes."""
    block = _block(module)
    arg_attrs = ir.ArrayAttr(block.owner.attributes["arg_attrs"]) if "arg_attrs" in block.owner.attributes else []
    shapes = {}
    for i, arg in enumerate(block.arguments):
        if i < len(arg_attrs) and "nn.input" in ir.DictAttr(arg_attrs[i]):
            name = ir.StringAttr(ir.DictAttr(arg_attrs[i])["nn.input"]).value
            shapes[name] = tuple(ir.RankedTensorType(arg.type).shape)
    return shapes


def token_vocabularies(module: ir.Module) -> dict[str, int]:
    """The integer inputs read as ``nn.embedding``'s token ids (directly or
    through ``nn.view``), each with the rows of the smallest table it
    indexes: the ids it may hold are 0..rows-1. The PIM lowering finds the
    same bound for the program's manifest (tokenVocabulary in
    EmbeddingOps.cpp; tests/python/test_token_ids.py compares the two)."""
    block = _block(module)
    arg_attrs = ir.ArrayAttr(block.owner.attributes["arg_attrs"]) if "arg_attrs" in block.owner.attributes else []
    bounds = {}
    for i, arg in enumerate(block.arguments):
        if i >= len(arg_attrs) or "nn.input" not in ir.DictAttr(arg_attrs[i]):
            continue
        if not isinstance(ir.RankedTensorType(arg.type).element_type, ir.IntegerType):
            continue
        rows, work = [], [arg]
        while work:
            value = work.pop()
            for use in value.uses:
                owner = use.owner
                if owner.name == "nn.view":
                    work.append(owner.results[0])
                elif owner.name == "nn.embedding" and use.operand_number == 1:
                    rows.append(ir.RankedTensorType(owner.operands[0].type).shape[0])
        if rows:
            bounds[ir.StringAttr(ir.DictAttr(arg_attrs[i])["nn.input"]).value] = min(rows)
    return bounds


def random_input(shape: tuple[int, ...], rng: np.random.Generator, vocabulary: int | None = None) -> np.ndarray:
    """A seeded random input: standard-normal reals, or (``vocabulary``)
    uniform token ids 0..vocabulary-1, held as float32 like every input
    the host writes."""
    if vocabulary is not None:
        return rng.integers(0, vocabulary, shape).astype(np.float32)
    return rng.standard_normal(shape).astype(np.float32)


def random_inputs(module: ir.Module, count: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``count`` seeded random inputs for the model: standard-normal reals,
    token ids drawn inside their vocabulary."""
    rng = np.random.default_rng(seed)
    ids = token_vocabularies(module)
    return [{name: random_input(shape, rng, ids.get(name)) for name, shape in input_shapes(module).items()}
            for _ in range(count)]


def load_samples(module: ir.Module, path: str) -> list[dict[str, np.ndarray]]:
    """Calibration inputs from a .npy file: one input of the model's shape,
    or a stack of them (N, *shape); the model must have one input."""
    shapes = input_shapes(module)
    if len(shapes) != 1:
        raise UserError(f"a calibration file serves one input; the model has {len(shapes)}")
    (name, shape), = shapes.items()
    data = load_npy(path, "calibration data")
    vocabulary = token_vocabularies(module).get(name)
    if vocabulary is None and not np.issubdtype(data.dtype, np.floating):
        raise UserError(f"calibration data '{path}' has dtype {data.dtype}, not a floating-point type")
    if vocabulary is not None and not np.issubdtype(data.dtype, np.integer):
        raise UserError(f"calibration data '{path}' has dtype {data.dtype}: the model's input '{name}' holds "
                        "token ids, an integer type")
    if tuple(data.shape) == shape:
        data = data[None]
    if tuple(data.shape[1:]) != shape or data.shape[0] == 0:
        raise UserError(f"calibration data '{path}' has shape {tuple(data.shape)}; the model's input '{name}' "
                        f"needs {shape} or (N, {', '.join(map(str, shape))})")
    if vocabulary is None and not np.isfinite(data).all():
        raise UserError(f"calibration data '{path}' holds NaN or infinite values")
    if vocabulary is not None and data.size and not (data.min() >= 0 and data.max() < vocabulary):
        raise UserError(f"calibration data '{path}' holds token ids outside 0..{vocabulary - 1}, the vocabulary "
                        f"of input '{name}'")
    return [{name: np.array(d, dtype=np.float32)} for d in data]  # (copies: the file is only mapped)


@dataclass
class Calibration:
    """The range, scale and zero point of every encoded subgraph."""

    amax: dict[int, float] = field(default_factory=dict)
    minimum: dict[int, float] = field(default_factory=dict)
    scales: dict[int, float] = field(default_factory=dict)
    zeros: dict[int, int] = field(default_factory=dict)
    #: Groups of subgraphs given one encoding (concatenated codes).
    shared: list[list[int]] = field(default_factory=list)
    samples: int = 0
    source: str = "random"
    #: Integer-only programs: real values are int32 y = x 2^F (None: float32).
    fixed_point_bits: int | None = None
    #: The largest absolute value of the model's inputs and float results.
    value_amax: float = 0.0
    #: Why an integer-only program was asked for and not made (its values
    #: beyond the fixed point's reach: :func:`fixed_point_refusal`).
    fixed_point_refusal: str | None = None

    def as_dict(self) -> dict:
        return {"source": self.source, "samples": self.samples, "fixed_point_bits": self.fixed_point_bits,
                "value_amax": self.value_amax,
                # (offset or affine: every encoding whose zero point is not 0)
                "offset_subgraphs": sum(1 for z in self.zeros.values() if z), "shared": self.shared,
                "subgraphs": {str(k): {"amax": self.amax[k], "min": self.minimum[k], "scale": self.scales[k],
                                       "zero_point": self.zeros[k]} for k in sorted(self.scales)}}


_MATRIX_OPS = ("nn.convolution", "nn.linear", "nn.matmul", "nn.scaled_dot_product_attention")


def _subgraph_of(value: ir.Value) -> int | None:
    """The encoded subgraph a value belongs to (passes/codec/EncodedValues:
    through the int8 operators that keep their input's encoding)."""
    for _ in range(100000):
        owner = value.owner
        if not isinstance(owner, (ir.Operation, ir.OpView)):
            return None
        op = owner.operation if isinstance(owner, ir.OpView) else owner
        if op.name in ("codec.encode", "codec.observe"):
            return _semantics(op)[0]
        if op.name == "codec.decode" or op.name in _MATRIX_OPS or not op.name.startswith("nn.") or not op.operands:
            return None
        value = op.operands[0]
    return None


def shared_subgraphs(module: ir.Module) -> list[set[int]]:
    """Encoded subgraphs that must share one encoding because their codes
    are the same data: the inputs of an int8 concatenation (concatenated
    codes), and a subgraph observed again under another id after an int8
    operator that keeps its input's codes (the local baseline gives every
    operator's output its own subgraph, whose decoder would otherwise read
    the input's codes with another scale)."""
    parent: dict[int, int] = {}

    def find(a: int) -> int:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for view in _block(module).operations:
        op = view.operation
        if op.name == "nn.cat":
            ids = [i for i in (_subgraph_of(v) for v in op.operands) if i is not None]
        elif op.name == "codec.observe":
            ids = [_semantics(op)[0], _subgraph_of(op.operands[0])]
            ids = [i for i in ids if i is not None]
        else:
            continue
        for other in ids[1:]:
            parent[find(other)] = find(ids[0])
    groups: dict[int, set[int]] = {}
    for a in list(parent):
        groups.setdefault(find(a), set()).add(a)
    return [g for g in groups.values() if len(g) > 1]


#: Bits of headroom above the calibrated range in fixed point: sums of up
#: to 256 values at the range (average pooling, means, residual additions)
#: stay inside int32 (simulator/FixedPoint.h).
FIXED_POINT_HEADROOM: int = _raptor.FIXED_POINT_HEADROOM


def fixed_point_bits(amax: float) -> int:
    """F for real values up to ``amax``: amax 2^F below 2^(30 - headroom),
    within 0..30."""
    if not (amax > 0 and np.isfinite(amax)):
        return 30 - FIXED_POINT_HEADROOM
    return int(np.clip(30 - FIXED_POINT_HEADROOM - int(np.ceil(np.log2(amax))), 0, 30))


def fixed_point_refusal(amax: float) -> str | None:
    """Why real values up to ``amax`` have no int32 fixed point (beyond
    2^(30 - headroom), where F would be negative and sums of 2^headroom of
    them would overflow), or None."""
    limit = 2.0 ** (30 - FIXED_POINT_HEADROOM)
    if amax <= limit:
        return None
    return (f"real values reach {amax:.3g} in calibration, beyond the {limit:.3g} an integer-only program's int32 "
            f"fixed point holds with {FIXED_POINT_HEADROOM} bits of headroom (untrained weights? a random init's "
            "batch-norm statistics let activations grow layer after layer)")


def calibrate(module: ir.Module, weights: Mapping[str, np.ndarray], samples: Iterable[Mapping[str, np.ndarray]],
              source: str = "random", integer: bool = False, fallback: bool = False) -> Calibration:
    """Runs the float32 model on ``samples``, records each encoded
    subgraph's range at its observation point and writes its encoding
    (``scale``, and ``zero_point``: -127 for non-negative data, where 0 falls for an affine one, on every
    ``codec.observe`` of the subgraph). Subgraphs concatenated as codes
    (:func:`shared_subgraphs`) get the union of their ranges. With
    ``integer``, the program is integer-only: the range of every real value
    gives its fixed point (``raptor.fixed_point_bits`` on the function,
    :func:`fixed_point_bits`), unless the values exceed its reach
    (:func:`fixed_point_refusal`): then a UserError, or with ``fallback`` a
    float32 program whose ``fixed_point_refusal`` says why."""
    cal = Calibration(source=source)
    wanted = set(encoded_subgraphs(module))

    def seen(subgraph: int, data: np.ndarray) -> None:
        if subgraph in wanted:
            cal.amax[subgraph] = max(cal.amax.get(subgraph, 0.0), float(np.abs(data).max(initial=0.0)))
            cal.minimum[subgraph] = min(cal.minimum.get(subgraph, np.inf), float(data.min(initial=np.inf)))

    def value(data: np.ndarray) -> None:
        finite = data[np.isfinite(data)]
        cal.value_amax = max(cal.value_amax, float(np.abs(finite).max(initial=0.0)))

    for sample in samples:
        evaluate(module, sample, weights, mode="fp32", observe=seen, observe_values=value if integer else None)
        cal.samples += 1
    if cal.samples == 0:
        raise UserError("calibration needs at least one input")
    missing = wanted - set(cal.amax)
    if missing:
        raise UserError(f"calibration saw no data at subgraph(s) {sorted(missing)}")
    # Subgraphs whose codes meet in a concatenation share their range.
    for group in shared_subgraphs(module):
        group &= set(cal.amax)
        if len(group) < 2:
            continue
        amax, low = max(cal.amax[k] for k in group), min(cal.minimum[k] for k in group)
        for k in group:
            cal.amax[k], cal.minimum[k] = amax, low
        cal.shared.append(sorted(group))
    if integer and (why := fixed_point_refusal(cal.value_amax)):
        if not fallback:
            raise UserError(f"integer arithmetic: {why}; --arithmetic float requantizes in float32")
        integer, cal.fixed_point_refusal = False, why
    with module.context, ir.Location.unknown():
        func = _block(module).owner
        if integer:
            cal.fixed_point_bits = fixed_point_bits(cal.value_amax)
            func.attributes["raptor.fixed_point_bits"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                                            cal.fixed_point_bits)
        elif "raptor.fixed_point_bits" in func.attributes:
            del func.attributes["raptor.fixed_point_bits"]
        for subgraph, amax in cal.amax.items():
            scale, zero = encoding_of(amax, cal.minimum[subgraph])
            cal.scales[subgraph], cal.zeros[subgraph] = float(scale), zero
        for op in _observers(module):
            subgraph = _semantics(op)[0]
            op.attributes["scale"] = ir.FloatAttr.get(ir.F32Type.get(), cal.scales[subgraph])
            if cal.zeros[subgraph]:
                op.attributes["zero_point"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), cal.zeros[subgraph])
            elif "zero_point" in op.attributes:
                del op.attributes["zero_point"]
    return cal


def integer_refusal(module: ir.Module) -> str | None:
    """The first operator of a placed module that an integer-only program
    cannot compute (the PIM lowering's own test), or None."""
    return _raptor.integer_refusal(module)


def reference(module: ir.Module, inputs: Mapping[str, np.ndarray], weights: Mapping[str, np.ndarray],
              mode: str = "int8") -> list[np.ndarray]:
    """The outputs the compiled programs compute (``int8``: with the
    calibrated scales in the IR) or the float32 model's (``fp32``)."""
    return evaluate(module, inputs, weights, mode=mode)
