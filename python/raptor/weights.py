"""Model weights beside the IR: ``model.mlir`` + ``model.safetensors``.

An ``nn`` graph names its weights in ``nn.param`` argument attributes; their
values live in a safetensors file keyed by those names, which the PIM
back end reads (``raptor compile``, ``raptor-lower-to-pim{weights=...}``).

    from raptor import weights
    weights.save("model.safetensors", {"fc.weight": w, "fc.bias": b})
    weights.load("model.safetensors")["fc.weight"]
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from mlir import ir

from ._io import UserError, current_umask

__all__ = ["Weights", "beside", "from_exported_program", "load", "param_names", "save"]


def param_names(module: ir.Module) -> list[str]:
    """The ``nn.param`` names of every function argument of ``module``."""
    names: list[str] = []
    for op in module.body.operations:
        if op.operation.name != "func.func" or "arg_attrs" not in op.attributes:
            continue
        for attrs in ir.ArrayAttr(op.attributes["arg_attrs"]):
            attrs = ir.DictAttr(attrs)
            if "nn.param" in attrs:
                names.append(ir.StringAttr(attrs["nn.param"]).value)
    return names


def save(path: str | os.PathLike[str], tensors: Mapping[str, np.ndarray]) -> None:
    """Writes ``tensors`` (float arrays are stored as float32) atomically."""
    from safetensors.numpy import save_file

    target = Path(path)
    arrays = {name: np.ascontiguousarray(a.astype(np.float32) if a.dtype.kind == "f" else a)
              for name, a in tensors.items()}
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        save_file(arrays, tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Weights(Mapping[str, np.ndarray]):
    """The tensors of a safetensors file, by name, read through Raptor's C++
    reader (the one the PIM lowering uses): the file is opened, validated
    and memory-mapped once; each tensor is a numpy array of its own (float
    types, bfloat16 included, as float32; integer types as themselves)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    @property
    def path(self) -> str:
        return self._handle.path

    @property
    def handle(self) -> Any:
        """The C++ object, which ``raptor.pim.compile`` hands to the lowering."""
        return self._handle

    def __getitem__(self, name: str) -> np.ndarray:
        return self._handle[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._handle.names())

    def __len__(self) -> int:
        return len(self._handle)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._handle


def load(path: str | os.PathLike[str]) -> Weights:
    """The weights of a safetensors file; a one-line UserError if the file is
    missing, not a regular file, or malformed (header, offsets, sizes)."""
    from . import _raptor

    try:
        return Weights(_raptor.Weights.open(str(path)))
    except ValueError as e:
        raise UserError(str(e)) from None


def beside(model_path: str | os.PathLike[str]) -> Path:
    """The weights file that goes with ``model.mlir``: ``model.safetensors``."""
    return Path(model_path).with_suffix(".safetensors")


def from_exported_program(ep: Any, module: ir.Module) -> dict[str, np.ndarray]:
    """The values of ``module``'s ``nn.param`` weights from the exported
    program's state dict (parameters and persistent buffers)."""
    out: dict[str, np.ndarray] = {}
    for name in param_names(module):
        tensor = ep.state_dict.get(name)
        if tensor is None:
            tensor = ep.constants.get(name)
        if tensor is None:
            raise UserError(f"the exported program has no weight '{name}'")
        t = tensor.detach().cpu()
        out[name] = (t.float() if t.is_floating_point() else t).contiguous().numpy()
    return out
