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
