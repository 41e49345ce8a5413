"""Transposed convolutions (ConvTranspose1d/2d) as one convolution per
output phase at the input's resolution and a pixel shuffle
(frontend/_transposed_convolution.py), checked against eager torch over
kernel, stride, padding, output padding, groups and dilation; DPT (whose
reassemble stage upsamples with them, and which stopped at them) end to
end, int8 and pipelined."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch

from raptor import sources
from raptor.frontend._transposed_convolution import transposed_convolution

from pim_helpers import OutputField, compile_and_run, onnx_agrees, simulated_check


class _Up(torch.nn.Module):
    def __init__(self, dims: int, kernel: int, stride: int, padding: int, output_padding: int, groups: int,
                 dilation: int = 1) -> None:
        super().__init__()
        conv, up = (torch.nn.Conv2d, torch.nn.ConvTranspose2d) if dims == 2 else (torch.nn.Conv1d,
                                                                                  torch.nn.ConvTranspose1d)
        self.conv = conv(3, 8, 3, padding=1)
        self.up = up(8, 6, kernel, stride=stride, padding=padding, output_padding=output_padding, groups=groups,
                     dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.up(torch.relu(self.conv(x)))


CASES = {
    "k3s2p1op1": (2, 3, 2, 1, 1, 1),  # U-Net's and segmentation decoders' doubling
    "k2s2": (2, 2, 2, 0, 0, 1),  # kernel = stride: one phase tap each
    "k2s2op1": (2, 2, 2, 0, 1, 1),  # output padding past the phases' reach: a row of bias only
    "k4s4": (2, 4, 4, 0, 0, 1),  # DPT's reassemble by 4
    "k4s2p1": (2, 4, 2, 1, 0, 1),  # two taps per phase
    "k5s3p3op2": (2, 5, 3, 3, 2, 1),  # padding beyond a phase, output padding
    "k3s1p1": (2, 3, 1, 1, 0, 1),  # stride 1: a convolution by the flipped kernel
    "grouped": (2, 3, 2, 1, 1, 2),
    "1d": (1, 4, 2, 1, 0, 1),
    "dilated": (2, 3, 2, 1, 1, 1, 2),  # zero taps between the kernel's
}


def test_the_decomposition_equals_conv_transpose2d_over_its_geometry() -> None:
    """Every combination of kernel, stride, padding, output padding,
    dilation and groups, unequal between rows and columns (and a batch of
    two), the decomposition run on real tensors."""
    torch.manual_seed(0)
    x = torch.randn(2, 4, 5, 6, dtype=torch.float64)
    checked = 0
    for kernel, stride, padding, extra, dilation, groups in itertools.product(
            [(3, 2), (1, 4)], [(2, 1), (3, 2)], [(0, 0), (1, 2)], [(0, 0), (1, 1)], [(1, 1), (2, 3)], [1, 2]):
        if any(e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
            continue  # torch refuses output padding of at least stride and dilation
        weight = torch.randn(4, 6 // groups, *kernel, dtype=torch.float64)
        bias = torch.randn(6, dtype=torch.float64)
        want = torch.nn.functional.conv_transpose2d(x, weight, bias, stride, padding, extra, groups, dilation)
        got = transposed_convolution(x, weight, bias, stride, padding, dilation, extra, groups)
        assert got.shape == want.shape and torch.allclose(got, want, rtol=0, atol=1e-10), \
            (kernel, stride, padding, extra, dilation, groups)
        checked += 1
    assert checked == 56  # of 64: the rest have output padding torch refuses


@pytest.mark.parametrize("case", list(CASES))
def test_a_transposed_convolution_equals_torch(tmp_path: Path, case: str) -> None:
    dims, *config = CASES[case]
    torch.manual_seed(0)
    model = _Up(dims, *config).eval()
    x = torch.randn(1, 3, 6, 7) if dims == 2 else torch.randn(1, 3, 9)
    run = compile_and_run(model, x, tmp_path / "p", pimsim="none")
    assert run.output.shape == run.reference.shape
    assert abs(run.output - run.reference).max() <= 1e-6 * abs(run.reference).max()


@pytest.mark.parametrize("case", ["k3s2p1op1", "k2s2op1", "k4s4", "k5s3p3op2", "grouped", "1d", "dilated"])
def test_an_onnx_conv_transpose_equals_onnxruntime(tmp_path: Path, case: str) -> None:
    """ONNX ConvTranspose: the same phases (their taps computed at import)."""
    dims, *config = CASES[case]
    torch.manual_seed(0)
    model = _Up(dims, *config).eval()
    onnx_agrees(model, torch.randn(1, 3, 6, 7) if dims == 2 else torch.randn(1, 3, 9), tmp_path, 1e-6)


def test_the_phases_are_one_convolution_at_the_input_resolution(tmp_path: Path) -> None:
    """No products by inserted zeros: ConvTranspose2d(8, 6, 4, stride 2,
    padding 1) on 6 x 7 is a convolution of 6 x 4 phases (24 output
    channels) by 2 x 2 taps over the input padded by one."""
    model = _Up(2, 4, 2, 1, 0, 1).eval()
    pt2 = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 6, 7),)), pt2)
    imported = sources.load(str(pt2), strict=True)
    try:
        text = str(imported.module)
    finally:
        imported.cleanup()
    assert "tensor<24x8x2x2xf32>" in text and "tensor<1x24x7x8xf32>" in text and "transposed = true" not in text


def _dpt() -> torch.nn.Module:
    from transformers import DPTConfig, DPTForDepthEstimation

    torch.manual_seed(0)
    config = DPTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                       image_size=32, patch_size=8, backbone_out_indices=[0, 1], neck_hidden_sizes=[16, 16],
                       reassemble_factors=[4, 2], fusion_hidden_size=16, head_in_index=-1)
    return OutputField(DPTForDepthEstimation(config), "predicted_depth")


def test_dpt_runs_the_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _dpt().eval()
    x = torch.randn(1, 3, 32, 32)
    pt2 = tmp_path / "dpt.pt2"
    with torch.no_grad():
        torch.export.save(torch.export.export(model, (x,)), pt2)
    for name, options in (("f32", {}), ("p4", {"pipeline": 4}), ("int8", {"precision": "int8"})):
        check = simulated_check(pt2, tmp_path / name, capsys, **options)
        if name == "int8":
            assert check["integer_reference_bit_exact"], check
        else:
            assert check["max_error_relative"] < 1e-5, (name, check)
