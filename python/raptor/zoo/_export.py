"""``torch.export`` front door for the zoo models."""

from __future__ import annotations

from typing import Any

import torch
from torch._ops import OpOverloadPacket

from ._models import MODELS, SEED

__all__ = ["PRESERVED_OPS", "decomposition_table", "example_input", "export", "reference_output"]

#: Op packets kept intact (not decomposed) because Raptor lowers them itself.
#: Every overload of these packets is removed from the decomposition table.
PRESERVED_OPS: tuple[OpOverloadPacket, ...] = (
    torch.ops.aten.linear,
    torch.ops.aten.layer_norm,
    torch.ops.aten.scaled_dot_product_attention,
    torch.ops.aten.upsample_nearest2d,
    torch.ops.aten.gelu,
    torch.ops.aten.silu,
    torch.ops.aten.rms_norm,
)


def decomposition_table() -> dict[Any, Any]:
    """``torch.export.default_decompositions()`` minus :data:`PRESERVED_OPS`,
    plus Raptor's own (``raptor.frontend._decompositions``: 1-d
    convolutions, group norm, bilinear resizing into operators the back end
    lowers).

    Returns the (``CustomDecompTable``) mapping from ``OpOverload`` to its
    decomposition, with every overload of each preserved packet removed.
    """
    from ..frontend._decompositions import DECOMPOSITIONS

    table = torch.export.default_decompositions()
    for packet in PRESERVED_OPS:
        for overload_name in packet.overloads():
            table.pop(getattr(packet, overload_name), None)
    for op, decomposition in DECOMPOSITIONS.items():
        table[op] = decomposition
    return table


def example_input(name: str) -> torch.Tensor:
    """Deterministic random float32 example input for model ``name``."""
    gen = torch.Generator().manual_seed(SEED)
    return torch.randn(MODELS[name].example_input_shape, generator=gen)


def export(
    name: str, example: torch.Tensor | None = None
) -> torch.export.ExportedProgram:
    """Build, export and decompose zoo model ``name``.

    Runs ``torch.export.export(model, (x,), strict=False)`` followed by
    ``run_decompositions(decomposition_table())``.

    Args:
        name: Key of :data:`raptor.zoo.MODELS`.
        example: Input to trace with; defaults to :func:`example_input`.

    Returns:
        The decomposed ``ExportedProgram`` (static shapes).
    """
    spec = MODELS[name]
    model = spec.build()
    x = example_input(name) if example is None else example
    with torch.no_grad():
        ep = torch.export.export(model, (x,), strict=False)
        ep = ep.run_decompositions(decomposition_table())
    return ep


def reference_output(name: str, x: torch.Tensor | None = None) -> torch.Tensor:
    """Model ``name``'s eager torch output on ``x`` (default: the example input)."""
    model = MODELS[name].build()
    with torch.no_grad():
        return model(example_input(name) if x is None else x)
