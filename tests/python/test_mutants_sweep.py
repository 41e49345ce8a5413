"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/sweep/: the plots' colour scale, from its definition."""

from __future__ import annotations

from raptor.sweep.plot import VIRIDIS, _colour


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def test_the_colour_scale_runs_from_the_first_stop_to_the_last() -> None:
    """0 is the first stop, 1 the last, values outside are clamped, and a
    value between two stops is their linear mix (the midpoint of the first
    two at 0.5 / (stops - 1))."""
    assert _colour(0.0) == _colour(-3.0) == _hex(VIRIDIS[0])
    assert _colour(1.0) == _colour(7.0) == _hex(VIRIDIS[-1])
    stops = len(VIRIDIS) - 1
    for k in range(stops + 1):
        assert _colour(k / stops) == _hex(VIRIDIS[k])
    mid = tuple(round(a + (b - a) * 0.5) for a, b in zip(VIRIDIS[0], VIRIDIS[1]))
    assert _colour(0.5 / stops) == _hex(mid)
