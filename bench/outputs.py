"""Whether two programs of one model computed the same outputs: bit for bit
in int8 (integer arithmetic in any order), within 1e-5 of the largest
output in f32 (partial sums of split lanes are added in the order their
pieces arrive, which differs between schedules)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

#: f32 outputs of two schedules of one program agree to this share of the largest output.
F32_TOLERANCE = 1e-5


def same_outputs(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray], precision: str) -> bool:
    tolerance = 0.0 if precision == "int8" else F32_TOLERANCE
    return set(got) == set(want) and all(
        np.abs(got[k] - v).max() <= tolerance * max(float(np.abs(v).max()), 1e-30) for k, v in want.items())
