"""Model commands: ``raptor models`` (the zoo), ``raptor import`` (a zoo
model, a .pt2 or an .onnx file into nn IR and its weights) and ``raptor
summary`` (operator counts and weight storage)."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import raptor
from raptor import sources, weights, zoo
from raptor._io import UserError, make_parents, remove_made, signals_held


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


def _import(args: argparse.Namespace) -> int:
    source = args.model or args.source
    if not source:
        raise UserError("name a zoo model (--model NAME), a .pt2 file or an .onnx file to import")
    if args.input_shape and not source.endswith(".onnx"):
        raise UserError("--input-shape applies to .onnx models only (a .pt2 file has static shapes)")
    # A model to import: IR (an .mlir file), which sources.load also reads,
    # has nothing left to import.
    suffix = Path(source).suffix if args.model is None else ""
    if suffix not in ("", ".pt2", ".onnx"):
        raise UserError(f"'{source}': expected a .pt2 (torch.export.save) or .onnx file")
    if not suffix:
        zoo.check_name(source)
    if args.output:
        _check_output(args.output, with_weights=not args.no_weights)
    start = time.perf_counter()
    step = itertools.count(1)
    model = sources.load(source, progress=lambda m: print(f"[{next(step)}/3] {m} ...", file=sys.stderr),
                         strict=args.strict, input_shapes=_parse_input_shapes(args.input_shape),
                         export=True, weights_as="arrays")
    if args.paper_conventions:
        from raptor import codec

        codec.apply_paper_conventions(model.module)
    print(f"[3/3] done in {time.perf_counter() - start:.1f} s "
          f"({model.report.notes}; generic: {dict(model.report.generic) or 'none'})",
          file=sys.stderr)
    if args.output:
        _write(args.output, model, with_weights=not args.no_weights)
    if args.summary:
        print(format_summary(raptor.graph_summary(model.module)))
    elif not args.output:
        print(model.module)
    return 0


def _check_output(output: str, with_weights: bool) -> None:
    """Refuses, before the import, an output that cannot be written."""
    weights_path = weights.beside(output) if with_weights else None
    if weights_path is not None and weights_path.resolve() == Path(output).resolve():
        raise UserError(f"the output '{output}' would be overwritten by its weights file")
    for path in (Path(output), weights_path):
        if path is not None and path.is_dir():
            raise UserError(f"cannot write '{path}': it is a directory")
        if path is not None and path.is_symlink() and not path.exists():
            raise UserError(f"cannot write '{path}': it is a symbolic link to nothing")


def _write(output: str, model: sources.Model, with_weights: bool) -> None:
    """The IR at ``output`` and its weights beside it (missing parent
    directories created): both written to temporary files first, then
    both renamed in with SIGINT and SIGTERM held, so that a failure or an
    interruption leaves the old pair or the new one."""
    text = str(model.module)
    target = Path(output).resolve() if Path(output).is_symlink() else Path(output)
    weights_path = weights.beside(target) if with_weights else None
    directory = target.parent
    made = make_parents(directory, target)
    staged: list[Path] = []
    try:
        with signals_held():
            staged.append(Path(tempfile.mkdtemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")))
        if weights_path is not None:
            try:
                weights.save(staged[0] / "weights", model.tensors)
            except OSError as e:
                raise UserError(f"cannot write '{weights_path}': {e.strerror or e}") from None
        _write_ir(staged[0] / "ir", text)
        with signals_held():
            if weights_path is not None:
                os.replace(staged[0] / "weights", weights_path)
            os.replace(staged[0] / "ir", target)
    except OSError as e:
        raise UserError(f"cannot write '{output}': {e.strerror or e}") from None
    finally:
        with signals_held():
            for d in staged:
                shutil.rmtree(d, ignore_errors=True)
            if not target.exists():
                remove_made(made)


def _write_ir(path: Path, text: str) -> None:
    path.write_text(text)


def _summary(args: argparse.Namespace) -> int:
    module = sources.load(args.source, weights_as=None).module
    summary = raptor.graph_summary(module)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0
