"""Plain Python values as MLIR attributes, shared by the frontends (an aten
argument, an ONNX node attribute)."""

from __future__ import annotations

from typing import Any

from mlir import ir


def scalar_attribute(value: Any) -> ir.Attribute | None:
    """A bool, int, float, str or list of numbers as an attribute (None when
    it has no such form)."""
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return ir.DenseI64ArrayAttr.get(list(value))
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) for v in value):
        return ir.DenseF64ArrayAttr.get([float(v) for v in value])
    return None
