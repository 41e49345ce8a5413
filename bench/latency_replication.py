#!/usr/bin/env python3
"""Benchmark: latency-mode schedules with and without replication.

For each model and replication rule (none; windows, PIMCOMP's rule, the
baseline; time, Raptor's default), compile for the default 168-core chip and
time the programs with pimsim-nn's rules (the timing simulator). Reports the
schedule's estimate beside the simulated latency, and two lower bounds from
the compute graph without copies: all MVM work spread over every crossbar
of the chip, and the longest operator with as many copies as it can take
(one per output row, as many as the chip's crossbars hold). The
machine-independent figures are the ratios: speed-up over `none`,
simulated over estimated, simulated over the bounds.

    python bench/latency_replication.py [--models shufflenet_v2,unet] [--json docs/latency-replication.json]
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
from raptor import _raptor, pim, spatial

sys.path.insert(0, str(Path(__file__).parent))
from pim_models import _torchvision, _zoo  # noqa: E402  (the same model preparation)

DEFAULT = ("shufflenet_v2", "unet", "resnet18", "siglip", "smollm2")
RULES = ("none", "windows", "time")


def _module(name: str, work: Path):
    from raptor import zoo

    module, weights, *_ = _zoo(name) if name in zoo.NAMES else _torchvision(name, work)
    return module, weights


def lower_bounds(module: ir.Module, target: Path) -> dict[str, float]:
    """From the compute graph without copies: crossbar-time over the chip's
    crossbars, and the slowest operator with its most copies."""
    clone = ir.Module.parse(str(module), context=module.context)
    with clone.context:
        _raptor.fold_batch_norm(clone)
        _raptor.build_compute_graph(clone, str(target), "none", 1.0)
    graph = next(op for op in clone.body.operations if op.name == "spatial.graph")
    cores = ir.IntegerAttr(graph.attributes["cores"]).value
    chip = cores * ir.IntegerAttr(graph.attributes["crossbars_per_core"]).value
    crossbar_ns = 0.0
    ops: dict[int, dict] = {}
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        cost, tiles = ir.IntegerAttr(a["cost_ns"]).value, ir.IntegerAttr(a["tiles"]).value
        crossbar_ns += cost * tiles
        o = ops.setdefault(ir.IntegerAttr(a["source"]).value, {"ns": 0.0, "tiles": 0, "mvm": tiles > 0})
        o["ns"] = max(o["ns"], cost)
        o["tiles"] += tiles
    rows = _rows_per_operator(clone)
    longest = 0.0
    for source, o in ops.items():
        copies = min(rows.get(source, 1), chip // o["tiles"]) if o["mvm"] else 1
        longest = max(longest, o["ns"] / max(copies, 1))
    return {"work_bound_ns": crossbar_ns / chip, "operator_bound_ns": longest}


def _rows_per_operator(module: ir.Module) -> dict[int, int]:
    """Output rows (the most copies) of each convolution and linear layer, by
    its position in the function."""
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    rows = {}
    for position, op in enumerate(func.regions[0].blocks[0].operations):
        if op.operation.name == "nn.convolution":
            rows[position] = ir.RankedTensorType(op.results[0].type).shape[2]
        elif op.operation.name == "nn.linear":
            shape = ir.RankedTensorType(op.operands[0].type).shape[:-1]
            big = [d for d in shape if d > 1]
            rows[position] = big[0] if len(big) == 1 else 1
    return rows


def measure(name: str, work: Path) -> list[dict]:
    target = spatial.default_target()
    module, weights = _module(name, work)
    bounds = lower_bounds(module, target)
    rows = []
    for rule in RULES:
        print(f"[{name}] {rule}: compiling ...", file=sys.stderr)
        copy = ir.Module.parse(str(module), context=module.context)
        out = work / f"{name}-{rule}"
        start = time.perf_counter()
        result = pim.compile(copy, out, weights=weights, replicate=rule, pimsim="none", source=name)
        compile_s = time.perf_counter() - start
        s = pim.summary(result.manifest)
        timing = pim.Program.load(out).time()
        row = {
            "model": name, "rule": rule, "cores": s["cores_used"], "crossbars": s["crossbars"],
            "compile_s": round(compile_s, 2), "timing_s": round(timing.seconds, 2),
            "estimate_ns": s["schedule_makespan_ns"], "simulated_ns": timing.latency_ns, **bounds,
        }
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    base = rows[0]["simulated_ns"]
    for r in rows:
        r["speedup"] = base / r["simulated_ns"]
        r["simulated_over_estimate"] = r["simulated_ns"] / r["estimate_ns"]
        r["simulated_over_work_bound"] = r["simulated_ns"] / r["work_bound_ns"]
        r["simulated_over_operator_bound"] = r["simulated_ns"] / r["operator_bound_ns"]
    return rows


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.2f} ms"


def table(rows: list[dict]) -> str:
    lines = ["| model | replication | cores | crossbars | estimate | simulated | simulated / estimate | "
             "speed-up | work bound | operator bound | simulated / bounds |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['rule']} | {r['cores']} | {r['crossbars']:,} | {_ms(r['estimate_ns'])} | "
                     f"{_ms(r['simulated_ns'])} | {r['simulated_over_estimate']:.2f} | {r['speedup']:.1f}x | "
                     f"{_ms(r['work_bound_ns'])} | {_ms(r['operator_bound_ns'])} | "
                     f"{r['simulated_over_work_bound']:.1f} / {r['simulated_over_operator_bound']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT), help="comma-separated zoo or torchvision names")
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    rows = []
    with raptor.Context(), tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            rows.extend(measure(name, Path(tmp)))
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
