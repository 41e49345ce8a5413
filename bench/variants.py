"""The loop of the benches that compile every model in both precisions
under a list of variants of one option (bench/row_streaming.py's row
blocks, bench/lane_tiles.py's lane heights), the compile of each variant,
and how they publish: the rows as JSON, the table between the document's
markers, the table on standard output."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mlir import ir

import raptor
from raptor import pim, weights

from doc_tables import replace_block

#: measure(model, precision, variants, work directory) -> one row per variant.
Measure = Callable[[str, str, tuple[Any, ...], Path], list[dict]]


def measure_variants(models: Sequence[str], variants: tuple[Any, ...], measure: Measure, what: str) -> list[dict]:
    """Every model in fp32 then int8, each under every variant, with a
    progress line and the rows on standard error as they come."""
    rows: list[dict] = []
    with raptor.Context(), tempfile.TemporaryDirectory() as tmp:
        for name in models:
            for precision in ("fp32", "int8"):
                print(f"[{name}] {precision}, {what} {variants} ...", file=sys.stderr)
                rows += measure(name, precision, variants, Path(tmp))
                print(json.dumps(rows[-len(variants):]), file=sys.stderr)
    return rows


def compile_variants(module: ir.Module, weights_path: Path, name: str, precision: str, option: str,
                     values: tuple[Any, ...], work: Path
                     ) -> Iterator[tuple[dict, pim.CompileResult | None, pim.Program | None]]:
    """Each value of the compile option `option` on a fresh copy of the
    module: its row ({model, precision, option: value}), the compile's result
    and the loaded program; a compile that fails gives its row with the
    error's first line, and None for the other two."""
    asm = module.operation.get_asm(enable_debug_info=True)
    tensors = weights.load(weights_path)
    for value in values:
        row: dict = {"model": name, "precision": precision, option: value}
        out = work / f"{name}-{precision}-{value}"
        copy = ir.Module.parse(asm, context=module.context)
        try:
            result = pim.compile(copy, out, weights=tensors, precision=precision, pimsim="none", source=name,
                                 **{option: value})
        except pim.UserError as e:
            yield {**row, "error": str(e).splitlines()[0]}, None, None
            continue
        yield row, result, pim.Program.load(out)


def publish(rows: list[dict], json_path: str, doc: str | None, block: str, table: Callable[[list[dict]], str]) -> None:
    """Writes the rows (dated) to `json_path`, the table into `doc`'s
    `block` markers when given, and prints the table."""
    Path(json_path).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    if doc:
        replace_block(Path(doc), block, table(rows))
    print(table(rows))
