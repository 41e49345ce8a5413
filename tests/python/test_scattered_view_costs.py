"""A channel shuffle (ShuffleNet's: channels split in groups, the groups
swapped with the channels, merged back) is a view no strides express; the
lowering keeps it as a nested layout and the convolution reading it copies
its input element by element (passes/spatial/CostModel.cpp, "scattered").
Checked against the timing simulator: the reading convolution's task
costs its simulated time, copies included, as an unshuffled one does; and
the compile's latency estimate stays within 10% of the simulated latency.
Priced as free views, the reader's copies (128 per output position, 9 ns
each, beside 16 us of f32 MVMs) made its simulated time 1.08x its cost,
and ShuffleNetV2's estimate 0.84x its simulated latency."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from pim_helpers import export
from torch import nn

from raptor import pim, weights
from raptor.frontend.torch import import_program


class Shuffle(nn.Module):
    def __init__(self, shuffle: bool) -> None:
        super().__init__()
        self.widen = nn.Conv2d(16, 128, 1)
        self.narrow = nn.Conv2d(128, 16, 1)
        self.shuffle = shuffle

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.widen(x))
        if self.shuffle:
            n, c, h, w = y.shape
            y = y.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        return self.narrow(y)


def _compile(tmp_path: Path, shuffle: bool) -> tuple[float, float, float]:
    """(the reading convolution's simulated time over its cost, its cost,
    estimate over simulated latency)."""
    torch.manual_seed(0)
    x = torch.randn(1, 16, 8, 8)
    exported = export(Shuffle(shuffle).eval(), x)
    module, _ = import_program(exported)
    path = tmp_path / "m.safetensors"
    weights.save(path, weights.from_exported_program(exported, module))
    out = tmp_path / ("shuffled" if shuffle else "plain")
    result = pim.compile(module, out, weights=path, replicate="none", row_block=0, pimsim="none")
    tasks = json.loads((out / "reports" / "schedule_tasks.json").read_text())
    timing = pim.Program.load(out).time()
    reader = [t for t in tasks if t["name"].startswith("nn.convolution") and t["name"] != tasks[0]["name"]]
    assert len(reader) == 1, tasks
    simulated = next(k for k in timing.tasks if k.name == reader[0]["name"] and k.core == reader[0]["core"])
    work = simulated.end_ns - simulated.start_ns - simulated.blocked_ns
    predicted = result.manifest["schedule"]["predicted_latency_ns"]
    return work / reader[0]["cost_ns"], reader[0]["cost_ns"], predicted / timing.latency_ns


def test_a_shuffled_map_s_reader_pays_its_copies(tmp_path: Path) -> None:
    shuffled, shuffled_cost, shuffled_estimate = _compile(tmp_path, shuffle=True)
    plain, plain_cost, plain_estimate = _compile(tmp_path, shuffle=False)
    assert plain == pytest.approx(1.0, abs=0.03)
    assert shuffled == pytest.approx(1.0, abs=0.03)
    # 64 positions x 128 channels of 9 ns copies on top of the MVMs.
    assert shuffled_cost - plain_cost == pytest.approx(64 * 128 * 9, rel=0.02)
    assert shuffled_estimate == pytest.approx(1.0, abs=0.1)
    assert plain_estimate == pytest.approx(1.0, abs=0.1)
