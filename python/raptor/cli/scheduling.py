"""Scheduling and periodic timing: ``raptor schedule`` (a model on a PIM
target, latency or pipeline mode), ``raptor schedule-dag`` (a task graph),
``raptor periodic`` (a compiled program's steady-state interval) and
``raptor cycle-ratio`` (the exact maximum cycle ratio of an event graph)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mlir import ir

from raptor import sources
from raptor._io import UserError, diagnostics_error, write_atomically

from .common import DEFAULTS, add_choice, add_pipeline_option, add_replication_options, source_name, write_json


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``schedule``, ``schedule-dag``, ``periodic`` and ``cycle-ratio``."""
    p = sub.add_parser("schedule", help="schedule a model on a PIM target (latency or pipeline mode)",
                       epilog="examples: raptor schedule shufflenet_v2; raptor schedule unet --pipeline 8 "
                              "--report-dir reports/unet")
    p.add_argument("model", help="a zoo model name, an .mlir, .pt2 or .onnx file")
    p.add_argument("--target", help="target JSON (default: the bundled 168-core chip)")
    add_choice(p, "--algorithm", "algorithm", "latency mode's list scheduler", default=DEFAULTS.algorithm)
    add_pipeline_option(p)
    p.add_argument("--periodic", action="store_true",
                   help="also write pipeline_periodic.json: the schedule's event graph run as loop bodies, its "
                        "exact maximum cycle ratio and critical cycle (read-only)")
    add_replication_options(p)
    p.add_argument("--report-dir", metavar="DIR",
                   help="write schedule.json and gantt.svg (and the --pipeline search, --periodic report) into DIR "
                        "(created if missing; default: print the summary only)")
    p.set_defaults(run=_schedule)

    p = sub.add_parser("schedule-dag", help="list-schedule a task graph (PEFT or HEFT)",
                       epilog="example: raptor schedule-dag graph.json --algorithm heft, with graph.json = "
                              '{"processors": 2, "cost": [[3, 4], [2, 2]], "edges": [[0, 1, 5]]}')
    p.add_argument("file", help="task graph JSON (processors, cost[task][processor], edges)")
    add_choice(p, "--algorithm", "algorithm", "the list scheduler", default=DEFAULTS.algorithm)
    p.set_defaults(run=_schedule_dag)

    p = sub.add_parser(
        "periodic", help="the steady-state interval of a compiled program's cores run as loop bodies",
        description="Builds the event graph of the programs (each core a chain of transfers, its exit "
                    "leading to its next iteration) and solves its maximum cycle ratio exactly: the "
                    "interval the recurrence allows, with the critical cycle. Read-only. See docs/timing.md.",
        epilog="examples: raptor periodic out/shufflenet; raptor periodic out/model --json -o periodic.json")
    p.add_argument("directory", help="a program directory written by raptor compile")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("-o", "--output", help="also write the JSON report here")
    p.set_defaults(run=_periodic)

    p = sub.add_parser(
        "cycle-ratio", help="exact maximum cycle ratio (initiation interval) of an event graph",
        description="Edges [u, v, w, d] mean t(v, k) >= t(u, k - d) + w. Prints the maximum over "
                    "cycles of total w / total d with a critical cycle, a deadlock (a cycle of "
                    "distance-0 edges) or 'acyclic'. See docs/periodic-analysis.md.",
        epilog="example: raptor cycle-ratio graph.json --json --bisect, with graph.json = "
               '{"nodes": 2, "edges": [[0, 1, 3, 0], [1, 0, 4, 1]]}')
    p.add_argument("graph", help='event graph JSON {"nodes": N, "edges": [[u, v, w, d], ...]} '
                                 "('-' for stdin)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: status, ratio_num, ratio_den, cycle, ...")
    p.add_argument("--bisect", action="store_true",
                   help="also run the seed's bisection cross-check (a 1 ns bracket, <= 64 probes)")
    p.set_defaults(run=_cycle_ratio)


def _schedule(args: argparse.Namespace) -> int:
    from raptor import spatial

    target = spatial.resolve_target(args.target)
    module = sources.load(args.model, weights_as=None).module
    try:
        report = spatial.schedule_model(module, target, args.algorithm, args.replicate, args.replication_budget,
                                        pipeline=args.pipeline, periodic=args.periodic, follow_rows=args.follow_rows)
    except ir.MLIRError as e:
        raise diagnostics_error(e, source_name(args.model)) from None
    selection = report.pop("selection", None)
    periodic = report.pop("periodic", None)
    written = []
    if args.report_dir:
        out = Path(args.report_dir)
        for name, data in (("schedule.json", report), ("gantt.svg", spatial.gantt_svg(report)),
                           ("pipeline_selection.json", selection), ("pipeline_periodic.json", periodic)):
            if data is not None:
                (write_json if name.endswith(".json") else write_atomically)(out / name, data)
                written.append(out / name)
    s = report["summary"]
    print(f"{args.model}: {s['tasks']} tasks on {s['cores_used']} cores ({report['algorithm']}, "
          f"{report['strategy']})")
    if selection is not None:
        print(f"  stages (cores)        {report['stages']}  ({selection['queue_evaluations']} queue evaluations)")
    for key in ("completion_ns", "predicted_latency_ns", "predicted_interval_ns", "critical_path_ns",
                "serial_work_ns", "max_core_work_ns", "transfer_work_ns"):
        if key in s:  # (the report's keys say their unit: the lines say it once, after the figure)
            print(f"  {key.removesuffix('_ns').replace('_', ' '):<22}{s[key] / 1e6:>12.3f} ms")
    print(f"  {'crossbars used':<22}{s['crossbars_used']:>12}")
    if periodic is not None:
        if periodic["status"] == "ok":
            print(f"  periodic: interval {periodic['interval_ns'] / 1e6:.3f} ms ({periodic['bound']}; critical cycle "
                  f"over cores {periodic['cycle_cores']}, distance {periodic['cycle_distance']})")
        else:
            print(f"  periodic: {periodic['status']} {periodic['reason']}".rstrip())
    if written:
        print("wrote " + ", ".join(map(str, written)))
    return 0


def _schedule_dag(args: argparse.Namespace) -> int:
    from raptor import spatial

    graph = spatial.load_task_graph(args.file)
    result = spatial.schedule(graph, args.algorithm)
    report = result.as_dict()
    report["algorithm"] = args.algorithm
    report["summary"] = spatial.evaluate(graph, result)
    print(json.dumps(report, indent=2))
    return 0


def _periodic(args: argparse.Namespace) -> int:
    from raptor import pim

    report = pim.Program.load(args.directory).periodic()
    data = {"directory": str(args.directory), **report.to_json()}
    if args.output:
        write_json(args.output, data)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(pim.format_periodic(report, str(args.directory)))
    return 0


def format_cycle_ratio(source: str, graph, result, bracket=None) -> str:
    """A people-readable summary of a cycle-ratio result (and bisection)."""
    lines = [f"{source}: {graph.nodes} nodes, {graph.num_edges} edges"]
    edges = ", ".join(f"{i} ({u}->{v} w={w} d={d})"
                      for i, (u, v, w, d) in ((i, graph.edges[i]) for i in result.cycle[:8]))
    more = f", ... ({len(result.cycle)} edges)" if len(result.cycle) > 8 else ""
    if result.status == "ok":
        r = result.ratio
        shown = str(r) if r.denominator == 1 else f"{r} = {float(r):.6g}"
        lines.append(f"maximum cycle ratio {shown} ns per iteration")
        lines.append(f"critical cycle (weight {result.weight}, distance {result.distance}): "
                     f"{edges}{more}")
        lines.append(f"howard iterations {result.howard_iterations}, "
                     f"certification checks {result.certification_checks}")
    elif result.status == "deadlock":
        lines.append(f"deadlock: a cycle of distance-0 edges (weight {result.weight}): "
                     f"{edges}{more}")
    else:
        lines.append("acyclic: no cycle, no recurrence bound")
    if bracket is not None and bracket.status == "ok":
        lines.append(f"bisection: {bracket.lo} < ratio <= {bracket.hi} ({bracket.probes} probes)")
    return "\n".join(lines)


def _cycle_ratio(args: argparse.Namespace) -> int:
    from raptor.spatial import cycle_ratio

    graph = cycle_ratio.load_graph(args.graph)
    result = graph.max_cycle_ratio()
    bracket = graph.bisect() if args.bisect else None
    if args.json:
        report = result.to_json()
        if bracket is not None:
            report["bisection"] = bracket.to_json()
        print(json.dumps(report))
    else:
        print(format_cycle_ratio(args.graph, graph, result, bracket))
    return 0


