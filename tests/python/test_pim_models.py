"""The PIM back end end to end: models compiled, simulated, compared with
eager torch (the issue's criterion: max error < 1e-4 of the largest
output), on models written here, torchvision models and transformers
configurations with random weights."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
import torchvision
import transformers
from mlir import ir
from torch import nn

from raptor import pim

from pim_helpers import TARGETS, compile_and_run, imported, randomize

TOLERANCE = 1e-4


class Convolutions(nn.Module):
    """Convolutions of every kind the lowering distinguishes, with folded
    and standalone batch norms and the pooling operators."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1, bias=False), nn.BatchNorm2d(12), nn.ReLU())
        self.strided = nn.Conv2d(12, 16, 3, stride=2, padding=1)
        self.grouped = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4)
        self.depthwise = nn.Conv2d(16, 16, 5, padding=2, groups=16)
        self.norm = nn.BatchNorm2d(16)
        self.pointwise = nn.Conv2d(16, 24, 1)
        self.head = nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = nn.functional.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
        x = self.strided(x)
        x = nn.functional.hardtanh(self.grouped(x), 0.0, 6.0)
        x = self.norm(torch.relu(self.depthwise(x)))  # a norm after a relu stays a multiply-add
        x = nn.functional.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
        x = torch.sigmoid(self.pointwise(x)) * x.mean(dim=1, keepdim=True)
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class Elementwise(nn.Module):
    """Arithmetic with broadcasting, scalars and constants; activations;
    views, permutes, splits and concatenation; padding and upsampling."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 8).view(1, 8, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.split([3, 5], dim=1)
        a = torch.tanh(a) - 0.5 * torch.clamp(a, min=-0.25)
        b = nn.functional.gelu(b) + nn.functional.silu(b) / (1.5 + torch.sigmoid(b))
        y = torch.cat([b, -a], dim=1) * self.scale
        y = nn.functional.pad(y, (1, 2, 0, 1), value=0.75)
        y = nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        y = y.permute(0, 2, 3, 1).reshape(1, -1, 8)
        return torch.softmax(y, dim=-1) + y.mean(dim=-1, keepdim=True)


class Attention(nn.Module):
    """A pre-norm attention block with a matmul, written out by hand."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)
        self.mix = nn.Parameter(torch.randn(16, 16) / 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm(x)).view(1, 16, 3, 4, 8).permute(2, 0, 3, 1, 4)
        a = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = x + self.out(a.transpose(1, 2).reshape(1, 16, 32))
        return torch.matmul(self.mix, y) + nn.functional.gelu(y, approximate="tanh")


@pytest.mark.parametrize("make, shape", [
    (Convolutions, (1, 3, 20, 20)),
    (Elementwise, (1, 8, 5, 6)),
    (Attention, (1, 16, 32)),
])
def test_models_written_here_match_torch(make, shape, tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = randomize(make())
    run = compile_and_run(model, torch.randn(shape), tmp_path / "program")
    assert run.output.shape == run.reference.shape
    assert run.relative_error < TOLERANCE, run.relative_error


@pytest.mark.parametrize("rule", ["none", "time", "windows"])
def test_every_replication_rule_computes_the_model(rule: str, tmp_path: Path) -> None:
    """Copies of convolution and linear lanes (each a range of output rows,
    fed the input rows it reads) on a chip with room for many: the pieces
    they compute make up the model's output."""
    torch.manual_seed(0)
    model = randomize(Convolutions())
    run = compile_and_run(model, torch.randn(1, 3, 20, 20), tmp_path / rule, replicate=rule, replication_budget=1.0)
    assert run.relative_error < TOLERANCE, run.relative_error
    crossbars = sum(g["crossbars"] for c in run.manifest["cores"] for g in c["groups"])
    if rule == "none":
        assert crossbars == 6  # one copy of each lane
    else:
        assert crossbars > 6 and len(run.manifest["cores"]) > 2


def _torchvision(name: str) -> nn.Module:
    torch.manual_seed(0)
    return randomize(getattr(torchvision.models, name)(weights=None))


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "squeezenet1_0", "regnet_y_400mf",
                                  "shufflenet_v2_x0_5", "efficientnet_b0"])
def test_torchvision_classifiers_match_torch(name: str, tmp_path: Path) -> None:
    x = torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(1))
    run = compile_and_run(_torchvision(name), x, tmp_path / name)
    assert run.output.shape == (1, 1000)
    assert run.relative_error < TOLERANCE, run.relative_error
    # CNNs need no instruction pimsim-nn lacks.
    assert run.manifest["program"]["pimsim_compatible"], run.manifest["program"]["extensions"]


def test_a_llama_decoder_configuration_matches_torch(tmp_path: Path) -> None:
    """RMS norm, rotary embeddings, grouped-query attention, SiLU MLP."""
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, use_cache=False)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    llama = transformers.LlamaModel(config).eval()

    class Embeds(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return llama(inputs_embeds=x, use_cache=False).last_hidden_state

    run = compile_and_run(Embeds(), torch.randn(1, 12, 64), tmp_path / "llama")
    assert run.relative_error < TOLERANCE, run.relative_error
    assert not run.manifest["program"]["pimsim_compatible"]  # softmax needs the extensions
    assert "ext.vexp" in run.manifest["program"]["extensions"]


def test_a_siglip_vision_configuration_matches_torch(tmp_path: Path) -> None:
    """Patch embedding convolution, position embeddings of constant ids,
    layer norms, bidirectional attention, tanh-approximated GELU."""
    config = transformers.SiglipVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                             num_attention_heads=4, image_size=32, patch_size=8,
                                             hidden_act="gelu_pytorch_tanh", vision_use_head=False)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    siglip = transformers.SiglipVisionModel(config).eval()

    class Pixels(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return siglip(pixel_values=x).last_hidden_state

    run = compile_and_run(Pixels(), torch.randn(1, 3, 32, 32), tmp_path / "siglip")
    assert run.relative_error < TOLERANCE, run.relative_error


def test_lanes_spread_over_many_cores_exchange_partial_sums(tmp_path: Path) -> None:
    """One 8x8 crossbar per core: every linear layer splits into lanes on
    different cores, whose pieces and partial sums travel by send/recv, or
    through global memory."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 10), nn.ReLU(), nn.Softmax(dim=-1))
    for transfers in ("rendezvous", "global"):
        run = compile_and_run(model, torch.randn(1, 4, 12), tmp_path / transfers, target=TARGETS / "one-crossbar.json",
                              transfers=transfers)
        assert run.relative_error < TOLERANCE, run.relative_error
        assert (run.stats["total"]["sent_bytes"] > 0) == (transfers == "rendezvous")
        assert len(run.manifest["cores"]) == 4


def test_pimsim_files_compute_what_the_compact_form_computes(tmp_path: Path) -> None:
    """The unrolled pimsim-nn programs (JSON and binary) run in Raptor's
    simulator give bit-identical outputs to the compact loops."""
    torch.manual_seed(0)
    model = randomize(Convolutions())
    x = torch.randn(1, 3, 20, 20)
    compact = compile_and_run(model, x, tmp_path / "both", pimsim="both")
    from raptor import pim

    binary = pim.Program.load(tmp_path / "both", "pimsim").simulate(x.numpy())
    np.testing.assert_array_equal(next(iter(binary.outputs.values())), compact.output)
    assert binary.stats["total"]["macs"] == compact.stats["total"]["macs"]
    # JSON alone (no .pim files): the reader takes core_<i>.json.
    for f in (tmp_path / "both").glob("core_*.pim"):
        f.unlink()
    text = pim.Program.load(tmp_path / "both", "pimsim").simulate(x.numpy())
    np.testing.assert_array_equal(next(iter(text.outputs.values())), compact.output)
    # Unrolled, every stride is a saddi: more instructions run than in loops.
    assert binary.stats["total"]["instructions"] > compact.stats["total"]["instructions"]


class UpsampleCat(nn.Module):
    """A U-Net decoder step: an upsampled feature concatenated with a skip
    connection, then a convolution whose copies each compute some rows."""

    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Conv2d(8, 8, 3, padding=1)
        self.down = nn.Conv2d(8, 8, 3, padding=1)
        self.decode = nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skip = torch.relu(self.encode(x))
        y = torch.relu(self.down(nn.functional.max_pool2d(skip, 2)))
        y = nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        return self.decode(torch.cat([y, skip], dim=1))


def test_row_copies_behind_an_upsampled_concatenation_build_only_their_rows(tmp_path: Path) -> None:
    """Each copy of the decoder convolution pads just the input rows its
    windows read ((rows + 2) padded rows of 18 x 16 channels): the upsampled
    piece is packed with one flat mode per dimension, so that any rows of
    it are a view (packed with its nested row mode kept, rows of an odd
    count were no view, and every copy built the whole 18-row map)."""
    torch.manual_seed(0)
    model = UpsampleCat().eval()
    x = torch.randn(1, 8, 16, 16)
    w = tmp_path / "w.safetensors"
    module = imported(model, x, w)
    pim.compile(module, tmp_path / "program", weights=w, replicate="time", replication_budget=1.0, pimsim="none")
    (out,) = pim.Program.load(tmp_path / "program").simulate(x.numpy()).outputs.values()
    with torch.no_grad():
        reference = model(x).numpy()
    assert float(np.abs(out - reference).max() / np.abs(reference).max()) < TOLERANCE
    graph = next(op for op in module.body.operations if op.name == "spatial.graph")
    tasks = [op.attributes for op in graph.regions[0].blocks[0].operations
             if "op" in op.attributes and ir.StringAttr(op.attributes["op"]).value == "nn.convolution"]
    last = max(ir.IntegerAttr(a["source"]).value for a in tasks)
    copies = [(ir.IntegerAttr(a["core"]).value, list(ir.DenseI64ArrayAttr(a["rows"])))
              for a in tasks if ir.IntegerAttr(a["source"]).value == last and "rows" in a]
    assert len(copies) >= 2
    fills = _fills(str(module))
    row_bytes = 18 * 16 * 4
    for core, (r0, r1) in copies:
        assert (r1 - r0 + 2) * row_bytes in fills[core], (core, r0, r1, fills[core])
        assert 18 * row_bytes not in fills[core], (core, r0, r1)


def _fills(text: str) -> dict[int, set[int]]:
    """The lengths of each core's lldi instructions (the padding fills)."""
    fills: dict[int, set[int]] = {}
    core = None
    for line in text.splitlines():
        if m := re.match(r"\s*pim\.core (\d+) ", line):
            core = int(m.group(1))
            fills[core] = set()
        elif core is not None and (m := re.search(r"pim\.lldi \S+, \d+ len (\d+)", line)):
            fills[core].add(int(m.group(1)))
    return fills
