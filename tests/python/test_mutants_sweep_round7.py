"""Tests that kill the survivors of the Python semantic sample of seed
521700 in raptor.sweep (docs/mutation.md): the HTML table's cells inside
their rows, the plot's y-axis labels on their tick lines."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd

DF = pd.DataFrame({"model": ["m"] * 3, "status": ["ok", "ok", "failed"], "latency_ms": [1.0, 5.0, None],
                   "interval_ms": [4.0, 1.0, None], "crossbars_used": [10, 20, None], "cores_used": [1, 2, None],
                   "precision": ["int8"] * 3, "mode": ["latency", "pipeline 4", "latency"],
                   "pareto": [True, True, False]})


def test_each_row_of_the_html_table_holds_one_cell_per_column() -> None:
    import re

    from raptor.sweep.report import _table

    columns = ["model", "status", "latency_ms", "interval_ms"]
    table = _table(DF, columns)
    assert table.startswith("<table>") and table.endswith("</table>")
    rows = re.findall(r"<tr([^>]*)>(.*?)</tr>", table, re.S)
    assert len(rows) == 1 + len(DF) and rows[0][1].count("<th>") == len(columns)
    assert [body.count("<td") for _, body in rows[1:]] == [len(columns)] * len(DF)
    assert re.sub(r"<tr[^>]*>.*?</tr>", "", table[len("<table>"):-len("</table>")], flags=re.S).strip() == ""
    assert rows[3][0] == ' class="failed"' and ">ok</td>" in rows[1][1]


def test_the_y_axis_labels_sit_on_their_tick_lines() -> None:
    """Each label of the interval axis: right-aligned 6 left of the frame,
    on a baseline 4 below its grid line (its text centred on the line)."""
    from raptor.sweep.plot import pareto_svg

    root = ET.fromstring(pareto_svg(DF, "m", []))
    svg = "{http://www.w3.org/2000/svg}"
    grid = [(float(l.get("x1")), float(l.get("y1"))) for l in root.iter(f"{svg}line")
            if l.get("stroke") == "#eee" and l.get("y1") == l.get("y2")]
    labels = [(float(t.get("x")), float(t.get("y"))) for t in root.iter(f"{svg}text") if t.get("text-anchor") == "end"]
    assert grid and len(labels) >= len(grid)
    for x, y in grid:
        assert (x - 6, round(y + 4, 1)) in labels, (x, y, labels)
