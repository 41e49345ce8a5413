"""Types and values between ONNX, numpy and MLIR: element types, dense
attributes, the shapes of emitted values, and node attributes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from mlir import ir

from .errors import OnnxImportError


def onnx_types() -> dict[int, tuple[Callable[[], ir.Type], Any]]:
    """ONNX element type -> (its MLIR type, in a context; its numpy type)."""
    from onnx import TensorProto as T
    return {
        T.FLOAT: (ir.F32Type.get, np.float32), T.FLOAT16: (ir.F16Type.get, np.float16),
        T.DOUBLE: (ir.F64Type.get, np.float64), T.BFLOAT16: (ir.BF16Type.get, np.float32),
        T.INT64: (lambda: ir.IntegerType.get_signless(64), np.int64),
        T.INT32: (lambda: ir.IntegerType.get_signless(32), np.int32),
        T.INT16: (lambda: ir.IntegerType.get_signless(16), np.int16),
        T.INT8: (lambda: ir.IntegerType.get_signless(8), np.int8),
        T.UINT8: (lambda: ir.IntegerType.get_unsigned(8), np.uint8),
        T.BOOL: (lambda: ir.IntegerType.get_signless(1), np.bool_),
    }


def numpy_element_type(dtype: np.dtype) -> ir.Type:
    """The MLIR element type of a numpy dtype (unsigned stays unsigned)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dtype.kind == "f":
        return {2: ir.F16Type.get, 4: ir.F32Type.get, 8: ir.F64Type.get}[dtype.itemsize]()
    if dtype.kind == "i":
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if dtype.kind == "u":
        return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
    raise OnnxImportError(f"unsupported tensor dtype {dtype}")


def dense(array: np.ndarray) -> ir.Attribute:
    """``array`` as a dense elements attribute (booleans bit-packed, as MLIR
    stores i1)."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.bool_:
        packed = np.packbits(array, bitorder="little")
        return ir.DenseElementsAttr.get(packed, type=ir.IntegerType.get_signless(1),
                                        shape=list(array.shape))
    return ir.DenseElementsAttr.get(array, type=numpy_element_type(array.dtype))


def shape_of(value: ir.Value) -> list[int]:
    """The static shape of an emitted value (every value here is a ranked tensor)."""
    return list(ir.RankedTensorType(value.type).shape)


def is_float(value: ir.Value) -> bool:
    """Whether an emitted value holds floating-point elements."""
    return isinstance(ir.RankedTensorType(value.type).element_type,
                      (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type))


def attributes(node: Any) -> dict[str, Any]:
    """A node's attributes by name, as Python values."""
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def decode(value: Any) -> Any:
    """A string attribute (bytes in ONNX) as ``str``; other values as they are."""
    return value.decode() if isinstance(value, bytes) else value
