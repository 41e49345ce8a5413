"""The ``raptor`` command: what needs Python (model import, reports).

    raptor models                                  list the zoo
    raptor import --model shufflenet_v2 -o g.mlir  torch.export -> nn
    raptor import model.pt2 -o g.mlir              a torch.export.save file -> nn
    raptor import model.onnx -o g.mlir             an ONNX model -> nn
    raptor summary shufflenet_v2                   operator/weight report
    raptor summary g.mlir --json
    raptor codec-report unet --policy W --placement local --json
    raptor rdg gemv.sure --json gemv.json          reduced dependency graph
    raptor cycle-ratio graph.json --json           exact maximum cycle ratio

IR-to-IR work (passes, pipelines) is ``raptor-opt``'s job. Errors in the
user's input are one line (or MLIR's located diagnostics) and exit code 1.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mlir import ir

import raptor
from raptor import zoo
from raptor.rdg.analysis import DEFAULT_MAX_POINTS
from raptor._io import (UserError, diagnostics_error, load_npy, parse_module, read_text,
                        write_atomically)


def _load(source: str, context: ir.Context) -> ir.Module:
    """A zoo name (its bundled graph), an .mlir path (``-`` for stdin), or a
    .pt2 / .onnx model imported as ``raptor compile`` imports it."""
    if source in zoo.NAMES:
        return zoo.load_graph(source, context)
    if Path(source).suffix in (".pt2", ".onnx"):
        from raptor import sources

        model = sources.load(source, context=context)
        model.cleanup()  # the weights: not needed to place, schedule or summarize
        return model.module
    return parse_module(read_text(source), source, context)


def _source_name(model: str) -> str:
    """The file a model argument reads: the bundled graph of a zoo name."""
    return str(zoo.graph_path(model)) if model in zoo.NAMES else model


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


def _cmd_models(args: argparse.Namespace) -> int:
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


def _cmd_import(args: argparse.Namespace) -> int:
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


def _cmd_compile(args: argparse.Namespace) -> int:
    from raptor import pim, sources

    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    int8_only = [flag for flag, given in (("--policy", args.policy), ("--placement", args.placement),
                                          ("--calibrate", args.calibrate),
                                          ("--calibration-samples", args.calibration_samples),
                                          ("--arithmetic", args.arithmetic),
                                          ("--report", args.report)) if given]
    if args.precision == "fp32" and int8_only:
        verb = "applies" if len(int8_only) == 1 else "apply"
        raise UserError(f"{', '.join(int8_only)} only {verb} with --precision int8")
    if args.calibrate and args.calibration_samples:
        raise UserError("give either --calibrate FILE or --calibration-samples N, not both")
    model = sources.load(args.model, args.weights, progress=say)
    try:
        calibration = None
        if args.calibrate:
            from raptor import quant

            calibration = quant.load_samples(model.module, args.calibrate)
        result = pim.compile(model.module, args.output, weights=model.weights, target=args.target,
                             algorithm=args.algorithm, replicate=args.replicate,
                             replication_budget=args.replication_budget, pipeline=args.pipeline,
                             follow_rows=args.follow_rows, precision=args.precision,
                             policy=args.policy or "Y", placement=args.placement or "nonlocal-coalesced",
                             calibration=calibration, calibration_samples=args.calibration_samples or 4,
                             arithmetic=args.arithmetic or "auto", pimsim=args.format,
                             unroll_limit=args.unroll_limit, source=model.source, progress=say)
        report = None
        if args.report:
            from raptor import weights as weight_files
            from raptor.quant.accuracy import program_report

            say("[report] int8 against float32 on the calibration and held-out inputs ...")
            tensors = weight_files.load(model.weights) if model.weights else {}
            report = program_report(str(result.directory), tensors, model.reference, calibration)
            write_atomically(str(result.directory / "reports" / "quantization.json"),
                             json.dumps(report, indent=2) + "\n")
    finally:
        model.cleanup()
    summary = pim.summary(result.manifest)
    if args.json:
        if report is not None:
            summary["quantization_report"] = report
        print(json.dumps(summary, indent=2))
    else:
        print(pim.format_summary(summary, str(result.directory)))
        if report is not None:
            from raptor.quant.accuracy import format_report

            print(format_report(report))
    return 0


def _parse_named_arrays(items: list[str] | None, inputs: list[tuple[str, tuple[int, ...], str]]) -> dict:
    import numpy as np

    arrays: dict = {}
    for item in items or []:
        name, sep, path = item.partition("=")
        if not sep:
            if len(inputs) != 1:
                raise UserError(f"the model has {len(inputs)} inputs: give NAME=FILE.npy")
            name, path = inputs[0][0], item
        arrays[name] = np.array(load_npy(path, "input"))  # (a copy, once the header is checked)
    return arrays


def _cmd_simulate(args: argparse.Namespace) -> int:
    import numpy as np

    from raptor import pim, sources

    program = pim.Program.load(args.directory, args.form)
    if args.throughput and not args.timing:
        raise UserError("--throughput is a mode of --timing")
    if args.timing:
        return _report_timing(program, args)
    arrays = _parse_named_arrays(args.input, program.inputs)
    seeded = [name for name, _, _ in program.inputs if name not in arrays]
    rng = np.random.default_rng(args.seed)
    for name, shape, _ in program.inputs:
        if name not in arrays:
            arrays[name] = rng.standard_normal(shape).astype(np.float32)
    run = program.simulate(arrays, args.max_instructions)
    report: dict = {"directory": str(args.directory), "form": args.form,
                    "random_inputs": seeded, "seconds": round(run.stats["seconds"], 3),
                    **{k: v for k, v in run.stats["total"].items()}}
    if run.stats["seconds"] > 0:
        report["instructions_per_second"] = int(run.stats["total"]["instructions"] / run.stats["seconds"])
    if args.check:
        source = program.manifest.get("source", "")
        model = sources.load(source) if source else None
        if model is None or model.reference is None:
            raise UserError(f"--check needs the model's source (a zoo name, .pt2 or .onnx), not '{source}'")
        if len(program.inputs) != 1 or len(program.outputs) != 1:
            raise UserError("--check compares single-input, single-output models")
        ref = model.reference(arrays[program.inputs[0][0]])
        out = run.outputs[program.outputs[0][0]]
        scale = float(np.abs(ref).max()) or 1.0
        report["reference"] = "onnxruntime" if source.endswith(".onnx") else "torch"
        report["max_error"] = float(np.abs(out - ref).max())
        report["max_error_relative"] = report["max_error"] / scale
        if "quantization" in program.manifest:  # int8: also the integer reference, bit for bit
            from raptor import quant
            from raptor import weights as weight_files

            saved = Path(args.directory) / "reports" / "quantized_model.mlir"
            if not saved.is_file():
                raise UserError(f"'{args.directory}' lacks reports/quantized_model.mlir (the integer reference's IR)")
            module = ir.Module.parse(saved.read_text(), context=raptor.Context())
            (want,) = quant.reference(module, {k: np.asarray(v, np.float32) for k, v in arrays.items()},
                                      weight_files.load(model.weights) if model.weights else {})
            report["integer_reference_bit_exact"] = bool(np.array_equal(out, want))
            report["integer_reference_max_difference"] = float(np.abs(out - want).max())
    if args.output:
        outputs = list(run.outputs.items())
        for item in args.output:
            name, sep, path = item.partition("=")
            if not sep:
                if len(outputs) != 1:
                    raise UserError(f"the model has {len(outputs)} outputs: give NAME=FILE.npy")
                name, path = outputs[0][0], item
            if name not in run.outputs:
                raise UserError(f"the model has no output '{name}'")
            _save_npy(path, run.outputs[name])
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.directory}: simulated {report['instructions']:,} instructions in "
              f"{report['seconds']:.2f} s ({report.get('instructions_per_second', 0):,}/s), "
              f"{report['mvmuls']:,} MVMs, {report['sent_bytes']:,} bytes sent between cores")
        if seeded:
            print(f"  random input(s) {', '.join(seeded)} (seed {args.seed})")
        if "max_error" in report:
            print(f"  max |error| vs {report['reference']}: {report['max_error']:.3e} "
                  f"({report['max_error_relative']:.3e} of the largest output)")
        if "integer_reference_bit_exact" in report:
            print("  vs the integer reference: " + ("bit-exact" if report["integer_reference_bit_exact"] else
                  f"max |difference| {report['integer_reference_max_difference']:.3e}"))
    return 0


def _report_timing(program, args: argparse.Namespace) -> int:
    from raptor import pim

    if args.input or args.output or args.check:
        raise UserError("--timing moves no data: --input, --output and --check belong to functional runs")
    timing = program.time(args.throughput, max_instructions=args.max_instructions)
    schedule_ns = program.manifest.get("schedule", {}).get("makespan_ns")
    if args.json:
        report = {"directory": str(args.directory), "form": args.form, **timing.to_json()}
        if schedule_ns is not None:
            report["schedule_makespan_ns"] = schedule_ns
        print(json.dumps(report, indent=2))
    else:
        print(pim.format_timing(timing, str(args.directory), schedule_ns))
    return 0


def _cmd_periodic(args: argparse.Namespace) -> int:
    from raptor import pim

    report = pim.Program.load(args.directory).periodic()
    data = {"directory": str(args.directory), **report.to_json()}
    if args.output:
        write_atomically(args.output, json.dumps(data, indent=2) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(pim.format_periodic(report, str(args.directory)))
    return 0


def _save_npy(path: str, array) -> None:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array)
    write_atomically(path, buffer.getvalue())


def _cmd_summary(args: argparse.Namespace) -> int:
    module = _load(args.source, raptor.Context())
    summary = raptor.graph_summary(module)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


def _cmd_codec_report(args: argparse.Namespace) -> int:
    from raptor import codec

    context = raptor.Context()
    module = _load(args.model, context)
    paper = args.paper_conventions if args.paper_conventions is not None else args.model in zoo.NAMES
    if paper:
        codec.apply_paper_conventions(module)
    if args.table and not Path(args.table).is_file():
        raise UserError(f"cannot read commutation table '{args.table}'")
    try:
        codec.place(module, args.policy, args.placement, args.table)
    except ir.MLIRError as e:
        raise diagnostics_error(e, _source_name(args.model)) from None
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


_TOO_LARGE = (RecursionError, MemoryError, OverflowError)


def _too_large(source: str, e: BaseException) -> UserError:
    """One line for a system beyond what Python's recursion, memory or
    machine integers take (rather than their tracebacks)."""
    if isinstance(e, OverflowError):
        return UserError(f"'{source}': a value of the system is too large ({e})")
    what = "nested too deeply" if isinstance(e, RecursionError) else "too large for memory"
    return UserError(f"'{source}': the system is {what} to handle")


def _cmd_rdg(args: argparse.Namespace) -> int:
    from raptor import rdg

    source = args.file
    # Everything is computed before anything is written: a failing run
    # leaves no output file (and replaces none).
    try:
        name = Path(source).stem if source != "-" else "system"
        name = name if name.isidentifier() else "system"
        module = rdg.parse_sure(read_text(source), source, name)
        text = rdg.to_json(module, "extended" if args.extended else "dfactl")
        svg = None
        if args.svg:
            from raptor.rdg.picture import render_svg

            svg = render_svg(json.loads(rdg.to_json(module)))
        verdicts = None
        if args.analyze:
            from raptor.rdg.analysis import AnalysisError, analyze

            try:
                verdicts = analyze(rdg.extract(module, "extended"), max_points=args.max_points)
            except AnalysisError as e:
                raise UserError(str(e)) from None
    except rdg.SureSyntaxError as e:
        raise UserError(str(e)) from None
    except ir.MLIRError as e:
        raise diagnostics_error(e, source) from None
    except _TOO_LARGE as e:
        raise _too_large(source, e) from None
    if args.mlir:
        write_atomically(args.mlir, str(module))
    if svg is not None:
        write_atomically(args.svg, svg)
    if args.json:
        write_atomically(args.json, text)
    elif not args.analyze and not args.svg:
        sys.stdout.write(text)
    if verdicts is not None:
        print(json.dumps(verdicts, indent=2))
    return 0


def _cmd_rdg_page(args: argparse.Namespace) -> int:
    from raptor import rdg
    from raptor.rdg.picture import render_page

    graphs = []
    for i, path in enumerate(args.files, 1):
        print(f"[{i}/{len(args.files)}] {path}", file=sys.stderr)
        try:
            module = rdg.load_sure(path)
        except (rdg.SureSyntaxError, OSError) as e:
            raise UserError(str(e)) from None
        except ir.MLIRError as e:
            raise diagnostics_error(e, path) from None
        graphs.append((Path(path).stem, json.loads(rdg.to_json(module))))
    write_atomically(args.output, render_page(graphs))
    return 0


_LAYOUT_SPEC = ("expected SHAPE:STRIDE of nested integer tuples, e.g. (4,2):(1,4), "
                "or DOMAIN --(MAP)--> CODOMAIN, e.g. (4,4) --(1,3)--> (4,2,4)")


def _fraction(text: str) -> float:
    """argparse type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, not '{text}'")
    return value


def _add_pipeline_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pipeline", type=_count(1), metavar="N",
                   help="schedule for throughput: inferences streamed through at most N stages of cores "
                        "(default: latency mode, one inference as fast as possible)")


def _add_replication_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--replicate", choices=("time", "windows", "none"), default="time",
                   help="copy weight lanes onto spare crossbars, each copy computing a range of output rows: "
                        "time (the copy saving the most time per crossbar, default), windows (PIMCOMP's rule: "
                        "the operator with the most windows per copy) or none")
    p.add_argument("--replication-budget", type=_fraction, default=0.5, metavar="F",
                   help="fraction of the chip's crossbars lanes and copies may use (default: 0.5)")
    p.add_argument("--follow-rows", action=argparse.BooleanOptionalAction, default=None,
                   help="element-wise and pooling operators follow their input's row copies with copies of "
                        "their own (default: in pipeline mode only)")


def _count(minimum: int) -> Callable[[str], int]:
    """argparse type: an integer of at least ``minimum`` (1e9 and 1_000
    spellings allowed)."""
    def parse(text: str) -> int:
        what = "a positive integer" if minimum > 0 else "a non-negative integer"
        try:
            value = int(float(text)) if "e" in text.lower() else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, not '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, not '{text}'")
        return value
    return parse


def _int_tuple(text: str) -> int | tuple:
    """An integer or nested tuple of integers spelled as in the paper."""
    import ast

    value = ast.literal_eval(text.strip())

    def valid(v: object) -> bool:
        if isinstance(v, tuple):
            return all(valid(c) for c in v)
        return isinstance(v, int) and not isinstance(v, bool)

    if not valid(value):
        raise ValueError(text)
    return value


def _cmd_layout_svg(args: argparse.Namespace) -> int:
    from raptor import layout
    from raptor.layout import picture

    text = args.spec.strip()
    try:
        if "-->" in text:  # a morphism: DOMAIN --(MAP)--> CODOMAIN
            domain, rest = text.split("--", 1)
            mapping, codomain = rest.split("-->", 1)
            image = _int_tuple(mapping)
            parts = (_int_tuple(domain), _int_tuple(codomain),
                     image if isinstance(image, tuple) else (image,))
        else:  # a layout: SHAPE:STRIDE
            shape, stride = text.split(":")
            parts = (_int_tuple(shape), _int_tuple(stride))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise UserError(f"cannot draw '{text}': {_LAYOUT_SPEC}") from None
    try:  # the algebra's own checks (profiles, the Tuple condition, ...)
        if len(parts) == 3:
            svg = picture.render_morphism_svg(layout.Morphism(*parts))
        else:
            svg = picture.render_svg(layout.Layout(*parts))
    except ValueError as e:
        raise UserError(f"cannot draw '{text}': {e}") from None
    write_atomically(args.output, svg)
    return 0


def _cmd_schedule(args: argparse.Namespace) -> int:
    from raptor import spatial

    target = args.target or str(spatial.default_target())
    if not Path(target).is_file():
        raise UserError(f"cannot read target '{target}'")
    from raptor import pim

    module = _load(args.model, raptor.Context())
    try:
        report = spatial.schedule_model(module, target, args.algorithm, args.replicate, args.replication_budget,
                                        pipeline=args.pipeline, periodic=args.periodic, follow_rows=args.follow_rows)
    except raptor._raptor.PassError as e:
        raise pim.pass_error(e, _source_name(args.model)) from None
    out = Path(args.report_dir)
    out.mkdir(parents=True, exist_ok=True)
    selection = report.pop("selection", None)
    periodic = report.pop("periodic", None)
    write_atomically(out / "schedule.json", json.dumps(report, indent=2) + "\n")
    write_atomically(out / "gantt.svg", spatial.gantt_svg(report))
    if selection is not None:
        write_atomically(out / "pipeline_selection.json", json.dumps(selection, indent=2) + "\n")
    if periodic is not None:
        write_atomically(out / "pipeline_periodic.json", json.dumps(periodic, indent=2) + "\n")
    s = report["summary"]
    print(f"{args.model}: {s['tasks']} tasks on {s['cores_used']} cores ({report['algorithm']}, "
          f"{report['strategy']})")
    if selection is not None:
        print(f"  stages (cores)      {report['stages']}  ({selection['queue_evaluations']} queue evaluations)")
    for key in ("completion_ns", "predicted_latency_ns", "predicted_interval_ns", "critical_path_ns",
                "serial_work_ns", "max_core_work_ns", "transfer_work_ns"):
        if key in s:
            print(f"  {key:<20}{s[key] / 1e6:>14.3f} ms")
    print(f"  {'crossbars_used':<20}{s['crossbars_used']:>14}")
    if periodic is not None:
        if periodic["status"] == "ok":
            print(f"  periodic: interval {periodic['interval_ns'] / 1e6:.3f} ms ({periodic['bound']}; critical cycle "
                  f"over cores {periodic['cycle_cores']}, distance {periodic['cycle_distance']})")
        else:
            print(f"  periodic: {periodic['status']} {periodic['reason']}".rstrip())
    print(f"report: {out / 'schedule.json'}, chart: {out / 'gantt.svg'}"
          + (f", search: {out / 'pipeline_selection.json'}" if selection is not None else "")
          + (f", periodic: {out / 'pipeline_periodic.json'}" if periodic is not None else ""))
    return 0


def _cmd_schedule_dag(args: argparse.Namespace) -> int:
    from raptor import spatial

    graph = spatial.load_task_graph(args.file)
    result = spatial.schedule(graph, args.algorithm)
    report = result.as_dict()
    report["algorithm"] = args.algorithm
    report["summary"] = spatial.evaluate(graph, result)
    print(json.dumps(report, indent=2))
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


def _cmd_cycle_ratio(args: argparse.Namespace) -> int:
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


def _version() -> str:
    """The installed package's version (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("raptor")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="raptor", description="Raptor: ML models to processing-in-memory accelerators.")
    parser.add_argument("--version", action="version", version=f"raptor {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("models", help="list the model zoo", epilog="example: raptor models")
    p.set_defaults(run=_cmd_models)

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
    p.set_defaults(run=_cmd_import)

    p = sub.add_parser("codec-report", help="place codecs and report storage, traffic, codec items",
                       epilog="examples: raptor codec-report unet --policy W --placement local; "
                              "raptor codec-report model.mlir --table table.txt --json -o report.json")
    p.add_argument("model", help="a zoo model name, an .mlir file ('-' for stdin), a .pt2 or an .onnx file")
    p.add_argument("--policy", default="W", choices=("Z", "Y", "X", "W"),
                   help="compression policy (default: W)")
    p.add_argument("--placement", default="nonlocal-coalesced",
                   choices=("local", "nonlocal", "nonlocal-coalesced"),
                   help="placement algorithm (default: nonlocal-coalesced)")
    p.add_argument("--table", help="commutation table file (default: the seed's Table 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-o", "--output", help="also write the placed IR (codecs materialized) here")
    p.add_argument("--paper-conventions", action=argparse.BooleanOptionalAction, default=None,
                   help="first give the graph the paper's conventions (explicit padding, unfused "
                        "KV-head fan-out, rotations before the head split, explicit fan-out nodes; "
                        "docs/codec.md); default: on for "
                        "zoo models (the paper's reproduction), off for files (the graph as compiled)")
    p.set_defaults(run=_cmd_codec_report)

    p = sub.add_parser("rdg", help="reduced dependency graph of a .sure recurrence system",
                       epilog="examples: raptor rdg gemm.sure --analyze; "
                              "raptor rdg gemm.sure --json gemm.json --svg gemm.svg")
    p.add_argument("file", help="a .sure file ('-' for stdin)")
    p.add_argument("--json", metavar="OUT", help="write the RDG JSON here (default: stdout)")
    p.add_argument("--extended", action="store_true",
                   help="symbolic parameters and separate branches instead of dfactl's form")
    p.add_argument("--mlir", metavar="OUT", help="also write the system as sure-dialect IR")
    p.add_argument("--svg", metavar="OUT", help="draw the RDG as SVG")
    p.add_argument("--analyze", action="store_true",
                   help="print the verdicts: computability (free schedule, KMW), linear schedule")
    p.add_argument("--max-points", type=int, default=DEFAULT_MAX_POINTS,
                   help=f"enumeration limit of the analyses, which visit every point "
                        f"(default: {DEFAULT_MAX_POINTS}, a few seconds)")
    p.set_defaults(run=_cmd_rdg)

    p = sub.add_parser("rdg-page", help="a static HTML page with the RDGs of several systems",
                       epilog="example: raptor rdg-page rdg.html systems/*.sure")
    p.add_argument("output", help="the .html file to write")
    p.add_argument("files", nargs="+", help=".sure files")
    p.set_defaults(run=_cmd_rdg_page)

    p = sub.add_parser("layout-svg", help="draw a layout (S:D) or a morphism (S --(m)--> T) as SVG",
                       epilog="examples: raptor layout-svg '(4,2):(1,4)' -o layout.svg; "
                              "raptor layout-svg '(4,4) --(1,3)--> (4,2,4)' -o morphism.svg")
    p.add_argument("spec", help="e.g. '(4,(2,2)):(2,(1,8))' or '(4,4) --(1, 3)--> (4,2,4)'")
    p.add_argument("-o", "--output", required=True, help="the .svg file to write")
    p.set_defaults(run=_cmd_layout_svg)

    p = sub.add_parser("schedule", help="schedule a model on a PIM target (latency or pipeline mode)",
                       epilog="examples: raptor schedule shufflenet_v2; raptor schedule unet --pipeline 8 "
                              "--report-dir reports/unet")
    p.add_argument("model", help="a zoo model name, an .mlir, .pt2 or .onnx file")
    p.add_argument("--target", help="target JSON (default: the bundled 168-core chip)")
    p.add_argument("--algorithm", choices=("peft", "heft"), default="peft", help="latency mode's scheduler")
    _add_pipeline_option(p)
    p.add_argument("--periodic", action="store_true",
                   help="also write pipeline_periodic.json: the schedule's event graph run as loop bodies, its "
                        "exact maximum cycle ratio and critical cycle (read-only)")
    _add_replication_options(p)
    p.add_argument("--report-dir", default="reports", help="where schedule.json and gantt.svg go")
    p.set_defaults(run=_cmd_schedule)

    p = sub.add_parser("schedule-dag", help="list-schedule a task graph (PEFT or HEFT)",
                       epilog="example: raptor schedule-dag graph.json --algorithm heft, with graph.json = "
                              '{"processors": 2, "cost": [[3, 4], [2, 2]], "edges": [[0, 1, 5]]}')
    p.add_argument("file", help="task graph JSON (processors, cost[task][processor], edges)")
    p.add_argument("--algorithm", choices=("peft", "heft"), default="peft")
    p.set_defaults(run=_cmd_schedule_dag)

    p = sub.add_parser(
        "periodic", help="the steady-state interval of a compiled program's cores run as loop bodies",
        description="Builds the event graph of the programs (each core a chain of transfers, its exit "
                    "leading to its next iteration) and solves its maximum cycle ratio exactly: the "
                    "interval the recurrence allows, with the critical cycle. Read-only. See docs/timing.md.",
        epilog="examples: raptor periodic out/shufflenet; raptor periodic out/model --json -o periodic.json")
    p.add_argument("directory", help="a program directory written by raptor compile")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("-o", "--output", help="also write the JSON report here")
    p.set_defaults(run=_cmd_periodic)

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
    p.set_defaults(run=_cmd_cycle_ratio)

    p = sub.add_parser(
        "compile", help="compile a model to per-core PIM programs (pimsim-nn's format and Raptor's)",
        epilog="examples: raptor compile shufflenet_v2 -o out/shufflenet; "
               "raptor compile resnet18.pt2 -o out/resnet18 --format json; "
               "raptor compile unet -o out/unet --pipeline 8; "
               "raptor compile shufflenet_v2 -o out/q --precision int8 --policy W --report; "
               "raptor compile resnet18.pt2 -o out/r8 --precision int8 --arithmetic integer; "
               "raptor compile model.onnx -o out/onnx; "
               "raptor compile model.mlir --weights model.safetensors -o out/model")
    p.add_argument("model", help="a zoo model name, a .pt2 file, an .onnx file (static shapes) or an .mlir file "
                                 "(weights: --weights, else MODEL.safetensors beside it)")
    p.add_argument("-o", "--output", required=True, help="the program directory to write")
    p.add_argument("--target", help="target JSON (default: the bundled 168-core chip)")
    p.add_argument("--weights", help="weights of an .mlir model (.safetensors)")
    p.add_argument("--algorithm", choices=("peft", "heft"), default="peft", help="latency scheduler")
    _add_pipeline_option(p)
    _add_replication_options(p)
    p.add_argument("--format", choices=("binary", "json", "both", "none"), default="binary",
                   help="pimsim-nn program files: core_<i>.pim (binary), .json, both or none")
    p.add_argument("--precision", choices=("fp32", "int8"), default="fp32",
                   help="number format: fp32 (default) or int8 (codec placement decides where data is "
                        "encoded; int8 crossbar weights per output channel; docs/quantization.md)")
    p.add_argument("--policy", choices=("Z", "Y", "X", "W"),
                   help="int8: which operators get INT8 variants (Z: none; Y: matrix operators; X adds concatenation, "
                        "splits and fan-out; W adds views, pooling, padding; default Y)")
    p.add_argument("--placement", choices=("local", "nonlocal", "nonlocal-coalesced"),
                   help="int8: codec placement (default nonlocal-coalesced)")
    p.add_argument("--calibrate", metavar="FILE.npy",
                   help="int8: calibration inputs, one input or a stack (N, *shape) (default: seeded random "
                        "inputs)")
    p.add_argument("--calibration-samples", type=_count(1), metavar="N",
                   help="int8: the number of seeded random calibration inputs (default: 4)")
    p.add_argument("--arithmetic", choices=("auto", "integer", "float"),
                   help="int8: numbers between the codecs: integer (int32 fixed point, pimsim-nn's instructions "
                        "only; an operator without an integer lowering is an error), float (f32, with extension "
                        "instructions for the conversions) or auto (integer when every operator has an integer "
                        "lowering; default)")
    p.add_argument("--report", action="store_true",
                   help="int8: measure accuracy against float32 (calibration and 8 held-out inputs) and check "
                        "the simulated program against the integer reference (reports/quantization.json)")
    p.add_argument("--unroll-limit", type=_count(0), default=16_000_000, metavar="N",
                   help="skip pimsim-nn files when the unrolled program exceeds N instructions "
                        "(default: 16000000; 0: no limit)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    p.set_defaults(run=_cmd_compile)

    p = sub.add_parser(
        "simulate", help="run a compiled program in Raptor's functional or timing simulator",
        epilog="examples: raptor simulate out/shufflenet --check; "
               "raptor simulate out/model --input x.npy --output y.npy --json; "
               "raptor simulate out/model --timing --throughput")
    p.add_argument("directory", help="a program directory written by raptor compile")
    p.add_argument("--input", action="append", metavar="[NAME=]FILE.npy",
                   help="an input array (default: seeded random inputs)")
    p.add_argument("--output", action="append", metavar="[NAME=]FILE.npy", help="write an output array")
    p.add_argument("--form", choices=("compact", "pimsim"), default="compact",
                   help="run Raptor's compact programs or pimsim-nn's unrolled files")
    p.add_argument("--check", action="store_true",
                   help="compare with the model's eager torch output (zoo models and .pt2 files)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    p.add_argument("--timing", action="store_true",
                   help="time the program with pimsim-nn's rules (chip.json, network.json) instead of computing it")
    p.add_argument("--throughput", action="store_true",
                   help="with --timing: run each core's program as a loop body and report the initiation interval")
    p.add_argument("--max-instructions", type=_count(1), metavar="N",
                   help="stop with an error after N executed instructions (default: 4e9)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=_cmd_simulate)

    p = sub.add_parser("summary", help="operator counts and weight storage of an nn graph",
                       epilog="examples: raptor summary shufflenet_v2; raptor summary model.mlir --json")
    p.add_argument("source", help="a zoo model name, an .mlir file ('-' for stdin), a .pt2 or an .onnx file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_cmd_summary)
    return parser


def _specs_are_positional(argv: list[str]) -> list[str]:
    """`raptor layout-svg -x ...`: a spec may begin with `-` (a negative
    stride); argparse would take it for an option, so it goes after `--`."""
    if not argv or argv[0] != "layout-svg" or "--" in argv:
        return argv
    out, i = [argv[0]], 1
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--output") and i + 1 < len(argv):
            out += [a, argv[i + 1]]
            i += 2
            continue
        if a.startswith("-") and a not in ("-h", "--help") and not a.startswith("--output="):
            return out + argv[i + 1:] + ["--", a]  # the options after it, then the spec
        out.append(a)
        i += 1
    return out


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C (writers remove their staging copies)."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    argv = _specs_are_positional(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return args.run(args)
    except (UserError, ValueError) as e:
        print(f"raptor: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `head`) went away: not an error of ours.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
