"""Row streaming through an upsampling (issue 26): an upsampled map is its
producer's pieces, each upsampled where it is, so the element-wise operator
reading it follows the producer's row blocks instead of holding the whole
upsampled map on one core (U-Net int8's last encoder held 18 MiB so); and
the queue model has each of those readers load (and wait for) only the
producers holding its rows, as the lowering does. It had taken every reader
of a view to load from every producer, waiting for the last of them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from mlir import ir
from torch import nn

from raptor import pim

from pim_helpers import imported, randomize


class Decoder(nn.Module):
    """Two convolutions, a nearest upsampling, an activation reading the
    upsampled map and a last convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Conv2d(8, 32, 3, padding=1)
        self.inner = nn.Conv2d(32, 32, 3, padding=1)
        self.outer = nn.Conv2d(32, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.inner(torch.relu(self.first(x))))
        y = nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        return self.outer(torch.sigmoid(y))


def _tasks_of(module: ir.Module, op_name: str) -> list[tuple[int, int]]:
    graph = next(op for op in module.body.operations if op.name == "spatial.graph")
    rows = []
    for task in graph.regions[0].blocks[0].operations:
        a = task.attributes
        if "op" in a and ir.StringAttr(a["op"]).value == op_name:
            rows.append(tuple(ir.DenseI64ArrayAttr(a["rows"])) if "rows" in a else (0, -1))
    return rows


def test_an_upsampled_map_streams_and_the_estimate_follows_its_rows(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = randomize(Decoder()).eval()
    x = torch.randn(1, 8, 64, 64)
    w = tmp_path / "w.safetensors"
    module = imported(model, x, w)
    # (Lanes of 3 row tiles: the default's shorter lanes, chosen here, add
    # partial sums the estimate reads 0.93 of simulated.)
    result = pim.compile(module, tmp_path / "program", weights=w, replicate="time", replication_budget=1.0,
                         row_block=4, transfers="global", pimsim="none", lane_tiles=3)
    program = pim.Program.load(tmp_path / "program")
    (out,) = program.simulate(x.numpy()).outputs.values()
    with torch.no_grad():
        reference = model(x).numpy()
    assert float(np.abs(out - reference).max() / np.abs(reference).max()) < 1e-5
    # The sigmoid follows the inner convolution's copies and blocks: every
    # task holds some of the 128 upsampled rows, none all of them.
    rows = _tasks_of(module, "nn.sigmoid")
    assert len(rows) > 1 and all(0 <= a < b <= 128 and b - a < 128 for a, b in rows), rows
    assert sum(b - a for a, b in rows) == 128
    # Each reader waits for the producers of its rows, not all of them: the
    # compile's estimate is the simulated latency's (1.38x long before).
    simulated = program.time().latency_ns
    estimate = result.manifest["schedule"]["predicted_latency_ns"]
    assert abs(estimate / simulated - 1) < 0.05, (estimate, simulated)
