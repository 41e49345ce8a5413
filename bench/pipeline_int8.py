#!/usr/bin/env python3
"""Benchmark: int8 pipelines against their core bound and against PIMCOMP-NN.

For each torchvision CNN (seeded random weights, batch-norm statistics
randomized, 224 x 224, int8 integer-only, the default 168-core chip), a
pipelined compile of each depth, timed with pimsim-nn's rules (the timing
simulator): the steady-state interval of the programs run as loop bodies and
the first inference's latency. Beside them, what sets the interval:

- core bound: every core's matrix time in one pass, summed, over the 168
  cores (under rob_size 1 a core runs one MVM at a time, so no schedule's
  interval is below it); work per core: all units' time (matrix, vector,
  memory, transfers) over the cores;
- the busiest core's work per pass in steady state, and the share of the
  interval the busiest core waits (1 - its work / the interval); the share
  of the interval global memory's one controller is busy;
- crossbars used of the chip's 16,128, and the first inference's latency
  over its passes x interval (a skewed pipeline's first inference takes as
  many passes as it has levels; other forms one per stage of the depth);
- the queue model's predicted interval.

The machine-independent figures are ratios (interval / core bound, latency /
(passes x interval), predicted / simulated); PIMCOMP-NN's figures beside
them are those measured on the same chip and timing rules (issue filing:
pimsim-nn one pass, ResNet-18 greedy 8.149 ms, genetic 4.963 ms,
SqueezeNet 1.1 greedy 3.266 ms).

    python bench/pipeline_int8.py --json build/pipeline-int8.json [--models resnet18] [--depths 4,8] [--doc docs/scheduling.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import raptor
from raptor import pim, weights

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402
from pim_models import _torchvision  # noqa: E402  (the same model preparation)

MODELS = ("resnet18", "squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "googlenet")
CHIP_CROSSBARS = 168 * 96
#: PIMCOMP-NN on the same chip (pimsim-nn, one pass; docs/scheduling.md).
PIMCOMP_MS = {"resnet18": {"greedy": 8.149, "genetic": 4.963}, "squeezenet1_1": {"greedy": 3.266}}


def measure(name: str, depth: int, work: Path) -> dict:
    module, weights_path, *_ = _torchvision(name, work)
    out = work / f"{name}-p{depth}"
    row: dict = {"model": name, "depth": depth}
    start = time.perf_counter()
    try:
        result = pim.compile(module, out, weights=weights.load(weights_path), precision="int8", pipeline=depth,
                             pimsim="none", source=name)
    except pim.UserError as e:
        row["error"] = str(e).splitlines()[0]
        return row
    row["compile_s"] = round(time.perf_counter() - start, 1)
    program = pim.Program.load(out)
    once = program.time()
    steady = program.time(throughput=True)
    # Per-pass work in steady state. A skewed pipeline's cores run in step
    # (tokens at every pass start), so its totals over the run divided by
    # the passes are one pass each (its first pass queues at global memory
    # as no later one does). Other forms' cores do not: a core off the
    # critical cycle runs passes ahead of the chip's count, so their first
    # pass, the same work as every later one, is the figure.
    manifest = result.manifest
    frames = manifest["program"].get("frames", 1)
    passes = max(1, len(steady.generation_end_ns)) if frames > 1 else 1
    used = [c for c in (steady if frames > 1 else once).cores if c.instructions]
    busy = [(c.matrix_ns + c.vector_ns + c.memory_ns + c.communication_ns - c.blocked_ns) / passes for c in used]
    interval = steady.interval_ns
    crossbars = sum(g["crossbars"] for c in manifest["cores"] for g in c["groups"])
    row.update({
        "arithmetic": manifest["program"]["arithmetic"],
        "crossing": manifest["schedule"].get("crossing"),
        "cores": len(used),
        "crossbars": crossbars,
        "crossbar_use": crossbars / CHIP_CROSSBARS,
        "interval_ns": interval,
        "latency_ns": once.latency_ns,
        "frames": frames,
        "core_bound_ns": sum(c.matrix_ns for c in once.cores if c.instructions) / 168,
        "work_per_core_ns": sum(busy) / 168,
        "busiest_work_ns": max(busy),
        "global_busy_share": (steady.global_busy_ns / passes if frames > 1 else once.global_busy_ns) / interval,
        "predicted_interval_ns": manifest["schedule"].get("predicted_interval_ns"),
        "stage_cores": manifest["schedule"].get("stage_cores"),
    })
    row["interval_over_core_bound"] = interval / row["core_bound_ns"]
    row["waiting_share"] = 1 - row["busiest_work_ns"] / interval
    # The first inference against the passes it takes (a skewed pipeline's
    # levels, else the depth asked for).
    row["latency_over_passes_intervals"] = once.latency_ns / (max(frames if frames > 1 else depth, 1) * interval)
    return row


def _ms(ns: float | None) -> str:
    return f"{ns / 1e6:.2f}" if ns else "-"


def table(rows: list[dict]) -> str:
    lines = ["| model | depth | crossing | interval (ms) | core bound (ms) | interval / core bound | "
             "work per core (ms) | busiest core (ms) | waiting share | global memory busy | crossbars used | "
             "first inference (ms) | passes | first inference / (passes x interval) | predicted / simulated | "
             "PIMCOMP-NN (ms) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['depth']} | fails: {r['error']} |" + " |" * 13)
            continue
        ref = ", ".join(f"{k} {v}" for k, v in PIMCOMP_MS.get(r["model"], {}).items()) or "-"
        predicted = r["predicted_interval_ns"]
        ratio = f"{predicted / r['interval_ns']:.2f}" if predicted else "-"
        passes = r["frames"] if r["frames"] > 1 else r["depth"]
        lines.append(
            f"| {r['model']} | {r['depth']} | {r['crossing']} | {_ms(r['interval_ns'])} | {_ms(r['core_bound_ns'])} | "
            f"{r['interval_over_core_bound']:.2f} | {_ms(r['work_per_core_ns'])} | {_ms(r['busiest_work_ns'])} | "
            f"{r['waiting_share']:.0%} | {r['global_busy_share']:.0%} | {r['crossbars']:,} ({r['crossbar_use']:.0%}) | "
            f"{_ms(r['latency_ns'])} | {passes} | {r['latency_over_passes_intervals']:.1f} | {ratio} | {ref} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated torchvision names")
    parser.add_argument("--depths", default="4,8", help="comma-separated pipeline depths")
    parser.add_argument("--json", required=True, help="write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's pipeline-int8 markers")
    args = parser.parse_args()
    rows: list[dict] = []
    with raptor.Context(), tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            for depth in (int(d) for d in args.depths.split(",")):
                print(f"[{name}] int8, pipeline {depth} ...", file=sys.stderr)
                rows.append(measure(name, depth, Path(tmp)))
                print(json.dumps(rows[-1]), file=sys.stderr)
                Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows},
                                                      indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "pipeline-int8", table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
