"""3-d convolutions as one 2-d convolution of the frames' stacks side by
side (frontend/_convolution3d.py), against eager torch over kernel, stride
and padding; torchvision's R3D-18 and R(2+1)D-18 (which stopped at their
first convolution: "compute graphs need static, non-transposed 2-d
convolutions") end to end, int8 bit-exact against the integer reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import torchvision

from raptor import cli

from pim_helpers import compile_and_run, compile_source, randomize


class _Video(torch.nn.Module):
    def __init__(self, kernel: tuple[int, int, int], stride: tuple[int, int, int],
                 padding: tuple[int, int, int]) -> None:
        super().__init__()
        self.conv = torch.nn.Conv3d(3, 6, kernel, stride=stride, padding=padding)
        self.mix = torch.nn.Conv3d(6, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mix(torch.relu(self.conv(x)))


CASES = {
    "k333": ((3, 3, 3), (1, 1, 1), (1, 1, 1)),
    "stem": ((3, 7, 7), (1, 2, 2), (1, 3, 3)),  # R3D's
    "spatial": ((1, 3, 3), (1, 2, 2), (0, 1, 1)),  # R(2+1)D's halves
    "temporal": ((3, 1, 1), (2, 1, 1), (1, 0, 0)),
    "strided": ((2, 3, 3), (2, 2, 2), (0, 1, 1)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_3d_convolution_equals_torch(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    model = _Video(*CASES[case]).eval()
    # A width (11) whose padded frames are no whole number of strides.
    run = compile_and_run(model, torch.randn(1, 3, 5, 9, 11), tmp_path / "p", pimsim="none")
    assert run.output.shape == run.reference.shape
    assert abs(run.output - run.reference).max() <= 1e-6 * abs(run.reference).max()


@pytest.mark.parametrize("name", ["r3d_18", "r2plus1d_18"])
def test_torchvision_video_models_run_the_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               name: str) -> None:
    torch.manual_seed(0)
    model = randomize(getattr(torchvision.models.video, name)(weights=None, num_classes=5))
    pt2 = tmp_path / f"{name}.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 4, 32, 32),)), pt2)
    for out, options in (("f32", {}), ("int8", {"precision": "int8"})):
        compile_source(pt2, tmp_path / out, **options)
        assert cli.main(["simulate", str(tmp_path / out), "--check", "--json"]) == 0
        check = json.loads(capsys.readouterr().out)
        assert not check["reference_all_zero"]
        if out == "int8":
            assert check["integer_reference_bit_exact"] and check["max_error_relative"] < 0.1
        else:
            assert check["max_error_relative"] < 1e-5
