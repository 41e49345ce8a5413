"""Row streaming through ShuffleNetV2's units (docs/scheduling.md "Row
streaming"): the channel shuffle's views and the depthwise convolution
follow the streamed rows block by block, so no core gathers a whole map
between two units. The programs must equal torch (f32) and the integer
reference (int8) bit for bit as the whole-tensor programs do, under any
interleaving of the cores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import imported, randomize
from test_row_streaming import _tasks
from torch import nn

import raptor
from raptor import pim, quant, weights


def _shuffle(x: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    return x.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)


class Units(nn.Module):
    """A stem, then two of ShuffleNetV2's stride-1 units: half the channels
    pass, the other half runs 1x1, depthwise 3x3, 1x1; concatenated and
    shuffled."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.branches = nn.ModuleList(
            nn.Sequential(nn.Conv2d(8, 8, 1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8),
                          nn.Conv2d(8, 8, 1), nn.BatchNorm2d(8), nn.ReLU()) for _ in range(2))
        self.head = nn.Conv2d(16, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.stem(x)
        for branch in self.branches:
            a, b = y.chunk(2, dim=1)
            y = _shuffle(torch.cat([a, branch(b)], 1))
        return self.head(y)


X = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(0))


def _module(tmp_path: Path):
    torch.manual_seed(5)
    model = randomize(Units())
    path = tmp_path / "m.safetensors"
    module = imported(model, X, path)
    with torch.no_grad():
        return module, path, model(X).numpy()


def _followers(module: ir.Module) -> dict[str, list[list[int] | None]]:
    rows: dict[str, list[list[int] | None]] = {}
    for t in _tasks(module):
        rows.setdefault(t["op"], []).append(t["rows"])
    return rows


def test_shuffles_and_depthwise_convolutions_follow_streamed_rows(tmp_path: Path) -> None:
    module, path, reference = _module(tmp_path)
    pim.compile(module, tmp_path / "s", weights=path, replicate="none", pimsim="none", row_block=3)
    rows = _followers(module)
    # 12 rows in blocks of 3: every view, permutation, copy and split of
    # both shuffles and both depthwise convolutions, block by block.
    for op in ("nn.view", "nn.permute", "nn.clone", "nn.split_with_sizes"):
        assert rows[op] and all(r is not None for r in rows[op]), op
    assert len(rows["nn.permute"]) == 2 * 4
    depthwise = [r for r in rows["nn.convolution"] if r is not None and r[1] - r[0] == 3]
    assert len(depthwise) >= 2 * 4
    program = pim.Program.load(tmp_path / "s")
    for seed in (None, 1, 2):
        got = program.simulate({"x": X.numpy()}, interleaving_seed=seed).outputs["out0"]
        np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)


def test_streamed_integer_shuffles_equal_the_integer_reference(tmp_path: Path) -> None:
    module, path, _ = _module(tmp_path)
    samples = [{"x": X.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "q", weights=path, precision="int8", calibration=samples, arithmetic="integer",
                pimsim="none", replicate="none", row_block=3)
    assert all(r is not None for r in _followers(module)["nn.permute"])
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": X.numpy()}, weights.load(path))
    program = pim.Program.load(tmp_path / "q")
    for seed in (None, 3):
        got = program.simulate({"x": X.numpy()}, interleaving_seed=seed).outputs["out0"]
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [0, 3])
def test_whole_tensors_keep_one_task_per_view(tmp_path: Path, block: int) -> None:
    """Without streamed rows (and without copies) the views stay whole."""
    module, path, _ = _module(tmp_path)
    pim.compile(module, tmp_path / "w", weights=path, replicate="none", pimsim="none", row_block=block)
    permutes = _followers(module)["nn.permute"]
    assert (all(r is None for r in permutes) and len(permutes) == 2) if block == 0 else len(permutes) == 8
