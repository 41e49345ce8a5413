"""What a conversion rule sees of an import in progress: the graph's
constants and the values emitted so far by name, the weights, a node's
users, and the checks every rule shares (the importer drives it; rules,
folding and generic calls read and extend it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mlir import ir

from raptor.dialects import nn

from . import shapes, validate
from .errors import OnnxImportError, Unsupported, UnsupportedOperatorError
from .tensors import dense, numpy_element_type, onnx_types

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


class ImportState:
    """One import: the graph's constants and emitted values by name, the
    weights, and what the rules need to look around a node (its users)."""

    #: The function body being emitted (set by the importer).
    block: ir.Block

    def __init__(self, model: Any, input_shapes: Mapping[str, Sequence[int]]) -> None:
        import onnx

        self.onnx = onnx
        self.model = model
        self.graph = model.graph
        self.report = ImportReport()
        # Why a rule left an operator generic (its first node's reason), for
        # the strict error.
        self.reasons: dict[str, str] = {}
        #: Strict mode: operators kept generic whose results have no static type.
        self.placeholders: Counter[str] = Counter()
        self.types = onnx_types()
        self.opset = self._check_opset()
        validate.check_graph(model, self.opset)  # every node and initializer, before anything is read
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
            if self.placeholders:  # strict mode: after an operator without a stand-in
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
    def _strict_error(self, note: str = "") -> None:
        """Stops a strict import, naming the operators without an ``nn``
        op (``note``: why, e.g. the integer input they compute on)."""
        names = ", ".join(f"{k.removeprefix('onnx.')} ({n}{': ' + self.reasons[k] if k in self.reasons else ''})"
                          for k, n in sorted(self.report.generic.items()))
        raise UnsupportedOperatorError(
            f"ONNX operators without an nn op: {names}{note}; import without strict mode to keep them as nn.aten")

    def schema(self, node: Any) -> Any | None:
        """The ONNX schema of ``node``'s operator at the model's opset (None:
        an operator ONNX does not define)."""
        return validate.schema_of(node, self.opset)
