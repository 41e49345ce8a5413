"""The measured tables in docs/ are their bench's JSON: each table between
`<!-- bench:NAME -->` markers equals what its bench's table function makes
of the checked-in JSON, so a bench re-run without its doc, or a hand edit
of a figure, fails here."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from doc_tables import block, replace_block  # noqa: E402

#: (document, block name, bench module and its function that renders the block, its JSON, the key of the
#: JSON's part the function takes: None for the whole file)
TABLES = [
    ("docs/timing.md", "latency-estimate", "latency_estimate.table", "docs/latency-estimate.json", "rows"),
    ("docs/scheduling.md", "pipeline-int8", "pipeline_int8.table", "docs/pipeline-int8.json", "rows"),
    ("docs/scheduling.md", "throughput", "throughput_table.table", "docs/throughput.json", "rows"),
    ("docs/scheduling.md", "row-streaming", "row_streaming.table", "docs/row-streaming.json", "rows"),
    ("docs/scheduling.md", "lane-tiles", "lane_tiles.table", "docs/lane-tiles.json", "rows"),
    ("docs/benchmarks.md", "import-roundtrip", "import_roundtrip.table", "docs/bench-import-roundtrip.json", None),
    ("docs/benchmarks.md", "codec-scaling", "codec_scaling.table", "docs/codec-scaling.json", "synthetic"),
    ("docs/benchmarks.md", "rdg-scaling", "rdg_scaling.table", "docs/rdg-scaling.json", "rows"),
    ("docs/benchmarks.md", "pim-benchmarks", "pim_models.table", "docs/pim-benchmarks.json", "rows"),
    ("docs/benchmarks.md", "cycle-ratio-scaling", "cycle_ratio.table", "docs/cycle-ratio-scaling.json", "rows"),
    ("docs/quantization.md", "integer-evaluation", "integer_programs.table", "docs/integer-evaluation.json", None),
    ("docs/quantization.md", "quant-accuracy", "quant_models.accuracy_table", "docs/quant-evaluation.json", None),
    ("docs/quantization.md", "quant-traffic", "quant_models.traffic_table", "docs/quant-evaluation.json", None),
    ("docs/layout.md", "layout-vs-pycute", "layout_vs_pycute.table", "docs/layout-vs-pycute.json", "operations"),
]


@pytest.mark.parametrize("document, name, render, data, part", TABLES, ids=[t[1] for t in TABLES])
def test_a_docs_table_is_its_bench_json(document: str, name: str, render: str, data: str, part: str | None) -> None:
    loaded = json.loads((ROOT / data).read_text())
    rows = loaded[part] if part else loaded
    assert rows
    bench, function = render.split(".")
    assert block(ROOT / document, name) == getattr(importlib.import_module(bench), function)(rows)


def test_every_marked_table_is_checked() -> None:
    marked = {(str(p.relative_to(ROOT)), m) for p in (ROOT / "docs").rglob("*.md")
              for m in re.findall(r"<!-- bench:([\w-]+) -->", p.read_text())}
    assert marked == {(d, n) for d, n, *_ in TABLES}


def test_replace_block_rewrites_only_its_table(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("a\n<!-- bench:t -->\nold\n<!-- /bench:t -->\nb\n<!-- bench:u -->\nkeep\n<!-- /bench:u -->\n")
    replace_block(doc, "t", "| new |")
    assert doc.read_text() == ("a\n<!-- bench:t -->\n| new |\n<!-- /bench:t -->\nb\n<!-- bench:u -->\nkeep\n"
                               "<!-- /bench:u -->\n")
    assert block(doc, "t") == "| new |" and block(doc, "u") == "keep"
    with pytest.raises(ValueError, match="has no <!-- bench:v --> block"):
        replace_block(doc, "v", "x")


def test_make_bench_regenerates_every_table() -> None:
    """`make bench` is the one command that regenerates every checked table:
    each table's JSON is written by one of its recipe's lines, with its doc."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^bench:.*?\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe
    lines = recipe.group(1).splitlines()
    for document, name, render, data, _ in TABLES:
        bench = render.split(".")[0]
        assert any(f"bench/{bench}.py" in line and data in line and document in line for line in lines), name
