"""The installed `raptor` executable (tools/raptor-launcher): it runs the
environment's Python on raptor_command with the arguments exactly as given
and returns the command's exit status; signals through Python's start are
tested in test_compile_outputs.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RAPTOR = Path(sys.executable).parent / "raptor"


def test_the_launcher_passes_arguments_byte_for_byte_and_the_exit_status() -> None:
    odd = "/nonexistent dir/m\u00e9 'quoted' $HOME.onnx"
    run = subprocess.run([str(RAPTOR), "import", odd, "-o", "/nonexistent dir/x.mlir"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    assert odd in run.stderr and run.stderr.startswith("raptor: ") and len(run.stderr.splitlines()) == 1
    same = subprocess.run([sys.executable, "-m", "raptor", "models"], capture_output=True, text=True, timeout=120)
    launched = subprocess.run([str(RAPTOR), "models"], capture_output=True, text=True, timeout=120)
    assert launched.returncode == same.returncode == 0 and launched.stdout == same.stdout != ""
    usage = subprocess.run([str(RAPTOR), "no-such-command"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2 and "usage: raptor" in usage.stderr


def test_the_launcher_runs_the_python_beside_it() -> None:
    """In the environment's bin/, the launcher and its Python sit together:
    the command imports this environment's raptor."""
    code = subprocess.run([str(RAPTOR), "--help"], capture_output=True, text=True, timeout=120)
    assert code.returncode == 0 and "usage: raptor" in code.stdout
    assert (RAPTOR.parent / "python3").exists()
