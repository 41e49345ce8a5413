"""Simple static analyses over exported zoo graphs."""

from __future__ import annotations

import collections

import torch
from torch.export.graph_signature import InputKind

__all__ = ["fp32_storage_bytes", "op_histogram", "storage_mib", "used_state"]


def used_state(ep: torch.export.ExportedProgram) -> dict[str, torch.Tensor]:
    """Parameters and persistent buffers that the graph actually reads.

    Only placeholders with at least one user count, so e.g. SmolLM2's token
    embedding table (unused when fed ``inputs_embeds``) and BatchNorm's
    ``num_batches_tracked`` are excluded.  Non-persistent buffers (RoPE
    ``inv_freq``, SigLIP ``position_ids``) and lifted tensor constants are
    excluded as well: they are derived data, not stored weights.

    Returns:
        Mapping from state-dict key to tensor.
    """
    users = {
        node.name: len(node.users)
        for node in ep.graph.nodes
        if node.op == "placeholder"
    }
    out: dict[str, torch.Tensor] = {}
    for spec in ep.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER):
            continue
        if spec.kind == InputKind.BUFFER and not spec.persistent:
            continue
        if users.get(spec.arg.name, 0) == 0:
            continue
        assert spec.target is not None
        out[spec.target] = ep.state_dict[spec.target]
    return out


def fp32_storage_bytes(ep: torch.export.ExportedProgram) -> int:
    """Bytes needed to store the graph's floating-point weights in fp32.

    Counts every floating-point parameter and persistent buffer (BatchNorm
    running mean/var) read by the graph, at 4 bytes per element, regardless
    of its current dtype.  This reproduces the paper's Table 1 figures.
    """
    return sum(
        4 * t.numel() for t in used_state(ep).values() if t.is_floating_point()
    )


def storage_mib(ep: torch.export.ExportedProgram) -> float:
    """:func:`fp32_storage_bytes` in MiB."""
    return fp32_storage_bytes(ep) / 2**20


def op_histogram(ep: torch.export.ExportedProgram) -> collections.Counter[str]:
    """Count ``call_function`` targets (``str(node.target)``) in the graph."""
    return collections.Counter(
        str(node.target) for node in ep.graph.nodes if node.op == "call_function"
    )
