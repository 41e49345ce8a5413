"""Survivor of the drawn semantic sample of seed 919149 in `raptor.layout`
(docs/mutation.md): a morphism's picture has a white background as large
as the picture (its height once taken from the gap between boxes)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from raptor import layout
from raptor.layout import picture

SVG = "{http://www.w3.org/2000/svg}"


def test_a_morphisms_background_covers_the_whole_picture() -> None:
    root = ET.fromstring(picture.render_morphism_svg(layout.Morphism((2, 3), (3, 2), (2, 1))))
    background = next(root.iter(f"{SVG}rect"))
    assert background.get("fill") == "white"
    assert (background.get("width"), background.get("height")) == (root.get("width"), root.get("height"))
    assert background.get("x") is None and background.get("y") is None  # from the origin
