"""A gather by constant indices along one dimension as slices: both
frontends import ``x[..., [i, j, ...]]`` (torch's ``aten.index``, ONNX
``Gather``) as the concatenation of the slices of its runs of consecutive
indices, views and a concatenation that the back end moves as data."""

from __future__ import annotations

from collections.abc import Sequence


def index_runs(picks: Sequence[int]) -> list[tuple[int, int]]:
    """[start, end) of each run of consecutive indices of ``picks``, in order
    (``[0, 1, 2, 5, 4]`` -> ``[(0, 3), (5, 6), (4, 5)]``)."""
    runs: list[list[int]] = []
    for i in picks:
        if runs and i == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([i, i + 1])
    return [(start, end) for start, end in runs]
