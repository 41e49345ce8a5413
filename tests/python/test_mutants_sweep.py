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


def test_the_legend_puts_each_mode_label_beside_its_marker() -> None:
    """Below the colour bar, one entry per mode (latency first), 22 apart:
    a grey marker centred 8 right of the bar's left edge, its label starting
    22 right of that edge (where the bar's value labels start) on a baseline
    4 below the marker's centre."""
    import xml.etree.ElementTree as ET

    import pandas as pd

    from raptor.sweep.plot import RIGHT, TOP, WIDTH, pareto_svg

    df = pd.DataFrame({"model": ["m"] * 3, "status": ["ok"] * 3, "latency_ms": [1.0, 2.0, 3.0],
                       "interval_ms": [3.0, 2.0, 1.0], "crossbars_used": [10, 20, 30], "cores_used": [1, 2, 3],
                       "precision": ["int8"] * 3, "mode": ["pipeline 4", "latency", "pipeline 4"],
                       "pareto": [True, True, False]})
    root = ET.fromstring(pareto_svg(df, "m", []))
    svg = "{http://www.w3.org/2000/svg}"
    bx, by, bh = WIDTH - RIGHT + 30, TOP + 10, 180
    texts = {t.text: (float(t.get("x")), float(t.get("y"))) for t in root.iter(f"{svg}text") if t.get("x")}
    values = [float(t.get("x")) for t in root.iter(f"{svg}text") if t.text in ("10", "20", "30")]
    assert values == [bx + 22] * 3
    grey = [c for c in root.iter(f"{svg}circle") if c.get("fill") == "#bbb"]
    (marker,) = grey  # the latency entry is a circle; the pipeline's another shape
    ly = by + bh + 34
    assert (float(marker.get("cx")), float(marker.get("cy"))) == (bx + 8, ly)
    assert texts["latency"] == (bx + 22, ly + 4)
    assert texts["pipeline 4"] == (bx + 22, ly + 22 + 4)


def test_a_specs_fixed_keys_are_set_in_a_copy_of_its_base_target() -> None:
    from pathlib import Path

    from raptor.sweep.spec import parse_spec

    spec = parse_spec({"name": "t", "models": [{"model": "shufflenet_v2"}],
                       "target": {"base": "isaac168", "set": {"crossbar.cell_bits": 4, "memory.local_bytes": 4096}},
                       "compile": {}}, "<spec>", Path.cwd())
    target = spec.fixed_target()
    assert target["crossbar"]["cell_bits"] == 4 and target["memory"] == {"local_bytes": 4096}
    assert spec.base["crossbar"]["cell_bits"] == 8 and "memory" not in spec.base
