"""Model commands: ``raptor models`` (the zoo), ``raptor import`` (a zoo
model, a .pt2 or an .onnx file into nn IR and its weights) and ``raptor
summary`` (operator counts and weight storage)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import raptor
from raptor import zoo
from raptor._io import UserError, write_atomically

from .common import load_graph


def format_summary(summary: dict) -> str:
    """A people-readable table of :func:`raptor.graph_summary`'s result."""
    lines = []
    for f in summary["functions"]:
        lines.append(
            f"graph @{f['name']}: {f['num_ops']} ops, {f['num_weights']} weights "
            f"({f['weight_elements']:,} elements, {f['fp32_storage_mib']:.2f} MiB fp32), "
            f"{f['num_constants']} constants")
        for t in f["inputs"]:
            lines.append(f"  input  {t['name']}: {t['type']}")
        for t in f["outputs"]:
            lines.append(f"  output {t['name']}: {t['type']}")
        lines.append(f"  {'operator':<36}{'count':>7}")
        for name, n in sorted(f["op_counts"].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {name:<36}{n:>7}")
        for name, n in sorted(f["generic_ops"].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"    generic {name:<28}{n:>7}")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``models``, ``import`` and ``summary`` to the subcommands."""
    p = sub.add_parser("models", help="list the model zoo", epilog="example: raptor models")
    p.set_defaults(run=_models)

    p = sub.add_parser("import", help="import a zoo model, a .pt2 file or an ONNX file into nn IR",
                       epilog="examples: raptor import --model shufflenet_v2 -o shufflenet.mlir "
                              "(also writes shufflenet.safetensors); raptor import resnet18.pt2 -o r.mlir; "
                              "raptor import model.onnx --input-shape input=1,3,224,224 -o m.mlir")
    p.add_argument("source", nargs="?",
                   help="a .pt2 file (torch.export.save) or an .onnx file, e.g. resnet18.pt2")
    p.add_argument("--model", choices=zoo.NAMES, help="zoo model to import")
    p.add_argument("-o", "--output", help="write the IR here (default: stdout) and the weights beside it "
                                          "(OUT.safetensors)")
    p.add_argument("--no-weights", action="store_true", help="do not write the weights file")
    p.add_argument("--strict", action="store_true",
                   help="fail on operators without a dedicated nn op (ONNX: all of them named in one line)")
    p.add_argument("--input-shape", action="append", metavar="NAME=SIZES",
                   help="static sizes of an ONNX input whose shape is dynamic, repeatable, "
                        "e.g. --input-shape input=1,3,224,224")
    p.add_argument("--summary", action="store_true",
                   help="print a summary of the graph instead of the IR")
    p.add_argument("--paper-conventions", action="store_true",
                   help="write the graph in the codec-placement paper's conventions (explicit padding, "
                        "unfused KV-head fan-out, rotations before the head split, explicit fan-out "
                        "nodes; docs/codec.md)")
    p.set_defaults(run=_import)

    p = sub.add_parser("summary", help="operator counts and weight storage of an nn graph",
                       epilog="examples: raptor summary shufflenet_v2; raptor summary model.mlir --json")
    p.add_argument("source", help="a zoo model name, an .mlir file ('-' for stdin), a .pt2 or an .onnx file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_summary)


def _models(args: argparse.Namespace) -> int:
    for name in zoo.NAMES:
        print(f"{name:<15} Table 1: {zoo.PAPER_FP32_MIB[name]:>6.1f} MiB   "
              f"bundled graph: {zoo.graph_path(name)}")
    return 0


def _parse_input_shapes(specs: Sequence[str] | None) -> dict[str, list[int]]:
    """``--input-shape NAME=1,3,224,224`` options as {name: sizes}."""
    shapes: dict[str, list[int]] = {}
    for spec in specs or []:
        name, eq, sizes = spec.rpartition("=")
        try:
            dims = [int(s) for s in sizes.split(",")] if eq and name else None
        except ValueError:
            dims = None
        if not dims:
            raise UserError(f"--input-shape '{spec}' is not NAME=SIZE,SIZE,... (e.g. x=1,3,224,224)")
        if name in shapes:
            raise UserError(f"--input-shape names '{name}' twice")
        shapes[name] = dims
    return shapes


def _import_pt2(source: str, strict: bool):
    """A torch.export.save file: (module, report, weights)."""
    try:
        import torch

        from raptor.frontend.torch import (ExportError, ImportOptions, UnsupportedOperatorError,
                                           import_program)
    except ImportError as e:
        raise UserError(f"the torch frontend needs the 'torch' extra ({e.name} is missing)") from None
    from raptor import weights

    if not Path(source).is_file():
        raise UserError(f"cannot read '{source}': no such file")
    print(f"[1/3] loading {source} ...", file=sys.stderr)
    import logging

    export_log = logging.getLogger("torch.export")
    level = export_log.level
    export_log.setLevel(logging.CRITICAL)  # torch logs a traceback before raising
    try:
        ep = torch.export.load(source)
    except Exception as e:
        raise UserError(f"'{source}' is not a torch.export file: {type(e).__name__}: "
                        f"{' '.join(str(e).split())[:300]}") from None
    finally:
        export_log.setLevel(level)
    try:
        ep = ep.run_decompositions(zoo.decomposition_table())
    except Exception as e:  # torch raises many kinds here
        raise UserError(f"{source}: torch could not decompose the exported program: "
                        f"{type(e).__name__}: {' '.join(str(e).split())[:300]}") from None
    print("[2/3] importing into the nn dialect ...", file=sys.stderr)
    try:
        module, report = import_program(ep, ImportOptions(strict=strict))
    except (UnsupportedOperatorError, ExportError) as e:
        raise UserError(f"{source}: {e}") from None
    notes = f"recognised: {dict(+report.rewrites) or 'none'}"
    return module, report.generic, notes, weights.from_exported_program(ep, module)


def _import_onnx(source: str, strict: bool, shapes: dict[str, list[int]]):
    """An ONNX file: (module, generic operators, notes, weights)."""
    try:
        from raptor.frontend.onnx import OnnxImportError, import_model, load_model
    except ImportError as e:
        raise UserError(f"the ONNX frontend needs the 'onnx' package ({e.name} is missing)") from None
    print(f"[1/3] loading {source} ...", file=sys.stderr)
    try:
        model = load_model(source)
    except OnnxImportError as e:
        raise UserError(str(e)) from None
    print("[2/3] importing into the nn dialect ...", file=sys.stderr)
    try:
        module, report, tensors = import_model(model, shapes, strict=strict)
    except OnnxImportError as e:
        raise UserError(f"{source}: {e}") from None
    return module, report.generic, f"opset {report.opset}, {report.folded} constant nodes folded", tensors


def _import(args: argparse.Namespace) -> int:
    from raptor import weights

    source = args.model or args.source
    if not source:
        raise UserError("name a zoo model (--model NAME), a .pt2 file or an .onnx file to import")
    if args.input_shape and not source.endswith(".onnx"):
        raise UserError("--input-shape applies to .onnx models only (a .pt2 file has static shapes)")
    start = time.perf_counter()
    if args.model is None and source.endswith(".pt2"):
        module, generic, notes, tensors = _import_pt2(source, args.strict)
    elif args.model is None and source.endswith(".onnx"):
        module, generic, notes, tensors = _import_onnx(source, args.strict,
                                                       _parse_input_shapes(args.input_shape))
    else:
        try:
            from raptor.frontend.torch import ImportOptions, UnsupportedOperatorError, import_program
        except ImportError as e:
            raise UserError(f"the torch frontend needs the 'torch' extra ({e.name} is missing)") from None
        if args.model is None and Path(source).suffix:
            raise UserError(f"'{source}': expected a .pt2 (torch.export.save) or .onnx file")
        zoo.check_name(source)
        print(f"[1/3] building and exporting {source} with torch.export ...", file=sys.stderr)
        ep = zoo.export(source)
        options = ImportOptions(strict=args.strict, **zoo.import_options(source))
        print("[2/3] importing into the nn dialect ...", file=sys.stderr)
        try:
            module, report = import_program(ep, options)
        except UnsupportedOperatorError as e:
            raise UserError(str(e)) from None
        generic, notes = report.generic, f"recognised: {dict(+report.rewrites) or 'none'}"
        tensors = weights.from_exported_program(ep, module)
    if args.paper_conventions:
        from raptor import codec

        codec.apply_paper_conventions(module)
    print(f"[3/3] done in {time.perf_counter() - start:.1f} s "
          f"({notes}; generic: {dict(generic) or 'none'})",
          file=sys.stderr)
    if args.output:
        text = str(module)
        weights_path = None if args.no_weights else weights.beside(args.output)
        if weights_path is not None and weights_path.resolve() == Path(args.output).resolve():
            raise UserError(f"the output '{args.output}' would be overwritten by its weights file")
        directory = Path(args.output).parent
        if not directory.is_dir():
            raise UserError(f"cannot write '{args.output}': directory '{directory}' does not exist")
        if Path(args.output).is_dir():
            raise UserError(f"cannot write '{args.output}': it is a directory")
        if weights_path is not None:
            try:
                weights.save(weights_path, tensors)
            except OSError as e:
                raise UserError(f"cannot write '{weights_path}': {e.strerror or e}") from None
        try:
            write_atomically(args.output, text)
        except BaseException:
            if weights_path is not None:  # no half an import: the weights alone are useless
                weights_path.unlink(missing_ok=True)
            raise
    if args.summary:
        print(format_summary(raptor.graph_summary(module)))
    elif not args.output:
        print(module)
    return 0


def _summary(args: argparse.Namespace) -> int:
    module = load_graph(args.source, raptor.Context())
    summary = raptor.graph_summary(module)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0
