"""A simulated program's outputs against the model's own: the figures
``raptor simulate --check`` and a sweep's check report, one definition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._io import UserError

__all__ = ["compare_outputs", "integer_agreement", "worst"]


def compare_outputs(names: Sequence[str], outputs: Sequence[np.ndarray],
                    references: Sequence[np.ndarray]) -> list[dict[str, Any]]:
    """Per output, in order: its name, the largest absolute difference from
    the reference, that over the reference's own largest value, and whether
    the reference is all zeros or subnormal (a comparison that checks
    little). Raises UserError when the outputs are not the model's (count
    or shapes)."""
    if len(outputs) != len(references) or any(np.shape(o) != np.shape(r) for o, r in zip(outputs, references)):
        raise UserError(f"the program's outputs ({', '.join(f'{n} {list(np.shape(o))}' for n, o in zip(names, outputs))}) "
                        f"are not the model's ({', '.join(str(list(np.shape(r))) for r in references)})")
    compared = []
    for name, out, ref in zip(names, outputs, references):
        error, scale = float(np.abs(out - ref).max(initial=0)), float(np.abs(ref).max(initial=0))
        compared.append({"name": name, "max_error": error, "max_error_relative": error / (scale or 1.0),
                         # zeros, or values that vanished under a random initialization
                         # (HF MobileViT's reach 6.7e-40): either way nothing to compare
                         "reference_all_zero": bool(scale < np.finfo(np.float32).tiny)})
    return compared


def worst(compared: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The output with the largest relative error."""
    return max(compared, key=lambda c: c["max_error_relative"])


def integer_agreement(outputs: Sequence[np.ndarray], references: Sequence[np.ndarray]) -> dict[str, Any]:
    """An int8 program's outputs against the integer reference's, in order:
    bit-exact at every output, the largest difference, and the positions
    off by more than float32 rounding of their output's scale (the figures
    ``--check`` and the quantization report give)."""
    pairs = list(zip(outputs, references, strict=True))
    return {"bit_exact": all(np.array_equal(out, want) for out, want in pairs),
            "max_difference": max(float(np.abs(out - want).max(initial=0)) for out, want in pairs),
            "differing": sum(int(np.count_nonzero(np.abs(out - want) > 1e-5 * (float(np.abs(want).max(initial=0))
                                                                                 or 1.0)))
                             for out, want in pairs)}
