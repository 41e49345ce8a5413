"""The reference interpreter's float32 reductions against the simulated
programs, bit for bit (python/raptor/quant/vector_unit.py).

An int8 transformer's check against its quantized reference is exact only
if the float32 arithmetic between the codecs rounds the same on both sides:
a layer norm's statistics summed in another order move an encoding by one
code, and attention spreads it to every position. So each reduction the
lowering emits is compiled alone (float32) and its simulated output compared
with vector_unit's by equality; vector_unit itself is checked against float64
torch and against sums written out; and an int8 MLP-Mixer equals its
reference exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import timm
import torch
import torch.nn.functional as F

from raptor import cli
from raptor.quant import vector_unit

from pim_helpers import compile_source, simulated_check


def _simulated(tmp_path: Path, model: torch.nn.Module, x: torch.Tensor) -> np.ndarray:
    torch.export.save(torch.export.export(model.eval(), (x,)), tmp_path / "m.pt2")
    program = compile_source(tmp_path / "m.pt2", tmp_path / "out")
    (out,) = program.simulate(x.numpy()).outputs.values()
    return np.asarray(out).reshape(x.shape)


def _affine(norm: torch.nn.Module) -> torch.nn.Module:
    with torch.no_grad():
        for p in norm.parameters():
            p.copy_(torch.rand_like(p) + 0.5)
    return norm


@pytest.mark.parametrize("shape, dims", [((1, 9, 96), 1), ((2, 5, 6, 7), 2), ((1, 2, 4096), 1), ((1, 2, 4100), 1)],
                         ids=["one-dim", "two-dims", "ordered-at-the-limit", "pairwise"])
def test_a_layer_norm_simulates_as_the_reference_computes_it(tmp_path: Path, shape: tuple, dims: int) -> None:
    """Ordered dot products up to 4,096 elements (the third case, at the
    limit), pairwise sums beyond (the fourth: 4,100 halves to an odd 1,025
    and on); an offset mean makes the order of additions matter."""
    torch.manual_seed(0)
    norm = _affine(torch.nn.LayerNorm(list(shape[-dims:]), eps=1e-6))
    x = torch.randn(shape) * 3.0 + 5.0
    want = vector_unit.norm(x.numpy(), dims, norm.weight.detach().numpy(), norm.bias.detach().numpy(), 1e-6,
                            center=True)
    np.testing.assert_array_equal(_simulated(tmp_path, norm, x), want)
    with torch.no_grad():  # and it is a layer norm
        exact = norm.double()(x.double()).numpy()
    assert np.abs(want - exact).max() < 4e-6 * np.abs(exact).max()


def test_an_rms_norm_without_eps_simulates_as_the_reference_computes_it(tmp_path: Path) -> None:
    """An RMS norm given no eps takes float32's epsilon on both sides."""
    torch.manual_seed(0)
    norm = _affine(torch.nn.RMSNorm(80))
    x = torch.randn(1, 6, 80) * 1e-3  # small enough for eps to count
    want = vector_unit.norm(x.numpy(), 1, norm.weight.detach().numpy(), None,
                            float(np.finfo(np.float32).eps), center=False)
    np.testing.assert_array_equal(_simulated(tmp_path, norm, x), want)
    with torch.no_grad():  # (in float32: torch's eps is its dtype's)
        exact = norm(x).numpy()
    assert np.abs(want - exact).max() < 4e-6 * np.abs(exact).max()


@pytest.mark.parametrize("name", ["softmax", "gelu", "exp"])
def test_softmax_gelu_and_exp_simulate_as_the_reference_computes_them(tmp_path: Path, name: str) -> None:
    modules = {"softmax": torch.nn.Softmax(-1), "gelu": torch.nn.GELU()}

    class Exp(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.exp(x)

    torch.manual_seed(0)
    x = torch.randn(1, 12, 300) * 4.0
    got = _simulated(tmp_path, modules.get(name, Exp()), x)
    want = getattr(vector_unit, name)(x.numpy())
    np.testing.assert_array_equal(got, want)
    exact = {"softmax": torch.softmax(x.double(), -1), "gelu": torch.nn.functional.gelu(x.double()),
             "exp": torch.exp(x.double())}[name].numpy()
    np.testing.assert_allclose(want, exact, rtol=2e-6, atol=1e-7)


def _batch_norm() -> torch.nn.Module:
    norm = torch.nn.BatchNorm1d(16).eval()
    with torch.no_grad():
        norm.running_mean.normal_()
        norm.running_var.uniform_(0.5, 2.0)
    return _affine(norm)


_BATCH_NORM = _batch_norm()

#: One float32 operator (or an import's decomposition) each, as the
#: lowering emits them between codecs.
OPERATORS = {
    "sigmoid": torch.sigmoid, "silu": F.silu, "tanh": torch.tanh, "mish": F.mish, "softplus": F.softplus,
    "gelu-tanh": lambda x: F.gelu(x, approximate="tanh"), "rsqrt": lambda x: torch.rsqrt(x.abs() + 1.0),
    "sqrt": lambda x: torch.sqrt(x.abs()), "mean": lambda x: x.mean(-1, keepdim=True) + x,
    "mean-of-two-dims": lambda x: x.mean((1, 2), keepdim=True) + x,
    "squeeze-excitation": lambda x: x * torch.sigmoid(x.mean(1, keepdim=True)),
    "rms": lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6),
    "l2-normalize": lambda x: x / x.norm(dim=-1, keepdim=True),
    "batch-norm": lambda x: _BATCH_NORM(x.transpose(1, 2)).transpose(1, 2),
    "div-by-scalar": lambda x: x / 3.7, "div-by-known-tensor": lambda x: x / torch.linspace(1.0, 2.0, 16),
    "known-addend-times-alpha": lambda x: torch.add(x, torch.linspace(0.1, 3.0, 16), alpha=0.37),
    "scaled-product": lambda x: x * (64 ** -0.5), "hardswish": F.hardswish,
    "matmul": lambda x: x @ x.transpose(1, 2) @ x,  # (one with a known operand becomes a linear layer)
    "avg-pool": lambda x: F.avg_pool2d(x.reshape(1, 4, 10, 16), 3, 1, 1).reshape(1, 40, 16),
    "avg-pool-without-padding-counted": lambda x: F.avg_pool2d(x.reshape(1, 4, 10, 16), 3, 2, 1,
                                                               count_include_pad=False),
    "avg-pool-ceil": lambda x: F.avg_pool2d(x.reshape(1, 4, 10, 16), 3, 2, 0, ceil_mode=True),
    "avg-pool-divisor": lambda x: F.avg_pool2d(x.reshape(1, 4, 10, 16), 3, 1, 1, divisor_override=5),
    # windows of 20 and 40 terms: their order and 1 / count round
    "adaptive-avg-pool": lambda x: F.adaptive_avg_pool2d(x.reshape(1, 4, 10, 16), (2, 4)).repeat(1, 5, 1, 1),
    "global-avg-pool": lambda x: x + F.adaptive_avg_pool2d(x.reshape(1, 16, 5, 8), 1).reshape(1, 1, 16),
    "mean-of-all": lambda x: x - x.mean(),
}

#: Functions computed by the compiler from a weight w (a rotary table's of
#: its inverse frequencies; torch.export folds those of constants itself).
OF_WEIGHTS = {"known-cos-sin-exp": lambda x, w: x * torch.cos(w * 0.37) + torch.sin(w * 1.3) + torch.exp(w * 0.01),
              # a quotient the compiler divides (at run time: a product by the reciprocal)
              "known-quotient": lambda x, w: x + w / 3.7,
              # alpha folded into the known operand, and a mean, as the compiler does
              "known-alpha-mean": lambda x, w: x + torch.add(w, w * 0.5, alpha=0.37) + w.mean(-1, keepdim=True),
              # norms, softmaxes and products the compiler computes in float64
              "known-norm-softmax-matmul": lambda x, w: (x + F.layer_norm(w, [16]) + torch.softmax(w * 0.01, -1)
                                                         + (w[0] * 1e-3) @ (w[0, :16] * 1e-3))}


class _Apply(torch.nn.Module):
    """``function(x)``, or of a weight too (1 x 40 x 16: 0 ... 639)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.function = OPERATORS.get(name)
        self.of_weight = OF_WEIGHTS.get(name)
        if self.of_weight is not None:
            self.w = torch.nn.Parameter(torch.arange(640.0).reshape(1, 40, 16), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x) if self.of_weight is None else self.of_weight(x, self.w)


@pytest.mark.parametrize("name", sorted(OPERATORS) + sorted(OF_WEIGHTS))
def test_the_reference_interpreter_computes_each_float_operator_as_the_program(tmp_path: Path, name: str) -> None:
    """The float32 program against the reference interpreter on the IR the
    back end reads (after raptor-prepare-model: batch norms folded, powers
    expanded), equal bit for bit: both sides' transcendental functions in
    float64 rounded once, sums (means, pooling windows, matrix products) in
    the programs' order, known divisors as float32 reciprocals."""
    from mlir import ir, passmanager

    import raptor
    from raptor import quant, sources, weights

    torch.manual_seed(0)
    x = torch.randn(1, 40, 16) * 3.0
    torch.export.save(torch.export.export(_Apply(name).eval(), (x,)), tmp_path / "m.pt2")
    program = compile_source(tmp_path / "m.pt2", tmp_path / "out")
    (got,) = program.simulate(x.numpy()).outputs.values()
    model = sources.load(str(tmp_path / "m.pt2"), strict=True)
    try:
        module = ir.Module.parse(str(model.module), context=raptor.Context())
        with module.context:
            passmanager.PassManager.parse("builtin.module(raptor-prepare-model)").run(module.operation)
        (want,) = quant.reference(module, {"x": x.numpy()}, weights.load(model.weights), mode="fp32")
    finally:
        model.cleanup()
    np.testing.assert_array_equal(np.asarray(got).reshape(want.shape), want)
    assert want.size >= 160


def test_the_sums_add_in_the_order_they_say() -> None:
    """ordered_sum adds from the first term (against a loop in float32),
    pairwise_sum halves (against the halving written out for 7 terms);
    both near the float64 sum, with float32's rounding visible: the
    orders give different bits on these terms."""
    rng = np.random.default_rng(1)
    terms = (rng.standard_normal((40, 301)) + 100.0).astype(np.float32)
    loop = np.zeros(40, np.float32)
    for column in terms.T:
        loop = loop + column
    np.testing.assert_array_equal(vector_unit.ordered_sum(terms), loop)
    t = terms[:, :7]
    three = [t[:, 0] + t[:, 3], t[:, 1] + t[:, 4], t[:, 2] + t[:, 5]]
    three[0] = three[0] + t[:, 6]  # the odd one out joins the first sum
    by_hand = (three[0] + three[1]) + three[2]  # 3 -> 1 (+ the odd third)
    np.testing.assert_array_equal(vector_unit.pairwise_sum(t), by_hand)
    exact = terms.astype(np.float64).sum(axis=-1)
    for got in (vector_unit.ordered_sum(terms), vector_unit.pairwise_sum(terms)):
        assert np.abs(got - exact).max() < 1e-5 * np.abs(exact).max()
    assert not np.array_equal(vector_unit.ordered_sum(terms), vector_unit.pairwise_sum(terms))
    assert vector_unit.ordered_sum(np.zeros((2, 0), np.float32)).tolist() == [0.0, 0.0]


def _check(out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert cli.main(["simulate", str(out), "--check", "--json", "-q"]) == 0
    return json.loads(capsys.readouterr().out)


def _torch_norm(x: np.ndarray, dims: int, weight: np.ndarray | None, bias: np.ndarray | None, eps: float,
                center: bool) -> np.ndarray:
    t, shape = torch.from_numpy(np.ascontiguousarray(x)), list(x.shape[-dims:])
    w = None if weight is None else torch.from_numpy(weight)
    if center:
        return F.layer_norm(t, shape, w, None if bias is None else torch.from_numpy(bias), eps).numpy()
    return F.rms_norm(t, shape, w, eps).numpy()


def test_an_int8_mixer_equals_its_quantized_reference_bit_for_bit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """timm's MLP-Mixer at 112 x 112 (49 tokens, 8 blocks of layer norms
    and GELU MLPs), float32 between the codecs (GELU has no integer
    lowering). The probe is sharp: with torch's layer norm, or a GELU one
    float32 step above the lowering's at every value, in the reference
    instead, the check differs (it did so before the reference summed as
    the programs do). (Not torch's GELU: on a CPU with AVX-512 its
    last-bit differences, either way, leave every int8 output as it is.)"""
    torch.manual_seed(0)
    model = timm.create_model("mixer_s16_224", img_size=112, num_classes=10).eval()
    torch.nn.init.normal_(model.head.weight, std=0.02)  # (timm zeroes the head)
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 112, 112),)), tmp_path / "m.pt2")
    check = simulated_check(tmp_path / "m.pt2", tmp_path / "int8", capsys, precision="int8")
    assert check["arithmetic"] == "float" and not check["reference_all_zero"]
    assert check["integer_reference_bit_exact"], check
    assert check["max_error_relative"] < 0.1
    lowering_gelu = vector_unit.gelu

    def gelu_one_step_up(x: np.ndarray, approximate: str = "none") -> np.ndarray:
        return np.nextafter(lowering_gelu(x, approximate), np.float32(np.inf))

    for name, torch_version in (("norm", _torch_norm), ("gelu", gelu_one_step_up)):
        with monkeypatch.context() as patch:
            patch.setattr(vector_unit, name, torch_version)
            assert _check(tmp_path / "int8", capsys)["integer_reference_differing"] > 0, name


class _Attention(torch.nn.Module):
    """One attention layer over 256 tokens (4 heads of 16)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv, self.out = torch.nn.Linear(64, 192), torch.nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).reshape(1, 256, 3, 4, 16).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(1, 256, 64))


def test_int8_attention_equals_its_quantized_reference_bit_for_bit(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """int8 attention encodes its probabilities as round(32767 p): the
    softmax behind them must round as the program's (an ordered sum of
    float64-rounded exponentials), or some of them take the neighbouring
    code (with torch's softmax in the reference: 63 positions here)."""
    torch.manual_seed(0)
    torch.export.save(torch.export.export(_Attention().eval(), (torch.randn(1, 256, 64),)), tmp_path / "m.pt2")
    check = simulated_check(tmp_path / "m.pt2", tmp_path / "int8", capsys, precision="int8")
    assert check["integer_reference_bit_exact"], check
    with monkeypatch.context() as patch:
        patch.setattr(vector_unit, "softmax", lambda x: torch.softmax(torch.from_numpy(x), -1).numpy())
        assert _check(tmp_path / "int8", capsys)["integer_reference_differing"] > 0
