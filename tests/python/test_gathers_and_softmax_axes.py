"""Two patterns ConvBERT's span-based convolution needs (found trying the
model): a gather by constant index tensors on two adjacent dimensions (its
unfold of the padded sequence, ``x[:, :, a + b, 0]`` over kernel offsets
and positions) and a softmax over another dimension than the last (its
kernel weights, (12, 9, 1) over the 9 offsets). The frontend takes the
first as slices of the merged dimensions (frontend/_fx_rewrites.py); the
compiler the second as the softmax of the last dimension, moved there and
back (raptor-normalize-row-ops).
Each is checked against eager torch, alone on small modules (strict
import: no generic op left) and in ConvBERT and XLNet configurations with
random weights through the whole flow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import sources

from pim_helpers import compile_source
from test_token_ids import LastHidden


def _compiled(model: torch.nn.Module, x: torch.Tensor, tmp_path: Path, **options):
    pt2 = tmp_path / "m.pt2"
    with torch.no_grad():
        torch.export.save(torch.export.export(model, (x,)), pt2)
    imported = sources.load(str(pt2), strict=True)
    try:
        rewrites = dict(imported.report.rewrites)
    finally:
        imported.cleanup()
    return compile_source(pt2, tmp_path / "p", **options), rewrites


def _close(program, model: torch.nn.Module, x: torch.Tensor, bound: float = 2e-6) -> None:
    with torch.no_grad():
        want = model(x).numpy()
    (got,) = program.simulate(x.numpy()).outputs.values()
    assert got.shape == want.shape and np.abs(want).max() > 0  # (an all-zero output would check nothing)
    assert np.abs(got - want).max() <= bound * float(np.abs(want).max())


class _Unfold(torch.nn.Module):
    """``x[:, :, rows, cols]`` by constant index tensors broadcast together
    (rows (k, n, 1), cols (1, m) or negative), then a linear layer."""

    def __init__(self, rows: torch.Tensor, cols: torch.Tensor, width: int) -> None:
        super().__init__()
        self.register_buffer("rows", rows, persistent=False)
        self.register_buffer("cols", cols, persistent=False)
        self.fc = torch.nn.Linear(width, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        picked = x[:, :, self.rows, self.cols]
        return self.fc(picked.reshape(picked.shape[0], picked.shape[1], -1))


@pytest.mark.parametrize("case", ["convbert", "negative", "scattered"])
def test_a_gather_on_two_dimensions_by_constant_indices_equals_torch(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8, 5)
    if case == "convbert":  # kernel offsets a plus positions b, the one column
        rows, cols = torch.arange(3)[:, None] + torch.arange(6)[None, :], torch.zeros(1, 1, dtype=torch.int64)
    elif case == "negative":  # rows from the end, two columns
        rows, cols = -torch.arange(1, 5)[:, None], torch.tensor([[0, -1]])
    else:  # no runs longer than one
        rows, cols = torch.tensor([[7, 0, 3], [2, 2, 5]]), torch.tensor([[4, 1, 3], [0, 2, 4]])
    model = _Unfold(rows, cols, int(torch.broadcast_tensors(rows, cols)[0].numel())).eval()
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("constant_multi_index") == 1
    _close(program, model, x)


class _Softmax(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.softmax(self.fc(x), dim=self.dim))


@pytest.mark.parametrize("dim", [0, 1, 2, -2])
def test_a_softmax_over_another_dimension_equals_torch(tmp_path: Path, dim: int) -> None:
    torch.manual_seed(0)
    model = _Softmax(dim).eval()
    x = torch.randn(2, 5, 4, 6)
    program, _ = _compiled(model, x, tmp_path)
    _close(program, model, x)


def _convbert() -> torch.nn.Module:
    from transformers import ConvBertConfig, ConvBertModel

    torch.manual_seed(0)
    return LastHidden(ConvBertModel(ConvBertConfig(
        vocab_size=97, hidden_size=32, embedding_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=32)))


def _xlnet() -> torch.nn.Module:
    from transformers import XLNetConfig, XLNetModel

    torch.manual_seed(0)
    return LastHidden(XLNetModel(XLNetConfig(vocab_size=97, d_model=32, n_layer=1, n_head=2, d_inner=64)))


@pytest.mark.parametrize("name", ["convbert", "xlnet"])
def test_transformers_models_run_the_flow(tmp_path: Path, name: str) -> None:
    model = {"convbert": _convbert, "xlnet": _xlnet}[name]().eval()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12)))
    program, rewrites = _compiled(model, ids, tmp_path)
    if name == "convbert":
        assert rewrites.get("constant_multi_index") == 1
    for seed in (2, 3):
        _close(program, model, torch.from_numpy(np.random.default_rng(seed).integers(0, 97, (1, 12))))


def test_convbert_int8_and_pipelined(tmp_path: Path) -> None:
    model = _convbert().eval()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12)))
    program, _ = _compiled(model, ids, tmp_path, pipeline=4)
    _close(program, model, ids)
    pt2 = tmp_path / "m.pt2"
    int8 = compile_source(pt2, tmp_path / "int8", precision="int8")
    with torch.no_grad():
        want = model(ids).numpy()
    (got,) = int8.simulate(ids.numpy()).outputs.values()
    cosine = float(got.ravel() @ want.ravel() / (np.linalg.norm(got) * np.linalg.norm(want)))
    assert cosine >= 0.99, cosine
