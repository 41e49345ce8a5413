"""Raptor: an MLIR compiler from machine-learning models to PIM accelerators.

Importing this package registers Raptor's dialects with the ``mlir`` Python
bindings (every new ``mlir.ir.Context`` knows them) and its passes with the
pass registry, so::

    import raptor
    from mlir import ir, passmanager

    with raptor.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse("builtin.module(raptor-summarize-graph)").run(
            module.operation)
"""

from __future__ import annotations

from mlir import ir
from mlir._mlir_libs import _mlir as _cext
from mlir._mlir_libs import get_dialect_registry

from . import _raptor

__all__ = ["Context", "register", "graph_summary", "port_names"]
__version__ = "0.1.0"


def register(context: ir.Context | None = None) -> None:
    """Registers Raptor's dialects and passes.

    With no argument, Raptor's dialects go into the global dialect registry
    that every later ``ir.Context()`` starts from; with a context, they are
    also loaded into that context (use this for contexts created earlier).
    """
    if context is not None:
        _raptor.load_dialects(context)
    _raptor.register_passes()


_raptor.register_dialects(get_dialect_registry())
_raptor.register_passes()
# Lets walks over the IR produce the generated op classes (raptor.dialects.nn).
_cext.globals.append_dialect_search_prefix("raptor.dialects")


def Context() -> ir.Context:  # noqa: N802 - mirrors ir.Context
    """A new ``mlir.ir.Context`` with Raptor's dialects loaded."""
    context = ir.Context()
    _raptor.load_dialects(context)
    return context


def graph_summary(module: ir.Module) -> dict:
    """Operator counts and weight storage of each nn graph in ``module``.

    Computed by the same C++ code as the ``raptor-summarize-graph`` pass.
    """
    return _raptor.graph_summary(module)


def port_names(op: ir.Operation | ir.OpView) -> tuple[list[str], list[str]]:
    """The aten port names of an ``nn`` op's operands and results.

    Input ports are aten argument names (``tensors[*]`` for a variadic
    list); output ports are ``out``, ``out[i]`` or ``out[*]``.
    """
    inputs, outputs = _raptor.port_names(op.operation)  # an Operation's .operation is itself
    return list(inputs), list(outputs)
