"""Found sweeping transformers models nobody here had tried: WavLM's,
SEW-D's and DeBERTa-v2's ``repeat(1, 1, 1)`` stopped at a generic
``aten.repeat`` (now ``x`` itself; a real repeat is the concatenation of
its copies along each dimension), and Reformer, whose position count comes
from ``.item()``, gave a Python traceback in a frontend rewrite comparing a
size torch.export cannot bound (now one line naming the node whose shape
depends on the data). Checked against eager torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import sources

from pim_helpers import compile_source


class _Repeat(torch.nn.Module):
    def __init__(self, repeats: tuple[int, ...]) -> None:
        super().__init__()
        self.repeats = repeats
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.repeat(*self.repeats))


@pytest.mark.parametrize("repeats, shape", [((1, 1, 1), (1, 5, 8)), ((1, 3, 1), (1, 15, 8)),
                                            ((2, 1, 3, 1), (2, 1, 15, 8))])
def test_a_repeat_equals_torch(tmp_path: Path, repeats: tuple[int, ...], shape: tuple[int, ...]) -> None:
    torch.manual_seed(0)
    model = _Repeat(repeats).eval()
    x = torch.randn(1, 5, 16)
    pt2 = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(model, (x,)), pt2)
    imported = sources.load(str(pt2), strict=True)
    try:
        assert imported.report.rewrites["repeat"] == 1
    finally:
        imported.cleanup()
    program = compile_source(pt2, tmp_path / "p")
    with torch.no_grad():
        want = model(x).numpy()
    (got,) = program.simulate(x.numpy()).outputs.values()
    assert got.shape == want.shape == shape
    assert np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


def test_wavlm_runs_the_flow(tmp_path: Path) -> None:
    from transformers import WavLMConfig, WavLMModel

    class Audio(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.model(x).last_hidden_state

    torch.manual_seed(0)
    config = WavLMConfig(conv_dim=(32, 32), conv_kernel=(10, 3), conv_stride=(5, 2), num_conv_pos_embeddings=16,
                         num_conv_pos_embedding_groups=2, hidden_size=32, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=64, num_buckets=32, max_bucket_distance=100)
    model = Audio(WavLMModel(config).eval()).eval()
    x = torch.randn(1, 1600)
    pt2 = tmp_path / "wavlm.pt2"
    with torch.no_grad():
        torch.export.save(torch.export.export(model, (x,)), pt2)
    program = compile_source(pt2, tmp_path / "p")
    with torch.no_grad():
        want = model(x).numpy()
    (got,) = program.simulate(x.numpy()).outputs.values()
    assert np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


class _ItemIndex(torch.nn.Module):
    """Reformer's pattern: a slice as long as a value read from a tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(16, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(12)
        n = positions.max().item() + 1
        return x + torch.index_select(self.w[:n], 0, positions)


def test_a_shape_that_depends_on_the_data_is_one_line(tmp_path: Path) -> None:
    pt2 = tmp_path / "m.pt2"
    torch.export.save(torch.export.export(_ItemIndex(), (torch.randn(1, 12, 8),)), pt2)
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(pt2), "-o", str(tmp_path / "out"), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"raptor: error: {pt2}: node 'slice_1': its shape (u") and line.endswith(
        ", 8) depends on the model's data at run time (a size read from a tensor, as .item() gives); the PIM "
        "compiler needs static shapes"), line
    assert not (tmp_path / "out").exists()
