"""Model arguments of the ``raptor`` command: a zoo name, a ``.pt2`` file
(``torch.export.save``), an ``.onnx`` file (static shapes; onnxruntime is
its reference) or an ``.mlir`` file with its ``.safetensors``.

    from raptor import sources
    model = sources.load("resnet18.pt2")       # or "shufflenet_v2", "model.mlir"
    model.module, model.weights, model.reference(x)
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from mlir import ir

import raptor

from . import weights as weights_io
from . import zoo
from ._io import UserError, parse_module, read_text

__all__ = ["Model", "load"]


@dataclass
class Model:
    """A model ready for the compiler."""

    module: ir.Module
    #: The safetensors file of its nn.param weights (None: it has none).
    weights: Path | None
    #: What the model argument named (for messages and the manifest).
    source: str
    #: The model itself on an input: eager torch, or onnxruntime for an
    #: ONNX file (None when only IR is known).
    reference: Callable[[np.ndarray], np.ndarray] | None = None
    #: Temporary files to delete when done.
    temporary: list[Path] = field(default_factory=list)

    def cleanup(self) -> None:
        for path in self.temporary:
            path.unlink(missing_ok=True)


def _torch():
    try:
        import torch
    except ImportError as e:
        raise UserError(f"this needs the 'torch' extra ({e.name} is missing)") from None
    return torch


def _import_exported(ep, source: str, context: ir.Context, strict: bool = False):
    from .frontend.torch import ImportOptions, UnsupportedOperatorError, import_program

    try:
        ep = ep.run_decompositions(zoo.decomposition_table())
    except Exception as e:  # torch raises many kinds here
        raise UserError(f"{source}: torch could not decompose the exported program: {e}") from None
    try:
        module, _ = import_program(ep, ImportOptions(strict=strict), context)
    except UnsupportedOperatorError as e:
        raise UserError(f"{source}: {e}") from None
    return ep, module


def load(source: str, weights: str | None = None, context: ir.Context | None = None,
         progress: Callable[[str], None] | None = None) -> Model:
    """Resolves a model argument; ``weights`` overrides the weights file of
    an ``.mlir`` model. Raises UserError with a one-line reason."""
    say = progress or (lambda _: None)
    context = context or raptor.Context()
    if source in zoo.NAMES:
        say(f"[model] {source}: bundled graph, fixed-seed weights")
        module = zoo.load_graph(source, context)
        w = Path(weights) if weights else zoo.weights_file(source)

        def reference(x: np.ndarray, name: str = source) -> np.ndarray:
            torch = _torch()
            return zoo.reference_output(name, torch.from_numpy(x)).numpy()

        return Model(module, w, source, reference)
    path = Path(source)
    if path.suffix == ".pt2":
        torch = _torch()
        if not path.is_file():
            raise UserError(f"cannot read '{source}'")
        say(f"[model] {source}: loading the exported program")
        try:
            ep = torch.export.load(str(path))
        except Exception as e:
            raise UserError(f"'{source}' is not a torch.export file: {type(e).__name__}: {e}") from None
        eager = ep.module()
        ep, module = _import_exported(ep, source, context)
        fd, tmp = tempfile.mkstemp(prefix="raptor-", suffix=".safetensors")
        os.close(fd)
        tmp_path = Path(tmp)
        weights_io.save(tmp_path, weights_io.from_exported_program(ep, module))

        def reference(x: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                out = eager(torch.from_numpy(x))
            out = out[0] if isinstance(out, (tuple, list)) else out
            return out.detach().numpy()

        return Model(module, tmp_path, source, reference, [tmp_path])
    if path.suffix == ".onnx":
        return _load_onnx(path, source, context, say)
    if path.suffix == ".mlir" or source == "-":
        module = parse_module(read_text(source), source, context)
        w = Path(weights) if weights else (weights_io.beside(path) if source != "-" else None)
        if w is not None and not w.is_file():
            if weights_io.param_names(module):
                raise UserError(f"'{source}' names weights but '{w}' does not exist "
                                "(give --weights FILE.safetensors)")
            w = None
        return Model(module, w, source)
    names = ", ".join(zoo.NAMES)
    raise UserError(f"unknown model '{source}': expected a zoo name ({names}), a .pt2, .onnx or .mlir file")


def _load_onnx(path: Path, source: str, context: ir.Context, say: Callable[[str], None]) -> Model:
    """An ONNX file: imported (static shapes), its initializers as a
    temporary weights file, onnxruntime as the reference."""
    if not path.is_file():
        raise UserError(f"cannot read '{source}'")
    try:
        from .frontend.onnx import OnnxImportError, import_model
    except ImportError as e:
        raise UserError(f"the ONNX frontend needs the 'onnx' package ({e.name} is missing)") from None
    say(f"[model] {source}: importing the ONNX graph")
    try:
        module, _, tensors = import_model(str(path), context=context)
    except OnnxImportError as e:
        raise UserError(f"{source}: {e} (import it with `raptor import {source} --input-shape ...` first "
                        "if its shapes are dynamic)") from None
    fd, tmp = tempfile.mkstemp(prefix="raptor-", suffix=".safetensors")
    os.close(fd)
    tmp_path = Path(tmp)
    weights_io.save(tmp_path, tensors)

    def reference(x: np.ndarray) -> np.ndarray:
        try:
            import onnxruntime
        except ImportError as e:
            raise UserError(f"checking against onnxruntime needs it installed ({e.name} is missing)") from None
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return session.run(None, {session.get_inputs()[0].name: x})[0]

    return Model(module, tmp_path, source, reference, [tmp_path])
