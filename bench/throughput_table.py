#!/usr/bin/env python3
"""Benchmark: latency and pipeline schedules, with and without replication.

For each model, compile for the default 168-core chip in latency mode with
each replication rule (none; windows, PIMCOMP's greedy rule, the baseline;
time, Raptor's default) and in pipeline mode, and time the programs with
pimsim-nn's rules (the timing simulator): one inference's latency and the
steady-state interval of the programs run as loop bodies. Beside them: what
the compiler predicted (the list schedule's makespan, the queue model's
latency and interval, the periodic analysis's cycle ratio of the emitted
programs) and three lower bounds from the compute graph without copies: all
MVM work spread over every crossbar of the chip (the issue's work bound),
the longest operator with as many copies as it can take (one per output
row, as many as the chip's crossbars hold), and all task work spread over
the cores (the core bound: a core keeps as many instructions in flight as
its reorder buffer holds, one on the default target, so its crossbars work
together only within one group's MVM; copies add work, never remove it). The
machine-independent figures are the ratios: speed-up over `none`,
simulated over predicted, simulated over the bounds.
A configuration that fails to compile is a row with its error.

    python bench/throughput_table.py [--models shufflenet_v2,unet] [--pipeline 8] [--json docs/throughput.json]
        [--doc docs/scheduling.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from mlir import ir

import raptor
from raptor import _raptor, pim, spatial
from raptor._io import UserError

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402
from pim_models import _torchvision, _zoo  # noqa: E402  (the same model preparation)

DEFAULT = ("shufflenet_v2", "unet", "siglip", "smollm2", "resnet18")
RULES = ("none", "windows", "time")


def _module(name: str, work: Path):
    from raptor import zoo

    module, weights, *_ = _zoo(name) if name in zoo.NAMES else _torchvision(name, work)
    return module, weights


def lower_bounds(module: ir.Module, target: Path) -> dict[str, float]:
    """From the compute graph without copies: crossbar-time over the chip's
    crossbars, the slowest operator with its most copies, and task time
    over the cores times the instructions each keeps in flight (its
    reorder buffer, pimsim-nn's rob_size: 1 unless the target sets it)."""
    clone = ir.Module.parse(str(module), context=module.context)
    with clone.context:
        _raptor.fold_batch_norm(clone)
        _raptor.build_compute_graph(clone, str(target), "none", 1.0)
    graph = next(op for op in clone.body.operations if op.name == "spatial.graph")
    cores = ir.IntegerAttr(graph.attributes["cores"]).value
    chip = cores * ir.IntegerAttr(graph.attributes["crossbars_per_core"]).value
    crossbar_ns = task_ns = 0.0
    ops: dict[int, dict] = {}
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        cost, tiles = ir.IntegerAttr(a["cost_ns"]).value, ir.IntegerAttr(a["tiles"]).value
        crossbar_ns += cost * tiles
        task_ns += cost
        o = ops.setdefault(ir.IntegerAttr(a["source"]).value, {"ns": 0.0, "tiles": 0, "mvm": tiles > 0})
        o["ns"] = max(o["ns"], cost)
        o["tiles"] += tiles
    rows = _rows_per_operator(clone)
    longest = 0.0
    for source, o in ops.items():
        copies = min(rows.get(source, 1), chip // o["tiles"]) if o["mvm"] else 1
        longest = max(longest, o["ns"] / max(copies, 1))
    in_flight = min(int(json.loads(target.read_text()).get("pimsim", {}).get("rob_size", 1)),
                    ir.IntegerAttr(graph.attributes["crossbars_per_core"]).value)
    return {"work_bound_ns": crossbar_ns / chip, "operator_bound_ns": longest,
            "core_bound_ns": task_ns / (cores * max(in_flight, 1))}


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


def _configurations(depth: int) -> list[tuple[str, str, int | None]]:
    return [("latency", rule, None) for rule in RULES] + [(f"pipeline {depth}", "time", depth)]


def measure(name: str, work: Path, depth: int, done: Callable[[dict], None]) -> list[dict]:
    target = spatial.default_target()
    module, weights = _module(name, work)
    bounds = lower_bounds(module, target)
    rows = []
    for mode, rule, pipeline in _configurations(depth):
        print(f"[{name}] {mode}, replication {rule}: compiling ...", file=sys.stderr)
        copy = ir.Module.parse(str(module), context=module.context)
        out = work / f"{name}-{rule}-{pipeline}"
        row: dict = {"model": name, "mode": mode, "rule": rule, **bounds}
        start = time.perf_counter()
        try:
            result = pim.compile(copy, out, weights=weights, replicate=rule, pipeline=pipeline, pimsim="none",
                                 source=name)
        except UserError as e:
            row["error"] = str(e).splitlines()[0]
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
            done(row)
            continue
        row["compile_s"] = round(time.perf_counter() - start, 2)
        schedule = result.manifest["schedule"]
        s = pim.summary(result.manifest)
        program = pim.Program.load(out)
        start = time.perf_counter()
        try:
            latency_ns: float | None = program.time().latency_ns
        except pim.SimulationError as e:  # the timing simulator's instruction budget
            latency_ns, row["latency_error"] = None, str(e)
        try:
            interval: float | None = program.time(throughput=True).interval_ns if latency_ns else None
        except pim.SimulationError as e:  # the instruction budget: U-Net's replicated passes
            interval, row["interval_error"] = None, str(e)
        row["timing_s"] = round(time.perf_counter() - start, 2)
        periodic = program.periodic()
        row.update({
            "cores": s["cores_used"], "crossbars": s["crossbars"],
            "makespan_ns": schedule["makespan_ns"],
            "predicted_latency_ns": schedule.get("predicted_latency_ns"),
            "predicted_interval_ns": schedule.get("predicted_interval_ns"),
            "cycle_ratio_ns": periodic.interval_ns,
            "simulated_ns": latency_ns, "interval_ns": interval,
            "crossing": schedule.get("crossing"),  # pipeline mode: how data crosses stages
        })
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
        done(row)
    base = rows[0].get("simulated_ns")
    for r in rows:
        if "error" in r or not base or not r["simulated_ns"]:
            continue
        r["speedup"] = base / r["simulated_ns"]
        r["interval_over_work_bound"] = r["interval_ns"] / r["work_bound_ns"] if r["interval_ns"] else None
        r["interval_over_core_bound"] = r["interval_ns"] / r["core_bound_ns"] if r["interval_ns"] else None
        r["latency_over_operator_bound"] = r["simulated_ns"] / r["operator_bound_ns"]
    return rows


def _ms(ns: float | None) -> str:
    return f"{ns / 1e6:,.2f} ms" if ns else "-"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def _mode(r: dict) -> str:
    return f"{r['mode']} ({r['crossing']})" if r.get("crossing") else r["mode"]


def table(rows: list[dict]) -> str:
    lines = ["| model | mode | replication | cores | crossbars | simulated latency | predicted latency "
             "(makespan / queue) | simulated interval | predicted interval (queue / cycle ratio) | "
             "latency speed-up | work bound | operator bound | core bound | interval / work bound | "
             "interval / core bound |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['mode']} | {r['rule']} | fails: {r['error']} "
                         + "| " * 11 + "|")
            continue
        lines.append(
            f"| {r['model']} | {_mode(r)} | {r['rule']} | {r['cores']} | {r['crossbars']:,} | "
            f"{_ms(r['simulated_ns'])} | {_ms(r['makespan_ns'])} / {_ms(r['predicted_latency_ns'])} | "
            f"{_ms(r['interval_ns'])} | {_ms(r['predicted_interval_ns'])} / {_ms(r['cycle_ratio_ns'])} | "
            f"{r.get('speedup', 0):.1f}x | {_ms(r['work_bound_ns'])} | {_ms(r['operator_bound_ns'])} | "
            f"{_ms(r['core_bound_ns'])} | {_ratio(r['interval_ns'], r['work_bound_ns'])} | "
            f"{_ratio(r['interval_ns'], r['core_bound_ns'])} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT), help="comma-separated zoo or torchvision names")
    parser.add_argument("--pipeline", type=int, default=8, help="the pipeline depth of the pipeline rows")
    parser.add_argument("--json", help="also write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's throughput markers")
    args = parser.parse_args()
    rows: list[dict] = []
    partial: list[dict] = []

    def save(row: dict) -> None:  # after every row: a long run keeps what it measured
        partial.append(row)
        if args.json:
            Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows + partial},
                                                  indent=2) + "\n")

    with raptor.Context(), tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            rows.extend(measure(name, Path(tmp), args.pipeline, save))
            partial.clear()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "throughput", table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
