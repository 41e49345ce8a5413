"""``raptor codec-report``: codec placement on a model and its costs
(storage, traffic, codec items), as a table or JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mlir import ir

from raptor import sources, zoo
from raptor._io import UserError, diagnostics_error, write_atomically

from .common import DEFAULTS, add_choice, source_name


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``codec-report`` to the subcommands."""
    p = sub.add_parser("codec-report", help="place codecs and report storage, traffic, codec items",
                       epilog="examples: raptor codec-report unet --policy W --placement local; "
                              "raptor codec-report model.mlir --table table.txt --json -o report.json")
    p.add_argument("model", help="a zoo model name, an .mlir file ('-' for stdin), a .pt2 or an .onnx file")
    # (W: the policy of the paper's Table 4.)
    add_choice(p, "--policy", "policy", "compression policy", default="W")
    add_choice(p, "--placement", "placement", "placement algorithm", default=DEFAULTS.placement)
    p.add_argument("--table", help="commutation table file (default: the seed's Table 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-o", "--output", help="also write the placed IR (codecs materialized) here")
    p.add_argument("--paper-conventions", action=argparse.BooleanOptionalAction, default=None,
                   help="first give the graph the paper's conventions (explicit padding, unfused "
                        "KV-head fan-out, rotations before the head split, explicit fan-out nodes; "
                        "docs/codec.md); default: on for "
                        "zoo models (the paper's reproduction), off for files (the graph as compiled)")
    p.set_defaults(run=_codec_report)


def _codec_report(args: argparse.Namespace) -> int:
    from raptor import codec

    module = sources.load(args.model, weights_as=None).module
    paper = args.paper_conventions if args.paper_conventions is not None else args.model in zoo.NAMES
    if paper:
        codec.apply_paper_conventions(module)
    if args.table and not Path(args.table).is_file():
        raise UserError(f"cannot read commutation table '{args.table}'")
    try:
        codec.place(module, args.policy, args.placement, args.table)
    except ir.MLIRError as e:
        raise diagnostics_error(e, source_name(args.model)) from None
    reports = codec.costs(module)
    if args.output:
        codec.materialize(module)
        write_atomically(args.output, str(module))
    if args.json:
        report = reports[0].as_dict() if len(reports) == 1 else [r.as_dict() for r in reports]
        if isinstance(report, dict):
            report.update(model=args.model, policy=args.policy, placement=args.placement,
                          paper_conventions=paper)
        print(json.dumps(report, indent=2))
        return 0
    for r in reports:
        print(f"{args.model} @{r.function}: policy {args.policy}, {args.placement} placement"
              + (", the paper's graph conventions" if paper else ""))
        rows = [("storage", f"{r.storage_mib:.2f} MiB"),
                ("traffic", f"{r.traffic_mib:.2f} MiB"),
                ("  operators", f"{r.operator_traffic_bytes / codec.Costs.MIB:.2f} MiB"),
                ("  codecs", f"{r.codec_traffic_bytes / codec.Costs.MIB:.2f} MiB"),
                ("codec items", f"{r.codec_items_m:.2f} M"),
                ("encoders / decoders", f"{r.encoders} / {r.decoders}"),
                ("requantizers", f"{r.requantizers}"),
                ("subgraphs (encoded)", f"{r.subgraphs} ({r.encoded_subgraphs})")]
        for name, value in rows:
            print(f"  {name:<22}{value:>14}")
    return 0


