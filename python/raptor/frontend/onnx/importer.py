"""The importer: reads an ONNX file, walks the graph in order and emits
``nn`` ops through the conversion rules (folding constant nodes, keeping
an operator without a rule as the generic ``nn.aten`` op or, in strict
mode, naming all of them), with initializers as ``nn.param`` weights."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mlir import ir
from mlir.dialects import func

import raptor
from raptor.dialects import nn

from . import folding, generic, shapes
from .errors import OnnxImportError, Unsupported, UnsupportedOperatorError, one_line
from .rules import RULES
from .tensors import attributes, dense, numpy_element_type, onnx_types, shape_of

#: Versions of the default ONNX operator set this frontend reads.
SUPPORTED_OPSETS = range(13, 24)

#: Float data folded from constants becomes a weight from this many elements on.
_FOLDED_WEIGHT_SIZE = 1024


@dataclass
class ImportReport:
    """What the import did: operators kept generic, ONNX nodes folded."""

    generic: Counter[str] = field(default_factory=Counter)
    folded: int = 0
    opset: int = 0


def load_model(path: str | os.PathLike[str]) -> Any:
    """Reads and checks an ONNX file; OnnxImportError names the cause."""
    import onnx

    try:
        model = onnx.load(os.fspath(path))
    except FileNotFoundError:
        raise OnnxImportError(f"cannot read '{path}': no such file") from None
    except Exception as e:  # protobuf's DecodeError and friends
        raise OnnxImportError(f"'{path}' is not an ONNX model: {type(e).__name__}: "
                              f"{one_line(e)}") from None
    if not model.graph.node and not model.graph.output:
        raise OnnxImportError(f"'{path}' is not an ONNX model: it has no graph")
    return model


def import_model(model: Any, input_shapes: Mapping[str, Sequence[int]] | None = None,
                 strict: bool = False, context: ir.Context | None = None
                 ) -> tuple[ir.Module, ImportReport, dict[str, np.ndarray]]:
    """Imports ``model`` (an ``onnx.ModelProto`` or a file path).

    ``input_shapes`` gives static sizes to inputs whose shapes are dynamic.
    Returns the verified module, a report (operators kept generic, folded
    nodes) and the weights keyed by their ``nn.param`` names. Raises
    OnnxImportError (one line) on bad input and UnsupportedOperatorError in
    strict mode, naming every operator without an ``nn`` op.
    """
    if isinstance(model, (str, os.PathLike)):
        model = load_model(model)
    importer = Importer(model, dict(input_shapes or {}))
    context = context or raptor.Context()
    with context, ir.Location.unknown():
        try:
            module = importer.run(strict)
        except ir.MLIRError as e:
            msgs = "; ".join(f"{d.location}: {d.message}" for d in e.error_diagnostics)
            raise OnnxImportError(f"the ONNX graph does not convert: {msgs or e}") from None
        if not module.operation.verify():
            raise OnnxImportError("imported module does not verify")
    return module, importer.report, importer.weights


class Importer:
    """One import: the graph's constants and emitted values by name, the
    weights, and what the rules need to look around a node (its users)."""

    def __init__(self, model: Any, input_shapes: Mapping[str, Sequence[int]]) -> None:
        import onnx

        self.onnx = onnx
        self.model = model
        self.graph = model.graph
        self.report = ImportReport()
        self.types = onnx_types()
        self.opset = self._check_opset()
        self.report.opset = self.opset
        self.consts: dict[str, np.ndarray] = {}
        self.initializers: set[str] = set()
        for init in self.graph.initializer:
            self.consts[init.name] = onnx.numpy_helper.to_array(init)
            self.initializers.add(init.name)
        self.values: dict[str, ir.Value] = {}
        self.weights: dict[str, np.ndarray] = {}
        self.params: dict[str, ir.Value] = {}
        self.inputs = shapes.input_types(self.graph, self.initializers, input_shapes, self.types)
        self._inferred: dict[str, shapes.StaticType] | None = None
        self.users = Counter(name for n in self.graph.node for name in n.input if name)
        self.users.update(o.name for o in self.graph.output)
        self.consumers: dict[str, list[int]] = {}
        for index, n in enumerate(self.graph.node):
            for name in n.input:
                if name:
                    self.consumers.setdefault(name, []).append(index)
        #: Nodes a rule has already converted as part of a pattern.
        self.skip: set[int] = set()

    # -- checks --------------------------------------------------------------
    def _check_opset(self) -> int:
        versions = {o.domain or "ai.onnx": o.version for o in self.model.opset_import}
        version = versions.get("ai.onnx")
        if version is None:
            raise OnnxImportError("the model imports no version of the default ONNX operator set")
        if version not in SUPPORTED_OPSETS:
            raise OnnxImportError(
                f"unsupported ONNX opset {version} (supported: {SUPPORTED_OPSETS.start}-"
                f"{SUPPORTED_OPSETS.stop - 1}; convert it with onnx.version_converter)")
        return version

    @property
    def inferred(self) -> dict[str, shapes.StaticType]:
        """Static types of every value, by ONNX's shape inference on the
        model with the inputs' static shapes: computed when a generic op
        first needs its result types."""
        if self._inferred is None:
            self._inferred = shapes.infer_model(self.model, self.inputs)
        return self._inferred

    # -- values ----------------------------------------------------------------
    def is_const(self, name: str) -> bool:
        return name in self.consts

    def const(self, name: str) -> np.ndarray:
        if name not in self.consts:
            raise Unsupported(f"'{name}' is not a constant")
        return self.consts[name]

    def value(self, name: str) -> ir.Value:
        """The IR value of ``name``: an emitted result, a weight argument
        (an initializer) or an ``nn.constant`` (folded data)."""
        if name in self.values:
            return self.values[name]
        if name not in self.consts:
            if self.report.generic:  # strict mode: after an operator without a stand-in
                self._strict_error()
            raise OnnxImportError(f"value '{name}' is used before it is defined")
        array = self.consts[name]
        # Weights: float initializers, and large float data folded from them
        # (a transposed or reshaped weight); small folded data is a constant.
        if array.dtype.kind == "f" and array.ndim > 0 and (
                name in self.initializers or array.size >= _FOLDED_WEIGHT_SIZE):
            return self.param(name, array)
        with ir.Location.name(name):
            v = nn.ConstantOp(dense(array)).result
        self.values[name] = v
        return v

    def param(self, name: str, array: np.ndarray) -> ir.Value:
        """A weight argument (``nn.param = name``) holding ``array``."""
        if name not in self.params:
            self.weights[name] = array
            arg = self.block.add_argument(
                ir.RankedTensorType.get(list(array.shape), numpy_element_type(array.dtype)),
                ir.Location.name(name))
            self.params[name] = arg
        return self.params[name]

    def transposed_param(self, name: str) -> ir.Value:
        """Initializer ``name`` (2-d) transposed, as its own weight."""
        array = self.const(name)
        if array.ndim != 2 or array.dtype.kind != "f":
            raise Unsupported("the matrix operand is not a 2-d weight")
        return self.param(f"{name}.T", np.ascontiguousarray(array.T))

    def tensor(self, node: Any, i: int) -> ir.Value | None:
        if i >= len(node.input) or not node.input[i]:
            return None
        return self.value(node.input[i])

    def optional_const(self, node: Any, i: int) -> np.ndarray | None:
        if i >= len(node.input) or not node.input[i]:
            return None
        return self.const(node.input[i])

    # -- emission --------------------------------------------------------------
    def run(self, strict: bool) -> ir.Module:
        module = ir.Module.create()
        input_types = [ir.RankedTensorType.get(shape, self.types[et][0]())
                       for _, shape, et in self.inputs]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", (input_types, []))
            self.block = fn.add_entry_block()
            for (name, _, _), arg in zip(self.inputs, self.block.arguments):
                self.values[name] = arg
            with ir.InsertionPoint(self.block):
                # Constants first, so that patterns can read ones defined later.
                for index, node in enumerate(self.graph.node):
                    if node.op_type == "Constant" and (node.domain or "ai.onnx") == "ai.onnx":
                        folding.fold(self, node)
                        self.skip.add(index)
                for index, node in enumerate(self.graph.node):
                    if index in self.skip:
                        continue
                    self._node(index, node, strict)
                if strict and self.report.generic:
                    self._strict_error()
                results = [self.value(o.name) for o in self.graph.output]
                func.ReturnOp(results)
        self._check_outputs(results)
        arg_types = [a.type for a in self.block.arguments]
        fn.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [r.type for r in results]))
        attrs = [ir.DictAttr.get({"nn.input": ir.StringAttr.get(name)}) for name, _, _ in self.inputs]
        attrs += [ir.DictAttr.get({"nn.param": ir.StringAttr.get(name)}) for name in self.params]
        fn.arg_attrs = ir.ArrayAttr.get(attrs)
        return module

    def _strict_error(self) -> None:
        names = ", ".join(f"{k.removeprefix('onnx.')} ({n})" for k, n in sorted(self.report.generic.items()))
        raise UnsupportedOperatorError(
            f"ONNX operators without an nn op: {names}; import without strict mode to keep them as nn.aten")

    def _check_outputs(self, results: list[ir.Value]) -> None:
        for out, value in zip(self.graph.output, results):
            t = out.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            if not t.HasField("shape"):
                continue
            got = shape_of(value)
            if len(dims) != len(got) or any(d is not None and d != g for d, g in zip(dims, got)):
                raise OnnxImportError(
                    f"output '{out.name}': the imported graph computes shape {got} but the "
                    f"model declares {[d if d is not None else '?' for d in dims]}")

    def schema(self, node: Any) -> Any | None:
        """The ONNX schema of ``node``'s operator at the model's opset (None:
        an operator ONNX does not define)."""
        try:
            return self.onnx.defs.get_schema(node.op_type, self.opset, node.domain or "")
        except Exception:  # onnx raises SchemaError, and more on odd domains
            return None

    def _check_arity(self, node: Any, index: int) -> None:
        """An ONNX file is untrusted: a node with fewer inputs or outputs than
        its operator's schema allows is refused in one line (the rules index
        them: a Gemm with one input was an IndexError)."""
        schema = self.schema(node)
        if schema is None:
            return  # (unknown operators become generic calls)
        name = node.name or f"{node.op_type}_{index}"
        for what, got, low, high in (("inputs", len(node.input), schema.min_input, schema.max_input),
                                     ("outputs", len(node.output), schema.min_output, schema.max_output)):
            if not low <= got <= high:
                bound = f"{low}" if low == high else f"{low} to {high}" if high < 2**31 - 1 else f"at least {low}"
                noun = what[:-1] if got == 1 else what
                raise OnnxImportError(f"node '{name}' ({node.op_type}) has {got} {noun}; the operator takes {bound}")

    def _node(self, index: int, node: Any, strict: bool) -> None:
        op = node.op_type
        domain = node.domain or "ai.onnx"
        self._check_arity(node, index)
        loc = ir.Location.name(node.name or f"{op}_{index}")
        with loc:
            if domain == "ai.onnx" and folding.foldable(self, node):
                folding.fold(self, node)
                return
            rule = RULES.get(op) if domain == "ai.onnx" else None
            outputs = None
            if rule is not None:
                try:
                    outputs = rule(self, node, attributes(node), index)
                except Unsupported:
                    outputs = None
            if outputs is None:
                outputs = generic.emit(self, node, domain, strict)
            for name, value in zip(node.output, outputs):
                if name and value is not None:
                    self.values[name] = value
