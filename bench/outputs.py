"""Whether two programs of one model computed the same outputs: bit for bit
in int8 (integer arithmetic in any order), to f32 rounding in f32: partial
sums of split lanes are added in the order their pieces arrive, and
programs with other lane heights split them differently, so two f32
programs differ by rounding that deep models amplify (U-Net's programs lie
2e-5 of its largest output from torch's). Within 1e-5 of the largest
output, or, given the model's reference (torch), within twice the farther
program's distance from it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

#: f32 outputs of two schedules of one program agree to this share of the largest output.
F32_TOLERANCE = 1e-5


def same_outputs(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray], precision: str,
                 reference: Mapping[str, np.ndarray] | None = None) -> bool:
    if set(got) != set(want):
        return False
    for k, v in want.items():
        if precision == "int8":
            tolerance = 0.0
        else:
            tolerance = F32_TOLERANCE * max(float(np.abs(v).max()), 1e-30)
            if reference is not None:
                rounding = max(float(np.abs(got[k] - reference[k]).max()), float(np.abs(v - reference[k]).max()))
                tolerance = max(tolerance, 2 * rounding)
        if np.abs(got[k] - v).max() > tolerance:
            return False
    return True
