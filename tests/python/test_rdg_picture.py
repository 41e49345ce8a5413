"""RDG pictures: well-formed SVG/HTML that draw what the graph holds."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from raptor import rdg
from raptor.rdg.picture import render_page, render_svg
from test_rdg import DATA, SYSTEMS

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("name", SYSTEMS)
def test_svg_draws_every_node_and_arc(name: str) -> None:
    graph = json.loads(rdg.to_json(rdg.load_sure(DATA / "sure" / f"{name}.sure")))
    root = ET.fromstring(render_svg(graph))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert graph["kind"] in texts  # the badge
    for variable in graph["variables"]:
        assert variable in texts
    paths = [p for p in root.iter(f"{SVG}path") if p.get("marker-end")]
    assert len(paths) == len(graph["arcs"])
    dashed = [p for p in paths if p.get("stroke-dasharray")]
    assert len(dashed) == sum(a["kind"] == "affine" for a in graph["arcs"])


def test_labels_are_translation_vectors_or_maps() -> None:
    lu = json.loads(rdg.to_json(rdg.load_sure(DATA / "sure" / "lu.sure")))
    texts = [t.text for t in ET.fromstring(render_svg(lu)).iter(f"{SVG}text")]
    assert "[0,0,1]\u1d40" in texts
    assert "(i,j,k) \u21a6 (k,k,k-1)" in texts


def test_page_and_cli(tmp_path: Path) -> None:
    page = tmp_path / "rdgs.html"
    files = [str(DATA / "sure" / f"{n}.sure") for n in ("gemv", "lu")]
    result = subprocess.run([sys.executable, "-m", "raptor", "rdg-page", str(page), *files],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert text.count("<svg") == 2 and "<h2>gemv</h2>" in text
    svg = tmp_path / "gemv.svg"
    result = subprocess.run([sys.executable, "-m", "raptor", "rdg", files[0], "--svg", str(svg)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    ET.parse(svg)
    assert render_page([]).startswith("<!DOCTYPE html>")
