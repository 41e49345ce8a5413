"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/spatial/: the Gantt chart's geometry, derived from its drawing rules."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from raptor.spatial.report import gantt_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_gantt_bars_start_at_their_tasks_start_on_their_cores_row() -> None:
    """Three tasks on two cores over 40 ns in a chart 1090 wide: the time axis
    runs from x = 70 (the left margin) over 1090 - 70 - 20 = 1000 units, 25 per
    ns; rows are 14 high from y = 40, by core number."""
    tasks = [{"name": "a", "op": "nn.relu", "core": 5, "start_ns": 0, "cost_ns": 10},
             {"name": "b", "op": "nn.add", "core": 5, "start_ns": 10, "cost_ns": 30},
             {"name": "c", "op": "nn.relu", "core": 2, "start_ns": 4, "cost_ns": 8}]
    report = {"tasks": tasks, "algorithm": "peft", "summary": {"completion_ns": 40}}
    root = ET.fromstring(gantt_svg(report, width=1090))
    bars = {r.find(f"{SVG}title").text.split()[0]: r for r in root.iter(f"{SVG}rect")
            if r.find(f"{SVG}title") is not None}
    # Core 2 is the first row, core 5 the second.
    expect = {"a": (70.0, 54, 250.0), "b": (320.0, 54, 750.0), "c": (170.0, 40, 200.0)}
    for name, (x, y, w) in expect.items():
        bar = bars[name]
        assert float(bar.get("x")) == pytest.approx(x)
        assert int(bar.get("y")) == y
        assert float(bar.get("width")) == pytest.approx(w)
        assert int(bar.get("height")) == 13  # a row's 14 less a gap, so that rows do not touch
    assert "(10..40 ns, core 5)" in bars["b"].find(f"{SVG}title").text
