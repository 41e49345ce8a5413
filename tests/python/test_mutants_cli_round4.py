"""Survivors of the drawn semantic sample of seed 919149 in the command
line and `sources` (docs/mutation.md): the diagnostics of a `.sure`
system that parses but does not verify, a morphism drawn by `raptor
layout-svg`, and `sources.load`'s default for a zoo name (the bundled
graph, not a torch export)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from raptor import sources

RAPTOR = [sys.executable, "-m", "raptor"]
SVG = "{http://www.w3.org/2000/svg}"


def test_a_system_that_does_not_verify_is_one_line_naming_its_file(tmp_path: Path) -> None:
    """The verifier's error on line 3, column 14 (the read of `b`, counted
    by hand), prefixed by the file the user gave."""
    sure = tmp_path / "unknown.sure"
    sure.write_text("N = 3;\nsystem ((i,j) | 0 <= i < N, 0 <= j < N) {\n    a(i,j) = b(i,j-1);\n}\n")
    r = subprocess.run(RAPTOR + ["rdg", str(sure)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line == f"raptor: error: {sure}:3:14: 'sure.tap' op reads unknown variable 'b'"


def test_a_morphism_is_drawn_with_its_domain_map_and_codomain(tmp_path: Path) -> None:
    """(2,3) --(2,1)--> (3,2) (each domain entry the codomain entry it maps
    to: the Tuple condition): the caption names both tuples."""
    out = tmp_path / "m.svg"
    r = subprocess.run(RAPTOR + ["layout-svg", "(2,3) --(2,1)--> (3,2)", "-o", str(out)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    root = ET.fromstring(out.read_text())
    caption = next(root.iter(f"{SVG}text")).text
    assert caption is not None and "(2,3)" in caption.replace(" ", "") and "(3,2)" in caption.replace(" ", "")


def test_a_zoo_name_loads_its_bundled_graph_unless_export_is_asked() -> None:
    model = sources.load("unet", weights_as=None)
    try:
        # The bundled graph: no import happened, so no import report.
        assert model.report is None
        assert "nn." in str(model.module)
    finally:
        model.cleanup()
