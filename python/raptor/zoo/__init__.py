"""Raptor's model zoo: the four evaluation models of the codec-placement paper.

Every model is built offline from its architecture definition with random
weights (``torch.manual_seed(0)``), in eval mode, wrapped so that ``forward``
takes one tensor and returns one tensor. Their imported ``nn`` graphs are
bundled (``graphs/NAME.mlir``, weights as parameters) so that tests and demos
run without torch; :func:`load_graph` reads them.

Torch-free: :data:`NAMES`, :data:`PAPER_FP32_MIB`, :func:`graph_path`,
:func:`load_graph`, :func:`import_options`. Needing the ``torch`` extra
(imported on first use): ``MODELS``, ``export``, ``decomposition_table``,
``example_input``, ``fp32_storage_bytes``, ``op_histogram``, ``storage_mib``,
``used_state``, ``PRESERVED_OPS``, ``ModelSpec``, ``SingleTensorWrapper``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from mlir import ir

__all__ = ["NAMES", "PAPER_FP32_MIB", "graph_path", "import_options", "load_graph", "weights_file"]

#: The zoo's models, in the paper's order (Table 6).
NAMES: tuple[str, ...] = ("shufflenet_v2", "unet", "siglip", "smollm2")

#: fp32 weight storage in MiB as printed in the paper's Table 1.
PAPER_FP32_MIB: dict[str, float] = {
    "shufflenet_v2": 8.8, "unet": 93.3, "siglip": 329.7, "smollm2": 405.1,
}

_GRAPHS = Path(__file__).parent / "graphs"


_TORCH_API = {
    "MODELS": "_models", "ModelSpec": "_models", "SingleTensorWrapper": "_models",
    "export": "_export", "decomposition_table": "_export", "example_input": "_export",
    "PRESERVED_OPS": "_export",
    "fp32_storage_bytes": "_analysis", "op_histogram": "_analysis",
    "storage_mib": "_analysis", "used_state": "_analysis", "reference_output": "_export",
}


def __getattr__(name: str) -> Any:
    if name in _TORCH_API:
        module = importlib.import_module(f"{__name__}.{_TORCH_API[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_name(name: str) -> str:
    """Returns ``name`` if it is a zoo model, else raises ValueError."""
    if name not in NAMES:
        raise ValueError(f"unknown model '{name}' (expected one of {', '.join(NAMES)})")
    return name


def import_options(name: str) -> dict[str, Any]:
    """Frontend options (``ImportOptions`` fields) the zoo uses for ``name``.

    SmolLM2 is imported as a decoder step: its attention reads keys and
    values through a KV-cache update, as in the paper's Table 5.
    """
    return {"insert_kv_cache": True} if check_name(name) == "smollm2" else {}


def graph_path(name: str) -> Path:
    """The bundled ``nn`` graph of model ``name``."""
    return _GRAPHS / f"{check_name(name)}.mlir"


def load_graph(name: str, context: ir.Context | None = None) -> ir.Module:
    """Parses the bundled ``nn`` graph of model ``name`` (no torch needed)."""
    import raptor

    context = context or raptor.Context()
    with context:
        return ir.Module.parse(graph_path(name).read_text())


def cache_dir() -> Path:
    """Where generated zoo data lives: $RAPTOR_CACHE, else ~/.cache/raptor."""
    import os

    root = os.environ.get("RAPTOR_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "raptor")
    return Path(root)


def weights_file(name: str) -> Path:
    """The safetensors file of model ``name``'s fixed-seed weights (the
    ``nn.param`` names of its bundled graph), built with torch on first use
    and cached (the file name carries the torch version: its random number
    generator defines the weights)."""
    check_name(name)
    import torch

    from .. import weights
    from ._models import MODELS, RECIPE, SEED

    path = cache_dir() / "zoo" / f"{name}-seed{SEED}-r{RECIPE}-torch{torch.__version__.split('+')[0]}.safetensors"
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    model = MODELS[name].build()
    state = model.state_dict()
    names = weights.param_names(load_graph(name))
    weights.save(path, {n: state[n].detach().float().numpy() for n in names})
    return path
