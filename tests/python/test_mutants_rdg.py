"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/rdg/: where a lone node's self-loop labels are anchored."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from raptor.rdg.picture import render_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_self_loop_labels_of_a_lone_node_face_away_from_it() -> None:
    # One variable, four self-loops: a lone node spreads them at -90, 0, 90 and
    # 180 degrees, so their labels sit above (centred), right (starting at the
    # label's point), below (centred) and left (ending there).
    thetas = [[1, 0], [0, 1], [1, 1], [2, 0]]
    graph = {"operator": "loops", "rank": 2, "indexNames": ["i", "j"], "kind": "SURE", "variables": ["v"],
             "arcs": [{"from": "v", "to": "v", "kind": "uniform", "theta": t,
                       "map": {"A": [[1, 0], [0, 1]], "b": [-t[0], -t[1]]}} for t in thetas]}
    root = ET.fromstring(render_svg(graph))
    anchors = {t.text: t.get("text-anchor") for t in root.iter(f"{SVG}text")}
    assert {f"[{a},{b}]\u1d40": anchors[f"[{a},{b}]\u1d40"] for a, b in thetas} == {
        "[1,0]\u1d40": "middle", "[0,1]\u1d40": "start", "[1,1]\u1d40": "middle", "[2,0]\u1d40": "end"}


def test_a_self_loop_starts_and_ends_on_its_nodes_circle() -> None:
    """Both ends of every self-loop lie on the node's circle (radius NODE_R
    around its centre, read from the drawn circle), half a radian either side
    of the loop's direction, so the arrow leaves and enters the node's edge."""
    import math
    import re

    from raptor.rdg.picture import NODE_R

    thetas = [[1, 0], [0, 1], [1, 1]]
    graph = {"operator": "loops", "rank": 2, "indexNames": ["i", "j"], "kind": "SURE", "variables": ["v"],
             "arcs": [{"from": "v", "to": "v", "kind": "uniform", "theta": t,
                       "map": {"A": [[1, 0], [0, 1]], "b": [-t[0], -t[1]]}} for t in thetas]}
    root = ET.fromstring(render_svg(graph))
    (circle,) = root.iter(f"{SVG}circle")
    cx, cy = float(circle.get("cx")), float(circle.get("cy"))
    assert float(circle.get("r")) == NODE_R
    paths = [p.get("d") for p in root.iter(f"{SVG}path") if p.get("marker-end")]
    assert len(paths) == len(thetas)
    for d in paths:
        numbers = [float(v) for v in re.findall(r"-?\d+\.?\d*", d)]
        (sx, sy), (ex, ey) = numbers[:2], numbers[-2:]
        for x, y in ((sx, sy), (ex, ey)):
            assert math.hypot(x - cx, y - cy) == pytest.approx(NODE_R, abs=0.15)
        # The two ends are one radian apart as seen from the centre.
        between = abs(math.atan2(ey - cy, ex - cx) - math.atan2(sy - cy, sx - cx)) % (2 * math.pi)
        assert min(between, 2 * math.pi - between) == pytest.approx(1.0, abs=0.01)
