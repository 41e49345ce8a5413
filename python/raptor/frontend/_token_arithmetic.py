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
from collections.abc import Iterable

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


def integer_input_note(module: ir.Module, targets: Iterable[str]) -> str:
    """Why generic ops of ``targets`` left by the fold have no ``nn`` op
    when they compute on an integer model input at run time: a clause
    naming the input and what Raptor reads integer inputs as (empty when
    no integer input reaches them through its arithmetic)."""
    wanted = set(targets)
    for func in module.body.operations:
        if not func.regions or not func.regions[0].blocks:
            continue
        block = func.regions[0].blocks[0]
        arg_attrs = func.attributes["arg_attrs"] if "arg_attrs" in func.attributes else None
        for i, arg in enumerate(block.arguments):
            attrs = ir.DictAttr(arg_attrs[i]) if arg_attrs is not None else None
            if attrs is None or "nn.input" not in attrs or not _is_integer(arg.type):
                continue
            if _reaches(arg, wanted):
                name = ir.StringAttr(attrs["nn.input"]).value
                return (f"; it computes on the integer input '{name}' at run time: Raptor reads an integer input "
                        f"as token ids (embedding indices, positions past padding, the last token) or, when the "
                        f"model reads it as booleans, as a mask of 0s and 1s (docs/frontend.md, 'Attention masks')")
    return ""


def _is_integer(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.IntegerType)


def _reaches(value: ir.Value, targets: set[str]) -> bool:
    """Whether a generic op of ``targets`` reads ``value`` through its
    arithmetic at run time: ops whose results are integers, or that read
    nothing else but constants (XLNet's mask made reals, ``1.0 - mask``)."""
    work, seen = [value], set()
    while work:
        v = work.pop()
        for use in v.uses:
            op = use.owner
            if op.name == "nn.aten" and ir.StringAttr(op.attributes["target"]).value in targets:
                return True
            alone = all(o == v or (o.owner is not None and getattr(o.owner, "name", "") == "nn.constant")
                        for o in op.operands)
            for result in op.results:
                if (_is_integer(result.type) or alone) and result not in seen:
                    seen.add(result)
                    work.append(result)
    return False


def _node(location: ir.Location) -> str:
    """The importer's name of the node at ``location`` (both importers name
    each op's location after its node)."""
    return location.name_str if location.is_a_name() else str(location)
