"""``F.unfold`` and ``F.fold`` over non-overlapping tiles (kernel =
stride, no padding or dilation: MobileViTV2's patches) as a reshape and a
permutation (frontend/_decompositions.py), where torch's own
decompositions leave a gather and a scatter-add (``aten.index_put``, which
stopped MobileViTV2); a fold of overlapping windows (VOLO's outlook
attention) as a grouped transposed convolution by a routing kernel.
Checked against eager torch, MobileViTV2 and an outlook attention end to
end, f32, int8 and pipelined."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F


from pim_helpers import OutputField, pipelined_and_int8_agree, randomize
from test_gathers_and_softmax_axes import _close, _compiled


class _Patches(torch.nn.Module):
    """A convolution, its map cut into (kh, kw) tiles, a linear layer over
    each tile's pixels, and the tiles folded back."""

    def __init__(self, kernel: tuple[int, int]) -> None:
        super().__init__()
        self.kernel = kernel
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.mix = torch.nn.Linear(4 * kernel[0] * kernel[1], 4 * kernel[0] * kernel[1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        cols = F.unfold(y, self.kernel, stride=self.kernel)  # (N, C kh kw, L)
        mixed = self.mix(cols.transpose(1, 2)).transpose(1, 2)
        return F.fold(mixed, y.shape[-2:], self.kernel, stride=self.kernel)


@pytest.mark.parametrize("kernel", [(2, 2), (2, 3), (4, 1)])
def test_unfold_and_fold_of_tiles_equal_torch(tmp_path: Path, kernel: tuple[int, int]) -> None:
    torch.manual_seed(0)
    model = _Patches(kernel).eval()
    x = torch.randn(1, 3, 8, 6)
    program, _ = _compiled(model, x, tmp_path)
    _close(program, model, x)
    _close(program, model, torch.randn(1, 3, 8, 6))


def test_mobilevitv2_runs_the_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from transformers import MobileViTV2Config, MobileViTV2Model

    torch.manual_seed(0)
    # Non-trivial batch-norm statistics: with the defaults its output is all zeros.
    model = randomize(OutputField(MobileViTV2Model(MobileViTV2Config(image_size=64, width_multiplier=0.25,
                                                                  patch_size=2))))
    x = torch.randn(1, 3, 64, 64)
    program, _ = _compiled(model, x, tmp_path)
    _close(program, model, x, 1e-5)
    pipelined_and_int8_agree(tmp_path / "m.pt2", tmp_path, capsys, pipeline=4, float_bound=1e-5, int8_bound=0.1)


# (kernel, dilation, padding, stride, map): windows that tile the map take
# the reshape; every other geometry, and a map the kernel does not divide,
# torch's own decomposition. Each equals eager torch either way.
_GEOMETRIES = [
    ((2, 3), (1, 1), (0, 0), (2, 3), (4, 6), True),
    ((2, 2), (1, 1), (0, 0), (1, 1), (4, 4), False),   # overlapping windows
    ((2, 2), (2, 1), (0, 0), (2, 2), (4, 4), False),   # dilated
    ((2, 2), (1, 1), (1, 0), (2, 2), (4, 4), False),   # padded
    ((2, 3), (1, 1), (0, 0), (2, 3), (5, 6), False),   # rows the kernel does not divide
    ((2, 3), (1, 1), (0, 0), (2, 3), (4, 7), False),   # columns the kernel does not divide
    ((3, 3), (1, 1), (1, 1), (2, 2), (8, 8), False),   # VOLO's outlook fold
    ((3, 3), (1, 1), (1, 1), (2, 2), (7, 9), False),   # odd maps: the last window row reaches the edge
    ((3, 2), (2, 1), (2, 0), (1, 2), (6, 7), False),   # dilated and padded, a column short of the map
]


@pytest.mark.parametrize("kernel, dilation, padding, stride, size, reshaped", _GEOMETRIES)
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_and_fold_decompose_as_torch_and_reshape_only_tiles(
        monkeypatch: pytest.MonkeyPatch, kernel, dilation, padding, stride, size, reshaped: bool,
        batched: bool) -> None:
    from raptor.frontend import _decompositions as d

    kernel, dilation, padding, stride = list(kernel), list(dilation), list(padding), list(stride)  # as aten passes them
    defaults: list[str] = []
    original = d._torch_default
    monkeypatch.setattr(d, "_torch_default", lambda op, *args: defaults.append(str(op)) or original(op, *args))
    torch.manual_seed(1)
    x = torch.randn((2, 3) + size if batched else (3,) + size)
    cols = d._im2col(x, kernel, dilation, padding, stride)
    torch.testing.assert_close(cols, F.unfold(x, kernel, dilation, padding, stride), rtol=0, atol=0)
    back = d._col2im(cols, list(size), kernel, dilation, padding, stride)
    torch.testing.assert_close(back, F.fold(cols, size, kernel, dilation, padding, stride), rtol=0, atol=1e-6)
    # an overlapping unfold is torch's gather; no fold is torch's scatter-add
    assert defaults == ([] if reshaped else ["aten.im2col.default"])


class _Outlook(torch.nn.Module):
    """VOLO's outlook attention in small: 3 x 3 windows every 2 pixels
    (padding 1), each window's values weighted by a softmax over its taps
    computed from the pooled map, folded back (overlapping sums)."""

    def __init__(self) -> None:
        super().__init__()
        self.v = torch.nn.Linear(4, 4)
        self.attn = torch.nn.Linear(4, 81)
        self.pool = torch.nn.AvgPool2d(2, 2, ceil_mode=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (1, H, W, 4)
        b, h, w, c = x.shape
        v = self.v(x).permute(0, 3, 1, 2)
        cols = F.unfold(v, 3, padding=1, stride=2)  # (1, 4 * 9, L)
        rows, columns = -(-h // 2), -(-w // 2)
        cols = cols.reshape(b, c, 9, rows * columns).permute(0, 3, 2, 1)  # (1, L, 9, 4)
        a = self.attn(self.pool(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)).reshape(b, rows * columns, 9, 9)
        mixed = (a.softmax(-1) @ cols).permute(0, 3, 2, 1).reshape(b, c * 9, rows * columns)
        return F.fold(mixed, (h, w), 3, padding=1, stride=2).permute(0, 2, 3, 1)


def test_an_outlook_attention_runs_the_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch.manual_seed(0)
    model = _Outlook().eval()
    x = torch.randn(1, 6, 6, 4)
    program, _ = _compiled(model, x, tmp_path)
    _close(program, model, x)
    _close(program, model, torch.randn(1, 6, 6, 4))
    pipelined_and_int8_agree(tmp_path / "m.pt2", tmp_path, capsys, pipeline=2, float_bound=1e-5, int8_bound=0.1)
