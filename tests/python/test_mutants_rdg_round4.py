"""Survivor of the drawn semantic sample of seed 919149 in `raptor.rdg`
(docs/mutation.md): a self-loop's Bezier control points, from the drawing
rule: the loop's centre NODE_R + LOOP_R from the node along its direction,
each control point 1.6 LOOP_R beyond that centre at the loop's start and
end angles (its direction -/+ 0.5 rad)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from raptor.rdg.picture import LOOP_R, NODE_R, render_svg

from test_mutants_rdg import _loops

SVG = "{http://www.w3.org/2000/svg}"


def test_self_loop_control_points_follow_the_drawing_rule() -> None:
    thetas = [[1, 0], [0, 1], [1, 1], [2, 0]]
    root = ET.fromstring(render_svg(_loops(thetas)))
    (circle,) = root.iter(f"{SVG}circle")
    cx, cy = float(circle.get("cx")), float(circle.get("cy"))
    paths = [p.get("d") for p in root.iter(f"{SVG}path") if p.get("marker-end")]
    assert len(paths) == len(thetas)
    for k, d in enumerate(paths):
        angle = -math.pi / 2 + 2 * math.pi * k / len(thetas)  # a lone node spreads its loops
        lx, ly = cx + (NODE_R + LOOP_R) * math.cos(angle), cy + (NODE_R + LOOP_R) * math.sin(angle)
        numbers = [float(x) for x in re.findall(r"-?\d+\.?\d*", d)]
        controls = [(numbers[2], numbers[3]), (numbers[4], numbers[5])]
        for (x, y), a in zip(controls, (angle - 0.5, angle + 0.5)):
            assert (x, y) == (pytest.approx(lx + 1.6 * LOOP_R * math.cos(a), abs=0.06),
                              pytest.approx(ly + 1.6 * LOOP_R * math.sin(a), abs=0.06))
