"""A task's cost (passes/spatial/CostModel) is the time of the instructions
the PIM lowering emits for it under the target's timing rules: checked
against the timing simulator's busy time of the same task (Timing.tasks) on
compiled programs, fp32 and integer-only int8, whole tensors, one copy per
lane. The matrix operators agree within 3%; a LayerNorm's row program is
costed 13% under its simulated time (the loads of its scale and shift are
not costed). A mutation run (docs/mutation.md, seed 20261204) found both
costs unchecked: a LayerNorm costed 8 steps a row instead of 9, and an int8
MVM's bit slices counted from the second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from pim_helpers import export
from torch import nn

from raptor import pim, quant, weights
from raptor.frontend.torch import import_program


class ConvNormLinear(nn.Module):
    def __init__(self, norm: bool) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 32, 3, padding=1)
        self.norm = nn.LayerNorm(64) if norm else nn.Identity()
        self.fc = nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.norm(torch.relu(self.conv(x)).flatten(2)))


def _ratios(tmp_path: Path, precision: str) -> dict[str, float]:
    """Simulated busy time over cost, per operator kind of the compiled
    model's tasks."""
    torch.manual_seed(0)
    model = ConvNormLinear(norm=precision == "fp32").eval()
    x = torch.randn(1, 16, 8, 8)
    exported = export(model, x)
    module, _ = import_program(exported)
    path = tmp_path / "m.safetensors"
    weights.save(path, weights.from_exported_program(exported, module))
    options = {}
    if precision == "int8":
        options = dict(calibration=[{"x": x.numpy()}] + quant.random_inputs(module, 3), arithmetic="integer")
    pim.compile(module, tmp_path / precision, weights=path, precision=precision, replicate="none", row_block=0,
                pimsim="none", **options)
    scheduled = {(t["name"], t["core"]): t
                 for t in json.loads((tmp_path / precision / "reports" / "schedule_tasks.json").read_text())}
    ratios = {}
    for task in pim.Program.load(tmp_path / precision).time().tasks:
        s = scheduled.get((task.name, task.core))
        if s and s["cost_ns"] > 0:
            ratios[task.name.split(" ")[0]] = task.busy_ns / s["cost_ns"]
    return ratios


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_matrix_costs_are_the_simulated_time_of_their_instructions(tmp_path: Path, precision: str) -> None:
    ratios = _ratios(tmp_path, precision)
    for kind in ("nn.convolution", "nn.linear"):
        assert ratios[kind] == pytest.approx(1.0, abs=0.03), (kind, ratios)
    if precision == "fp32":
        assert 1.0 < ratios["nn.layer_norm"] < 1.2, ratios
