"""Constant folding: a node whose inputs are all constants (shape
arithmetic, masks, position tables) is evaluated at import, with the
``onnx`` package's reference implementation, instead of being emitted;
``Shape`` of an emitted value folds to its static shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import OnnxImportError, one_line
from .tensors import attributes, shape_of

if TYPE_CHECKING:
    from .state import ImportState

#: Operators never folded: their values are drawn anew on every run.
_RANDOM = ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli")


def foldable(im: ImportState, node: Any) -> bool:
    """Whether ``node`` computes constants only."""
    if node.op_type in ("Constant",):
        return True
    if node.op_type == "Shape":
        return bool(node.input) and (node.input[0] in im.consts or node.input[0] in im.values)
    if node.op_type in _RANDOM:
        return False
    present = [n for n in node.input if n]
    return all(n in im.consts for n in present) and bool(present or node.op_type in (
        "ConstantOfShape", "Range"))


def fold(im: ImportState, node: Any) -> None:
    """Evaluates ``node`` into the importer's constants."""
    im.report.folded += 1
    if node.op_type == "Shape" and node.input[0] not in im.consts:
        a = attributes(node)
        sizes = np.array(shape_of(im.values[node.input[0]]), dtype=np.int64)
        rank = len(sizes)
        start = a.get("start", 0)
        end = a.get("end", rank)
        im.consts[node.output[0]] = sizes[slice(start, end)]
        return
    from onnx.reference import ReferenceEvaluator

    try:
        feeds = {n: im.consts[n] for n in node.input if n}
        if node.op_type in _NUMPY_FOLDS:
            results = _NUMPY_FOLDS[node.op_type](node, [im.consts[n] for n in node.input], attributes(node))
        else:
            results = ReferenceEvaluator(node).run(None, feeds)
    except Exception as e:
        raise OnnxImportError(f"cannot evaluate the constant ONNX node "
                              f"'{node.name or node.op_type}' ({node.op_type}): {one_line(e)}") from None
    for name, r in zip(node.output, results):
        if name:
            im.consts[name] = np.asarray(r)


def _gather_elements(node: Any, inputs: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, index = inputs
    axis = a.get("axis", 0) % data.ndim
    index = np.where(index < 0, index + data.shape[axis], index)
    return [np.take_along_axis(data, index.astype(np.int64), axis)]


#: Folds computed here: the reference implementation of GatherElements
#: handles at most 64 positions along the axis (numpy.choose).
_NUMPY_FOLDS = {"GatherElements": _gather_elements}
