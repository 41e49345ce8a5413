"""Arithmetic on token ids stated as ``nn`` ops, at import.

What a model computes from its token ids (RoBERTa's position ids from its
padding, the token types it gathers by them, decoder ids shifted right,
masks and counts of special tokens, hashed ids) reaches the importers as
comparisons, casts, integer arithmetic and data movement without ``nn``
ops. Both frontends run ``raptor-fold-token-arithmetic`` on every module
they emit (passes/nn/TokenTables.h states the functions of the ids as
lookups), so that such a model imports strictly and the import report
counts only the generic operators left.
"""

from __future__ import annotations

from collections import Counter

from mlir import ir
from mlir import passmanager


class TokenTableError(ValueError):
    """A function of the token ids reads an embedding outside its table for
    an id of the vocabulary; the message names the node, one line."""


def fold(module: ir.Module) -> tuple[Counter[str], int]:
    """Runs the pass on ``module``; returns the ``nn.aten`` targets left
    (with their counts) and how many position computations became
    ``nn.token_positions``. Raises TokenTableError when the pass reports a
    function of the ids that reads outside its table."""
    try:
        passmanager.PassManager.parse("builtin.module(raptor-fold-token-arithmetic)").run(module.operation)
    except ir.MLIRError as e:
        diagnostic = e.error_diagnostics[0] if e.error_diagnostics else None
        if diagnostic is None:
            raise
        raise TokenTableError(f"node '{_node(diagnostic.location)}': {diagnostic.message}") from None
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


def _node(location: ir.Location) -> str:
    """The importer's name of the node at ``location`` (both importers name
    each op's location after its node)."""
    return location.name_str if location.is_a_name() else str(location)
