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
import struct
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from mlir import ir

from ._io import UserError, current_umask

__all__ = ["beside", "from_exported_program", "load", "param_names", "save"]


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


def _bfloat16_as_float32(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Reads a safetensors file whose bfloat16 tensors numpy has no type
    for: the format is an 8-byte header length, a JSON header of dtype,
    shape and byte range per tensor, then the data; a bfloat16 is the high
    half of a float32."""
    import json

    data = Path(path).read_bytes()
    (size,) = struct.unpack_from("<Q", data)  # the header's length, u64 little-endian
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    kinds = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I64": np.int64, "I32": np.int32,
             "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_}
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        if info["dtype"] == "BF16":
            array = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(raw, np.dtype(kinds[info["dtype"]]).newbyteorder("<"))
        out[name] = array.reshape(info["shape"]).copy()
    return out


def load(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (bfloat16 ones as float32); a
    one-line UserError if unreadable."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        try:
            tensors = load_file(str(path))
        except TypeError:  # bfloat16, where numpy has no type for it
            tensors = _bfloat16_as_float32(path)
    except (OSError, SafetensorError, ValueError, KeyError, struct.error) as e:
        raise UserError(f"cannot read weights '{path}': {e}") from None
    return {name: t.astype(np.float32) if t.dtype.name == "bfloat16" else t for name, t in tensors.items()}


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
