"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/cli.py: behaviour no other test pinned."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import torch

from raptor import cli


@pytest.fixture(scope="module")
def linear_pt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "linear.pt2"
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2).eval()
    torch.export.save(torch.export.export(model, (torch.randn(1, 3),), strict=False), path)
    return path


def test_a_failed_ir_write_removes_the_weights_already_written(linear_pt2: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "write_atomically", disk_full)
    out = tmp_path / "linear.mlir"
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(OSError, match="No space left"):
        cli.main(["import", str(linear_pt2), "-o", str(out)])
    # The weights file was saved first; without the IR it is useless: removed.
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_failed_ir_write_without_weights_raises_the_write_error(linear_pt2: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "write_atomically", disk_full)
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(OSError, match="No space left"):
        cli.main(["import", str(linear_pt2), "-o", str(tmp_path / "linear.mlir"), "--no-weights"])
    assert list(tmp_path.iterdir()) == []


def test_model_cleanup_removes_its_temporaries_and_tolerates_missing_ones(tmp_path: Path) -> None:
    import raptor
    from mlir import ir

    from raptor.sources import Model

    kept, gone = tmp_path / "weights.safetensors", tmp_path / "already-removed.safetensors"
    kept.write_bytes(b"x")
    with raptor.Context(), ir.Location.unknown():
        model = Model(ir.Module.create(), None, "m", temporary=[kept, gone])
        model.cleanup()
        model.cleanup()  # twice: nothing left to remove, no error
    assert list(tmp_path.iterdir()) == []


class _TwoOutputs(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.fc(x), x * 2


def test_a_pt2_source_refers_to_its_first_output(tmp_path: Path) -> None:
    import numpy as np

    from raptor import sources

    torch.manual_seed(0)
    model = _TwoOutputs().eval()
    x = torch.randn(1, 3)
    path = tmp_path / "two.pt2"
    torch.export.save(torch.export.export(model, (x,), strict=False), path)
    loaded = sources.load(str(path))
    try:
        with torch.no_grad():
            np.testing.assert_array_equal(loaded.reference(x.numpy()), model(x)[0].numpy())
        assert loaded.weights is not None and loaded.weights.is_file()
    finally:
        loaded.cleanup()
    assert not loaded.weights.exists()


def test_a_missing_pt2_source_is_a_user_error(tmp_path: Path) -> None:
    from raptor import sources
    from raptor._io import UserError

    with pytest.raises(UserError, match="cannot read '.*none.pt2'"):
        sources.load(str(tmp_path / "none.pt2"))


def test_an_mlir_source_finds_its_weights_beside_it_or_where_told(tmp_path: Path) -> None:
    from raptor import sources

    path = tmp_path / "relu.mlir"
    path.write_text("func.func @f(%a: tensor<2xf32> {nn.input = \"x\"}) -> tensor<2xf32> {\n"
                    "  %r = nn.relu %a : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n")
    assert sources.load(str(path)).weights is None  # no weights beside it, none needed
    beside = tmp_path / "relu.safetensors"
    beside.write_bytes(b"")
    assert sources.load(str(path)).weights == beside
    elsewhere = tmp_path / "other.safetensors"
    elsewhere.write_bytes(b"")
    assert sources.load(str(path), str(elsewhere)).weights == elsewhere
