"""``raptor sweep``: the command line of :mod:`raptor.sweep`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not '{text}'")
    return value


def register(subparsers: Any) -> None:
    """Adds the ``sweep`` command to the ``raptor`` command's subparsers."""
    p = subparsers.add_parser(
        "sweep", help="compile and time models over a grid of targets and options, in parallel on Ray",
        description="Every point of the spec (models x target grid x compile options) is compiled and timed "
                    "(and checked against the model where asked) as a Ray task; results are one row per point "
                    "in OUTPUT/results.csv and .parquet, with a Pareto picture per model and report.html. "
                    "Finished points are cached by content, so a spec run again computes only new points. "
                    "See docs/sweep.md.",
        epilog="examples: raptor sweep sweep.yaml -o out/sweep; raptor sweep sweep.yaml -o out/sweep "
               "--address head-node:6379; raptor sweep --resume -o out/sweep")
    p.add_argument("spec", nargs="?", help="the spec, a .yaml or .json file (with --resume, default: the one "
                                           "recorded in OUTPUT)")
    p.add_argument("-o", "--output", required=True, help="the sweep's directory: new, empty, or a sweep's")
    p.add_argument("--resume", action="store_true",
                   help="continue the sweep recorded in OUTPUT after an interruption (finished points are kept)")
    p.add_argument("--address", help="a running Ray cluster (HOST:PORT of its head, or auto); default: a local "
                                     "cluster started for the sweep")
    p.add_argument("--cpus", type=_positive, metavar="N", help="CPUs of the local cluster (default: all)")
    p.add_argument("--object-store-mb", type=_positive, metavar="MB",
                   help="object store of the local cluster (default: three times the models' files, at least 256)")
    p.add_argument("--cache", metavar="DIR", help="the point cache (default: OUTPUT/cache); sweeps may share one")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from .._io import UserError
    from .driver import run_sweep
    from .executor import Cluster

    if args.address and (args.cpus or args.object_store_mb):
        raise UserError("--cpus and --object-store-mb size a local cluster: not with --address")
    cluster = Cluster(args.address, args.cpus, args.object_store_mb << 20 if args.object_store_mb else None)
    df, summary = run_sweep(args.spec, args.output, resume=args.resume, cluster=cluster, cache=args.cache,
                            progress=None if args.quiet else sys.stderr)
    print(f"{args.output}: {summary}")
    grid = [c for c in df.columns[1:df.columns.get_loc("precision")]]
    for model, rows in df.groupby("model", sort=False):
        front = rows[rows["pareto"].fillna(False)].sort_values("latency_ms")
        print(f"  {model}: Pareto front of {len(front)} point{'s' * (len(front) != 1)}")
        for _, r in front.iterrows():
            where = " ".join([f"{k}={r[k]}" for k in grid] + [f"{r['precision']} {r['mode']}"])
            print(f"    latency {r['latency_ms']:.3f} ms, interval {r['interval_ms']:.3f} ms, "
                  f"{int(r['crossbars_used']):,} crossbars: {where}")
    print(f"  tables {args.output}/results.csv and results.parquet, report {args.output}/report.html")
    return 0
