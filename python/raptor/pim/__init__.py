"""The PIM back end: per-core programs, their files, functional and timing simulation.

    import raptor
    from raptor import pim, zoo
    result = pim.compile(zoo.load_graph("shufflenet_v2"), "out",
                         weights=zoo.weights_file("shufflenet_v2"))
    program = pim.Program.load("out")
    run = program.simulate({"x": x})          # numpy float32 arrays by input name
    run.outputs["out0"], run.stats["total"]["instructions"]
    program.time().latency_ns                 # pimsim-nn's timing rules

The compile is C++ pass pipelines (passes/pipeline/CompilePipeline.h: the
ones `raptor-opt --raptor-compile` runs) driven with typed options; the
program directory format is described in docs/pim.md.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from mlir import ir

from .. import _raptor
from .. import weights as weight_files
from .._io import UserError, current_umask, diagnostics_error, located_error
from ..spatial import resolve_target
from . import _outputs
from .report import format_summary, summary
from .timing import CoreTiming, Periodic, TaskTiming, Timing, format_periodic, format_timing

__all__ = ["CompileResult", "CoreTiming", "Periodic", "Program", "Simulation", "SimulationError", "TaskTiming", "Timing",
           "check_output", "compile", "format_periodic", "format_summary", "format_timing", "simulate", "summary"]

#: The spellings of the compile's enumerated options (the C++ vocabularies).
PIMSIM_FORMS: tuple[str, ...] = tuple(name for name, _ in _raptor.vocabulary("pimsim"))
PRECISIONS: tuple[str, ...] = tuple(name for name, _ in _raptor.vocabulary("precision"))
#: The number formats between an int8 program's codecs (docs/quantization.md).
ARITHMETICS = ("auto", "integer", "float")


class SimulationError(UserError):
    """The program faulted (out-of-bounds access) or deadlocked."""


@dataclass
class CompileResult:
    """What :func:`compile` wrote and how long each step took (seconds by
    step, in order)."""

    directory: Path
    manifest: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)


def compile(module: ir.Module, output: str | os.PathLike[str], *,
            weights: str | os.PathLike[str] | weight_files.Weights | None = None,
            target: str | os.PathLike[str] | None = None, algorithm: str = "peft", replicate: str = "auto",
            replication_budget: float = 0.5, pipeline: int | None = None, follow_rows: bool | None = None,
            row_block: int | str | None = None, lane_tiles: int | str | None = None, transfers: str = "auto",
            crossing: str = "auto",
            precision: str = "fp32", policy: str = "Y", placement: str = "nonlocal-coalesced",
            calibration: list[Mapping[str, np.ndarray]] | None = None, calibration_samples: int = 4,
            arithmetic: str = "auto", pimsim: str = "binary",
            unroll_limit: int = 16_000_000, source: str = "<module>",
            progress: Callable[[str], None] | None = None) -> CompileResult:
    """Compiles the ``nn`` module into the program directory ``output``.

    The passes are C++ (passes/pipeline/CompilePipeline.h): the phases
    ``raptor-prepare-model`` and ``raptor-compile-backend`` (for int8 with
    calibration, which needs torch, between them), the same pipelines
    ``raptor-opt --raptor-compile`` runs. ``weights`` is the safetensors
    file of the ``nn.param`` weights (a path or an open
    :class:`raptor.weights.Weights`; read once); ``target`` a target file
    or a bundled target's name (:func:`raptor.spatial.bundled_targets`)
    (default: the bundled 168-core chip; read once, then the module's
    ``pim.target``); ``replicate`` how weight lanes are copied onto spare
    crossbars (time, windows, balance, none, or auto: time in latency mode,
    balance in pipeline mode; within ``replication_budget`` of the chip's
    crossbars, docs/scheduling.md); ``pipeline=N`` schedules for
    throughput in at most N stages instead of latency (the search is
    recorded in ``reports/pipeline_selection.json`` of the directory);
    ``follow_rows`` whether element-wise and pooling operators follow their
    input's row copies (default: in pipeline mode only); ``row_block=R``
    (latency mode) streams rows within an inference: convolutions compute
    their output rows in blocks of about R rows, one task each, and the
    layers after them start on the first blocks (0: whole tensors; 'auto':
    blocks of 8 rows, of 4, or whole tensors, whichever the scheduler's
    queue model predicts clearly faster, the choice in the manifest's
    ``schedule.row_block``; None: the compiler's default, 'auto'; pipeline
    mode takes whole tensors for 'auto'); ``lane_tiles=T`` (latency mode)
    cuts each convolution's and linear layer's weight columns into lanes of
    at most about T row tiles, whose partial sums their readers add: a lane
    runs one MVM per row tile for each output position, so shorter lanes
    on more cores shorten copies whose rows cannot be split further (0:
    as many as a core holds; docs/scheduling.md, "Shorter
    lanes"); 'auto' or None, the default: in latency mode 3 unless a
    shorter height (2 or 1) is predicted at least 5% faster by the queue
    model (the taller lanes are lowered when the shorter ones' programs do
    not fit local memory), full lanes in pipeline mode and where the short
    lanes' partial sums do not fit local memory (lowered again, said
    through ``progress``); ``transfers``
    (latency mode) how
    data goes to other cores: 'rendezvous' (send and receive, each waiting
    for the other), 'global' (each producer stores its output to global
    memory after its work and signals its readers, which load it: no
    sender waits) or 'auto' (whichever the queue model predicts faster, the
    choice in the manifest's ``schedule.transfers``); ``crossing`` (pipeline
    mode) how data crosses to later stages: 'local', 'global',
    'interleaved', 'skewed' (a core of level l works on inference f - l in
    pass f: the first inference takes as many passes as there are levels,
    which the manifest's ``program.frames`` says and the simulators run) or
    'auto' (the form the queue model finds cheapest, skewed only when
    predicted 10% faster than the others, the choice in the
    manifest's ``schedule.crossing``);
    ``precision='int8'`` places codecs for ``policy`` (Y, X, W) with
    ``placement`` (local, nonlocal, nonlocal-coalesced), calibrates them on
    ``calibration`` (input dicts; default ``calibration_samples`` seeded
    random inputs) and emits int8 programs (docs/quantization.md; the
    calibrated nn IR is kept as reports/quantized_model.mlir, from which
    ``raptor-opt --raptor-compile-backend`` replays the rest) whose
    ``arithmetic`` is 'integer' (pimsim-nn's instructions only, fixed point
    between the codecs; an operator without an integer lowering is an
    error), 'float' (f32 between the codecs, extension instructions for the
    conversions) or 'auto' (integer when every operator allows it); ``pimsim``
    which pimsim-nn program files to write (binary, json, both, none),
    skipped (the manifest says why) when the program uses extension
    instructions or unrolls to more than ``unroll_limit`` instructions
    (0: no limit).
    The directory appears only when every step succeeded (its missing
    parents are created; an existing program directory there is replaced,
    anything else is refused before any work: see :func:`check_output`). The module is changed in place
    (it ends holding the nn graph, its schedule and the pim chip).
    Raises UserError with located diagnostics, ValueError for an unknown
    option value.
    """
    options = _raptor.CompileOptions()
    # The setters check each spelling against the C++ vocabulary.
    options.precision, options.algorithm, options.replicate, options.pimsim = precision, algorithm, replicate, pimsim
    options.transfers, options.crossing = transfers, crossing
    if pipeline is not None and (isinstance(pipeline, bool) or not isinstance(pipeline, int) or pipeline < 1):
        raise ValueError(f"pipeline depth must be a positive integer, not {pipeline!r}")
    options.pipeline_depth = pipeline or 0
    options.follow_rows = "auto" if follow_rows is None else "on" if follow_rows else "off"
    if row_block == "auto":
        options.row_block, options.row_block_alternative = _raptor.AUTO_ROW_BLOCK, True
    elif row_block is not None:
        if isinstance(row_block, bool) or not isinstance(row_block, int) or row_block < 0:
            raise ValueError(f"row_block must be a non-negative integer or 'auto', not {row_block!r}")
        options.row_block, options.row_block_alternative = row_block, False
    if lane_tiles is None or lane_tiles == "auto":
        options.lane_tiles, options.lane_tiles_auto = _raptor.AUTO_LANE_TILES, True
    elif isinstance(lane_tiles, bool) or not isinstance(lane_tiles, int) or lane_tiles < 0:
        raise ValueError(f"lane_tiles must be a non-negative integer or 'auto', not {lane_tiles!r}")
    else:
        options.lane_tiles, options.lane_tiles_auto = lane_tiles, False
    options.replication_budget = replication_budget
    options.unroll_limit = unroll_limit
    options.source = source
    if precision == "int8":
        from .. import codec

        if policy not in codec.POLICIES:
            raise ValueError(f"unknown policy '{policy}' (expected one of {', '.join(codec.POLICIES)})")
        options.policy, options.placement = policy, placement
        if calibration is None and calibration_samples < 1:
            raise ValueError("calibration needs at least one sample")
        if arithmetic not in ARITHMETICS:
            raise ValueError(f"unknown arithmetic '{arithmetic}' (expected one of {', '.join(ARITHMETICS)})")
    target_path = resolve_target(target)
    try:
        chip = _raptor.Target.load(str(target_path))
    except ValueError as e:
        raise UserError(str(e)) from None
    out = Path(output)
    read = weights.path if isinstance(weights, weight_files.Weights) else weights
    _outputs.check_replaceable(out, [read if isinstance(read, (str, os.PathLike)) else None, target])
    if isinstance(weights, (str, os.PathLike)):
        weights = weight_files.load(weights)
    say = progress or (lambda _: None)
    handle = weights.handle if weights is not None else None
    seconds: dict[str, float] = {}
    steps = _Steps(say, sum(len(_raptor.compile_steps(phase, options)) for phase in _phases(precision)) +
                   (1 if precision == "int8" else 0))
    with _outputs.staging(out) as staging:
        options.output = str(staging)
        with module.context:
            chip.attach(module)
            try:
                quantized_ir = None
                if precision == "int8":
                    _check_float_graph(module)
                seconds.update(steps.run(module, "prepare-model", options, None))
                if precision == "int8":
                    seconds.update(steps.timed("calibrating", lambda: _calibrate(
                        module, weights, calibration, calibration_samples, arithmetic, policy, placement, source)))
                    # The integer reference's input, and the replay's; with
                    # the model's locations, so that its diagnostics name the
                    # user's operators, not lines of this file.
                    quantized_ir = module.operation.get_asm(enable_debug_info=True)
                seconds.update(_backend(module, steps, options, handle, say))
            except ir.MLIRError as e:
                raise diagnostics_error(e, source) from None
        if quantized_ir is not None:
            (staging / "reports").mkdir(exist_ok=True)
            (staging / "reports" / "quantized_model.mlir").write_text(quantized_ir)
        manifest = json.loads((staging / "manifest.json").read_text())
        os.chmod(staging, 0o777 & ~current_umask())
        _outputs.install(staging, out)
    return CompileResult(out, manifest, seconds)


def check_output(output: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str] | None] = ()) -> None:
    """Raises UserError unless :func:`compile` may write ``output``: it does
    not exist, or is empty, or is a program directory holding only what
    Raptor writes (no symbolic link, no user's file), and none of the files
    ``inputs`` lies inside it. Commands call it before any work."""
    _outputs.check_replaceable(Path(output), inputs)


def _phases(precision: str) -> tuple[str, ...]:
    return ("prepare-model", "compile-backend")


#: A pipeline's compile again when the crossing form it chose runs out of
#: local memory: first the search's best form of those that keep no data in
#: local memory across the iteration (global, interleaved), then
#: interleaved alone (no relays of global crossings either).
_CROSSING_RETRIES = (
    ("the pipeline does not fit local memory: compiling again with its stages' data crossing through global "
     "memory or interleaved with the work", {"local_boundaries": False}),
    ("the pipeline still does not fit local memory: compiling again with --crossing interleaved",
     {"crossing": "interleaved"}),
)


def _backend(module: ir.Module, steps: _Steps, options: Any, weights: Any,
             say: Callable[[str], None]) -> list[tuple[str, float]]:
    """The backend phase, and when its choice does not fit local memory,
    once more per alternative: with the default lane height (``lane_tiles``
    'auto', latency mode) full lanes when the short lanes' partial sums do
    not fit (U-Net with ``replicate='none'``: its readers would hold a
    whole map per lane), as the compute graph keeps full lanes when short
    ones do not pack onto the crossbars; in a pipeline whose crossing the
    compile chooses (``crossing='auto'``), the forms of ``_CROSSING_RETRIES``
    when a core runs out of local memory, which the pipeline search only
    estimates. The module ends holding the compile that succeeded."""
    lanes = options.lane_tiles_auto and options.pipeline_depth == 0
    crossings = options.pipeline_depth > 0 and options.crossing == "auto"
    if not (lanes or crossings):
        return steps.run(module, "compile-backend", options, weights)
    saved = module.operation.clone()
    announced = steps.done
    try:
        try:
            return steps.run(module, "compile-backend", options, weights)
        except ir.MLIRError as e:
            if lanes and _raptor.SHORT_LANES_MARKER in str(e):
                alternatives = [("short lanes' partial sums do not fit local memory: compiling again with full "
                                 "lanes (--lane-tiles 0)", {"lane_tiles": 0, "lane_tiles_auto": False})]
            elif crossings and _raptor.LOCAL_MEMORY_MARKER in str(e):
                alternatives = list(_CROSSING_RETRIES)
            else:
                raise
            failure = e
        for message, change in alternatives:
            say(message)
            for name, value in change.items():
                setattr(options, name, value)
            for op in list(module.body.operations):
                op.erase()
            attempt = saved.clone()
            for op in list(attempt.regions[0].blocks[0].operations):
                module.body.append(op)
            attempt.erase()
            steps.done = announced
            try:
                return steps.run(module, "compile-backend", options, weights)
            except ir.MLIRError as e:
                if _raptor.LOCAL_MEMORY_MARKER not in str(e):
                    raise
                failure = e
        raise failure
    finally:
        saved.erase()


class _Steps:
    """Numbers the steps of a compile across its phases for progress lines."""

    def __init__(self, say: Callable[[str], None], total: int) -> None:
        self.say, self.total, self.done = say, total, 0

    def _announce(self, what: str) -> None:
        self.done += 1
        self.say(f"[{self.done}/{self.total}] {what} ...")

    def run(self, module: ir.Module, phase: str, options: Any, weights: Any) -> list[tuple[str, float]]:
        return _raptor.run_compile_phase(module, phase, options, weights, self._announce)

    def timed(self, what: str, run: Callable[[], None]) -> list[tuple[str, float]]:
        self._announce(what)
        start = time.perf_counter()
        run()
        return [(what, time.perf_counter() - start)]


def _check_float_graph(module: ir.Module) -> None:
    """Builds the float32 compute graph of a copy of ``module``: an int8
    compile refuses what a float32 one would, with the same diagnostic,
    before calibration runs the model (whose interpreter would stop at
    the same operator with torch's words)."""
    copy = module.operation.clone()
    prepare = _raptor.CompileOptions()
    prepare.precision = "fp32"
    try:
        _raptor.run_compile_phase(copy, "prepare-model", prepare)
        _raptor.build_compute_graph(copy)
    finally:
        copy.erase()


def _calibrate(module: ir.Module, weights: Mapping[str, np.ndarray] | None,
               samples: list[Mapping[str, np.ndarray]] | None, count: int, arithmetic: str, policy: str,
               placement: str, source: str) -> None:
    """Chooses integer or float arithmetic, calibrates the placed module (one
    requantization per int8 layer in integer programs) and records the
    quantization on the module (``raptor.quantization``, which the emitter
    writes into the manifest). Asked for integer arithmetic, a module with
    an operator that has no integer lowering goes on to the lowering, which
    refuses it with its location."""
    from .. import quant

    quant.require_encoded(module, policy)
    refusal = quant.integer_refusal(module)
    integer = arithmetic == "integer" or (arithmetic == "auto" and refusal is None)
    inputs = samples if samples is not None else quant.random_inputs(module, count)
    try:
        cal = quant.calibrate(module, weights or {}, inputs, "given" if samples is not None else
                              f"{count} seeded random inputs", integer=integer, fallback=arithmetic == "auto")
    except quant.OperatorError as e:
        raise located_error(e.location, e.message, source) from None
    integer = integer and cal.fixed_point_bits is not None  # 'auto' falls back beyond the fixed point's reach
    if integer:  # one requantization per int8 layer (the reference reads the fused IR too)
        _raptor.fuse_rescales(module)
    report: dict[str, Any] = {"policy": policy, "placement": placement, "arithmetic": "integer" if integer else "float",
                              "calibration": cal.as_dict(), "encoded_subgraphs": len(cal.scales)}
    if not integer and refusal:
        report["integer_refusal"] = refusal
    if cal.fixed_point_refusal:
        report["fixed_point_refusal"] = cal.fixed_point_refusal
    _raptor.set_report(module, "raptor.quantization", report)


@dataclass
class Simulation:
    """A functional simulation's outputs (by name) and counters."""

    outputs: dict[str, np.ndarray]
    stats: dict[str, Any]


class Program:
    """A compiled program directory, loaded into C++."""

    def __init__(self, handle: Any, directory: Path) -> None:
        self._handle = handle
        self.directory = directory

    @classmethod
    def load(cls, directory: str | os.PathLike[str], form: str = "compact") -> Program:
        """Reads ``directory``; ``form`` 'compact' (Raptor's loops) or
        'pimsim' (pimsim-nn's unrolled files). Malformed or truncated
        directories raise UserError naming the file."""
        if form not in ("compact", "pimsim"):
            raise ValueError("form must be 'compact' or 'pimsim'")
        try:
            return cls(_raptor.PimProgram.load(str(directory), form), Path(directory))
        except ValueError as e:
            raise UserError(str(e)) from None

    @property
    def inputs(self) -> list[tuple[str, tuple[int, ...], str]]:
        """(name, shape, dtype) of each model input."""
        return list(self._handle.inputs)

    @property
    def outputs(self) -> list[tuple[str, tuple[int, ...], str]]:
        return list(self._handle.outputs)

    @property
    def vocabularies(self) -> dict[str, int]:
        """The inputs holding token ids (an embedding's indices), each with
        its vocabulary size: the ids it may hold are 0..size-1."""
        return dict(self._handle.vocabularies)

    def scheduled_tasks(self) -> dict[tuple[str, int], dict[str, int]]:
        """The schedule per task (``reports/schedule_tasks.json``), keyed as
        :attr:`Timing.tasks` are, (name, core): ``cost_ns``, the list
        schedule's ``start_ns`` and the queue model's
        ``predicted_start_ns``. Two tasks of one name on one core (graphs
        whose operators share a location name) say nothing about either:
        they are left out. Empty for a directory without the report;
        UserError when it is malformed."""
        path = self.directory / "reports" / "schedule_tasks.json"
        if not path.is_file():
            return {}
        try:
            rows = json.loads(path.read_text())
            out: dict[tuple[str, int], dict[str, int]] = {}
            ambiguous = set()
            for r in rows:
                if not isinstance(r["name"], str) or not all(
                        isinstance(r[k], int) for k in ("core", "cost_ns") if k in r):
                    raise TypeError("a name must be a string and core, cost_ns integers")
                if "core" in r:
                    key = (r["name"], r["core"])
                    if key in out:
                        ambiguous.add(key)
                    out[key] = {k: v for k, v in r.items() if k not in ("name", "core")}
            return {k: v for k, v in out.items() if k not in ambiguous}
        except (ValueError, TypeError, KeyError) as e:
            raise UserError(f"'{path}' is not a schedule report: {type(e).__name__}: {e}") from None

    @property
    def manifest(self) -> dict[str, Any]:
        return json.loads((self.directory / "manifest.json").read_text())

    def sizes(self) -> list[tuple[int, int, int]]:
        """(core, compact instructions, unrolled instructions) per core."""
        return list(self._handle.sizes())

    def time(self, throughput: bool = False, max_generations: int | None = None,
             max_instructions: int | None = None, timeline: bool = False) -> Timing:
        """Times the program with pimsim-nn's rules and the directory's
        chip.json and network.json. ``throughput`` runs every core's program
        as a loop body (at most ``max_generations`` passes, default 64) and
        reports the initiation interval; ``timeline`` records the first
        pass's spans of every core (``Timing.timeline``, drawn by
        :func:`raptor.pim.timeline.timeline_svg`). Raises SimulationError on
        a deadlock or an exhausted instruction budget, UserError on a
        missing or malformed configuration."""
        for name, value in (("max_generations", max_generations), ("max_instructions", max_instructions)):
            if value is not None and value <= 0:
                raise UserError(f"{name} must be positive, not {value}")
        try:
            stats = self._handle.time(throughput, max_generations or 0, max_instructions or 0, timeline)
        except ValueError as e:
            raise UserError(str(e)) from None
        if not stats["ok"]:
            raise SimulationError(stats["error"])
        return Timing.from_stats(stats, throughput)

    def periodic(self) -> Periodic:
        """The periodic dependency diagnostic (docs/timing.md): the event
        graph of the programs run as loop bodies, its exact maximum cycle
        ratio and critical cycle. Read-only; UserError on a missing or
        malformed chip.json or network.json."""
        try:
            return Periodic.from_stats(self._handle.periodic())
        except ValueError as e:
            raise UserError(str(e)) from None

    def simulate(self, inputs: Mapping[str, np.ndarray] | np.ndarray,
                 max_instructions: int | None = None, interleaving_seed: int | None = None) -> Simulation:
        """Runs every core's program functionally. ``inputs`` maps input
        names to arrays (a single array is the only input).
        ``max_instructions`` bounds the instructions executed by all cores
        (loops counted; default four billion). By default the cores run in
        turn, each until it blocks; ``interleaving_seed`` (a positive
        integer) runs them instead in a random interleaving drawn from it,
        cores running ahead of or behind each other: a race-free program
        gives the same outputs under every seed. Raises SimulationError on
        a deadlock, a fault or an exhausted budget, UserError on bad
        inputs."""
        if max_instructions is not None and max_instructions <= 0:
            raise UserError(f"max_instructions must be positive, not {max_instructions}")
        if interleaving_seed is not None and not 0 < interleaving_seed < 2**64:
            raise UserError(f"interleaving_seed must be a positive 64-bit integer, not {interleaving_seed}")
        if isinstance(inputs, np.ndarray):
            if len(self.inputs) != 1:
                raise UserError(f"the model has {len(self.inputs)} inputs: give them by name")
            inputs = {self.inputs[0][0]: inputs}
        arrays = {}
        shapes = {name: shape for name, shape, _ in self.inputs}
        for name, value in inputs.items():
            if name not in shapes:
                raise UserError(f"the model has no input '{name}' (inputs: {', '.join(shapes)})")
            array = np.asarray(value)
            if tuple(array.shape) != tuple(shapes[name]):
                raise UserError(f"input '{name}' has shape {tuple(array.shape)} but the model expects "
                                f"{tuple(shapes[name])}")
            arrays[name] = np.ascontiguousarray(array, dtype=np.float32)
        missing = set(shapes) - set(arrays)
        if missing:
            raise UserError(f"missing input(s): {', '.join(sorted(missing))}")
        try:
            outputs, stats = self._handle.simulate(arrays, max_instructions or 0, interleaving_seed or 0)
        except ValueError as e:
            raise UserError(str(e)) from None
        if not stats["ok"]:
            raise SimulationError(stats["error"])
        return Simulation({k: np.array(v) for k, v in outputs.items()}, stats)


def simulate(directory: str | os.PathLike[str], inputs: Mapping[str, np.ndarray] | np.ndarray,
             form: str = "compact", max_instructions: int | None = None,
             interleaving_seed: int | None = None) -> Simulation:
    """:meth:`Program.load` then :meth:`Program.simulate`."""
    return Program.load(directory, form).simulate(inputs, max_instructions, interleaving_seed)
