"""A global-memory pipeline crossing whose reader reads data on a stage of
its own level (the stages join at the tasks' dependencies, and a
concatenation's row copy reads a piece on a core its dependencies do not
name): the lowering has no region between two stages of one level. It
indexed its relay chain at level 0 and aborted the process (a libstdc++
bounds assertion, found compiling ShuffleNetV2 int8 with `--pipeline 4
--crossing global`); it now stops with a diagnostic naming the task, both
cores and the crossings that work."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from raptor import pim
from raptor._io import UserError

from pim_helpers import imported, randomize


class SplitConcat(nn.Module):
    """A channel split, one half convolved, the halves concatenated again."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(8, 16, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.c = nn.Conv2d(16, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        left, right = torch.relu(self.a(x)).chunk(2, dim=1)
        return self.c(torch.cat([left, torch.relu(self.b(right))], 1))


def test_a_view_across_stages_of_one_level_is_a_diagnostic_not_an_abort(tmp_path: Path) -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 8, 16, 16)
    module = imported(randomize(SplitConcat()).eval(), x, tmp_path / "w.safetensors")
    with pytest.raises(UserError, match=r"task 'cat#0.*' on core \d+: reads data of core \d+ .* of the same level, "
                                        r"through a view: .* compile with --crossing skewed or local"):
        pim.compile(module, tmp_path / "p", weights=tmp_path / "w.safetensors", pipeline=2, crossing="global",
                    replication_budget=1.0, pimsim="none")
    assert not (tmp_path / "p").exists()
