"""Tables in docs/ that a bench regenerates from its JSON: each sits between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in its document, so that a
bench run rewrites it in place and tests/python/test_doc_tables.py can
check the checked-in table against the checked-in JSON."""

from __future__ import annotations

import re
from pathlib import Path


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- bench:{re.escape(name)} -->\n)(.*?)(<!-- /bench:{re.escape(name)} -->)", re.S)


def block(document: Path, name: str) -> str:
    """The table between the markers NAME in `document`."""
    found = _pattern(name).search(document.read_text())
    if not found:
        raise ValueError(f"{document} has no <!-- bench:{name} --> block")
    return found.group(2).rstrip("\n")


def replace_block(document: Path, name: str, table: str) -> None:
    """Writes `table` between the markers NAME of `document`."""
    text = document.read_text()
    if not _pattern(name).search(text):
        raise ValueError(f"{document} has no <!-- bench:{name} --> block")
    document.write_text(_pattern(name).sub(lambda m: m.group(1) + table + "\n" + m.group(3), text))
