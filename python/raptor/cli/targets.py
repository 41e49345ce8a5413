"""``raptor targets``: the bundled PIM targets, by the names ``--target``
takes, with their parameters."""

from __future__ import annotations

import argparse
import json

from raptor import _raptor


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``targets`` to the subcommands."""
    p = sub.add_parser("targets", help="list the bundled PIM targets (names for --target) and their parameters",
                       epilog="examples: raptor targets; raptor targets --json; "
                              "raptor compile shufflenet_v2 -o out/s --target small")
    p.add_argument("--json", action="store_true", help="print each target in the file format, by name")
    p.set_defaults(run=_targets)


def describe(name: str, target: _raptor.Target) -> str:
    """One bundled target's parameters in a few lines."""
    crossbars = target.cores * target.crossbars_per_core
    return "\n".join([
        f"{name}: {target.name}",
        f"  cores {target.cores} on a {target.mesh_rows} x {target.mesh_cols} mesh, clock {target.clock_period_ns:g} ns",
        f"  crossbars {target.crossbars_per_core} per core ({crossbars:,} in all) of "
        f"{target.crossbar_rows} x {target.crossbar_cols} cells, {target.cell_bits}-bit cells, "
        f"{target.weight_bits}-bit weights",
        f"  local memory {target.local_memory_bytes / 2**20:g} MiB per core",
    ])


def _targets(args: argparse.Namespace) -> int:
    from raptor import spatial

    bundled = {name: _raptor.Target.load(str(path)) for name, path in spatial.bundled_targets().items()}
    default = spatial.default_target().stem
    if args.json:
        print(json.dumps({name: t.to_dict() for name, t in bundled.items()}, indent=2))
        return 0
    for name, target in bundled.items():
        print(describe(name, target) + ("\n  (the default)" if name == default else ""))
    print(f"files: {spatial.default_target().parent}; a target of your own: a JSON file of the same sections "
          "(docs/scheduling.md)")
    return 0
