"""Compiling small torch models for the PIM back end in tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

import raptor
from raptor import pim, quant, sources, weights
from raptor.frontend.torch import import_program
from raptor.zoo import decomposition_table

TARGETS = Path(__file__).parent.parent / "lit" / "passes" / "pim" / "Inputs"


# One core, two crossbars of 8 x 8: x (16 f32) at global 0, y at 256, z at
# 512; x is loaded to local 1024, y to 2048; r4 = 3072 and r6 = 5120 are
# scratch, the body writes its result at r5 = 4096, which is stored to z
# (4 m bytes). `extra` adds chip-level ops (weights), `group` a core's
# crossbar groups.
ONE_CORE = """pim.chip @m cores 1 crossbars 2 of [8, 8] memory 8192 {{
  pim.io @x "input" name "x" at 0 : tensor<16xf32> layout #layout.layout<(16):(1)>
  pim.io @y "input" name "y" at 256 : tensor<16xf32> layout #layout.layout<(16):(1)>
  pim.io @z "output" name "z" at 512 : tensor<{m}xf32> layout #layout.layout<({m}):(1)>
{extra}  pim.core 0 {{
{group}    pim.setbw 32, 32
    pim.sldi r0, 0
    pim.sldi r1, 0
    pim.sldi r2, 1024
    pim.ld r2, r0 size 64
    pim.sldi r1, 256
    pim.sldi r3, 2048
    pim.ld r3, r0 size 64
    pim.sldi r4, 3072
    pim.sldi r5, 4096
    pim.sldi r6, 5120
{body}    pim.sldi r1, 512
    pim.st r0, r5 size {b}
  }}
}}
"""


def run_one_core(tmp_path: Path, body: str, x: np.ndarray, y: np.ndarray, m: int = 16, extra: str = "",
                 group: str = "") -> pim.Simulation:
    """``body`` run in the ONE_CORE program on inputs x and y (16 each);
    its output z has m elements."""
    from mlir import ir

    from raptor import _raptor

    text = ONE_CORE.format(m=m, b=4 * m, body=body, extra=extra, group=group)
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(text), str(tmp_path / "p"), "none")
    return pim.simulate(tmp_path / "p", {"x": x.astype(np.float32), "y": y.astype(np.float32)})


@dataclass
class Int8Mvmul:
    """An int8 MVM on ONE_CORE: 8 x 12 integer cells over two crossbars
    (``weights``, k x n), the inputs' first 8 elements quantized to codes
    (``x``: integers, so the scale 1 keeps them) and multiplied in int32."""

    weights: np.ndarray
    x: np.ndarray
    body: str
    extra: str
    group: str


def int8_mvmul(rng: np.random.Generator, relu: bool = False) -> Int8Mvmul:
    w = rng.integers(-127, 128, (8, 12)).astype(np.float32)  # k x n
    dense = ", ".join(f"{v:.1f}" for v in w.T.ravel())
    extra = f"  pim.weight @w dense<[{dense}]> : tensor<96xf32>\n"
    group = "    pim.group 0 crossbars 2 weight @w matrix #layout.layout<(8,12):(1,8)> rows [0, 8] cols [0, 12]\n"
    x = rng.integers(-127, 128, 16).astype(np.float32)
    body = ("    pim.ext.vquant r4, r2, r3 len 16 : i8\n"
            "    pim.setbw 8, 32\n"
            f"    pim.mvmul r5, r4, group 0 mbiw 8{' {relu = true}' if relu else ''}\n")
    return Int8Mvmul(w, x, body, extra, group)


@dataclass
class Run:
    output: np.ndarray
    reference: np.ndarray
    stats: dict
    manifest: dict
    directory: Path

    @property
    def relative_error(self) -> float:
        return float(np.abs(self.output - self.reference).max() / np.abs(self.reference).max())


def small_target(cores: int, mesh: tuple[int, int], crossbars: int, size: int = 16,
                 local_bytes: int = 1 << 20) -> dict:
    """A test chip in the target format: `cores` cores on a `mesh` of them,
    each with `crossbars` crossbars of `size` x `size` 8-bit cells."""
    return {"name": f"tests: {cores} cores x {crossbars} crossbars of {size}x{size}", "clock": {"period_ns": 1.0},
            "cores": {"count": cores, "mesh_rows": mesh[0], "mesh_cols": mesh[1]},
            "crossbar": {"per_core": crossbars, "rows": size, "cols": size, "cell_bits": 8, "weight_bits": 8},
            "network": {"link_bytes_per_cycle": 4, "hop_latency_cycles": 1}, "memory": {"local_bytes": local_bytes}}


def isaac_target(directory: Path, *, cores: int | None = None, crossbars: int | None = None,
                 local_bytes: int | None = None) -> Path:
    """The bundled 168-core chip (its crossbars, network and timing) with
    ``cores`` cores on a square mesh, ``crossbars`` per core or
    ``local_bytes`` of local memory instead, written to ``directory``."""
    import json

    chip = json.loads((Path(raptor.__file__).parent / "spatial" / "targets" / "isaac168.json").read_text())
    if cores is not None:
        side = int(cores ** 0.5)
        chip["cores"] = {"count": cores, "mesh_rows": side, "mesh_cols": cores // side}
    if crossbars is not None:
        chip["crossbar"]["per_core"] = crossbars
    if cores is not None or crossbars is not None:
        chip["name"] = f"{chip['cores']['count']} cores x {chip['crossbar']['per_core']} crossbars of 128x128"
    if local_bytes is not None:
        chip["memory"] = {"local_bytes": local_bytes}
    path = directory / "target.json"
    path.write_text(json.dumps(chip))
    return path


def randomize(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Non-trivial batch-norm statistics and affine parameters, so that a
    folded norm is really tested and activations keep their scale."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
            m.running_var.copy_(0.5 + torch.rand(n, generator=g))
            m.weight.data.copy_(0.8 + 0.4 * torch.rand(n, generator=g))
            m.bias.data.copy_(0.1 * torch.randn(n, generator=g))
    return model.eval()


def export(model: torch.nn.Module, x: torch.Tensor) -> torch.export.ExportedProgram:
    with torch.no_grad():
        return torch.export.export(model.eval(), (x,), strict=False).run_decompositions(decomposition_table())


def imported(model: torch.nn.Module, x: torch.Tensor, weights_file: Path):
    """The model exported on `x` and imported (an nn module), its weights
    saved to `weights_file`."""
    ep = export(model, x)
    module, _ = import_program(ep)
    weights.save(weights_file, weights.from_exported_program(ep, module))
    return module


def compile_and_run(model: torch.nn.Module, x: torch.Tensor, directory: Path, *, target: Path | None = None,
                    pimsim: str = "binary", form: str = "compact", replicate: str = "time",
                    replication_budget: float = 0.5, pipeline: int | None = None,
                    transfers: str = "auto", crossing: str = "auto", lane_tiles: int | str | None = None) -> Run:
    """Exports, imports, compiles into `directory`, simulates on `x` and
    runs the eager model on it."""
    w = directory.parent / f"{directory.name}.safetensors"
    module = imported(model, x, w)
    result = pim.compile(module, directory, weights=w, target=target, pimsim=pimsim, source="test",
                         replicate=replicate, replication_budget=replication_budget, pipeline=pipeline,
                         transfers=transfers, crossing=crossing, lane_tiles=lane_tiles)
    program = pim.Program.load(directory, form)
    simulation = program.simulate(x.numpy())
    with torch.no_grad():
        reference = model(x)
    reference = reference[0] if isinstance(reference, (tuple, list)) else reference
    (output,) = simulation.outputs.values()
    return Run(output, reference.detach().numpy(), simulation.stats, result.manifest, directory)


def compile_source(source: Path, out: Path, **options) -> pim.Program:
    """A .pt2 or .onnx file imported strictly and compiled into `out`
    (``options`` as raptor.pim.compile takes them), loaded."""
    from raptor import sources

    model = sources.load(str(source), strict=True)
    try:
        pim.compile(model.module, out, weights=model.weights, source=str(source), **options)
    finally:
        model.cleanup()
    return pim.Program.load(out)


def int8_ids_program_agrees(source: Path, out: Path, model: torch.nn.Module, ids: np.ndarray,
                            input_name: str | None = None) -> pim.Program:
    """``source`` (a model fed token ids) compiled at int8 into ``out`` and
    simulated on ``ids``: equal bit for bit to the quantized reference
    (the IR the back end read, on the source's weights), and within cosine
    0.99 of ``model`` in eager torch. Returns the program."""
    program = compile_source(source, out, precision="int8")
    (got,) = program.simulate(ids).outputs.values()
    module = sources.load(str(out / "reports" / "quantized_model.mlir"), weights_as=None).module
    imported = sources.load(str(source), weights_as="arrays")
    name = input_name or program.inputs[0][0]
    (reference,) = quant.reference(module, {name: ids.astype(np.float32)}, imported.tensors)
    assert np.array_equal(got, reference)
    with torch.no_grad():
        want = model(torch.from_numpy(ids)).numpy()
    cosine = float(got.ravel() @ want.ravel() / (np.linalg.norm(got) * np.linalg.norm(want)))
    assert cosine >= 0.99, cosine
    return program


def simulated_check(source: Path, out: Path, capsys: "pytest.CaptureFixture[str]", **options) -> dict:
    """``source`` compiled into ``out`` (:func:`compile_source`), then the
    JSON report of ``raptor simulate OUT --check --json`` (exit 0 asserted)."""
    import json

    from raptor import cli

    compile_source(source, out, **options)
    capsys.readouterr()
    assert cli.main(["simulate", str(out), "--check", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def pipelined_and_int8_agree(source: Path, tmp_path: Path, capsys: "pytest.CaptureFixture[str]", *,
                             pipeline: int, float_bound: float, int8_bound: float) -> None:
    """``source`` compiled with ``--pipeline`` and at int8, each checked by
    ``raptor simulate --check``: the pipeline within ``float_bound`` of torch
    (relative to the largest output), the int8 program equal to the
    quantized reference bit for bit and within ``int8_bound`` of torch;
    neither reference all zeros."""
    for name, options in ((f"p{pipeline}", {"pipeline": pipeline}), ("int8", {"precision": "int8"})):
        check = simulated_check(source, tmp_path / name, capsys, **options)
        assert not check["reference_all_zero"]
        if name == "int8":
            assert check["integer_reference_bit_exact"] and check["max_error_relative"] < int8_bound
        else:
            assert check["max_error_relative"] < float_bound


def onnx_agrees(model: torch.nn.Module, x: torch.Tensor, tmp_path: Path, bound: float = 2e-6) -> None:
    """The model exported to ONNX (opset 17, the TorchScript exporter),
    compiled and simulated on `x`, equals onnxruntime within `bound` of the
    largest output."""
    import warnings

    onnx_file = tmp_path / "m.onnx"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), onnx_file, dynamo=False, opset_version=17)
    program = compile_source(onnx_file, tmp_path / "onnx")
    session = sources.onnxruntime_session(str(onnx_file))
    (want,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    (got,) = program.simulate(x.numpy()).outputs.values()
    assert got.shape == want.shape and np.abs(got - want).max() <= bound * np.abs(want).max()


class OutputField(torch.nn.Module):
    """A transformers model fed one tensor as ``argument`` (``pixel_values``,
    ``input_values``), returning one field of its output
    (``last_hidden_state``, ``predicted_depth``)."""

    def __init__(self, model: torch.nn.Module, field: str = "last_hidden_state",
                 argument: str = "pixel_values") -> None:
        super().__init__()
        self.model, self.field, self.argument = model, field, argument

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return getattr(self.model(**{self.argument: x}), self.field)
