"""Survivor of the drawn semantic sample of seed 919149 in `raptor.spatial`
(docs/mutation.md): the Gantt chart colours each operator kind with the
palette's colours in the kinds' sorted order (once it coloured bars with
the kinds' names)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from raptor.spatial.report import gantt_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_bars_take_the_palettes_colours_by_sorted_operator_kind() -> None:
    ops = ["nn.relu", "nn.linear", "nn.add", "nn.linear"]
    tasks = [{"name": f"t{i}", "op": op, "core": i % 2, "start_ns": 10 * i, "cost_ns": 10} for i, op in enumerate(ops)]
    root = ET.fromstring(gantt_svg({"tasks": tasks, "algorithm": "peft", "summary": {"completion_ns": 40}}))
    fills = {r.find(f"{SVG}title").text.split()[0]: r.get("fill") for r in root.iter(f"{SVG}rect")
             if r.find(f"{SVG}title") is not None}
    # Sorted kinds nn.add, nn.linear, nn.relu: the palette's first three.
    assert fills == {"t0": "#c62828", "t1": "#2e7d32", "t2": "#1565c0", "t3": "#2e7d32"}
