"""Scheduling nn models on a PIM target, and the reports people read.

    from raptor import spatial, zoo
    report = spatial.schedule_model(zoo.load_graph("unet"), spatial.default_target())
    open("gantt.svg", "w").write(spatial.gantt_svg(report))

The compute graph and the schedule come from the C++ passes
raptor-build-compute-graph and raptor-schedule-spatial; this module reads
their attributes back into a JSON-friendly report.
"""

from __future__ import annotations

import html
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from mlir import ir

from .._io import UserError

from .. import _raptor

TARGETS = Path(__file__).parent / "targets"
#: The replication rules (the C++ passes' vocabulary).
REPLICATION_RULES: tuple[str, ...] = tuple(name for name, _ in _raptor.vocabulary("replicate"))


def default_target() -> Path:
    """The bundled ISAAC-like target (168 cores x 96 crossbars of 128x128)."""
    return TARGETS / "isaac168.json"


def bundled_targets() -> dict[str, Path]:
    """The bundled targets by name (their file's stem), sorted."""
    return {p.stem: p for p in sorted(TARGETS.glob("*.json"))}


def resolve_target(target: str | os.PathLike[str] | None) -> Path:
    """A ``--target`` argument as a file: a bundled target's name
    (``raptor targets`` lists them), a target file, or None for the
    default; UserError naming the bundled targets otherwise."""
    if target is None:
        return default_target()
    bundled = bundled_targets()
    if str(target) in bundled:
        return bundled[str(target)]
    path = Path(target)
    if not path.is_file():
        names = f"{', '.join(bundled)}; `raptor targets` lists them"
        if path.suffix == ".json" or len(path.parts) > 1:
            raise UserError(f"cannot read target '{target}': no such file (bundled targets: {names})")
        raise UserError(f"unknown target '{target}': neither a target file nor a bundled target ({names})")
    return path


def schedule_model(module: ir.Module, target: str | Path, algorithm: str = "peft", replicate: str = "auto",
                   replication_budget: float = 0.5, pipeline: int | None = None,
                   periodic: bool = False, follow_rows: bool | None = None) -> dict[str, Any]:
    """Folds batch norms (as raptor compile does, so that the schedule is
    the one a compile lowers), builds the compute graph of `module` for
    `target` (weight lanes
    copied onto spare crossbars by the `replicate` rule: time, windows or
    none), schedules it, and returns the report (raises
    mlir.ir.MLIRError with the diagnostics when the model does not fit or
    an op is unsupported).

    `pipeline=N` schedules for throughput instead: at most N stages, the
    search's candidates in the report's "selection" (docs/scheduling.md);
    `algorithm` is then unused. `periodic` adds the schedule's periodic
    diagnostic (its cores run as loop bodies: the maximum cycle ratio and
    its critical cycle) as "periodic". `follow_rows`: whether element-wise
    and pooling operators follow row copies (default: in pipeline mode)."""
    if pipeline is not None and (isinstance(pipeline, bool) or not isinstance(pipeline, int) or pipeline < 1):
        raise ValueError(f"pipeline depth must be a positive integer, not {pipeline!r}")
    with module.context:
        # The spellings are checked against the passes' own vocabularies.
        # The model prepared as raptor compile prepares it in fp32 (batch
        # norms folded, powers expanded), so that both schedule one graph.
        prepare = _raptor.CompileOptions()
        prepare.precision = "fp32"
        _raptor.run_compile_phase(module, "prepare-model", prepare)
        _raptor.build_compute_graph(module, str(target), replicate, replication_budget,
                                    pipeline is not None if follow_rows is None else follow_rows,
                                    "latency" if pipeline is None else "pipeline")
        _raptor.schedule_spatial(module, algorithm, "latency" if pipeline is None else "pipeline", pipeline or 4,
                                 periodic_attribute=periodic)
    graph = next((op for op in module.body.operations if op.name == "spatial.graph"), None)
    if graph is None:
        raise ValueError("the module has no model graph to schedule (a func.func of nn ops)")
    selection = _raptor.get_report(graph, "selection")
    periodic_report = _raptor.get_report(graph, "periodic")
    attr = lambda name: ir.IntegerAttr(graph.attributes[name]).value  # noqa: E731
    tasks = []
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        tasks.append({
            "name": ir.StringAttr(a["name"]).value,
            "op": ir.StringAttr(a["op"]).value,
            "source": ir.IntegerAttr(a["source"]).value,
            "core": ir.IntegerAttr(a["core"]).value,
            "slot": ir.IntegerAttr(a["slot"]).value,
            "start_ns": ir.IntegerAttr(a["start_ns"]).value,
            "cost_ns": ir.IntegerAttr(a["cost_ns"]).value,
            "tiles": ir.IntegerAttr(a["tiles"]).value,
            "last": ir.BoolAttr(a["last"]).value,
        })
    per_core: dict[int, int] = defaultdict(int)
    for t in tasks:
        per_core[t["core"]] += t["cost_ns"]
    report: dict[str, Any] = {
        "target": str(target),
        "algorithm": ir.StringAttr(graph.attributes["algorithm"]).value,
        "strategy": ir.StringAttr(graph.attributes["strategy"]).value,
        "tasks": tasks,
        "summary": {
            "tasks": len(tasks),
            "cores_used": attr("cores_used"),
            "completion_ns": attr("makespan_ns"),
            "serial_work_ns": attr("serial_work_ns"),
            "critical_path_ns": attr("critical_path_ns"),
            "transfer_work_ns": attr("transfer_work_ns"),
            "max_core_work_ns": max(per_core.values(), default=0),
            "crossbars_used": sum(t["tiles"] for t in tasks),
        },
        "per_core_work_ns": {str(c): w for c, w in sorted(per_core.items())},
    }
    report["mode"] = ir.StringAttr(graph.attributes["mode"]).value
    for key in ("predicted_latency_ns", "predicted_interval_ns", "alternative_tie_interval_ns"):
        if key in graph.attributes:
            report["summary"][key] = attr(key)
    if "prediction" in graph.attributes:
        report["summary"]["prediction"] = ir.StringAttr(graph.attributes["prediction"]).value
    if selection is not None:
        report["stages"] = list(ir.DenseI64ArrayAttr(graph.attributes["stages"]))
        report["selection"] = selection
    if periodic_report is not None:
        report["periodic"] = periodic_report
    return report


def gantt_svg(report: dict[str, Any], width: int = 1100) -> str:
    """A Gantt chart of cores over time (one row per used core)."""
    tasks = report["tasks"]
    cores = sorted({t["core"] for t in tasks})
    row = {c: i for i, c in enumerate(cores)}
    end = max((t["start_ns"] + t["cost_ns"] for t in tasks), default=1) or 1
    left, top, h = 70, 40, max(3, min(14, 700 // max(1, len(cores))))
    scale = (width - left - 20) / end
    height = top + h * len(cores) + 40
    palette = ["#1565c0", "#2e7d32", "#c62828", "#6a1b9a", "#ef6c00", "#00838f", "#4e342e"]
    kinds = sorted({t["op"] for t in tasks})
    color = {k: palette[i % len(palette)] for i, k in enumerate(kinds)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="Helvetica, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{html.escape(report["algorithm"].upper())} '
           f'schedule: {len(tasks)} tasks on {len(cores)} cores, completion '
           f'{report["summary"]["completion_ns"] / 1e6:.3f} ms</text>']
    for t in tasks:
        x = left + t["start_ns"] * scale
        w = max(0.5, t["cost_ns"] * scale)
        y = top + row[t["core"]] * h
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{h - 1}" '
                   f'fill="{color[t["op"]]}"><title>{html.escape(t["name"])} '
                   f'({t["start_ns"]}..{t["start_ns"] + t["cost_ns"]} ns, core {t["core"]})</title></rect>')
    for c in cores[:: max(1, len(cores) // 20)]:
        out.append(f'<text x="{left - 6}" y="{top + row[c] * h + h - 2}" font-size="10" '
                   f'text-anchor="end">core {c}</text>')
    axis_y = top + h * len(cores) + 14
    for k in range(6):
        tick = end * k / 5
        out.append(f'<text x="{left + tick * scale:.1f}" y="{axis_y}" font-size="10" '
                   f'text-anchor="middle">{tick / 1e6:.2f} ms</text>')
    for i, k in enumerate(kinds):
        out.append(f'<rect x="{left + i * 150}" y="{axis_y + 8}" width="10" height="10" fill="{color[k]}"/>'
                   f'<text x="{left + i * 150 + 14}" y="{axis_y + 17}" font-size="10">{html.escape(k)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
