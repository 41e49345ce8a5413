"""The torch.export frontend on small models built here (fast, no zoo)."""

from __future__ import annotations

from typing import Any

import pytest

# torch and transformers come with the project's setup (requirements/lock.txt):
# a missing one is a failure, not a skip.
import torch
import transformers
from torch import fx
from torch.export.graph_signature import InputKind

import raptor
from raptor.frontend import _fx_rewrites as rw
from raptor.frontend.torch import ImportOptions, UnsupportedOperatorError, _Emitter, import_program
from raptor.zoo import decomposition_table


def _export(model: torch.nn.Module, *inputs: torch.Tensor) -> torch.export.ExportedProgram:
    model.eval()
    with torch.no_grad():
        ep = torch.export.export(model, inputs, strict=False)
        return ep.run_decompositions(decomposition_table())


class ShuffleUnit(torch.nn.Module):
    """A ShuffleNetV2-like unit: split, conv-bn-relu, pool, concat, shuffle."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(4)
        self.pool = torch.nn.MaxPool2d(3, stride=1, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=1)
        b = self.pool(torch.relu(self.bn(self.conv(b))))
        y = torch.cat([a, b], dim=1)
        return y.view(1, 2, 4, 6, 6).transpose(1, 2).contiguous().view(1, 8, 6, 6)


def _tiny_llama() -> torch.nn.Module:
    config = transformers.LlamaConfig(
        vocab_size=32, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-5,
        max_position_embeddings=64, use_cache=False, tie_word_embeddings=False)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = transformers.LlamaModel(config)

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.model(inputs_embeds=x).last_hidden_state

    return Wrapper()


def _run_rewritten(ep: torch.export.ExportedProgram, options: ImportOptions,
                   x: torch.Tensor) -> torch.Tensor:
    """Runs the graph after the frontend's rewrites with eager torch."""
    emitter = _Emitter(ep, options)
    graph = emitter.prepare()
    args: list[Any] = []
    for node in graph.nodes:
        if node.op != "placeholder":
            continue
        spec = emitter.placeholder_kind[node]
        if spec.kind == InputKind.USER_INPUT:
            args.append(x)
        else:
            args.append(ep.constants[spec.target] if spec.target in ep.constants
                        else ep.state_dict[spec.target])
    module = fx.GraphModule(torch.nn.Module(), graph)
    out = fx.Interpreter(module).run(*args)
    return out[0] if isinstance(out, (tuple, list)) else out


def test_convolutional_unit_imports_as_typed_ops() -> None:
    ep = _export(ShuffleUnit(), torch.randn(1, 8, 6, 6))
    module, report = import_program(ep, ImportOptions(strict=True))
    (summary,) = raptor.graph_summary(module)["functions"]
    assert summary["generic_ops"] == {}
    assert summary["op_counts"] == {
        "nn.split_with_sizes": 1, "nn.convolution": 1, "nn.batch_norm": 1, "nn.relu": 1,
        "nn.max_pool2d": 1, "nn.cat": 1, "nn.view": 2, "nn.permute": 1, "nn.clone": 1}
    # conv weight + BN weight, bias, running mean and var.
    assert summary["weight_elements"] == 4 * 4 * 3 * 3 + 4 * 4
    assert [t["name"] for t in summary["inputs"]] == ["x"]
    text = str(module)
    assert 'nn.param = "conv.weight"' in text and 'nn.param = "bn.running_var"' in text
    assert "num_batches_tracked" not in text  # unused buffers are dropped


def test_a_zoo_export_imports_with_the_zoos_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """`raptor import --model smollm2` (sources.load(..., export=True))
    imports the exported decoder with the zoo's options: its attention
    reads keys and values through nn.kv_cache. The export is a tiny Llama
    standing in for SmolLM2 (same patterns)."""
    from raptor import sources, zoo

    x = torch.randn(1, 8, 64)
    monkeypatch.setattr(zoo, "export", lambda name: _export(_tiny_llama(), x))
    imported = sources.load("smollm2", export=True)
    try:
        assert imported.report.rewrites["kv_cache"] == 2
        assert str(imported.module).count("nn.kv_cache") == 2
    finally:
        imported.cleanup()


def test_llama_patterns_are_recognised_and_exact() -> None:
    model = _tiny_llama()
    x = torch.randn(1, 8, 64)
    ep = _export(model, x)
    options = ImportOptions(strict=True, insert_kv_cache=True)
    module, report = import_program(ep, options)
    assert report.rewrites == {"rms_norm": 5, "rotary_embedding": 4, "fan_out": 4,
                               "kv_cache": 2, "causal_mask": 2}
    (summary,) = raptor.graph_summary(module)["functions"]
    counts = summary["op_counts"]
    assert counts["nn.rms_norm"] == 5 and counts["nn.rotary_embedding"] == 4
    assert counts["nn.fan_out"] == 4 and counts["nn.kv_cache"] == 2
    assert counts["nn.scaled_dot_product_attention"] == 2
    assert "is_causal = true" in str(module)
    # The rewritten graph computes what the model computes.
    with torch.no_grad():
        expected = model(x)
        got = _run_rewritten(ep, options, x)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_rewrites_can_be_disabled() -> None:
    ep = _export(_tiny_llama(), torch.randn(1, 8, 64))
    module, report = import_program(ep, ImportOptions(
        fuse_rms_norm=False, fuse_rotary_embeddings=False, fuse_fan_out=False))
    assert report.rewrites["rms_norm"] == 0
    counts = raptor.graph_summary(module)["functions"][0]["op_counts"]
    assert "nn.rms_norm" not in counts and "nn.rotary_embedding" not in counts
    assert counts["nn.rsqrt"] == 5


class Cumulative(torch.nn.Module):
    """A running product (a running sum is a linear map Raptor decomposes)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumprod(x, dim=1) * 2.0


def test_unknown_operator_is_generic_or_strict_error() -> None:
    ep = _export(Cumulative(), torch.randn(2, 5))
    module, report = import_program(ep)
    assert report.generic == {"aten.cumprod.default": 1}
    text = str(module)
    assert 'nn.aten "aten.cumprod.default"(%arg0) {input_ports = ["self"], params = {dim = 1 : i64}}' in text
    assert "nn.mul %0 scalar(2.000000e+00 : f64)" in text
    op = next(o for o in module.body.operations[0].regions[0].blocks[0].operations
              if o.name == "nn.aten")
    assert raptor.port_names(op) == (["self"], ["out"])
    with pytest.raises(UnsupportedOperatorError, match=r"aten\.cumprod\.default .*has no nn op"):
        import_program(ep, ImportOptions(strict=True))


class ScalarFirst(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 0.3 - x


def test_a_scalar_first_difference_imports_as_a_negation_and_a_sum() -> None:
    """rsub decomposes to aten.sub.Tensor(0.3, x): nn.sub takes a scalar
    only second (the op builder once raised 'Operand 0 ... must be a
    Value'), so it imports as -x + 0.3, the same float (ESM's
    ``1 - mask_ratio_observed``)."""
    module, report = import_program(_export(ScalarFirst(), torch.randn(1, 4)))
    assert not report.generic and report.rewrites["scalar_minus_tensor"] == 1
    text = str(module)
    assert "nn.neg %arg0" in text and "nn.add" in text and "3.000000e-01" in text
    x = torch.randn(1, 4)
    assert torch.equal(-x + 0.3, 0.3 - x)


def test_marker_functions_compute_their_operators() -> None:
    x = torch.randn(1, 2, 3, 8)
    cos, sin = torch.randn(1, 1, 3, 8), torch.randn(1, 1, 3, 8)
    half = torch.cat([-x[..., 4:], x[..., :4]], dim=-1)
    torch.testing.assert_close(rw.rotary_positional_embeddings(x, cos, sin), x * cos + half * sin)
    fanned = rw.fan_out(x, 3, 1)
    assert fanned.shape == (1, 6, 3, 8)
    torch.testing.assert_close(fanned[:, 0], fanned[:, 2])
    torch.testing.assert_close(fanned[:, 3], x[:, 1])


class _RmsNorm(torch.nn.Module):
    """w * x * rsqrt(mean(x^p, dim) + eps): RMSNorm for p = 2 over the last
    dimension, near misses otherwise."""

    def __init__(self, p: int = 2, dim: int = -1, eps_inside: bool = True) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(16))
        self.p, self.dim, self.eps_inside = p, dim, eps_inside

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var = x.pow(self.p).mean(self.dim, keepdim=True)
        if self.eps_inside:
            return self.w * (x * torch.rsqrt(var + 1e-5))
        return self.w * (x * torch.rsqrt(var) + 1e-5)


class _Rotary(torch.nn.Module):
    """x * cos + rotate_half(x) * sin; `swapped` negates the wrong half."""

    def __init__(self, swapped: bool = False) -> None:
        super().__init__()
        self.swapped = swapped
        self.register_buffer("cos", torch.randn(8, 16))
        self.register_buffer("sin", torch.randn(8, 16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x[..., :8], x[..., 8:]
        rotated = torch.cat([b, -a], -1) if self.swapped else torch.cat([-b, a], -1)
        return x * self.cos + rotated * self.sin


class _MaskedAttention(torch.nn.Module):
    """Attention under the constant mask j <= i + diagonal: causal for 0."""

    def __init__(self, diagonal: int = 0) -> None:
        super().__init__()
        self.diagonal = diagonal

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        i = torch.arange(q.shape[-2])
        mask = i[None, :] <= i[:, None] + self.diagonal
        return torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)


class _RepeatKv(torch.nn.Module):
    """Llama's repeat_kv, x[:, :, None].expand(...).reshape(...), on 2 KV
    heads; `at` moves the new dimension (3: each row repeated, not each
    head), `rows` folds the repeats into the rows instead of the heads."""

    def __init__(self, at: int = 2, rows: bool = False) -> None:
        super().__init__()
        self.at, self.rows = at, rows

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, s, d = x.shape
        y = x.unsqueeze(self.at)
        size = [b, h, s, d]
        size.insert(self.at, 3)
        y = y.expand(*size)
        return y.reshape(b, h, 3 * s, d) if self.rows or self.at != 2 else y.reshape(b, 3 * h, s, d)


@pytest.mark.parametrize("model, shape, rewrite, count", [
    (_RmsNorm(), (1, 4, 16), "rms_norm", 1),
    (_RmsNorm(p=3), (1, 4, 16), "rms_norm", 0),              # the exponent 3, not 2
    (_RmsNorm(dim=1), (1, 4, 16), "rms_norm", 0),            # the mean over another dimension
    (_RmsNorm(eps_inside=False), (1, 4, 16), "rms_norm", 0),  # eps added after the rsqrt
    (_Rotary(), (1, 2, 8, 16), "rotary_embedding", 1),
    (_Rotary(swapped=True), (1, 2, 8, 16), "rotary_embedding", 0),  # the halves negated the other way
    (_MaskedAttention(), (1, 2, 8, 16), "causal_mask", 1),
    (_MaskedAttention(diagonal=1), (1, 2, 8, 16), "causal_mask", 0),  # a constant mask, not causal
    (_RepeatKv(), (1, 2, 4, 8), "fan_out", 1),
    (_RepeatKv(at=3), (1, 2, 4, 8), "fan_out", 0),            # rows repeated, not heads
    (_RepeatKv(rows=True), (1, 2, 4, 8), "fan_out", 0),       # heads' repeats folded into the rows
])
def test_rewrites_match_their_pattern_and_leave_near_misses_alone(model: torch.nn.Module, shape: tuple[int, ...],
                                                                   rewrite: str, count: int) -> None:
    """Each pattern rewrite fires on its pattern and on none of the near
    misses beside it; either way the rewritten graph computes the model."""
    torch.manual_seed(0)
    x = torch.rand(shape) + 0.1  # positive: x^3 has a real rsqrt
    ep = _export(model, x)
    _, report = import_program(ep, ImportOptions())
    assert report.rewrites[rewrite] == count
    assert sum(report.rewrites.values()) == count  # and no other rewrite fired
    with torch.no_grad():
        torch.testing.assert_close(_run_rewritten(ep, ImportOptions(), x), model(x), rtol=1e-5, atol=1e-6)
