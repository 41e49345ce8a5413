"""The conversion rules from ONNX operators to ``nn`` ops, one module per
family; :data:`RULES` is the one table the importer reads."""

from __future__ import annotations

# Each family registers its rules in RULES when imported.
from . import convolution, elementwise, matrix, normalization, resize, views  # noqa: F401
from .base import RULES, Rule

__all__ = ["RULES", "Rule"]
