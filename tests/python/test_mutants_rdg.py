"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/rdg/: where a lone node's self-loop labels are anchored."""

from __future__ import annotations

import xml.etree.ElementTree as ET

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
