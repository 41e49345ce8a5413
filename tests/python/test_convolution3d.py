"""3-d convolutions as one 2-d convolution of the frames' stacks side by
side (frontend/_convolution3d.py), against eager torch over kernel, stride,
padding, dilation and groups, alone and compiled, from `.pt2` and from ONNX
against onnxruntime; torchvision's R3D-18 and R(2+1)D-18 (which stopped at
their first convolution: "compute graphs need static, non-transposed 2-d
convolutions") end to end, int8 bit-exact against the integer reference."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import torch
import torchvision

from raptor import cli

from raptor.frontend._convolution3d import convolution3d

from pim_helpers import compile_and_run, compile_source, onnx_agrees, randomize

Triple = tuple[int, int, int]


class _Video(torch.nn.Module):
    def __init__(self, kernel: Triple, stride: Triple, padding: Triple, dilation: Triple = (1, 1, 1),
                 groups: int = 1) -> None:
        super().__init__()
        self.conv = torch.nn.Conv3d(6, 6, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.mix = torch.nn.Conv3d(6, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mix(torch.relu(self.conv(x)))


CASES = {
    "k333": ((3, 3, 3), (1, 1, 1), (1, 1, 1)),
    "stem": ((3, 7, 7), (1, 2, 2), (1, 3, 3)),  # R3D's
    "spatial": ((1, 3, 3), (1, 2, 2), (0, 1, 1)),  # R(2+1)D's halves
    "temporal": ((3, 1, 1), (2, 1, 1), (1, 0, 0)),
    "strided": ((2, 3, 3), (2, 2, 2), (0, 1, 1)),
    "dilated": ((2, 3, 3), (1, 2, 1), (1, 2, 1), (2, 2, 1)),  # taps two frames and two rows apart
    "grouped": ((3, 3, 3), (1, 1, 2), (1, 1, 1), (1, 1, 1), 3),
    "depthwise": ((3, 3, 3), (2, 1, 1), (1, 1, 1), (1, 1, 2), 6),  # MC3/X3D-like, dilated width
}


def test_the_decomposition_equals_conv3d_over_its_geometry() -> None:
    """Every combination of kernel, stride, padding, dilation and groups (and
    a batch of two), the decomposition run on real tensors."""
    torch.manual_seed(0)
    x = torch.randn(2, 6, 7, 8, 11, dtype=torch.float64)
    for kernel, stride, padding, dilation, groups in itertools.product(
            [(3, 3, 3), (2, 1, 3), (1, 3, 1)], [(1, 1, 1), (2, 2, 1), (1, 2, 3)], [(0, 0, 0), (1, 2, 1)],
            [(1, 1, 1), (2, 1, 2)], [1, 2, 6]):
        weight = torch.randn(6, 6 // groups, *kernel, dtype=torch.float64)
        bias = torch.randn(6, dtype=torch.float64)
        want = torch.nn.functional.conv3d(x, weight, bias, stride, padding, dilation, groups)
        got = convolution3d(x, weight, bias, stride, padding, dilation, groups)
        assert got.shape == want.shape and torch.allclose(got, want, rtol=0, atol=1e-10), \
            (kernel, stride, padding, dilation, groups)


@pytest.mark.parametrize("case", list(CASES))
def test_a_3d_convolution_equals_torch(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    model = _Video(*CASES[case]).eval()
    # A width (11) whose padded frames are no whole number of strides.
    run = compile_and_run(model, torch.randn(1, 6, 5, 9, 11), tmp_path / "p", pimsim="none")
    assert run.output.shape == run.reference.shape
    assert abs(run.output - run.reference).max() <= 1e-6 * abs(run.reference).max()


@pytest.mark.parametrize("case", ["stem", "dilated", "depthwise"])
def test_an_onnx_3d_convolution_equals_onnxruntime(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    onnx_agrees(_Video(*CASES[case]).eval(), torch.randn(1, 6, 5, 9, 11), tmp_path)


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


class _Pooled(torch.nn.Module):
    """A map's mean over every spatial axis (ONNX GlobalAveragePool), 3-d
    (frames, rows, columns) or 1-d."""

    def __init__(self, dims: int) -> None:
        super().__init__()
        conv, pool = (torch.nn.Conv3d, torch.nn.AdaptiveAvgPool3d) if dims == 3 else \
            (torch.nn.Conv1d, torch.nn.AdaptiveAvgPool1d)
        self.conv, self.pool = conv(6, 4, 3, padding=1), pool(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(torch.relu(self.conv(x)))


@pytest.mark.parametrize("shape", [(1, 6, 5, 9, 11), (1, 6, 13)], ids=["3d", "1d"])
def test_an_onnx_global_average_pool_over_any_axes_equals_onnxruntime(tmp_path: Path,
                                                                     shape: tuple[int, ...]) -> None:
    torch.manual_seed(0)
    onnx_agrees(_Pooled(len(shape) - 2).eval(), torch.randn(*shape), tmp_path)


def test_r2plus1d_from_onnx_equals_onnxruntime(tmp_path: Path) -> None:
    """From ONNX: its 3-d convolutions (a (1, 3, 3) and a (3, 1, 1) kernel
    per block), 5-d batch norms and GlobalAveragePool over frames, rows and
    columns (which stopped at the pool: "has no PIM lowering")."""
    torch.manual_seed(0)
    model = randomize(torchvision.models.video.r2plus1d_18(weights=None, num_classes=5)).eval()
    onnx_agrees(model, torch.randn(1, 3, 4, 32, 32), tmp_path, bound=1e-6)
