"""Operators without a rule: the generic ``nn.aten`` op (target
``onnx.OpType``, the schema's input names as ports, scalar attributes as
``params``, result types by ONNX shape inference) or, in strict mode, a
stand-in that keeps the walk going until all of them are named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mlir import ir

from raptor.dialects import nn
from raptor.frontend._attributes import scalar_attribute

from . import shapes
from .errors import OnnxImportError
from .tensors import attributes, decode

if TYPE_CHECKING:
    from .state import ImportState


def emit(im: ImportState, node: Any, domain: str, strict: bool) -> list[ir.Value | None]:
    """The values of ``node``'s outputs from one generic op (counted in the
    report). In strict mode the operators the import's folds leave generic
    are named all at once after the walk (the importer); an operator whose
    results have no static type gets stand-ins that keep the walk going."""
    name = f"onnx.{node.op_type}" if domain == "ai.onnx" else f"{domain}.{node.op_type}"
    im.report.generic[name] += 1
    if strict and not _typed(im, node):
        im.placeholders[name] += 1
        return [_placeholder(im, node, o) for o in node.output]
    types = []
    if any(o and o not in im.inferred for o in node.output):
        im.inferred.update(_infer(im, node))
    for o in node.output:
        if not o:
            continue
        if o not in im.inferred:
            raise OnnxImportError(
                f"cannot infer a static shape for '{o}' (output of {node.op_type} node "
                f"'{node.name}')")
        dims, et = im.inferred[o]
        if et not in im.types:
            raise OnnxImportError(f"'{o}' has an unsupported element type")
        types.append(ir.RankedTensorType.get(dims, im.types[et][0]()))
    operands, ports = [], []
    schema = _ports(im, node)
    for i, n in enumerate(node.input):
        if not n:
            continue
        operands.append(im.value(n))
        ports.append(schema[i] if i < len(schema) else f"input{i}")
    params = {}
    for key, v in attributes(node).items():
        attr = scalar_attribute(decode(v))
        if attr is not None:
            params[key] = attr
    op = nn.AtenOp(types, name, operands,
                   input_ports=ir.ArrayAttr.get([ir.StringAttr.get(p) for p in ports]),
                   params=ir.DictAttr.get(params) if params else None)
    results = iter(op.results)
    return [next(results) if o else None for o in node.output]


def _infer(im: ImportState, node: Any) -> dict[str, shapes.StaticType]:
    return shapes.infer_node(node, im.consts, im.values, im.types, im.model.opset_import)


def _typed(im: ImportState, node: Any) -> bool:
    """Whether every output of ``node`` has a static type Raptor holds."""
    if any(o and o not in im.inferred for o in node.output):
        im.inferred.update(_infer(im, node))
    return all(not o or (o in im.inferred and im.inferred[o][1] in im.types) for o in node.output)


def _placeholder(im: ImportState, node: Any, name: str) -> ir.Value | None:
    """In strict mode, a stand-in so that later nodes still convert."""
    if name and name not in im.inferred:
        im.inferred.update(_infer(im, node))
    if not name or name not in im.inferred:
        return None
    dims, et = im.inferred[name]
    if et not in im.types:
        return None
    t = ir.RankedTensorType.get(dims, im.types[et][0]())
    return nn.AtenOp([t], "onnx.Unsupported", []).results[0]


def _ports(im: ImportState, node: Any) -> list[str]:
    """The port names of a node's inputs: its schema's, with ``name[i]``
    for a variadic last input."""
    schema = im.schema(node)
    if schema is None:
        return []
    names = [f.name for f in schema.inputs]
    if schema.inputs and schema.inputs[-1].option == schema.inputs[-1].option.Variadic:
        last = names[-1]
        names = names[:-1] + [f"{last}[{i}]" for i in range(len(node.input) - len(names) + 1)]
    return names
