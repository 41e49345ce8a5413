"""Arithmetic on token ids stated as ``nn`` ops, at import.

What a model computes from its token ids (RoBERTa's position ids from its
padding, the token types it gathers by them) reaches the importers as
comparisons, casts and cumulative sums without ``nn`` ops. Both frontends
run ``raptor-fold-token-arithmetic`` on what they emitted, so that such a
model imports strictly and the import report counts only the generic
operators left.
"""

from __future__ import annotations

from collections import Counter

from mlir import ir
from mlir import passmanager


def fold(module: ir.Module) -> tuple[Counter[str], int]:
    """Runs the pass on ``module``; returns the ``nn.aten`` targets left
    (with their counts) and how many position computations became
    ``nn.token_positions``."""
    passmanager.PassManager.parse("builtin.module(raptor-fold-token-arithmetic)").run(module.operation)
    left: Counter[str] = Counter()
    positions = 0
    for func in module.body.operations:
        for block in func.regions[0].blocks if func.regions else ():
            for op in block.operations:
                name = op.operation.name
                if name == "nn.aten":
                    left[ir.StringAttr(op.attributes["target"]).value] += 1
                elif name == "nn.token_positions":
                    positions += 1
    return left, positions
