"""The importer: reads an ONNX file, walks the graph in order and emits
``nn`` ops through the conversion rules (folding constant nodes, keeping
an operator without a rule as the generic ``nn.aten`` op or, in strict
mode, naming all of them), with initializers as ``nn.param`` weights."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from mlir import ir
from mlir.dialects import func

import raptor

from .. import _token_arithmetic as token_arithmetic
from . import folding, generic
from .errors import OnnxImportError, Unsupported, one_line
from .rules import RULES
from .state import ImportReport, ImportState
from .tensors import attributes, shape_of

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

class Importer(ImportState):
    """Walks the graph in order and emits each node through its rule,
    folding, or a generic call."""

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
                if self.placeholders:
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
        # (always: a function of the ids may be an integer op with an nn op)
        try:
            self.report.generic, _ = token_arithmetic.fold(module)
        except token_arithmetic.TokenTableError as e:
            raise OnnxImportError(str(e)) from None
        if strict and self.report.generic:
            self._strict_error(token_arithmetic.integer_input_note(module, self.report.generic))
        return module

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

    def _node(self, index: int, node: Any, strict: bool) -> None:
        op = node.op_type
        domain = node.domain or "ai.onnx"
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
                except Unsupported as e:
                    self.reasons.setdefault(f"onnx.{op}", str(e))
                    outputs = None
            if outputs is None:
                outputs = generic.emit(self, node, domain, strict)
            for name, value in zip(node.output, outputs):
                if name and value is not None:
                    self.values[name] = value
