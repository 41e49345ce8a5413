"""Per-core PIM programs: ``raptor compile`` (a model to a program
directory) and ``raptor simulate`` (Raptor's functional or timing
simulator on one, checked against the model if asked)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from mlir import ir

import raptor
from raptor import sources
from raptor.pim import ARITHMETICS, check
from raptor._io import UserError, load_npy, located_error, write_atomically

from .common import (DEFAULTS, add_choice, add_pipeline_option, add_replication_options, add_streaming_options, count,
                     write_json)


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``compile`` and ``simulate`` to the subcommands."""
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
    add_choice(p, "--algorithm", "algorithm", "latency mode's list scheduler", default=DEFAULTS.algorithm)
    add_choice(p, "--transfers", "transfers", "latency mode: how data goes to other cores", default=DEFAULTS.transfers)
    add_pipeline_option(p)
    add_streaming_options(p)
    add_choice(p, "--crossing", "crossing", "pipeline mode: how data crosses to later stages",
               default=DEFAULTS.crossing)
    add_replication_options(p)
    add_choice(p, "--format", "pimsim", "pimsim-nn program files", default=DEFAULTS.pimsim)
    add_choice(p, "--precision", "precision", "number format", default=DEFAULTS.precision)
    # (int8 options default to None so that giving them with fp32 is an error.)
    add_choice(p, "--policy", "policy", "int8: which operators get INT8 variants", shown_default=DEFAULTS.policy)
    add_choice(p, "--placement", "placement", "int8: codec placement", shown_default=DEFAULTS.placement)
    p.add_argument("--calibrate", metavar="FILE.npy",
                   help="int8: calibration inputs, one input or a stack (N, *shape) (default: seeded random "
                        "inputs)")
    p.add_argument("--calibration-samples", type=count(1), metavar="N",
                   help="int8: the number of seeded random calibration inputs (default: 4)")
    p.add_argument("--arithmetic", choices=ARITHMETICS,
                   help="int8: numbers between the codecs: integer (int32 fixed point, pimsim-nn's instructions "
                        "only; an operator without an integer lowering is an error), float (f32, with extension "
                        "instructions for the conversions) or auto (integer when every operator has an integer "
                        "lowering; default)")
    p.add_argument("--report", action="store_true",
                   help="int8: measure accuracy against float32 (calibration and 8 held-out inputs) and check "
                        "the simulated program against the integer reference (reports/quantization.json)")
    p.add_argument("--unroll-limit", type=count(0), default=DEFAULTS.unroll_limit, metavar="N",
                   help="skip pimsim-nn files when the unrolled program exceeds N instructions "
                        f"(default: {DEFAULTS.unroll_limit}; 0: no limit)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress messages")
    p.set_defaults(run=_compile)

    p = sub.add_parser(
        "simulate", help="run a compiled program in Raptor's functional or timing simulator",
        epilog="examples: raptor simulate out/shufflenet --check; "
               "raptor simulate out/model --input x.npy --output y.npy --json; "
               "raptor simulate out/model --timing --throughput; "
               "raptor simulate out/model --timing --timeline timeline.svg")
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
    p.add_argument("--timeline", metavar="OUT.svg",
                   help="with --timing: draw the first pass of every core (matrix, vector, memory, transfers, "
                        "waits) as SVG")
    p.add_argument("--max-instructions", type=count(1), metavar="N",
                   help="stop with an error after N executed instructions (default: 4e9)")
    p.add_argument("--interleaving-seed", type=count(1), metavar="N",
                   help="run the cores in a random interleaving drawn from N instead of in turn (a race-free "
                        "program gives the same outputs under every N)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress messages (shown when stderr is a terminal)")
    p.set_defaults(run=_simulate)


def _compile(args: argparse.Namespace) -> int:
    from raptor import pim

    say = _progress(args.quiet)
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
    # (Before the model is read: a refused output costs no import.)
    pim.check_output(args.output, [args.model, args.weights, args.target, args.calibrate])
    model = sources.load(args.model, args.weights, progress=lambda m: say(f"[model] {m}"))
    try:
        calibration = None
        if args.calibrate:
            from raptor import quant

            calibration = quant.load_samples(model.module, args.calibrate)
        from raptor import weights as weight_files

        # Opened once: for calibration, the lowering and the report.
        tensors = weight_files.load(model.weights) if model.weights else None
        result = pim.compile(model.module, args.output, weights=tensors, target=args.target,
                             algorithm=args.algorithm, replicate=args.replicate,
                             replication_budget=args.replication_budget, pipeline=args.pipeline,
                             follow_rows=args.follow_rows, row_block=args.row_block, lane_tiles=args.lane_tiles,
                             transfers=args.transfers, crossing=args.crossing,
                             precision=args.precision,
                             policy=args.policy or DEFAULTS.policy, placement=args.placement or DEFAULTS.placement,
                             calibration=calibration, calibration_samples=args.calibration_samples or 4,
                             arithmetic=args.arithmetic or "auto", pimsim=args.format,
                             unroll_limit=args.unroll_limit, source=model.source, progress=say)
        report = None
        if args.report:
            from raptor.quant.accuracy import program_report

            say("[report] int8 against float32 on the calibration and held-out inputs ...")
            with _located(model.source):
                report = program_report(str(result.directory), tensors or {}, model.reference, calibration,
                                        reference_name=model.reference_name)
            write_json(result.directory / "reports" / "quantization.json", report)
    finally:
        model.cleanup()
    summary = pim.summary(result.manifest, result.seconds)
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


@contextlib.contextmanager
def _located(source: str) -> Iterator[None]:
    """The reference interpreter's refusals said at the operator of the
    user's model (``source``), as the compiler's diagnostics are."""
    from raptor import quant

    try:
        yield
    except quant.OperatorError as e:
        raise located_error(e.location, e.message, source) from None


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


def _simulate(args: argparse.Namespace) -> int:
    import numpy as np

    from raptor import pim, quant

    say = _progress(args.quiet, terminal_only=True)
    if args.throughput and not args.timing:
        raise UserError("--throughput is a mode of --timing")
    if args.timeline and not args.timing:
        raise UserError("--timeline is a picture of --timing")
    if args.interleaving_seed and args.timing:
        raise UserError("--interleaving-seed orders the functional simulation; --timing follows pimsim-nn's rules")
    program = pim.Program.load(args.directory, args.form)
    if args.timing:
        return _report_timing(program, args, say)
    arrays = _parse_named_arrays(args.input, program.inputs)
    seeded = [name for name, _, _ in program.inputs if name not in arrays]
    rng = np.random.default_rng(args.seed)
    vocabularies = program.vocabularies
    for name, shape, _ in program.inputs:
        if name not in arrays:
            arrays[name] = quant.random_input(shape, rng, vocabularies.get(name))
    say(f"[simulate] computing on {len(program.manifest['cores'])} cores ...")
    run = program.simulate(arrays, args.max_instructions, args.interleaving_seed)
    report: dict = {"directory": str(args.directory), "form": args.form,
                    "random_inputs": seeded, "seconds": round(run.stats["seconds"], 3),
                    **{k: v for k, v in run.stats["total"].items()}}
    if run.stats["seconds"] > 0:
        report["instructions_per_second"] = int(run.stats["total"]["instructions"] / run.stats["seconds"])
    if args.check:
        report.update(_check(program, arrays, run.outputs, args.directory, say))
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
            each = "".join(f"; {c['name']} {c['max_error_relative']:.3e}" for c in report.get("outputs", []))
            print(f"  max |error| vs {report['reference']}: {report['max_error']:.3e} "
                  f"({report['max_error_relative']:.3e} of the largest output{each})")
            if report["reference_all_zero"]:
                print(f"  note: {report['reference']}'s output is all zeros or subnormal (below float32's smallest "
                      "normal number, 1.2e-38), so the comparison checks little (an output layer initialized to "
                      "zeros, as torchvision's ViT head is, or activations a random initialization shrinks?)")
        if "integer_reference_bit_exact" in report:
            print("  " + _reference_line(report, sum(out.size for out in run.outputs.values())))
    return 0


def _reference_line(report: dict, positions: int) -> str:
    """The --check line against the quantized model's reference: bit-exact
    or not, for float arithmetic between the codecs too (the reference
    repeats the programs' float32 steps: raptor.quant.vector_unit), with
    the positions beyond float32 rounding."""
    floats = report["arithmetic"] == "float"
    what = "the quantized reference (float32 between the codecs)" if floats else "the integer reference"
    if report["integer_reference_bit_exact"]:
        return f"vs {what}: bit-exact"
    return (f"vs {what}: max |difference| {report['integer_reference_max_difference']:.3e}, beyond float32 "
            f"rounding at {report['integer_reference_differing']:,} of {positions:,} positions")


def _progress(quiet: bool, terminal_only: bool = False) -> Callable[[str], None]:
    """Progress lines on stderr (stdout keeps the report), or none with -q;
    with ``terminal_only``, only when stderr is a terminal (a script reading
    a failed simulation's stderr gets its one error line)."""
    if quiet or (terminal_only and not sys.stderr.isatty()):
        return lambda m: None
    return lambda m: print(m, file=sys.stderr, flush=True)


def _check(program, arrays: dict, outputs: dict, directory: str, say: Callable[[str], None]) -> dict:
    """``--check``: the simulated outputs against the model the manifest
    names (eager torch or onnxruntime) and, for int8, against the integer
    reference bit for bit. The figures are the worst output's (each
    output's error relative to its own largest value); with several
    outputs, ``outputs`` has each one's."""
    import numpy as np

    source = program.manifest.get("source", "")
    if source:
        say(f"[check] loading {source}")
    model = sources.load(source) if source else None
    try:
        if model is None or model.reference is None:
            raise UserError(f"--check needs the model's source (a zoo name, .pt2 or .onnx), not '{source}'")
        say(f"[check] running the model in {'eager torch' if model.reference_name == 'torch' else 'onnxruntime'} ...")
        refs = model.reference(*(arrays[name] for name, *_ in program.inputs))
        names = [name for name, *_ in program.outputs]
        compared = check.compare_outputs(names, [outputs[name] for name in names], refs)
        worst = check.worst(compared)
        report = {"reference": model.reference_name, "max_error": worst["max_error"],
                  "max_error_relative": worst["max_error_relative"],
                  "reference_all_zero": all(c["reference_all_zero"] for c in compared)}
        if len(compared) > 1:
            report["outputs"] = compared
        if "quantization" in program.manifest:
            from raptor import quant
            from raptor import weights as weight_files

            saved = Path(directory) / "reports" / "quantized_model.mlir"
            if not saved.is_file():
                raise UserError(f"'{directory}' lacks reports/quantized_model.mlir (the integer reference's IR)")
            module = ir.Module.parse(saved.read_text(), context=raptor.Context())
            say("[check] computing the integer reference ...")
            with _located(source):
                wants = quant.reference(module, {k: np.asarray(v, np.float32) for k, v in arrays.items()},
                                        weight_files.load(model.weights) if model.weights else {})
            agreement = check.integer_agreement([outputs[name] for name in names], wants)
            report.update({f"integer_reference_{key}": value for key, value in agreement.items()})
            report["arithmetic"] = program.manifest["quantization"].get("arithmetic", "integer")
        return report
    finally:
        if model is not None:  # an imported model's temporary weights file
            model.cleanup()


def _report_timing(program, args: argparse.Namespace, say: Callable[[str], None]) -> int:
    from raptor import pim

    if args.input or args.output or args.check:
        raise UserError("--timing moves no data: --input, --output and --check belong to functional runs")
    say(f"[timing] {'the steady state of streamed inferences' if args.throughput else 'one inference'} "
        "by pimsim-nn's rules ...")
    timing = program.time(args.throughput, max_instructions=args.max_instructions, timeline=bool(args.timeline))
    if args.timeline:
        from raptor.pim.timeline import timeline_svg

        write_atomically(args.timeline, timeline_svg(timing, str(args.directory)))
    schedule = program.manifest.get("schedule", {})
    schedule_ns = schedule.get("predicted_latency_ns", schedule.get("makespan_ns"))
    # Each task's predicted end beside its simulated one (its own core;
    # names that several operators share on a core are not compared).
    scheduled = program.scheduled_tasks()
    seen = Counter((t.name, t.core) for t in timing.tasks)
    predicted = {(t.name, t.core): s["predicted_start_ns"] + s["cost_ns"] for t in timing.tasks
                 if seen[(t.name, t.core)] == 1 and (s := scheduled.get((t.name, t.core)))
                 and "predicted_start_ns" in s}
    if args.json:
        report = {"directory": str(args.directory), "form": args.form, **timing.to_json()}
        for task in report["tasks"]:
            if (task["name"], task["core"]) in predicted:
                task["predicted_end_ns"] = predicted[(task["name"], task["core"])]
        if "makespan_ns" in schedule:
            report["schedule_makespan_ns"] = schedule["makespan_ns"]
        if schedule_ns is not None:
            report["latency_estimate_ns"] = schedule_ns
        print(json.dumps(report, indent=2))
    else:
        print(pim.format_timing(timing, str(args.directory), schedule_ns))
        if predicted:
            late = max((t for t in timing.tasks if (t.name, t.core) in predicted),
                       key=lambda t: abs(t.end_ns - predicted[(t.name, t.core)]))
            print(f"  tasks against the schedule: {len(predicted):,} compared; farthest "
                  f"{late.name.split(' ')[-1]} on core {late.core}, simulated end {late.end_ns / 1e6:.4f} ms, "
                  f"predicted {predicted[(late.name, late.core)] / 1e6:.4f} ms")
    return 0


def _save_npy(path: str, array) -> None:
    """An output array as a .npy file, written atomically."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array)
    write_atomically(path, buffer.getvalue())
