"""Import an ONNX model into an ``nn`` module.

    from raptor.frontend.onnx import import_model
    module, report, weights = import_model("model.onnx", input_shapes={"x": [1, 3, 224, 224]})

ONNX operators become the same ``nn`` ops the torch frontend emits (whose
operand names are aten's argument names), so every later pass applies
unchanged: ``Conv`` is ``nn.convolution``, ``Gemm`` and ``MatMul`` by a
weight are ``nn.linear``, ``Clip`` is ``nn.hardtanh``, ``Gather`` by constant
indices is ``nn.select``/``nn.index_select``, and so on. Initializers that
feed the graph become ``nn.param`` arguments (their values are returned as
the weights), data computed from constants only (shape arithmetic, masks)
is folded, with the ``onnx`` package's reference implementation, into
``nn.constant`` or attributes. Every tensor must have a static shape: the
graph's own, or one given for an input in ``input_shapes``. An operator
without an ``nn`` op is kept as the generic ``nn.aten`` op (target
``onnx.OpType``), or, in strict mode, all of them are named in one error.

The package: ``importer`` (the graph walk, values and weights), ``validate``
(every node and initializer checked first), ``shapes``
(static shapes), ``folding`` (constant nodes), ``generic`` (operators
without a rule), ``rules`` (the conversion rules by operator family),
``tensors`` and ``errors`` (what they share).
"""

from __future__ import annotations

from .errors import DynamicShapeError, OnnxImportError, UnsupportedOperatorError
from .importer import import_model, load_model
from .state import SUPPORTED_OPSETS, ImportReport

__all__ = ["DynamicShapeError", "ImportReport", "OnnxImportError", "SUPPORTED_OPSETS", "UnsupportedOperatorError",
           "import_model", "load_model"]
