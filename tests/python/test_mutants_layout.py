"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/layout/picture.py: where the pictures put things, derived by hand from
the drawing rules in the docstrings (cell (r, c) at 40 + c * cell, 40 + r * cell;
boxes centred, box + gap apart; an arrow from a domain box to its target)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from raptor.layout import Layout, Morphism
from raptor.layout.picture import PALETTE, render_morphism_svg, render_svg

NS = "{http://www.w3.org/2000/svg}"


def test_layout_picture_puts_each_offset_in_its_cell() -> None:
    # (2,3):(3,1): coordinate (r, c) has offset 3r + c, a 2 x 3 grid.
    root = ET.fromstring(render_svg(Layout((2, 3), (3, 1)), cell=34))
    assert (root.get("width"), root.get("height")) == ("162", "128")  # 3*34 + 60, 2*34 + 60
    cells = {}
    rects = [r for r in root.iter(f"{NS}rect")][1:]  # after the background
    texts = [t for t in root.iter(f"{NS}text")][1:]  # after the title
    for rect, text in zip(rects, texts, strict=True):
        x, y = int(rect.get("x")), int(rect.get("y"))
        cells[(x, y)] = int(text.text)
        assert rect.get("fill") == PALETTE[int(text.text) % len(PALETTE)]
        assert (float(text.get("x")), float(text.get("y"))) == (x + 17.0, y + 21.0)
    assert cells == {(40 + 34 * c, 40 + 34 * r): 3 * r + c for r in range(2) for c in range(3)}


def test_morphism_picture_centres_rows_and_aims_arrows() -> None:
    # Domain (2, 3) above, codomain (3, 5, 2) below; entry 1 -> 3, entry 2 -> 1.
    # n = 3 boxes: the domain row is shifted by (3 - 2) * (38 + 14) / 2 = 26.
    root = ET.fromstring(render_morphism_svg(Morphism((2, 3), (3, 5, 2), (3, 1)), box=38, gap=14))
    assert root.get("width") == str(3 * 52 + 80)
    rects = [(float(r.get("x")), int(r.get("y"))) for r in list(root.iter(f"{NS}rect"))[1:]]
    assert rects == [(66.0, 40), (118.0, 40), (40.0, 130), (92.0, 130), (144.0, 130)]
    labels = [(float(t.get("x")), float(t.get("y")), t.text) for t in list(root.iter(f"{NS}text"))[1:]]
    assert labels == [(85.0, 64.0, "2"), (137.0, 64.0, "3"),  # centres: x + 19, y + 19 + 5
                      (59.0, 154.0, "3"), (111.0, 154.0, "5"), (163.0, 154.0, "2")]
    lines = [(float(l.get("x1")), float(l.get("x2"))) for l in root.iter(f"{NS}line")]
    assert lines == [(85.0, 163.0), (137.0, 59.0)]
    # From the bottom edge of a domain box (y 40 + 38) to just above the codomain row (130).
    heights = [(float(l.get("y1")), float(l.get("y2"))) for l in root.iter(f"{NS}line")]
    assert heights == [(78.0, 128.0), (78.0, 128.0)]
