"""Balanced copies weighed with their followers (raptor-build-compute-graph
`balance-followers-challenger`, on in every pipelined compile): a graph
whose copies are weighed also with the vector work of the operators that
follow their rows challenges the graph weighed by MVMs alone, and the
scheduler keeps the one whose predicted interval is clearly (2.1%) shorter.

On a model whose convolutions are followed by depthwise convolutions,
residual adds and codecs (MobileNetV2's shape, where the challenger wins on
the bench: docs/scheduling.md), on a 16-core chip: the challenger is kept,
the timing simulator agrees that it is faster than the graph it replaced
was predicted to be, and the program equals the integer reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from mlir import ir

import raptor
from raptor import pim, quant, weights

from pim_helpers import imported, isaac_target



class _Inverted(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.b = torch.nn.Conv2d(16, 16, 1)
        self.dw2 = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.c = torch.nn.Conv2d(16, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        y = torch.relu(self.dw(y))
        y = torch.relu(self.b(y)) + y
        y = torch.relu(self.dw2(y))
        return self.c(y)


def _chip(tmp_path: Path) -> Path:
    """The default chip's crossbars and network on 16 cores of 8 crossbars."""
    return isaac_target(tmp_path, cores=16, crossbars=8)


def _imported(tmp_path: Path, size: int) -> tuple[ir.Module, torch.Tensor, Path]:
    """_Inverted with seeded weights on a size x size input: (module, input, weights file)."""
    torch.manual_seed(0)
    model = _Inverted().eval()
    x = torch.randn(1, 3, size, size)
    w = tmp_path / "w.safetensors"
    return imported(model, x, w), x, w


def test_copies_weighed_with_their_followers_replace_a_slower_plan(tmp_path: Path) -> None:
    module, x, w = _imported(tmp_path, 64)
    result = pim.compile(module, tmp_path / "q", weights=w, precision="int8", arithmetic="integer", pipeline=2,
                         target=_chip(tmp_path), pimsim="none")
    schedule = result.manifest["schedule"]
    assert schedule["copies_weighed_by"] == "matrix and followers"
    kept, challenged = schedule["predicted_interval_ns"], schedule["challenged_interval_ns"]
    assert kept < 0.979 * challenged
    text = pim.format_summary(pim.summary(result.manifest), "q")
    assert ("  copies weighed with the work that follows them (weighed by their MVMs alone: interval "
            f"{challenged / 1e6:.3f} ms estimated)") in text.splitlines()
    simulated = pim.Program.load(tmp_path / "q").time(throughput=True).interval_ns
    assert simulated < challenged
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(w))
    np.testing.assert_array_equal(pim.simulate(tmp_path / "q", x.numpy()).outputs["out0"], want)


def test_a_plan_the_followers_do_not_change_is_kept_without_a_challenge(tmp_path: Path) -> None:
    # The same model on the default chip: copies are bounded by rows before
    # any follower weighs, so both plans are one graph.
    module, _, w = _imported(tmp_path, 16)
    result = pim.compile(module, tmp_path / "q", weights=w, pipeline=2, pimsim="none")
    schedule = result.manifest["schedule"]
    assert schedule["copies_weighed_by"] == "matrix" and "challenged_interval_ns" not in schedule
    assert "copies weighed" not in pim.format_summary(pim.summary(result.manifest), "q")
