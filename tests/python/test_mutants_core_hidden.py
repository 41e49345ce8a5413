"""Hand-made mutants of raptor._io that no other test pinned: a .npy file
written in Fortran (column-major) order is read with its layout, so that
its elements keep their indices (the same count of elements in the wrong
order would pass a shape check)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from raptor._io import load_npy


def test_a_fortran_ordered_npy_file_keeps_its_elements_indices(tmp_path: Path) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.save(tmp_path / "f.npy", np.asfortranarray(x))
    np.save(tmp_path / "c.npy", x)
    for name in ("f.npy", "c.npy"):
        got = load_npy(tmp_path / name, "input")
        assert got.shape == (2, 3, 4)
        np.testing.assert_array_equal(got, x)
        assert got[1, 2, 3] == 23 and got[0, 1, 0] == 4  # 1*12 + 2*4 + 3, 0*12 + 1*4 + 0
