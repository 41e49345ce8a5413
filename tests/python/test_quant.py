"""Quantized compilation: int8 numbers against numpy, the integer
instructions of the simulator, calibration at the observation points, and
int8 programs equal to the integer reference bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import export, int8_mvmul, randomize, run_one_core
from torch import nn

import raptor
from raptor import codec, pim, quant, weights
from raptor._io import UserError
from raptor.frontend.torch import import_program
from raptor.quant.interpreter import evaluate



def test_per_channel_codes_and_scales_follow_the_definition() -> None:
    """scale = channel max / 127 (1 for an all-zero channel); codes are
    round-half-even(w / scale) in [-127, 127], +-127 at the maximum, and
    dequantize within half a step."""
    w = np.random.default_rng(7).standard_normal((5, 3, 3, 3)).astype(np.float32)
    w[2] = 0
    codes, scales = quant.quantize_per_channel(w)
    for n in range(5):
        amax = np.float32(np.abs(w[n]).max())
        expect = np.float32(amax / np.float32(127)) if amax > 0 else np.float32(1)
        assert scales[n] == expect
        assert np.all(codes[n] == np.clip(np.rint(w[n] / expect), -127, 127))
        assert np.abs(codes[n]).max() == (127 if amax > 0 else 0)
        assert np.abs(codes[n] * scales[n] - w[n]).max() <= scales[n] / 2 + 1e-7
    assert quant.scale_of(0.0) == 1 and quant.scale_of(float("inf")) == 1


def simulate(tmp_path: Path, body: str, x: np.ndarray, y: np.ndarray, m: int = 16, extra: str = "",
             group: str = "") -> np.ndarray:
    return run_one_core(tmp_path, body, x, y, m, extra, group).outputs["z"]


def test_quantize_and_dequantize_instructions(tmp_path: Path) -> None:
    """ext.vquant rounds x * y[0] (one multiplier) half to even and
    saturates to [-127, 127]; ext.vdequant scales the codes back by y."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 126.6, 300, -300, 3.2, -3.7, 0, 7, 1e9, -1e9, 0.49, 64.5],
                 np.float32)
    y = np.full(16, 1.0, np.float32)
    body = ("    pim.ext.vquant r4, r2, r3 len 16 : i8\n"
            "    pim.ext.vdequant r5, r4, r3 len 16 : i8\n")
    out = simulate(tmp_path, body, x, y)
    np.testing.assert_array_equal(out, np.clip(np.rint(x), -127, 127))
    y = np.full(16, 0.25, np.float32)
    out = simulate(tmp_path, body, x, y)
    np.testing.assert_array_equal(out, np.clip(np.rint(x * np.float32(0.25)), -127, 127) * np.float32(0.25))


def test_int8_mvmul_sums_codes_exactly_in_int32(tmp_path: Path) -> None:
    """int8 inputs (setbw 8, 32) times integer cells of two crossbars:
    the int32 sums equal numpy's integer product."""
    case = int8_mvmul(np.random.default_rng(8))
    out = simulate(tmp_path, case.body, case.x, np.ones(16, np.float32), extra=case.extra, group=case.group)
    sums = out.view(np.int32)
    expect = (case.x[:8].astype(np.int64) @ case.weights.astype(np.int64))
    np.testing.assert_array_equal(sums[:12], expect)
    np.testing.assert_array_equal(sums[12:16], 0)


@pytest.mark.parametrize("op, expect", [
    ("vvadd", lambda a, b: a + b),
    ("vvsub", lambda a, b: a - b),
    ("vvmax", np.maximum),
    ("vvsll", lambda a, b: a << b),
    ("vvsra", lambda a, b: a >> b),
    ("vrsl", lambda a, b: a << b[0]),
])
def test_integer_vector_instructions(tmp_path: Path, op: str, expect) -> None:
    """Integer element-wise instructions on i32 vectors made by ext.vquant
    (a = round(x * y[0]), b = round(y * y[0]) for integer x and y)."""
    rng = np.random.default_rng(9)
    x = rng.integers(-1000, 1000, 16).astype(np.float32)
    y = rng.integers(1, 5, 16).astype(np.float32)
    body = ("    pim.sldi r6, 5120\n"
            "    pim.ext.vquant r4, r2, r3 len 16 : i32\n"
            "    pim.ext.vquant r6, r3, r3 len 16 : i32\n"
            f"    pim.{op} r5, r4, r6 len 16 : i32\n")
    out = simulate(tmp_path, body, x, y).view(np.int32)
    a, b = (x * y[0]).astype(np.int64), (y * y[0]).astype(np.int64)
    np.testing.assert_array_equal(out, expect(a, b).astype(np.int32))


class SmallCnn(nn.Module):
    """A convolution with batch norm and ReLU, a residual of a 3x3 and a
    depthwise convolution, max pooling and a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2, self.dw = nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        z = torch.relu(self.c2(y)) + self.dw(y)
        return self.fc(nn.functional.max_pool2d(z, 2).flatten(1))


def _prepared(tmp_path: Path, model: nn.Module, x: torch.Tensor):
    ep = export(model, x)
    module, _ = import_program(ep)
    path = tmp_path / "m.safetensors"
    weights.save(path, weights.from_exported_program(ep, module))
    return module, path, weights.load(path)


def test_an_int8_compile_numbers_its_steps_to_the_last(tmp_path: Path) -> None:
    """The progress lines of an int8 compile (calibration is a step of its
    own) count 1, 2, ... N of N: none past the total, none short of it."""
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    module, path, _ = _prepared(tmp_path, model, x)
    lines: list[str] = []
    pim.compile(module, tmp_path / "out", weights=path, precision="int8", pimsim="none", progress=lines.append,
                calibration=[{"x": x.numpy()}])
    steps = [tuple(int(n) for n in re.match(r"\[(\d+)/(\d+)\]", line).groups()) for line in lines
             if line.startswith("[")]
    total = steps[0][1]
    assert steps == [(i, total) for i in range(1, total + 1)]
    assert any("calibrat" in line for line in lines)


@pytest.mark.parametrize("policy, placement", [("Y", "local"), ("Y", "nonlocal"), ("W", "local"),
                                               ("W", "nonlocal-coalesced")])
def test_int8_programs_equal_the_integer_reference(tmp_path: Path, policy: str, placement: str) -> None:
    """Compiled in int8 and simulated, the small CNN computes exactly what
    the integer reference computes, and stays close to float32 torch."""
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    module, path, tensors = _prepared(tmp_path, model, x)
    # Calibrated on x and three other inputs: x's data is inside every range.
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    result = pim.compile(module, tmp_path / "out", weights=path, precision="int8", policy=policy,
                         placement=placement, calibration=samples, pimsim="none")
    assert result.manifest["precision"] == "int8"
    assert result.manifest["quantization"]["policy"] == policy
    run = pim.simulate(tmp_path / "out", x.numpy())
    (got,) = run.outputs.values()
    saved = ir.Module.parse((tmp_path / "out" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, tensors)
    np.testing.assert_array_equal(got, want)
    with torch.no_grad():
        exact = model(x).numpy()
    cosine = float(got.ravel() @ exact.ravel() / np.linalg.norm(got) / np.linalg.norm(exact))
    assert cosine > 0.99
    assert np.abs(got - exact).max() < 0.1 * np.abs(exact).max()


class PooledBranches(nn.Module):
    """Two pooled branches concatenated: under W without coalescing, the
    cat's block meets two compatible encoded subgraphs (requantizers)."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.c = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(3, 4, 1), nn.Conv2d(8, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pool = nn.functional.max_pool2d
        return self.c(torch.cat([pool(torch.relu(self.a(x)), 2), pool(2 * torch.relu(self.b(x)), 2)], 1))


def test_requantizers_run_as_dequantize_and_quantize_bit_exactly(tmp_path: Path) -> None:
    """The placement materializes one codec.requantize per cat input; the
    back end runs each as its decode and encode, and the program equals the
    integer reference (which reads the same expanded model)."""
    torch.manual_seed(6)
    model = PooledBranches().eval()
    x = torch.randn(1, 3, 8, 8)
    module, path, tensors = _prepared(tmp_path, model, x)
    placed = ir.Module.parse(str(module), context=module.context)
    codec.place(placed, "W", "nonlocal")
    assert codec.costs(placed)[0].requantizers == 2
    codec.materialize(placed)
    assert str(placed).count("codec.requantize") == 2
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "out", weights=path, precision="int8", policy="W", placement="nonlocal",
                calibration=samples, pimsim="none")
    saved = ir.Module.parse((tmp_path / "out" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    assert "codec.requantize" not in str(saved)
    (got,) = pim.simulate(tmp_path / "out", x.numpy()).outputs.values()
    (want,) = quant.reference(saved, {"x": x.numpy()}, tensors)
    np.testing.assert_array_equal(got, want)
    with torch.no_grad():
        exact = model(x).numpy()
    assert float(got.ravel() @ exact.ravel() / np.linalg.norm(got) / np.linalg.norm(exact)) > 0.99


def test_the_float32_interpreter_matches_torch(tmp_path: Path) -> None:
    """The oracle's float32 mode (codecs as identities) is the torch model."""
    torch.manual_seed(1)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    module, _, tensors = _prepared(tmp_path, model, x)
    quant.prepare(module, "W", "nonlocal")
    (out,) = evaluate(module, {"x": x.numpy()}, tensors, mode="fp32")
    with torch.no_grad():
        np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_calibration_gives_each_subgraph_one_scale_from_its_observation_point(tmp_path: Path) -> None:
    """Every observation point of an i8 subgraph gets its subgraph's scale;
    the input's subgraph, observed at the input itself, gets max |x| / 127
    over the calibration samples."""
    torch.manual_seed(2)
    model = randomize(SmallCnn())
    module, _, tensors = _prepared(tmp_path, model, torch.randn(1, 3, 8, 8))
    quant.prepare(module, "Y", "nonlocal-coalesced")
    samples = quant.random_inputs(module, 3, seed=4)
    cal = quant.calibrate(module, tensors, samples)
    scales: dict[int, set[float]] = {}
    text = str(module)
    for ident, scale in re.findall(r"codec\.observe %\S+ for <(\d+) : f32 -> i8> \{scale = ([-+.0-9e]+) : f32[^}]*\}",
                                   text):
        scales.setdefault(int(ident), set()).add(float(scale))
    assert set(scales) == set(cal.scales) == set(quant.encoded_subgraphs(module))
    assert all(len(v) == 1 for v in scales.values())
    # The first encoder reads the model input directly.
    first = int(re.search(r"codec\.encode %arg0 to <(\d+) : f32 -> i8>", text).group(1))
    amax = max(float(np.abs(s["x"]).max()) for s in samples)
    assert cal.amax[first] == pytest.approx(amax)
    assert cal.scales[first] == float(np.float32(amax) / np.float32(127)) and cal.zeros[first] == 0
    # Data calibration saw non-negative (after a ReLU) is offset: zero point
    # -127, scale max / 254, and the IR says so.
    offset = [k for k, m in cal.minimum.items() if m >= 0]
    assert offset and all(cal.zeros[k] == -127 and cal.scales[k] == float(np.float32(cal.amax[k]) / np.float32(254))
                          for k in offset)
    assert text.count("zero_point = -127 : i32") >= len(offset)


def _activation_codecs(module: ir.Module) -> tuple[int, int]:
    """Encoders and decoders of run-time data (weights' codecs excluded)."""
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    block = func.regions[0].blocks[0]
    attrs = ir.ArrayAttr(func.attributes["arg_attrs"])
    known = {a for i, a in enumerate(block.arguments) if "nn.param" in ir.DictAttr(attrs[i])}
    counts = {"codec.encode": 0, "codec.decode": 0}
    for view in block.operations:
        op = view.operation
        if op.operands and all(v in known for v in op.operands):
            known.update(op.results)
        elif op.name in counts:
            counts[op.name] += 1
    return counts["codec.encode"], counts["codec.decode"]


def test_codec_positions_are_the_placements(tmp_path: Path) -> None:
    """Without depthwise convolutions or attention the conversion
    instructions are exactly the placement's codecs: one encoder task per
    activation codec.encode, one decoder task per codec.decode (the
    simulator's per-operator counts say which task each instruction
    belongs to), each converting piece by piece, and nothing else converts."""
    class Plain(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1, self.c2, self.fc = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 1), nn.Linear(64, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.relu(self.c1(x))
            return self.fc(nn.functional.max_pool2d(torch.relu(self.c2(y)) + y, 2).flatten(1))

    torch.manual_seed(3)
    x = torch.randn(1, 3, 8, 8)
    for policy in ("Y", "W"):
        module, path, _ = _prepared(tmp_path, Plain().eval(), x)
        out = tmp_path / f"o{policy}"
        # (Whole tensors: streamed, each codec is one task per row block.)
        pim.compile(module, out, weights=path, precision="int8", policy=policy, pimsim="none", row_block=0)
        saved = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
        encoders, decoders = _activation_codecs(saved)
        stats = pim.simulate(out, x.numpy()).stats["operators"]
        tasks = {kind: [k for k, c in stats.items() if k.startswith(kind + " ") and c["vector_ops"] > 0]
                 for kind in ("codec.encode", "codec.decode")}
        assert len(tasks["codec.encode"]) == encoders > 0
        assert len(tasks["codec.decode"]) == decoders > 0
        program = str(module)
        conversions = program.count("pim.ext.vquant") + program.count("pim.ext.vdequant")
        codec_vector_ops = sum(stats[k]["vector_ops"] for v in tasks.values() for k in v)
        assert conversions <= codec_vector_ops  # every conversion is a codec task's
        if policy == "W":  # max pooling of codes
            assert re.search(r"pim\.vvmax [^\n]*: i8", program)


def test_bad_quantization_inputs_are_refused(tmp_path: Path) -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 8)
    module, path, _ = _prepared(tmp_path, randomize(SmallCnn()), x)
    np.save(tmp_path / "bad.npy", np.zeros((2, 3, 4, 4), np.float32))
    with pytest.raises(UserError, match=r"needs \(1, 3, 8, 8\)"):
        quant.load_samples(module, str(tmp_path / "bad.npy"))
    np.save(tmp_path / "int.npy", np.zeros((1, 3, 8, 8), np.int32))
    with pytest.raises(UserError, match="not a floating-point type"):
        quant.load_samples(module, str(tmp_path / "int.npy"))
    (tmp_path / "junk.npy").write_text("not numpy")
    with pytest.raises(UserError, match="cannot read calibration data"):
        quant.load_samples(module, str(tmp_path / "junk.npy"))
    with pytest.raises(UserError, match=r"policy Z gives no operator .*: a broader policy \(Y, X, W\) may find some"):
        pim.compile(module, tmp_path / "z", weights=path, precision="int8", policy="Z")
    assert not (tmp_path / "z").exists()
    with pytest.raises(ValueError, match="unknown precision"):
        pim.compile(module, tmp_path / "p", weights=path, precision="int4")
    narrow = json.loads(SMALL.read_text())
    narrow["crossbar"].update(cell_bits=4, weight_bits=4)
    (tmp_path / "narrow.json").write_text(json.dumps(narrow))
    module, path, _ = _prepared(tmp_path, randomize(SmallCnn()), x)
    with pytest.raises(UserError, match=r"weight_bits\): int8 codes need at least 8"):
        pim.compile(module, tmp_path / "n", weights=path, precision="int8", target=tmp_path / "narrow.json")
    assert not (tmp_path / "n").exists()


def test_compile_cli_int8_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """raptor compile MODEL.pt2 --precision int8 --report: the manifest,
    the calibrated IR and the accuracy report with a bit-exact simulation."""
    from raptor import cli

    torch.manual_seed(0)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    torch.export.save(torch.export.export(model, (x,)), tmp_path / "m.pt2")
    np.save(tmp_path / "cal.npy", np.random.default_rng(0).standard_normal((3, 1, 3, 8, 8)).astype(np.float32))
    code = cli.main(["compile", str(tmp_path / "m.pt2"), "-o", str(tmp_path / "out"), "--precision", "int8",
                     "--policy", "W", "--placement", "local", "--calibrate", str(tmp_path / "cal.npy"),
                     "--report", "--format", "none", "-q"])
    assert code == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["quantization"]["calibration"]["samples"] == 3
    report = json.loads((tmp_path / "out" / "reports" / "quantization.json").read_text())
    assert report["simulation"]["bit_exact"]
    assert report["held_out"]["summary"]["samples"] == 8
    assert report["held_out"]["summary"]["min_cosine"] > 0.99
    assert cli.main(["compile", str(tmp_path / "m.pt2"), "-o", str(tmp_path / "o2"), "--policy", "Y"]) == 1
    assert "--policy only applies with --precision int8" in capsys.readouterr().err
    assert cli.main(["compile", str(tmp_path / "m.pt2"), "-o", str(tmp_path / "o2"), "--policy", "Y",
                     "--report"]) == 1
    assert "--policy, --report only apply with --precision int8" in capsys.readouterr().err
    assert cli.main(["simulate", str(tmp_path / "out"), "--check", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    assert check["integer_reference_bit_exact"] and check["max_error_relative"] < 0.1
    assert check["arithmetic"] == "integer" and check["integer_reference_differing"] == 0


def test_the_check_line_says_what_a_reference_difference_means() -> None:
    """`raptor simulate --check`: an integer program is bit-exact or not,
    and so is a float-arithmetic one against the quantized model's float32
    reference (which repeats the programs' float32 steps), the line naming
    which reference and the positions beyond float32 rounding."""
    from raptor.cli.programs import _reference_line

    exact = {"arithmetic": "integer", "integer_reference_bit_exact": True}
    assert _reference_line(exact, 10) == "vs the integer reference: bit-exact"
    assert _reference_line(dict(exact, arithmetic="float"), 10) == (
        "vs the quantized reference (float32 between the codecs): bit-exact")
    off = {"arithmetic": "integer", "integer_reference_bit_exact": False, "integer_reference_max_difference": 0.125,
           "integer_reference_differing": 3}
    assert _reference_line(off, 5088) == ("vs the integer reference: max |difference| 1.250e-01, beyond float32 "
                                          "rounding at 3 of 5,088 positions")
    floats = dict(off, arithmetic="float")
    assert _reference_line(floats, 5088) == (
        "vs the quantized reference (float32 between the codecs): max |difference| 1.250e-01, beyond float32 "
        "rounding at 3 of 5,088 positions")


SMALL = Path(__file__).parent.parent.parent / "python" / "raptor" / "spatial" / "targets" / "small.json"


def test_short_lanes_that_do_not_pack_onto_the_cores_stay_full(tmp_path: Path) -> None:
    """Lanes of 3 row tiles cut the classifier's 8 row tiles (16 crossbars
    of 4-bit cells) into 6 + 6 + 4 crossbars and the 3 x 3 convolution's 5
    into 6 + 4: with the rest they no longer pack onto small.json's 4
    cores of 8 crossbars, where full lanes (8 + 8, 8 + 2) do. The compile
    keeps full lanes and says so (lane_tiles 0); on 8 such cores the short
    lanes pack and are kept."""
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    module, path, _ = _prepared(tmp_path, model, x)
    asm = module.operation.get_asm(enable_debug_info=True)
    result = pim.compile(module, tmp_path / "four", weights=path, precision="int8", target=SMALL, pimsim="none",
                         lane_tiles=3)
    assert result.manifest["schedule"]["lane_tiles"] == 0
    wider = json.loads(Path(SMALL).read_text())
    wider["cores"] = {"count": 8, "mesh_rows": 2, "mesh_cols": 4}
    (tmp_path / "eight.json").write_text(json.dumps(wider))
    again = ir.Module.parse(asm, context=module.context)
    result = pim.compile(again, tmp_path / "eight", weights=path, precision="int8", target=tmp_path / "eight.json",
                         pimsim="none", lane_tiles=3)
    assert result.manifest["schedule"]["lane_tiles"] == 3
    # By default lanes of 1 row tile (2 crossbars each) challenge the full
    # ones on the four cores, where they pack.
    again = ir.Module.parse(asm, context=module.context)
    result = pim.compile(again, tmp_path / "auto", weights=path, precision="int8", target=SMALL, pimsim="none")
    assert result.manifest["schedule"]["lane_tiles"] == 1


def test_weights_are_bit_sliced_over_narrow_cells(tmp_path: Path) -> None:
    """On 4-bit cells (small.json: weight_bits 8) each int8 code is two
    digits, a low unsigned one and a signed high one, in two array groups
    whose sums the program shifts and adds; the result is still the
    integer reference's, bit for bit."""
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    x = torch.randn(1, 3, 8, 8)
    module, path, tensors = _prepared(tmp_path, model, x)
    pim.compile(module, tmp_path / "out", weights=path, precision="int8", policy="Y", target=SMALL, pimsim="none")
    (got,) = pim.simulate(tmp_path / "out", x.numpy()).outputs.values()
    saved = ir.Module.parse((tmp_path / "out" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, tensors)
    np.testing.assert_array_equal(got, want)
    chip = next(op for op in module.body.operations if op.operation.name == "pim.chip")
    slices = {}
    for op in chip.regions[0].blocks[0].operations:
        if op.operation.name == "pim.weight":
            slices[ir.StringAttr(op.attributes["sym_name"]).value] = np.array(
                ir.DenseElementsAttr(op.attributes["value"]))
    program = str(module)
    pairs = set(re.findall(r"pim\.group \d+ crossbars \d+ weight @(\w+) matrix (\S+) rows \[(\d+), \d+\] cols "
                           r"\[(\d+), \d+\]", program))
    assert "mbiw 4" in program and "pim.vrsl" in program and "mbiw 8" not in program
    # Groups come in (low, high) pairs over the same tile; the digits rebuild codes in [-127, 127].
    checked = 0
    for lo_name, lo in slices.items():
        for hi_name, hi in slices.items():
            if lo.shape == hi.shape and lo_name != hi_name and lo.min() >= 0 and lo.max() <= 15 \
                    and hi.min() >= -8 and hi.max() <= 7 and int(lo_name[1:]) + 1 == int(hi_name[1:]):
                codes = lo + 16 * hi
                assert codes.min() >= -127 and codes.max() <= 127
                assert np.abs(codes).reshape(codes.shape[0], -1).max(axis=1).max() == 127
                checked += 1
    assert checked >= 3 and pairs


class TinyAttention(nn.Module):
    """Projections, grouped-query causal attention and an output layer."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.kv, self.o = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q = self.q(x).view(b, n, 4, 4).transpose(1, 2)
        k, v = self.kv(x).view(b, n, 2, 2, 4).permute(3, 0, 2, 1, 4)
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o(y.transpose(1, 2).reshape(b, n, 16))


def test_int8_attention_follows_the_integer_reference(tmp_path: Path) -> None:
    """Under Y attention reads q, k, v codes: the simulated program agrees
    with the integer reference (its softmax is float32, so a probability
    may round to the other code: differences stay within a code's worth)
    and with float32 torch."""
    torch.manual_seed(4)
    model = TinyAttention().eval()
    x = torch.randn(1, 8, 16)
    module, path, tensors = _prepared(tmp_path, model, x)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "out", weights=path, precision="int8", policy="Y", calibration=samples,
                pimsim="none")
    assert "pim.ext.vquant" in str(module) and re.search(r"ext\.vvecmat", str(module))
    (got,) = pim.simulate(tmp_path / "out", x.numpy()).outputs.values()
    saved = ir.Module.parse((tmp_path / "out" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, tensors)
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max()
    assert np.mean(got != want) < 0.2
    with torch.no_grad():
        exact = model(x).numpy()
    assert float(got.ravel() @ exact.ravel() / np.linalg.norm(got) / np.linalg.norm(exact)) > 0.99


def test_a_shared_encoding_takes_the_lowest_minimum_of_its_subgraphs(tmp_path: Path) -> None:
    """A concatenation of a ReLU output (minimum 0) and a signed branch, in
    separate subgraphs (a table without the port blocks): their shared
    encoding must hold the signed branch's negative values, so the group's
    minimum is the signed branch's (eager torch on the calibration inputs)
    and its zero point that of signed data (0, not -127)."""
    class Signed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b, self.c = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(3, 4, 1), nn.Conv2d(8, 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.c(torch.cat([torch.relu(self.a(x)), 3 * self.b(x)], 1))

    torch.manual_seed(5)
    x = torch.randn(1, 3, 8, 8)
    model = Signed().eval()
    module, _, tensors = _prepared(tmp_path, model, x)
    table = tmp_path / "no-blocks.txt"
    table.write_text(codec.seed_table().replace("  block tensors[*] -> out\n", ""))
    codec.place(module, "W", "local", str(table))
    codec.materialize(module)
    codec.expand_requantizers(module)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 2)
    cal = quant.calibrate(module, tensors, samples)
    with torch.no_grad():
        lowest = min(float((3 * model.b(torch.from_numpy(s["x"]))).min()) for s in samples)
    assert lowest < 0
    (group,) = cal.shared
    for k in group:
        assert cal.minimum[k] == pytest.approx(lowest, rel=1e-5)
        assert cal.zeros[k] == 0


@pytest.mark.parametrize("blocks", [True, False])
def test_codes_that_are_the_same_data_share_one_encoding(tmp_path: Path, blocks: bool) -> None:
    """Under W with the local baseline, a concatenation's inputs and max
    pooling's output hold the same codes as what they read. Table 5's port
    blocks (cat: tensors[*] -> out, max-pool: self -> out[0]) give them one
    semantics in the placement itself; with a table that lacks those
    blocks they land in separate subgraphs, and calibration gives those one
    encoding (else a decoder would read codes with another subgraph's
    scale)."""
    class Branches(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b, self.c = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(3, 4, 1), nn.Conv2d(8, 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.cat([torch.relu(self.a(x)), 3 * torch.relu(self.b(x))], 1)
            return self.c(nn.functional.max_pool2d(y, 2))

    torch.manual_seed(5)
    x = torch.randn(1, 3, 8, 8)
    model = Branches().eval()
    module, path, tensors = _prepared(tmp_path, model, x)
    if blocks:
        quant.prepare(module, "W", "local")
    else:
        table = tmp_path / "no-blocks.txt"
        text = codec.seed_table()
        for block in ("  block tensors[*] -> out\n", "  block self -> out[0]\n"):
            assert block in text
            text = text.replace(block, "")
        table.write_text(text)
        codec.place(module, "W", "local", str(table))
        codec.materialize(module)
        codec.expand_requantizers(module)
    groups = quant.shared_subgraphs(module)
    cal = quant.calibrate(module, tensors, [{"x": x.numpy()}] + quant.random_inputs(module, 2))
    if blocks:
        assert groups == [] and cal.shared == []
    else:  # both cat inputs and the re-observed pooled output
        assert cal.shared and any(len(g) >= 3 for g in cal.shared)
    for group in cal.shared:
        assert len({(cal.scales[k], cal.zeros[k]) for k in group}) == 1
        assert any(set(group) <= g for g in groups)
    (got,) = quant.reference(module, {"x": x.numpy()}, tensors)
    with torch.no_grad():
        want = model(x).numpy()
    cosine = float(got.ravel() @ want.ravel() / np.linalg.norm(got) / np.linalg.norm(want))
    assert cosine > 0.99


class _Negate(nn.Module):
    """No operator any policy encodes."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -x


@pytest.mark.parametrize("model, policy, hint", [
    (_Negate, "Y", "a broader policy (X, W) may find some"),
    (_Negate, "W", "no policy quantizes its operators, compile it in fp32")])
def test_nothing_to_quantize_names_only_broader_policies(tmp_path: Path, model: type[nn.Module], policy: str,
                                                         hint: str) -> None:
    module, path, _ = _prepared(tmp_path, model(), torch.randn(2, 8))
    with pytest.raises(UserError) as e:
        pim.compile(module, tmp_path / "q", weights=path, precision="int8", policy=policy)
    assert str(e.value) == (f"policy {policy} gives no operator of this model an INT8 variant (nothing to "
                            f"quantize): {hint}")
    assert not (tmp_path / "q").exists()
