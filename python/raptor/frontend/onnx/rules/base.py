"""The registry of conversion rules and what rules of several families
share. A rule takes (importer, node, attributes, node index) and returns
the values of the node's outputs (None for an output it leaves to a
later node), or raises ``Unsupported``: the node then stays generic."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mlir import ir

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


def axes_of(im: ImportState, node: Any, a: dict[str, Any], position: int) -> list[int] | None:
    """Axes given as attribute (older opsets) or as input ``position``."""
    if "axes" in a:
        return list(a["axes"])
    arr = im.optional_const(node, position)
    return None if arr is None else [int(v) for v in arr.reshape(-1)]
