"""Reduced dependency graphs of recurrence systems (shared seed 003).

    from raptor import rdg
    module = rdg.parse_sure(open("gemv.sure").read(), "gemv.sure", name="gemv")
    print(rdg.to_json(module))            # dfactl --emit-rdg, byte for byte
    graph = rdg.extract(module, "extended")   # dict: symbolic parameters, branches

The parser is Python (`raptor.rdg.parser`); the extraction is the C++ pass
`raptor-extract-rdg`, reached through the binding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mlir import ir

from .. import Context, _raptor
from .parser import SureSyntaxError, sure_to_mlir

__all__ = ["SureSyntaxError", "extract", "load_sure", "parse_sure", "sure_to_mlir", "to_json"]


def parse_sure(text: str, source: str = "<sure>", name: str = "system",
               context: ir.Context | None = None) -> ir.Module:
    """Parses `.sure` text into a verified module holding one `sure.system`."""
    mlir_text = sure_to_mlir(text, source, name)
    with context or Context():
        return ir.Module.parse(mlir_text)


def load_sure(path: str | Path, context: ir.Context | None = None) -> ir.Module:
    """Parses a `.sure` file; the system is named after the file's stem."""
    path = Path(path)
    return parse_sure(path.read_text(), str(path), path.stem, context)


def to_json(module: ir.Module, form: str = "dfactl") -> str:
    """The RDG JSON of every system in `module` ('dfactl' or 'extended' form)."""
    if form not in ("dfactl", "extended"):
        raise ValueError(f"unknown RDG form '{form}' (expected 'dfactl' or 'extended')")
    return _raptor.rdg_json(module, form)


def extract(module: ir.Module, form: str = "extended") -> dict[str, Any]:
    """The RDG of the module's (single) system as a dict."""
    return json.loads(to_json(module, form))
