"""Integer-only int8 programs (docs/quantization.md, simulator/FixedPoint.h):
the fixed multipliers against exact rational arithmetic, the Python
reference's vector form against the C++ one element at a time, and
compiled models that use only pimsim-nn's instructions, read back from
pimsim-nn's own files, equal to the integer reference bit for bit and as
accurate as the float-scale programs."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir
from pim_helpers import export, randomize
from torch import nn

import raptor
from raptor import _raptor, pim, quant, weights
from raptor._io import UserError
from raptor.frontend.torch import import_program
from raptor.quant.interpreter import fixed_activation, fixed_product, requantize

INT32 = st.integers(-2**31, 2**31 - 1)


def _exact(x: int, m: float) -> Fraction:
    """x * m with the multiplier the program holds: (high 2^15 + low) 2^-shift."""
    steps = _raptor.fixed_steps(m)
    high, low = steps[0], steps[1]
    # shift from the constants: the unit s' = 31 - high's left shift, plus the final right shift.
    shift = (31 - steps[2]) + steps[19]
    return Fraction(x * (high * 2**15 + low), 2**shift)


@settings(max_examples=400, deadline=None)
@given(x=INT32, exponent=st.floats(-40, 29), mantissa=st.floats(1.0, 2.0, exclude_max=True),
       offset=st.integers(-127, 127))
def test_fixed_multipliers_round_to_within_two_units(x: int, exponent: float, mantissa: float, offset: int) -> None:
    """round(x m): the 30-bit multiplier is m to 2^-30 relative (at most 1
    unit below 2^30), and the partial products' roundings (and the lo low
    term dropped at s' = 31) add at most 1.5 units, so the program is
    within 2.5 units of the exact product (exact rational arithmetic; a
    15-bit multiplier would miss by up to x m 2^-15) wherever it fits int32."""
    m = mantissa * 2.0**exponent
    exact = Fraction(x) * Fraction(m)
    if abs(exact) >= 2**30:
        return
    got = _raptor.requantize(x, m, offset) - offset
    assert abs(got - exact) <= Fraction(5, 2)
    # Against the multiplier actually held: the partial products alone.
    assert abs(got - _exact(x, m)) <= Fraction(5, 2)


def test_fixed_multipliers_by_hand() -> None:
    """Values derived by hand: 1.5 * 3 = 4.5 rounds half up to 5 (and -4.5
    to -4, floor shifts), 1 / 3 of 3 is 1, 2^-15 of 2^20 is 32, the offset
    is added after rounding, and m = 0 gives the offset alone."""
    assert _raptor.requantize(3, 1.5) == 5
    assert _raptor.requantize(-3, 1.5) == -4
    assert _raptor.requantize(3, 1.0 / 3.0) == 1
    assert _raptor.requantize(2**20, 2.0**-15) == 32
    assert _raptor.requantize(2**20, 2.0**-15, -127) == 32 - 127
    assert _raptor.requantize(123456, 0.0, 7) == 7
    # 2^-15 = 2^29 2^-44: high 2^14, low 0; at s' = 31 the lo low term is skipped.
    steps = _raptor.fixed_steps(2.0**-15)
    assert steps[:3] == [16384, 0, 0] and steps[17] == 0 and steps[19] == 13


@pytest.mark.parametrize("m", [-1.0, float("nan"), float("inf"), 2.0**30])
def test_multipliers_without_a_fixed_form_are_refused(m: float) -> None:
    with pytest.raises(ValueError, match="fixed multiplier"):
        _raptor.fixed_steps(m)


@settings(max_examples=60, deadline=None)
@given(xs=st.lists(INT32, min_size=1, max_size=24), ms=st.lists(st.floats(1e-9, 1e6), min_size=1, max_size=24),
       offset=st.integers(-127, 127))
def test_the_reference_vector_form_equals_the_cpp_one_element_at_a_time(xs: list[int], ms: list[float],
                                                                        offset: int) -> None:
    """The Python reference requantizes whole tensors with per-element
    multipliers; each element equals the C++ arithmetic that the lowering's
    constants come from."""
    n = min(len(xs), len(ms))
    x, m = np.array(xs[:n], np.int64), np.array(ms[:n])
    got = requantize(torch.from_numpy(x), m, offset).numpy()
    want = [_raptor.requantize(int(a), float(b), offset) for a, b in zip(x, m)]
    assert got.tolist() == want


@settings(max_examples=60, deadline=None)
@given(xs=st.lists(st.integers(-2**26, 2**26), min_size=1, max_size=16),
       ys=st.lists(st.integers(-2**26, 2**26), min_size=1, max_size=16), bits=st.integers(8, 24))
def test_fixed_products_match_the_cpp_and_exact_arithmetic(xs: list[int], ys: list[int], bits: int) -> None:
    """x y 2^-bits from four partial products: the reference's tensors
    equal the C++ element by element, and both are within 2 units of the
    exact product wherever it fits int32."""
    n = min(len(xs), len(ys))
    x, y = torch.tensor(xs[:n], dtype=torch.int64), torch.tensor(ys[:n], dtype=torch.int64)
    got = fixed_product(x, y, bits).tolist()
    assert got == [_raptor.fixed_product(a, b, bits) for a, b in zip(xs[:n], ys[:n])]
    for a, b, g in zip(xs[:n], ys[:n], got):
        exact = Fraction(a * b, 2**bits)
        if abs(exact) < 2**30:
            assert abs(g - exact) <= 2


@settings(max_examples=40, deadline=None)
@given(xs=st.lists(st.integers(-2**28, 2**28), min_size=1, max_size=16), bits=st.integers(8, 24),
       tanh=st.booleans())
def test_fixed_activations_match_the_cpp_and_the_function(xs: list[int], bits: int, tanh: bool) -> None:
    """sigmoid / tanh through Q15: the reference equals the C++, and the
    result is within 2^-15 (plus the Q15 rounding of the input, at most
    2^-16 times the slope 1) of the function of the real value."""
    x = torch.tensor(xs, dtype=torch.int64)
    got = fixed_activation(x, bits, tanh).tolist()
    assert got == [_raptor.fixed_activation(v, bits, tanh) for v in xs]
    for v, g in zip(xs, got):
        real = v / 2.0**bits
        want = np.tanh(real) if tanh else 0.5 * (1 + np.tanh(real / 2))  # (sigmoid, without overflow)
        assert abs(g / 2.0**bits - want) <= 2.0**-15 + 2.0**-16 + 2.0**-bits


class IntegerCnn(nn.Module):
    """Every operator an integer-only program computes: convolutions with
    batch norm, ReLU, ReLU6 and SiLU, a depthwise convolution, a
    squeeze-excitation gate (mean, sigmoid, product), a residual sum, max
    and average pooling, a concatenation, padding, a convolution's sums
    rescaled straight to the next one's codes, a global mean, tanh and a
    classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.dw, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)
        self.se1, self.se2 = nn.Conv2d(8, 4, 1), nn.Conv2d(4, 8, 1)
        self.c2 = nn.Conv2d(8, 8, 1)
        self.c3, self.c4 = nn.Conv2d(16, 8, 3), nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        z = nn.functional.relu6(self.b2(self.dw(y)))
        gate = torch.sigmoid(self.se2(nn.functional.silu(self.se1(z.mean((2, 3), keepdim=True)))))
        r = self.c2(z * gate) + y
        pooled = torch.cat([nn.functional.max_pool2d(r, 2), nn.functional.avg_pool2d(y, 2)], 1)
        u = torch.relu(self.c3(nn.functional.pad(pooled, (1, 1, 1, 1))))  # (one rescale: c3 -> c4)
        return self.fc(torch.tanh(torch.relu(self.c4(u)).mean((2, 3))))


def _compiled(tmp_path: Path, model: nn.Module, x: torch.Tensor, arithmetic: str, name: str,
              pimsim: str = "both", module_out: list | None = None, **options) -> tuple[pim.CompileResult, dict]:
    ep = export(model, x)
    module, _ = import_program(ep)
    path = tmp_path / "m.safetensors"
    weights.save(path, weights.from_exported_program(ep, module))
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    result = pim.compile(module, tmp_path / name, weights=path, precision="int8", calibration=samples,
                         arithmetic=arithmetic, pimsim=pimsim, **options)
    if module_out is not None:
        module_out.append(module)
    return result, weights.load(path)


def _reference(directory: Path, x: np.ndarray, tensors: dict) -> np.ndarray:
    saved = ir.Module.parse((directory / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x}, tensors)
    return want


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_an_integer_cnn_runs_on_pimsim_instructions_bit_exactly(tmp_path: Path) -> None:
    """The CNN compiles to an integer-only program: no extension
    instruction, pimsim-nn's files written (binary and JSON), int32
    fixed-point inputs and outputs in the manifest. Run from pimsim-nn's
    own files (whose instructions carry widths, not types) and from the
    compact form, it equals the integer reference bit for bit; it is as
    close to float32 torch as the float-scale int8 program, and within a
    cosine of 0.999 of it."""
    torch.manual_seed(0)
    model = randomize(IntegerCnn())
    x = torch.randn(1, 3, 12, 12)
    result, tensors = _compiled(tmp_path, model, x, "integer", "int")
    manifest = result.manifest
    assert manifest["program"]["arithmetic"] == "integer"
    assert manifest["program"]["extensions"] == {} and manifest["program"]["pimsim_compatible"]
    assert manifest["quantization"]["arithmetic"] == "integer"
    assert "integer-only arithmetic" in pim.format_summary(pim.summary(manifest), "int")
    bits = manifest["quantization"]["calibration"]["fixed_point_bits"]
    assert manifest["inputs"][0]["dtype"] == "int32" and manifest["inputs"][0]["fixed_point_bits"] == bits
    assert (tmp_path / "int" / "core_0.json").is_file() and (tmp_path / "int" / "core_0.pim").is_file()
    assert "codec.rescale" in (tmp_path / "int" / "reports" / "quantized_model.mlir").read_text()
    want = _reference(tmp_path / "int", x.numpy(), tensors)
    for form in ("compact", "pimsim"):
        got = pim.Program.load(tmp_path / "int", form).simulate({"x": x.numpy()}).outputs["out0"]
        np.testing.assert_array_equal(got, want)
    float_scale, _ = _compiled(tmp_path, model, x, "float", "float", pimsim="none")
    assert float_scale.manifest["program"]["extensions"]  # ext.vquant / ext.vdequant
    other = pim.simulate(tmp_path / "float", x.numpy()).outputs["out0"]
    with torch.no_grad():
        exact = model(x).numpy()
    assert _cosine(want, other) >= 0.999
    assert _cosine(want, exact) >= _cosine(other, exact) - 0.001


def test_codecs_follow_row_copies_in_a_pipeline_bit_exactly(tmp_path: Path) -> None:
    """In a pipeline the codecs (rescales, decoders, encoders) and their
    observation points follow a convolution's row copies with copies of
    their own (so no core requantizes a whole map), and the program still
    equals the integer reference bit for bit."""
    torch.manual_seed(0)
    model = randomize(IntegerCnn())
    x = torch.randn(1, 3, 12, 12)
    kept: list = []
    result, tensors = _compiled(tmp_path, model, x, "integer", "pipe", pimsim="none", module_out=kept, pipeline=3,
                                replication_budget=1.0)
    assert result.manifest["schedule"]["mode"] == "pipeline"
    graph = next(op for op in kept[0].body.operations if op.operation.name == "spatial.graph")
    copied = {ir.StringAttr(op.attributes["op"]).value for op in graph.regions[0].blocks[0].operations
              if "rows" in op.attributes}
    assert {"nn.convolution", "codec.rescale", "codec.decode", "codec.observe"} <= copied, copied
    want = _reference(tmp_path / "pipe", x.numpy(), tensors)
    got = pim.Program.load(tmp_path / "pipe").simulate({"x": x.numpy()}).outputs["out0"]
    np.testing.assert_array_equal(got, want)


class Constants(nn.Module):
    """Compile-time operands on either side, scalars that float32 does not
    hold exactly, a quotient by a scalar (a product by its reciprocal), and
    a mean over more values (576) than the fixed point's headroom sums
    (256)."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)
        self.p = nn.Parameter(torch.tensor([0.75, -0.5, 0.25, 1.5]).reshape(1, 4, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.p + self.c(x)
        z = torch.clamp(y, -1.06, 1.06) + 1.06
        return ((z * self.p - 0.3) / 6.0).mean((2, 3))


def test_constants_and_long_means_compute_what_torch_does(tmp_path: Path) -> None:
    """Constants first or second, 1.06 (not a float32), a mean over 576
    values: the program equals the integer reference bit for bit, and both
    are within int8's error of float32 torch (a constant left unscaled, or a
    wrapped sum, is off by the order of the values themselves)."""
    torch.manual_seed(3)
    got, exact = _integer_and_torch(tmp_path, Constants().eval(), torch.randn(1, 3, 24, 24), "integer")
    assert np.abs(got - exact).max() < 0.02 * np.abs(exact).max()


def _integer_and_torch(tmp_path: Path, model: nn.Module, x: torch.Tensor,
                       arithmetic: str) -> tuple[np.ndarray, np.ndarray]:
    """The output of ``model`` compiled with ``arithmetic``, checked to be
    an integer-only program equal to the integer reference bit for bit,
    and eager torch's."""
    result, tensors = _compiled(tmp_path, model, x, arithmetic, "int", pimsim="none")
    assert result.manifest["program"]["arithmetic"] == "integer"
    got = pim.simulate(tmp_path / "int", x.numpy()).outputs["out0"]
    np.testing.assert_array_equal(got, _reference(tmp_path / "int", x.numpy(), tensors))
    with torch.no_grad():
        return got, model(x).numpy()


class SaturatedGate(nn.Module):
    """A random-init EfficientNet's squeeze-excitation in small: a SiLU of
    sums near -40 is about 1e-16, so calibration sees its mean within an
    epsilon of 0."""

    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)
        self.squeeze = nn.Conv2d(4, 4, 1)
        self.other = nn.Conv2d(3, 4, 3, padding=1)
        with torch.no_grad():
            self.c.bias.fill_(-40.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.squeeze(nn.functional.silu(self.c(x)).mean((2, 3), keepdim=True))
        return self.other(x) + gate


def test_activations_calibrated_near_zero_get_the_smallest_scale() -> None:
    """An encoding's scale is never below float32's epsilon (torch's
    observers' floor); scales of ordinary ranges are amax / 127 or / 254."""
    eps = np.finfo(np.float32).eps
    assert quant.encoding_of(1e-13, -1e-13) == (eps, 0)
    assert quant.encoding_of(1e-13, 0.0) == (eps, -127)
    assert quant.encoding_of(0.0, 0.0) == (np.float32(1.0), -127)
    assert quant.encoding_of(12.7, -12.0) == (np.float32(12.7) / np.float32(127), 0)
    assert quant.encoding_of(25.4, 0.5) == (np.float32(25.4) / np.float32(254), -127)


def test_ranges_reaching_little_below_zero_get_an_affine_encoding() -> None:
    """[-1, 12.7] (a GELU's or hardswish's output in small): 255 codes over
    13.7 (scale 13.7 / 254, zero round(-127 + 1 / scale) = -108), 1.85x
    finer than symmetric; at the threshold, 1.5x, still affine; below it,
    and for ranges as wide below 0 as above, symmetric."""
    scale, zero = quant.encoding_of(12.7, -1.0)
    assert scale == np.float32(13.7 / 254.0) and zero == -108
    # gain 2 * 3 / (3 + 1) = 1.5: affine; gain 2 * 3 / (3 + 1.2) < 1.5: symmetric
    assert quant.encoding_of(3.0, -1.0)[1] != 0
    assert quant.encoding_of(3.0, -1.2) == (np.float32(3.0) / np.float32(127), 0)
    rng = np.random.default_rng(3)
    for amax, low in zip(rng.uniform(0.01, 100, 200), rng.uniform(0, 1, 200)):
        minimum = -low * amax
        scale, zero = quant.encoding_of(amax, minimum)
        assert (zero != 0) == (2 * amax >= 1.5 * (amax - minimum))
        # Every value of the range has a code in [-127, 127] (at most one
        # step beyond it before the clamp) within half a step.
        xs = np.linspace(minimum, amax, 101)
        codes = np.rint(xs / scale) + zero
        assert codes.min() >= -128 and codes.max() <= 128
        assert np.abs((np.clip(codes, -127, 127) - zero) * scale - xs).max() <= 0.51 * scale + 1e-6 * amax


def test_a_saturated_gate_stays_integer_and_equals_the_reference(tmp_path: Path) -> None:
    """With the default arithmetic ('auto') the gate's requantization, sums'
    scale over an epsilon-floored one, has a fixed-point form: the program
    is integer-only and equals the integer reference bit for bit (without
    the floor the multiplier is about 1e13 and the compile failed)."""
    torch.manual_seed(1)
    got, exact = _integer_and_torch(tmp_path, SaturatedGate().eval(), torch.randn(1, 3, 8, 8), "auto")
    assert _cosine(got, exact) >= 0.999


def test_pimsim_forms_give_vector_instructions_their_widths(tmp_path: Path) -> None:
    """In pimsim-nn's JSON files of an integer program every vector
    instruction follows a setbw naming its widths: equal ones, except a vmv
    that narrows (32/8: fixed point to codes) or widens (8/32: codes to
    int32); never an extension."""
    torch.manual_seed(1)
    model = randomize(IntegerCnn())
    x = torch.randn(1, 3, 12, 12)
    _compiled(tmp_path, model, x, "integer", "int", pimsim="json")
    conversions = {(32, 8): 0, (8, 32): 0}
    for f in (tmp_path / "int").glob("core_*.json"):
        widths = (32, 32)
        for i in json.loads(f.read_text()):
            assert not i["op"].startswith("ext.")
            if i["op"] == "setbw":
                widths = (i["ibiw"], i["obiw"])
            elif i["op"] == "vmv" and widths in conversions:
                conversions[widths] += 1
            elif i["op"].startswith("v"):
                assert widths[0] == widths[1], (f.name, i)
    assert conversions[(32, 8)] > 0 and conversions[(8, 32)] > 0


def test_auto_arithmetic_falls_back_to_float_and_integer_refuses_with_the_location(tmp_path: Path) -> None:
    """GELU (erf) has no integer lowering: 'auto' compiles in float
    arithmetic with extension instructions and says which operator kept it
    there; 'integer' refuses it in one located line and writes nothing."""

    class Gated(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c = nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return nn.functional.gelu(self.c(x))

    torch.manual_seed(2)
    x = torch.randn(1, 3, 6, 6)
    result, _ = _compiled(tmp_path, Gated().eval(), x, "auto", "auto", pimsim="none")
    assert result.manifest["quantization"]["arithmetic"] == "float"
    assert result.manifest["quantization"]["integer_refusal"] == "nn.gelu"
    assert result.manifest["program"]["arithmetic"] == "float"
    assert "float32 between the codecs: nn.gelu has no integer lowering" in pim.format_summary(
        pim.summary(result.manifest), "auto")
    with pytest.raises(UserError, match=r"'nn\.gelu' op has no integer-only lowering") as e:
        _compiled(tmp_path, Gated().eval(), x, "integer", "refused", pimsim="none")
    assert "\n" not in str(e.value).strip() and "gelu" in str(e.value)
    assert not (tmp_path / "refused").exists()
    assert not list(tmp_path.glob(".refused.*"))


class Exploding(nn.Module):
    """Activations that grow 1e4-fold per layer, as a random init's
    batch-norm statistics let timm's MobileOne-S0 reach 9e15: the second
    layer's sums pass 2^22, where int32 fixed point has no F >= 0."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, padding=1)
        self.b = nn.Conv2d(4, 4, 3, padding=1)
        with torch.no_grad():
            self.a.weight.mul_(1e4)
            self.b.weight.mul_(1e4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.relu(self.a(x)))


def test_values_beyond_the_fixed_points_reach_compile_in_float_or_stop_in_one_line(tmp_path: Path) -> None:
    """'auto' calibrates, finds values beyond 2^22 and compiles in float
    arithmetic, saying why in the manifest and the summary, and its program
    still computes the model; 'integer' stops in one line, nothing written."""
    torch.manual_seed(4)
    x = torch.randn(1, 3, 6, 6)
    model = Exploding().eval()
    result, tensors = _compiled(tmp_path, model, x, "auto", "auto", pimsim="none")
    q = result.manifest["quantization"]
    assert q["arithmetic"] == "float" and result.manifest["program"]["arithmetic"] == "float"
    assert q["calibration"]["value_amax"] > 2.0**22 and q["calibration"]["fixed_point_bits"] is None
    assert "real values reach" in q["fixed_point_refusal"] and "integer_refusal" not in q
    assert "float32 between the codecs: real values reach" in pim.format_summary(pim.summary(result.manifest), "a")
    got = pim.simulate(tmp_path / "auto", x.numpy()).outputs["out0"]
    with torch.no_grad():
        want = model(x).numpy()
    assert _cosine(got, want) > 0.999
    with pytest.raises(UserError, match=r"integer arithmetic: real values reach .*--arithmetic float") as e:
        _compiled(tmp_path, model, x, "integer", "refused", pimsim="none")
    assert "\n" not in str(e.value).strip()
    assert not (tmp_path / "refused").exists() and not list(tmp_path.glob(".refused.*"))


def test_the_fixed_points_reach_ends_where_its_bits_would_turn_negative() -> None:
    """2^22 is the largest range with F >= 0 (F = 30 - 8 - 22 = 0); one
    step beyond it is refused, and the message names the range."""
    assert quant.fixed_point_refusal(2.0**22) is None and quant.fixed_point_bits(2.0**22) == 0
    assert quant.fixed_point_refusal(0.0) is None
    why = quant.fixed_point_refusal(2.0**22 * 1.001)
    assert why is not None and "4.2e+06" in why and "4.19e+06" in why


def test_fixed_point_bits_follow_the_calibrated_range() -> None:
    """F leaves 8 bits of headroom above the largest calibrated value:
    amax 10 -> 2^4 -> F = 30 - 8 - 4 = 18; amax 0.3 -> 2^-1 -> F = 23; nothing
    seen -> 22; clamped to 0..30."""
    assert quant.fixed_point_bits(10.0) == 18
    assert quant.fixed_point_bits(0.3) == 23
    assert quant.fixed_point_bits(0.0) == 22
    assert quant.fixed_point_bits(1e-12) == 30
    assert quant.fixed_point_bits(1e12) == 0


def _sliced_target(tmp_path: Path, cores: int) -> Path:
    """Crossbars of 16 rows x 32 columns with 2-bit cells: four bit slices
    per weight, an MVM writing 32 sums where a lane may hold 8."""
    path = tmp_path / "sliced.json"
    path.write_text(json.dumps({
        "name": "bit-sliced test chip", "clock": {"period_ns": 1.0},
        "cores": {"count": cores, "mesh_rows": 2, "mesh_cols": cores // 2},
        "crossbar": {"per_core": 64, "rows": 16, "cols": 32, "cell_bits": 2, "weight_bits": 8},
        "network": {"link_bytes_per_cycle": 32, "hop_latency_cycles": 2}}))
    return path


class Widening(nn.Module):
    """A convolution and a residual block that widens 8 -> 32 channels
    through a 1x1 shortcut: a 3x3 convolution of 288 rows, two lanes of
    partial sums on 16-row crossbars."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.c1, self.b1 = nn.Conv2d(8, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32)
        self.c2, self.b2 = nn.Conv2d(32, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32)
        self.down = nn.Conv2d(8, 32, 1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.stem(x))
        z = self.b2(self.c2(torch.relu(self.b1(self.c1(y)))))
        return torch.relu(z + self.down(y))


class Pointwise(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(8, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(x)


def test_an_mvm_writing_more_sums_than_the_lane_holds_clobbers_nothing(tmp_path: Path) -> None:
    """pimsim-nn's MVM writes a whole crossbar's columns: a 1x1
    convolution of 8 channels on 32-column crossbars writes 24 sums past
    its last output pixel, where the bit slices' shift amounts were
    placed (the last pixel came out wrong)."""
    torch.manual_seed(7)
    model = randomize(Pointwise())
    x = torch.randn(1, 8, 4, 4)
    _, tensors = _compiled(tmp_path, model, x, "integer", "one", pimsim="none", target=str(_sliced_target(tmp_path, 4)),
                           replicate="none")
    want = _reference(tmp_path / "one", x.numpy(), tensors)
    np.testing.assert_array_equal(pim.simulate(tmp_path / "one", x.numpy()).outputs["out0"], want)


@pytest.mark.parametrize("pipeline, replicate", [(2, "balance"), (None, "time")])
def test_partial_sums_of_lanes_copied_differently_are_added(tmp_path: Path, pipeline: int | None,
                                                            replicate: str) -> None:
    """In a pipeline the balance rule copies both lanes of a 288-row
    convolution by rows, and the scheduler merges one lane's copies on a
    core differently from the other's: the partial sums hold misaligned
    rows and must still be added, not the later copied over the earlier
    (torchvision's ResNet-18 on 128 x 128 crossbars with 2-bit cells was
    0.89 off). In latency mode the same model takes the capacity
    fallback of the list scheduler, whose transfer costs must follow it
    (with lanes as tall as a core holds, `lane_tiles=0`: two lanes)."""
    torch.manual_seed(7)
    model = randomize(Widening())
    x = torch.randn(1, 3, 16, 16)
    kept: list = []
    _, tensors = _compiled(tmp_path, model, x, "integer", "p", pimsim="none", module_out=kept, pipeline=pipeline,
                           replication_budget=1.0, target=str(_sliced_target(tmp_path, 16)), replicate=replicate,
                           lane_tiles=0)
    graph = next(op for op in kept[0].body.operations if op.operation.name == "spatial.graph")
    lanes = {ir.IntegerAttr(op.attributes["lane"]).value for op in graph.regions[0].blocks[0].operations
             if "rows" in op.attributes and ir.StringAttr(op.attributes["op"]).value == "nn.convolution"}
    assert lanes == {0, 1}  # copies of both lanes of a row-tiled convolution
    want = _reference(tmp_path / "p", x.numpy(), tensors)
    np.testing.assert_array_equal(pim.simulate(tmp_path / "p", x.numpy()).outputs["out0"], want)
