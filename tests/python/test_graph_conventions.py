"""The codec-placement paper's graph conventions (raptor-materialize-padding,
raptor-unfuse-fan-out, raptor-pack-rotary-heads, raptor-insert-fan-out):
the values stay those of eager torch (a transformers Llama among them), the
unfused fan-out is the importer's own unfused graph, and the counted
operators appear where the conventions say."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import export, randomize
from torch import nn

import raptor
from raptor import codec, weights
from raptor.frontend.torch import ImportOptions, import_program
from raptor.quant.interpreter import evaluate


class PaddedResidual(nn.Module):
    """Padded convolutions and max-pool, a residual (a feature read twice)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.a = nn.Conv2d(4, 4, (3, 5), padding=(1, 2))
        self.b = nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # -x: the max-pool sees negative data, where padding with zeros
        # instead of -inf would change the result.
        y = self.pool(-torch.relu(self.stem(x)))
        return torch.relu(self.a(y)) + self.b(y)


class GroupedAttention(nn.Module):
    """Llama's repeat_kv before attention: 4 query heads over 2 KV heads."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.kv = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q = self.q(x).view(b, n, 4, 4).transpose(1, 2)
        k, v = self.kv(x).view(b, n, 2, 2, 4).permute(2, 0, 3, 1, 4)

        def repeat_kv(t: torch.Tensor) -> torch.Tensor:
            return t[:, :, None, :, :].expand(b, 2, 2, n, 4).reshape(b, 4, n, 4)

        y = nn.functional.scaled_dot_product_attention(q, repeat_kv(k), repeat_kv(v))
        return y.transpose(1, 2).reshape(b, n, 16)


class TinyLlama(nn.Module):
    """transformers' Llama (2 layers, GQA 4/2, RoPE) with random weights, fed
    with embeddings: the rotation reads split heads."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import LlamaConfig, LlamaModel

        config = LlamaConfig(vocab_size=16, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                             max_position_embeddings=64, use_cache=False)
        config._attn_implementation = "sdpa"
        self.llama = LlamaModel(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.llama(inputs_embeds=x, use_cache=False).last_hidden_state


def _imported(model: nn.Module, x: torch.Tensor, options: ImportOptions | None = None):
    ep = export(model, x)
    module, _ = import_program(ep, options, context=raptor.Context())
    return module, weights.from_exported_program(ep, module)


def _ops(module: ir.Module) -> list[ir.Operation]:
    func = next(op for op in module.body.operations if op.operation.name == "func.func")
    return [op.operation for op in func.regions[0].blocks[0].operations]


def _pads(module: ir.Module) -> list[float]:
    return [ir.FloatAttr(op.attributes["value"]).value if "value" in op.attributes else 0.0
            for op in _ops(module) if op.name == "nn.constant_pad_nd"]


@pytest.mark.parametrize("model, shape", [(PaddedResidual, (1, 3, 16, 16)), (GroupedAttention, (1, 6, 16)),
                                          (TinyLlama, (1, 5, 32))])
def test_paper_conventions_keep_the_values_of_eager_torch(model: type, shape: tuple[int, ...]) -> None:
    torch.manual_seed(3)
    m = randomize(model()).eval()
    x = torch.randn(*shape)
    module, tensors = _imported(m, x)
    codec.apply_paper_conventions(module)
    assert module.operation.verify()
    (got,) = evaluate(module, {"x": x.numpy()}, tensors)
    with torch.no_grad():
        want = m(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_padding_becomes_an_operator_before_each_padded_consumer() -> None:
    module, _ = _imported(randomize(PaddedResidual()), torch.randn(1, 3, 16, 16))
    codec.apply_paper_conventions(module)
    # Two padded convolutions (stem, a) pad with 0, the pool with -inf; the
    # 1x1 convolution has no padding.
    assert sorted(_pads(module)) == [-np.inf, 0.0, 0.0]
    for op in _ops(module):
        if op.name in ("nn.convolution", "nn.max_pool2d") and "padding" in op.attributes:
            assert list(ir.DenseI64ArrayAttr(op.attributes["padding"])) == [0, 0]


def test_unfusing_gives_the_importers_own_unfused_graph() -> None:
    torch.manual_seed(1)
    m = randomize(GroupedAttention()).eval()
    x = torch.randn(1, 6, 16)
    fused, _ = _imported(m, x)
    unfused, _ = _imported(m, x, ImportOptions(fuse_fan_out=False))
    assert Counter(op.name for op in _ops(fused))["nn.fan_out"] == 2
    codec._run(fused, "raptor-unfuse-fan-out")

    def signature(module: ir.Module) -> Counter:
        return Counter((op.name, str(op.attributes["size"]) if "size" in op.attributes else "",
                        tuple(str(r.type) for r in op.results)) for op in _ops(module))

    assert signature(fused) == signature(unfused)
    for policy in "ZW":
        costs = []
        for module in (fused, unfused):
            placed = ir.Module.parse(str(module), context=module.context)
            codec.place(placed, policy)
            costs.append(codec.costs(placed)[0])
        assert costs[0] == costs[1]


def test_rotations_read_the_projections_before_their_head_split() -> None:
    torch.manual_seed(2)
    module, _ = _imported(TinyLlama().eval(), torch.randn(1, 5, 32))
    codec.apply_paper_conventions(module)
    ops = _ops(module)
    defining = {r: op for op in ops for r in op.results}
    ropes = [op for op in ops if op.name == "nn.rotary_embedding"]
    assert len(ropes) == 4  # queries and keys of two layers
    for rope in ropes:
        # Each head of 8 features rotated on the projection's output, with
        # tables of one head; the split (view, permute) reads the rotation.
        assert ir.IntegerAttr(rope.attributes["head_dim"]).value == 8
        assert defining[rope.operands[0]].name == "nn.linear"
        assert [str(o.type) for o in rope.operands[1:]] == ["tensor<1x5x8xf32>"] * 2
        (view,) = [u.owner for u in rope.results[0].uses]
        assert view.name == "nn.view"
        assert [u.owner.name for u in view.results[0].uses] == ["nn.permute"]


def test_one_encoding_serves_both_branches_of_a_residual_block() -> None:
    """The paper's introduction: a two-branch residual block with a matrix
    multiplication on each branch; a non-local rule quantizes the shared
    block input once. With the fan-out node the input is encoded once;
    without it each branch encodes its own copy."""
    text = """
    func.func @block(%x: tensor<4x8xf32> {nn.input = "x"}, %w1: tensor<8x8xf32> {nn.param = "w1"},
                     %w2: tensor<8x8xf32> {nn.param = "w2"}) -> tensor<4x8xf32> {
      %r = nn.relu %x : tensor<4x8xf32>
      %a = nn.linear %r, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %b = nn.linear %r, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %y = nn.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    }"""
    encoders = {}
    for fanned in (False, True):
        module = ir.Module.parse(text, context=raptor.Context())
        if fanned:
            codec.apply_paper_conventions(module)
        codec.place(module, "X")
        (costs,) = codec.costs(module)
        # 32 elements of relu's output enter the encoders; the two sums are decoded.
        encoders[fanned] = (costs.encoders, costs.decoders, costs.codec_items)
    assert encoders == {False: (2, 2, 4 * 32), True: (1, 2, 3 * 32)}
