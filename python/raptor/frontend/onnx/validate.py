"""An ONNX file is untrusted input: every node is checked against its
operator's schema, and every initializer against the data it holds,
before anything is imported, so that the conversion rules (which index a
node's inputs and read its attributes) and numpy (which allocates what a
tensor's dims claim) only ever see well-formed nodes and tensors. Each
problem is one line naming the node or tensor."""

from __future__ import annotations

import math
from typing import Any

from .errors import OnnxImportError

#: The largest element count of one tensor: 2^62, so that a byte count
#: (at most 8 bytes an element here) never overflows int64.
MAX_ELEMENTS = 1 << 62


def check_graph(model: Any, opset: int) -> None:
    """Raises OnnxImportError for the first malformed node or initializer
    of ``model``'s graph (default-domain operators at ``opset``)."""
    import onnx

    for init in model.graph.initializer:
        _check_initializer(onnx, init)
    for index, node in enumerate(model.graph.node):
        schema = schema_of(node, opset)
        if schema is not None:
            _check_node(onnx, node, node.name or f"{node.op_type}_{index}", schema)


def schema_of(node: Any, opset: int) -> Any | None:
    """The ONNX schema of ``node``'s operator at ``opset`` (None: an
    operator ONNX does not define, which stays a generic call)."""
    import onnx

    try:
        return onnx.defs.get_schema(node.op_type, opset, node.domain or "")
    except Exception:  # onnx raises SchemaError, and more on odd domains
        return None


def _check_node(onnx: Any, node: Any, name: str, schema: Any) -> None:
    where = f"node '{name}' ({node.op_type})"
    for what, got, low, high in (("inputs", len(node.input), schema.min_input, schema.max_input),
                                 ("outputs", len(node.output), schema.min_output, schema.max_output)):
        if not low <= got <= high:
            bound = f"{low}" if low == high else f"{low} to {high}" if high < 2**31 - 1 else f"at least {low}"
            noun = what[:-1] if got == 1 else what
            raise OnnxImportError(f"{where} has {got} {noun}; the operator takes {bound}")
    single = onnx.defs.OpSchema.FormalParameterOption.Single
    for i, formal in enumerate(schema.inputs[:len(node.input)]):
        if formal.option == single and not node.input[i]:
            raise OnnxImportError(f"{where} leaves its required input {i} ('{formal.name}') empty")
    declared = schema.attributes
    given = {}
    for attribute in node.attribute:
        if attribute.name in given:
            raise OnnxImportError(f"{where} gives attribute '{attribute.name}' twice")
        given[attribute.name] = attribute
        spec = declared.get(attribute.name)
        if spec is None:
            continue  # (an attribute the operator does not read: ignored, as by onnxruntime's loader)
        expected = int(spec.type)
        if int(attribute.type) != expected:
            want = onnx.AttributeProto.AttributeType.Name(expected)
            got_name = onnx.AttributeProto.AttributeType.Name(int(attribute.type)) \
                if int(attribute.type) in onnx.AttributeProto.AttributeType.values() else str(attribute.type)
            raise OnnxImportError(f"{where}: attribute '{attribute.name}' is {got_name}, the operator takes {want}")
        if attribute.type == onnx.AttributeProto.TENSOR:
            _check_initializer(onnx, attribute.t, f"{where}: attribute '{attribute.name}'")
    for attr_name, spec in declared.items():
        if spec.required and attr_name not in given:
            raise OnnxImportError(f"{where} lacks its required attribute '{attr_name}'")


def _check_initializer(onnx: Any, tensor: Any, where: str | None = None) -> None:
    """The dims of a tensor against the data it carries (numpy would
    allocate what the dims claim, or fail reshaping)."""
    where = where or f"initializer '{tensor.name}'"
    dims = list(tensor.dims)
    if any(d < 0 for d in dims):
        raise OnnxImportError(f"{where} has a negative size in its shape {dims}")
    count = math.prod(dims)
    if count > MAX_ELEMENTS:
        raise OnnxImportError(f"{where} has shape {dims}: more elements than int64 counts")
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        return  # (onnx.load checked and read the external file into raw_data already)
    if tensor.HasField("raw_data"):
        itemsize = _itemsize(onnx, tensor.data_type)
        if itemsize is not None and len(tensor.raw_data) != count * itemsize:
            raise OnnxImportError(f"{where} has shape {dims} ({count} elements) but holds "
                                  f"{len(tensor.raw_data)} bytes of data")
        return
    held = max(len(tensor.float_data), len(tensor.int32_data), len(tensor.int64_data), len(tensor.double_data),
               len(tensor.uint64_data), len(tensor.string_data))
    if held != count and not (held == 0 and count == 0):
        raise OnnxImportError(f"{where} has shape {dims} ({count} elements) but holds {held} values")


def _itemsize(onnx: Any, data_type: int) -> int | None:
    """Bytes per element of raw data of an ONNX element type (None: one
    whose elements are not whole bytes or that numpy cannot hold)."""
    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(data_type)
    except Exception:
        return None
    if data_type in (onnx.TensorProto.STRING, onnx.TensorProto.UNDEFINED) or dtype.itemsize == 0:
        return None
    if data_type in (getattr(onnx.TensorProto, n, -1) for n in ("INT4", "UINT4", "FLOAT4E2M1")):
        return None
    return dtype.itemsize
