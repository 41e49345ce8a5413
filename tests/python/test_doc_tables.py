"""The measured tables in docs/ are their bench's JSON: each table between
`<!-- bench:NAME -->` markers equals what its bench's table() makes of the
checked-in JSON, so a bench re-run without its doc, or a hand edit of a
figure, fails here."""

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

#: (document, block name, bench module, its JSON)
TABLES = [
    ("docs/timing.md", "latency-estimate", "latency_estimate", "docs/latency-estimate.json"),
    ("docs/scheduling.md", "pipeline-int8", "pipeline_int8", "docs/pipeline-int8.json"),
]


@pytest.mark.parametrize("document, name, bench, data", TABLES, ids=[t[1] for t in TABLES])
def test_a_docs_table_is_its_bench_json(document: str, name: str, bench: str, data: str) -> None:
    rows = json.loads((ROOT / data).read_text())["rows"]
    assert rows
    assert block(ROOT / document, name) == importlib.import_module(bench).table(rows)


def test_every_marked_table_is_checked() -> None:
    marked = {(str(p.relative_to(ROOT)), m) for p in (ROOT / "docs").rglob("*.md")
              for m in re.findall(r"<!-- bench:([\w-]+) -->", p.read_text())}
    assert marked == {(d, n) for d, n, _, _ in TABLES}


def test_replace_block_rewrites_only_its_table(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("a\n<!-- bench:t -->\nold\n<!-- /bench:t -->\nb\n<!-- bench:u -->\nkeep\n<!-- /bench:u -->\n")
    replace_block(doc, "t", "| new |")
    assert doc.read_text() == ("a\n<!-- bench:t -->\n| new |\n<!-- /bench:t -->\nb\n<!-- bench:u -->\nkeep\n"
                               "<!-- /bench:u -->\n")
    assert block(doc, "t") == "| new |" and block(doc, "u") == "keep"
    with pytest.raises(ValueError, match="has no <!-- bench:v --> block"):
        replace_block(doc, "v", "x")
