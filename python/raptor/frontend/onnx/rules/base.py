"""The registry of conversion rules and what rules of several families
share. A rule takes (importer, node, attributes, node index) and returns
the values of the node's outputs (None for an output it leaves to a
later node), or raises ``Unsupported``: the node then stays generic."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mlir import ir

from ..errors import OnnxImportError

if TYPE_CHECKING:
    from ..state import ImportState

Rule = Callable[["ImportState", Any, dict[str, Any], int], list[ir.Value | None]]

#: ONNX operator type (default domain) -> its rule.
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Registers the decorated function as the rule of operators ``names``."""
    def register(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn
    return register


def axis_in(node: Any, axis: int, rank: int) -> int:
    """``axis`` as a dimension of a rank-``rank`` tensor (ONNX allows
    -rank..rank-1, a negative one counting from the end); any other is the
    model's error, named with its node (a modulo would pick some other
    dimension)."""
    if not -rank <= axis < rank:
        raise OnnxImportError(f"{node.op_type} node '{node.name}' has axis {axis}, outside -{rank}..{rank - 1} "
                              f"for its rank-{rank} tensor")
    return axis % rank


def axes_of(im: ImportState, node: Any, a: dict[str, Any], position: int) -> list[int] | None:
    """Axes given as attribute (older opsets) or as input ``position``."""
    if "axes" in a:
        return list(a["axes"])
    arr = im.optional_const(node, position)
    return None if arr is None else [int(v) for v in arr.reshape(-1)]
