"""Static shapes: the graph inputs' (their own, or given with
``input_shapes``) and, by ONNX's shape inference, those of the values a
generic operator produces (the typed ``nn`` ops infer their own)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from mlir import ir

from .errors import DynamicShapeError, OnnxImportError

#: A value's static type: (dims, ONNX element type).
StaticType = tuple[list[int], int]


def input_types(graph: Any, initializers: set[str], input_shapes: Mapping[str, Sequence[int]],
                types: Mapping[int, Any]) -> list[tuple[str, list[int], int]]:
    """(name, static shape, ONNX element type) of each graph input that is
    not an initializer; OnnxImportError for a dynamic shape not given in
    ``input_shapes``, or a given one that contradicts the graph's."""
    import onnx

    inputs = [i for i in graph.input if i.name not in initializers]
    known = {i.name for i in inputs}
    for name in input_shapes:
        if name not in known:
            raise OnnxImportError(f"--input-shape names '{name}', which is not a graph input "
                                  f"(inputs: {', '.join(sorted(known)) or 'none'})")
    out = []
    for i in inputs:
        t = i.type.tensor_type
        if not i.type.HasField("tensor_type"):
            raise OnnxImportError(f"input '{i.name}' is not a tensor")
        if t.elem_type not in types:
            raise OnnxImportError(f"input '{i.name}' has an unsupported element type "
                                  f"{onnx.TensorProto.DataType.Name(t.elem_type)}")
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                for d in t.shape.dim]
        if i.name in input_shapes:
            shape = [int(s) for s in input_shapes[i.name]]
            if not t.HasField("shape"):
                pass
            elif len(shape) != len(dims) or any(
                    isinstance(d, int) and d > 0 and d != s for d, s in zip(dims, shape)):
                raise OnnxImportError(
                    f"--input-shape {i.name}={','.join(map(str, shape))} does not match the "
                    f"graph's shape [{', '.join(map(str, dims))}]")
            if any(s <= 0 for s in shape):
                raise OnnxImportError(f"--input-shape {i.name}: sizes must be positive")
        else:
            if not t.HasField("shape") or any(not isinstance(d, int) or d <= 0 for d in dims):
                spelled = "unknown" if not t.HasField("shape") else \
                    "[" + ", ".join(map(str, dims)) + "]"
                sizes = ",".join(str(d) if isinstance(d, int) and d > 0 else "N" for d in dims)
                raise DynamicShapeError(
                    f"input '{i.name}' has a dynamic shape {spelled}: give its sizes with "
                    f"--input-shape {i.name}={sizes}", i.name, sizes)
            shape = dims
        # Checked here, before any value of that size is typed or viewed:
        # MLIR's tensor types count elements in int64.
        if math.prod(shape) >= 2**63:
            raise OnnxImportError(f"input '{i.name}' of shape [{', '.join(map(str, shape))}] has more "
                                  "elements than int64 counts")
        out.append((i.name, shape, t.elem_type))
    return out


def infer_model(model: Any, inputs: list[tuple[str, list[int], int]]) -> dict[str, StaticType]:
    """Static types of every value of ``model`` whose inputs have the given
    static shapes."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    # Large initializers (weights) as typed inputs: their values only
    # cost time here (shape arithmetic uses small constants).
    graph = copy.graph
    listed = {i.name for i in graph.input}
    large = [i for i in graph.initializer if math.prod(i.dims) > 4096 and i.name not in listed]
    for init in large:
        graph.input.append(onnx.helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
    kept = [i for i in graph.initializer if math.prod(i.dims) <= 4096]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    fixed = {name: shape for name, shape, _ in inputs}
    for i in graph.input:
        if i.name in fixed:
            i.type.tensor_type.shape.Clear()
            for s in fixed[i.name]:
                i.type.tensor_type.shape.dim.add().dim_value = s
    return static_shapes(copy)


def infer_node(node: Any, consts: Mapping[str, np.ndarray], values: Mapping[str, ir.Value],
               types: Mapping[int, tuple[Callable[[], ir.Type], Any]], opset_import: Any) -> dict[str, StaticType]:
    """ONNX shape inference of one node from its operands' known types
    (when inference over the whole model lost track)."""
    import onnx

    to_onnx = {}
    for code, (make, _) in types.items():
        to_onnx.setdefault(str(make()), code)
    inputs, inits = [], []
    for name in node.input:
        if not name:
            continue
        if name in consts:
            inits.append(onnx.numpy_helper.from_array(np.asarray(consts[name]), name))
        elif name in values:
            t = ir.RankedTensorType(values[name].type)
            code = to_onnx.get(str(t.element_type))
            if code is None:
                return {}
            inputs.append(onnx.helper.make_tensor_value_info(name, code, list(t.shape)))
    graph = onnx.helper.make_graph([node], "node", inputs, [
        onnx.helper.make_empty_tensor_value_info(o) for o in node.output if o], inits)
    model = onnx.helper.make_model(graph, opset_imports=list(opset_import))
    return static_shapes(model)


def static_shapes(model: Any) -> dict[str, StaticType]:
    """ONNX shape inference (with data propagation) on ``model``: each
    value with a static shape and a known element type, as (dims, type);
    nothing when inference fails."""
    import onnx

    try:
        model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:  # onnx raises many kinds on graphs it cannot infer
        return {}
    out = {}
    for info in list(model.graph.value_info) + list(model.graph.output):
        t = info.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
        if t.HasField("shape") and t.elem_type and all(d >= 0 for d in dims):
            out[info.name] = (dims, t.elem_type)
    return out
