"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/rdg/: where a lone node's self-loop labels are anchored."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from raptor.rdg.picture import render_svg

SVG = "{http://www.w3.org/2000/svg}"


def _loops(thetas: list[list[int]]) -> dict:
    """One variable v of a rank-2 system with a uniform self-loop per theta."""
    return {"operator": "loops", "rank": 2, "indexNames": ["i", "j"], "kind": "SURE", "variables": ["v"],
            "arcs": [{"from": "v", "to": "v", "kind": "uniform", "theta": t,
                      "map": {"A": [[1, 0], [0, 1]], "b": [-t[0], -t[1]]}} for t in thetas]}


def test_self_loop_labels_of_a_lone_node_face_away_from_it() -> None:
    # One variable, four self-loops: a lone node spreads them at -90, 0, 90 and
    # 180 degrees, so their labels sit above (centred), right (starting at the
    # label's point), below (centred) and left (ending there).
    thetas = [[1, 0], [0, 1], [1, 1], [2, 0]]
    root = ET.fromstring(render_svg(_loops(thetas)))
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
    root = ET.fromstring(render_svg(_loops(thetas)))
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


def test_self_loop_labels_sit_beyond_their_loops() -> None:
    """A lone node's loop labels lie NODE_R + 2.6 LOOP_R from its centre in
    the loop's direction (-90, 0, 90, 180 degrees), the text's baseline 4
    below that point."""
    import math

    from raptor.rdg.picture import LOOP_R, NODE_R

    thetas = [[1, 0], [0, 1], [1, 1], [2, 0]]
    root = ET.fromstring(render_svg(_loops(thetas)))
    (circle,) = root.iter(f"{SVG}circle")
    cx, cy = float(circle.get("cx")), float(circle.get("cy"))
    labels = {t.text: (float(t.get("x")), float(t.get("y"))) for t in root.iter(f"{SVG}text")}
    reach = NODE_R + 2.6 * LOOP_R
    for k, (a, b) in enumerate(thetas):
        angle = -math.pi / 2 + 2 * math.pi * k / len(thetas)
        x, y = labels[f"[{a},{b}]\u1d40"]
        assert (x, y) == (pytest.approx(cx + reach * math.cos(angle), abs=0.06),
                          pytest.approx(cy + reach * math.sin(angle) + 4, abs=0.06))


def test_an_arc_leaves_its_source_circle_towards_its_target_and_stops_short_of_it() -> None:
    """An arc between two nodes starts on the source's circle on the line to
    the target, and ends NODE_R + 2 before the target's centre (room for the
    arrow head), on the same line."""
    import math
    import re

    from raptor.rdg.picture import NODE_R

    graph = {"operator": "pair", "rank": 1, "indexNames": ["i"], "kind": "SURE", "variables": ["u", "v"],
             "arcs": [{"from": "u", "to": "v", "kind": "uniform", "theta": [1], "map": {"A": [[1]], "b": [-1]}}]}
    root = ET.fromstring(render_svg(graph))
    centres = {}
    for circle, text in zip(root.iter(f"{SVG}circle"), [t for t in root.iter(f"{SVG}text") if t.text in ("u", "v")]):
        centres[text.text] = (float(circle.get("cx")), float(circle.get("cy")))
    (u, v) = centres["u"], centres["v"]
    (d,) = [p.get("d") for p in root.iter(f"{SVG}path") if p.get("marker-end")]
    numbers = [float(x) for x in re.findall(r"-?\d+\.?\d*", d)]
    (sx, sy), (ex, ey) = numbers[:2], numbers[-2:]
    dist = math.dist(u, v)
    ux, uy = (v[0] - u[0]) / dist, (v[1] - u[1]) / dist
    assert (sx, sy) == (pytest.approx(u[0] + ux * NODE_R, abs=0.06), pytest.approx(u[1] + uy * NODE_R, abs=0.06))
    assert (ex, ey) == (pytest.approx(v[0] - ux * (NODE_R + 2), abs=0.06),
                        pytest.approx(v[1] - uy * (NODE_R + 2), abs=0.06))


def test_an_index_left_unbounded_is_named_whatever_the_last_constraint() -> None:
    """0 <= i <= 3 and j >= 0: j has no upper bound. The last constraint
    read (j >= 0) has coefficient 1; every index is checked, not as many as
    that coefficient."""
    from raptor.rdg.analysis import AnalysisError, _box

    def c(dims: list[int], constant: int) -> dict:
        return {"dims": dims, "params": [], "constant": constant, "equality": False}

    domain = [c([1, 0], 0), c([-1, 0], 3), c([0, 1], 0)]
    with pytest.raises(AnalysisError, match="index #1 no constant bound"):
        _box(domain, 2, [])
    assert _box(domain + [c([0, -1], 5)], 2, []) == [range(0, 4), range(0, 6)]
