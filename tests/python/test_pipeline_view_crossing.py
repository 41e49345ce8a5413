"""Global-memory pipeline crossings and row copies of a concatenation or a
view. The stages join at the tasks' dependencies, but such a row copy sees
its operand's pieces on cores its dependencies do not name, possibly in a
stage of its own level, which no region joins. The lowering indexed its
relay chain at level 0 there and aborted the process (a libstdc++ bounds
assertion, found compiling ShuffleNetV2 int8 with `--pipeline 4 --crossing
global`). A concatenation now gathers only the pieces of earlier levels
(its readers fetch the rest), and a view's row copy that would need such a
piece stops with a diagnostic naming the task, both cores and the
crossings that work (the shuffle below reached it until each copy of a
concatenation defined only its rows: test_pipeline_global_cat_rows.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from raptor import pim

from pim_helpers import imported, randomize


class SplitConcat(nn.Module):
    """A channel split, one half convolved, the halves concatenated again
    (and, with `shuffle`, their channels interleaved as ShuffleNet does)."""

    def __init__(self, shuffle: bool = False) -> None:
        super().__init__()
        self.shuffle = shuffle
        self.a = nn.Conv2d(8, 16, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.c = nn.Conv2d(16, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        left, right = torch.relu(self.a(x)).chunk(2, dim=1)
        z = torch.cat([left, torch.relu(self.b(right))], 1)
        if self.shuffle:
            n, c, h, w = z.shape
            z = z.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
        return self.c(z)


def _compile(model: nn.Module, x: torch.Tensor, tmp_path: Path):
    module = imported(model, x, tmp_path / "w.safetensors")
    return pim.compile(module, tmp_path / "p", weights=tmp_path / "w.safetensors", pipeline=2, crossing="global",
                       replication_budget=1.0, pimsim="none")


def test_a_concatenation_of_pieces_on_stages_of_its_level_crosses_through_global_memory(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = randomize(SplitConcat()).eval()
    x = torch.randn(1, 8, 16, 16)
    result = _compile(model, x, tmp_path)
    assert result.manifest["schedule"]["crossing"] == "global"
    (out,) = pim.Program.load(tmp_path / "p").simulate(x.numpy()).outputs.values()
    with torch.no_grad():
        reference = model(x).numpy()
    assert float(np.abs(out - reference).max() / np.abs(reference).max()) < 1e-5


def test_a_shuffle_of_a_concatenations_rows_crosses_through_global_memory(tmp_path: Path) -> None:
    """The channel shuffle's row copies read the rows the concatenation's
    copies gathered on their cores (before each copy defined the whole
    concatenation, and the shuffle's copies read pieces of stages of their
    own level: the diagnostic below)."""
    torch.manual_seed(0)
    model = randomize(SplitConcat(shuffle=True)).eval()
    x = torch.randn(1, 8, 16, 16)
    result = _compile(model, x, tmp_path)
    assert result.manifest["schedule"]["crossing"] == "global"
    program = pim.Program.load(tmp_path / "p")
    (out,) = program.simulate(x.numpy()).outputs.values()
    with torch.no_grad():
        reference = model(x).numpy()
    assert float(np.abs(out - reference).max() / np.abs(reference).max()) < 1e-5
    # Its stages run as a pipeline: the timing simulator streams inferences.
    assert program.time(throughput=True).interval_ns > 0
