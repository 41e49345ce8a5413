#!/usr/bin/env python3
"""Benchmark: how well raptor compile's latency estimate predicts the timing simulator.

For each model (the zoo CNNs and torchvision CNNs with seeded random
weights, as bench/pim_models.py prepares them; 224 x 224 for torchvision)
in latency mode on the default 168-core chip, f32 and int8: the timing
simulator's latency of one inference (pimsim-nn's rules) against the two
estimates the compile records, the queue model's predicted latency (what
`raptor compile` prints as the schedule estimate: the scheduled programs
run with blocking transfers and each core's order) and the list
schedule's makespan (transfers overlapping freely: the seed's evaluation
figure). Beside them, the simulated first inference of the same model
compiled with `--pipeline 4`: latency mode should be at least as fast
(the transformers are where it was not). The figures are ratios
(estimate / simulated, latency / pipelined first inference), so they do
not depend on the machine.

    python bench/latency_estimate.py --json docs/latency-estimate.json --doc docs/timing.md
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from mlir import ir

import raptor
from raptor import pim, weights

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402
from pim_models import _torchvision, _zoo  # noqa: E402  (the same model preparation)

MODELS = ("shufflenet_v2", "unet", "siglip", "smollm2", "resnet18", "squeezenet1_1", "mobilenet_v2", "googlenet")
ZOO = ("shufflenet_v2", "unet", "siglip", "smollm2")


def measure(name: str, precision: str, work: Path) -> dict:
    module, weights_path, *_ = _zoo(name) if name in ZOO else _torchvision(name, work)
    out = work / f"{name}-{precision}"
    row: dict = {"model": name, "precision": precision}
    tensors = weights.load(weights_path)
    try:
        pipelined = work / f"{name}-{precision}-p4"
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True), context=module.context)
        pim.compile(copy, pipelined, weights=tensors, precision=precision, pipeline=4, pimsim="none", source=name)
        result = pim.compile(module, out, weights=tensors, precision=precision, pimsim="none", source=name)
    except pim.UserError as e:
        return {**row, "error": str(e).splitlines()[0]}
    row["pipelined_first_ns"] = pim.Program.load(pipelined).time().latency_ns
    schedule = result.manifest["schedule"]
    simulated = pim.Program.load(out).time().latency_ns
    row.update(simulated_ns=simulated, predicted_ns=schedule.get("predicted_latency_ns"),
               makespan_ns=schedule["makespan_ns"], cores=schedule["cores_used"])
    row["predicted_over_simulated"] = row["predicted_ns"] / simulated if row["predicted_ns"] else None
    row["makespan_over_simulated"] = row["makespan_ns"] / simulated
    row["latency_over_pipelined_first"] = simulated / row["pipelined_first_ns"]
    return row


def table(rows: list[dict]) -> str:
    lines = ["| model | precision | cores | simulated (ms) | estimate (ms) | estimate / simulated | "
             "list schedule (ms) | list schedule / simulated | pipeline 4, first inference (ms) | "
             "latency / pipelined first |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['precision']} | fails: {r['error']} |" + " |" * 7)
            continue
        predicted = (f"{r['predicted_ns'] / 1e6:.2f} | {r['predicted_over_simulated']:.3f}"
                     if r["predicted_ns"] else "- | -")
        lines.append(f"| {r['model']} | {r['precision']} | {r['cores']} | {r['simulated_ns'] / 1e6:.2f} | "
                     f"{predicted} | {r['makespan_ns'] / 1e6:.2f} | {r['makespan_over_simulated']:.3f} | "
                     f"{r['pipelined_first_ns'] / 1e6:.2f} | {r['latency_over_pipelined_first']:.2f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated zoo or torchvision names")
    parser.add_argument("--json", required=True, help="write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's latency-estimate markers")
    args = parser.parse_args()
    rows: list[dict] = []
    with raptor.Context(), tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            for precision in ("fp32", "int8"):
                print(f"[{name}] {precision}, latency mode ...", file=sys.stderr)
                rows.append(measure(name, precision, Path(tmp)))
                print(json.dumps(rows[-1]), file=sys.stderr)
    Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "latency-estimate", table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
