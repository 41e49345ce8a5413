"""raptor compile replaces only its own program directories, and an
interruption at any instant leaves the old program or the new one,
complete, and no staging copy (issue 27's output directories)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from raptor import pim
from raptor._io import UserError
from raptor.pim._outputs import check_replaceable


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c(x))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("model") / "tiny.pt2"
    torch.export.save(torch.export.export(Tiny().eval(), (torch.randn(1, 3, 8, 8),)), path)
    return path


def _compile(model: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "raptor", "compile", str(model), "-o", str(out), "-q", *extra],
                          capture_output=True, text=True, timeout=300)


def test_a_directory_with_a_foreign_manifest_or_files_is_refused(tmp_path: Path, model: Path) -> None:
    """A manifest.json that is not Raptor's, a file Raptor did not write
    beside a real program (the model itself), a symbolic link: one line,
    exit 1, and every file is still there."""
    web = tmp_path / "web"
    web.mkdir()
    (web / "manifest.json").write_text('{"name": "my app", "version": 3}')
    (web / "index.html").write_text("<html></html>")
    r = _compile(model, web)
    assert r.returncode == 1 and "is not a program directory (no Raptor manifest)" in r.stderr
    assert sorted(p.name for p in web.iterdir()) == ["index.html", "manifest.json"]
    program = tmp_path / "program"
    assert _compile(model, program).returncode == 0
    inside = program / "tiny.pt2"
    inside.write_bytes(model.read_bytes())
    r = _compile(inside, program)
    assert r.returncode == 1 and "holds 'tiny.pt2', which Raptor did not write" in r.stderr
    assert inside.is_file() and (program / "manifest.json").is_file()
    link = tmp_path / "link"
    link.symlink_to(program)
    r = _compile(model, link)
    assert r.returncode == 1 and "is a symbolic link" in r.stderr and r.stderr.count("\n") == 1
    with pytest.raises(UserError, match="not a program directory"):
        check_replaceable(model)


def _complete(directory: Path) -> bool:
    """Whether `directory` holds a whole program (it loads and runs)."""
    try:
        pim.Program.load(directory).simulate({"x": torch.zeros(1, 3, 8, 8).numpy()})
        return True
    except UserError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_compiles_leave_the_old_or_the_new_program(tmp_path: Path, model: Path, signum: int) -> None:
    """Over an existing program, a compile interrupted at random instants
    (up to its whole length, measured first) leaves a complete program,
    the old one or the new one, and no staging copy beside it (SIGTERM left
    the staging directory before)."""
    out = tmp_path / "p"
    start = time.perf_counter()
    assert _compile(model, out).returncode == 0
    length = time.perf_counter() - start
    rng = random.Random(signum)
    for _ in range(4):
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["mark"] = "old"
        (out / "manifest.json").write_text(json.dumps(manifest))
        p = subprocess.Popen([sys.executable, "-m", "raptor", "compile", str(model), "-o", str(out), "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 1.1) * length)
        p.send_signal(signum)
        code = p.wait(timeout=300)
        # (a signal before the command has started its work ends it as the signal does)
        assert code in (0, 128 + signum, -signum), code
        assert _complete(out)  # the old program (its manifest marked) or the new one
        assert sorted(q.name for q in tmp_path.iterdir()) == ["p"], os.listdir(tmp_path)
