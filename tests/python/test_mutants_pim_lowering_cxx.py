"""Pooling windows of the PIM lowering (passes/conversion/SpatialToPim/
VectorOps.cpp) with every parameter different per axis: a (3, 2) average
window with padding (1, 0) and stride (2, 1), a (2, 3) max window with
stride (1, 2). Compiled, simulated and compared with torch's eager pooling
(an independent oracle); the square windows of the other tests cannot tell
the axes apart.

Hand-made C++ mutants of 2026-12-06 (docs/mutation.md) that this kills: a
pooling window's width taken as its height, its width padding as its
height padding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from pim_helpers import compile_and_run, small_target


class Pools(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        a = F.avg_pool2d(y, (3, 2), stride=(2, 1), padding=(1, 0))  # 1 x 3 x 4 x 6
        b = F.max_pool2d(y, (2, 3), stride=(1, 2))  # 1 x 3 x 6 x 3
        return torch.cat([a.flatten(1), b.flatten(1)], 1)


def test_pooling_windows_with_different_heights_and_widths_match_torch(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = Pools().eval()
    x = torch.randn(1, 2, 7, 7)
    target = tmp_path / "target.json"
    target.write_text(json.dumps(small_target(4, (2, 2), 4)))
    run = compile_and_run(model, x, tmp_path / "p", target=target)
    assert run.output.shape == (1, 3 * 4 * 6 + 3 * 6 * 3)
    np.testing.assert_allclose(run.output, run.reference, rtol=1e-5, atol=1e-5)
