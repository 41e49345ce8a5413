"""The real or imaginary part of an FFT of real data as products by
constant cosine and sine matrices (frontend/_real_dfts.py): the matrices
against numpy's FFT, transforms over one or two dimensions, forward and
inverse, each normalization, against eager torch; FNet (which stopped at
``unsupported tensor dtype torch.complex64``) end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from raptor.frontend._real_dfts import dft_matrices

from pim_helpers import pipelined_and_int8_agree
from test_gathers_and_softmax_axes import _close, _compiled
from test_token_ids import LastHidden


@pytest.mark.parametrize("n", [1, 2, 7, 12, 32])
def test_the_matrices_are_numpys_transform(n: int) -> None:
    c, s = dft_matrices(n)
    want = np.fft.fft(np.eye(n), axis=0)
    assert np.abs((c.double() - 1j * s.double()).numpy() - want).max() < 1e-6


class _Mix(torch.nn.Module):
    """A projection, then a part of a transform over ``dims``."""

    def __init__(self, dims: tuple[int, ...], part: str, inverse: bool, norm: str) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.dims, self.part, self.inverse, self.norm = dims, part, inverse, norm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x)
        f = (torch.fft.ifftn if self.inverse else torch.fft.fftn)(y, dim=self.dims, norm=self.norm)
        return f.real if self.part == "real" else f.imag


CASES = {
    "fnet": ((1, 2), "real", False, "backward"),
    "hidden": ((-1,), "real", False, "backward"),
    "imaginary": ((1, 2), "imag", False, "backward"),
    "inverse": ((1, 2), "real", True, "backward"),
    "inverse-imaginary": ((1,), "imag", True, "ortho"),
    "ortho": ((1, 2), "real", False, "ortho"),
    "forward-norm": ((1, 2), "imag", False, "forward"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_part_of_a_transform_equals_torch(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    model = _Mix(*CASES[case]).eval()
    x = torch.randn(1, 6, 8)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("real_dft") == 1
    _close(program, model, x, 2e-6)
    _close(program, model, torch.randn(1, 6, 8), 2e-6)


def _fnet() -> torch.nn.Module:
    from transformers import FNetConfig, FNetModel

    torch.manual_seed(0)
    return LastHidden(FNetModel(FNetConfig(vocab_size=97, hidden_size=32, num_hidden_layers=1,
                                           intermediate_size=64, max_position_embeddings=64,
                                           use_tpu_fourier_optimizations=False)))


def test_fnet_runs_the_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _fnet().eval()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12)))
    program, rewrites = _compiled(model, ids, tmp_path)
    assert rewrites.get("real_dft") == 1
    for seed in (2, 3):
        _close(program, model, torch.from_numpy(np.random.default_rng(seed).integers(0, 97, (1, 12))))
    pipelined_and_int8_agree(tmp_path / "m.pt2", tmp_path, capsys, pipeline=4, float_bound=2e-6, int8_bound=0.05)
