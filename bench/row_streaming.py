#!/usr/bin/env python3
"""Benchmark: row streaming in latency mode (`--row-block R`) against whole tensors per task.

For each model (the zoo CNNs and torchvision CNNs with seeded random
weights, as bench/pim_models.py prepares them; 224 x 224 for torchvision)
on the default 168-core chip, f32 and int8, compiled with row blocks of R
rows (0: whole tensors; auto, the default: 8 rows, or 4 where predicted
at least 5% faster, unless the scheduler predicts whole tensors within 5%
as fast): the timing simulator's latency of one
inference, the compile's estimate (the queue model), the list schedule's
makespan, the cores used and the largest local-memory peak of a core.
Each streamed program is run on the same seeded input as the whole-tensor
one and must give the same outputs (bench/outputs.py: bit for bit in
int8; in f32 to rounding, since the partial sums of split lanes are added
in another order, and the default's lane height can differ between the
two). The figures that carry over to another machine
are the ratios: streamed / whole latency, estimate / simulated.

    python bench/row_streaming.py --json docs/row-streaming.json --doc docs/scheduling.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from raptor import pim

sys.path.insert(0, str(Path(__file__).parent))
from outputs import same_outputs  # noqa: E402
from variants import compile_variants, measure_variants, publish  # noqa: E402
from pim_models import _torchvision, _zoo  # noqa: E402  (the same model preparation)

MODELS = ("squeezenet1_1", "resnet18", "googlenet", "shufflenet_v2", "unet")
ZOO = ("shufflenet_v2", "unet")
BLOCKS: tuple[int | str, ...] = (0, 4, 8, "auto")


def measure(name: str, precision: str, blocks: tuple[int | str, ...], work: Path) -> list[dict]:
    module, weights_path, x, reference, *_ = _zoo(name) if name in ZOO else _torchvision(name, work)
    rows: list[dict] = []
    whole_outputs = None
    for row, result, program in compile_variants(module, weights_path, name, precision, "row_block", blocks, work):
        if result is None:
            rows.append(row)
            continue
        schedule = result.manifest["schedule"]
        timing = program.time()
        outputs = program.simulate(np.asarray(x, dtype=np.float32)).outputs
        if whole_outputs is None:
            whole_outputs = outputs
        row.update(chosen_row_block=schedule.get("row_block", 0), simulated_ns=timing.latency_ns, predicted_ns=schedule.get("predicted_latency_ns"),
                   makespan_ns=schedule["makespan_ns"], cores=schedule["cores_used"],
                   tasks=len(json.loads((result.directory / "reports" / "schedule_tasks.json").read_text())),
                   local_bytes_peak=max(c["local_bytes"] for c in result.manifest["cores"]),
                   outputs_equal_whole=same_outputs(outputs, whole_outputs, precision,
                                                    {k: reference for k in outputs} if len(outputs) == 1 else None))
        rows.append(row)
    whole = next((r for r in rows if r["row_block"] == 0 and "error" not in r), None)
    for r in rows:
        if whole and "error" not in r:
            r["latency_over_whole"] = r["simulated_ns"] / whole["simulated_ns"]
            r["memory_over_whole"] = r["local_bytes_peak"] / whole["local_bytes_peak"]
            r["predicted_over_simulated"] = r["predicted_ns"] / r["simulated_ns"] if r["predicted_ns"] else None
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| model | precision | row block | tasks | cores | simulated (ms) | streamed / whole | "
             "estimate / simulated | list schedule (ms) | local memory peak (MiB) | peak / whole | "
             "outputs = whole |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        block = r["row_block"] or "whole"
        if r["row_block"] == "auto" and "error" not in r:
            block = f"auto ({r['chosen_row_block'] or 'whole'})"
        if "error" in r:
            lines.append(f"| {r['model']} | {r['precision']} | {block} | fails: {r['error']} |" + " |" * 8)
            continue
        estimate = f"{r['predicted_over_simulated']:.3f}" if r.get("predicted_over_simulated") else "-"
        lines.append(f"| {r['model']} | {r['precision']} | {block} | {r['tasks']} | {r['cores']} | "
                     f"{r['simulated_ns'] / 1e6:.2f} | {r['latency_over_whole']:.3f} | {estimate} | "
                     f"{r['makespan_ns'] / 1e6:.2f} | {r['local_bytes_peak'] / 2**20:.2f} | "
                     f"{r['memory_over_whole']:.3f} | {'yes' if r['outputs_equal_whole'] else 'NO'} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated zoo or torchvision names")
    parser.add_argument("--blocks", default=",".join(map(str, BLOCKS)),
                        help="comma-separated row blocks or 'auto' (0: whole tensors, measured first)")
    parser.add_argument("--json", required=True, help="write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's row-streaming markers")
    args = parser.parse_args()
    blocks = tuple(b if b == "auto" else int(b) for b in args.blocks.split(","))
    if blocks[0] != 0:
        parser.error("--blocks must start with 0 (the whole-tensor program every figure is compared with)")
    rows = measure_variants(args.models.split(","), blocks, measure, "row blocks")
    publish(rows, args.json, args.doc, "row-streaming", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
