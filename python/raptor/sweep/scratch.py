"""Scratch directories of the workers' tasks, collected after a kill.

A task's files (the model, the target, the point's program) live in a
directory named after the worker's process; a worker that is killed (a
cancelled sweep, a driver that died) cannot remove it, so every new task
first removes the directories of processes that no longer exist.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["scratch_directory"]


def _root() -> Path:
    root = Path(tempfile.gettempdir()) / "raptor-sweep"
    root.mkdir(exist_ok=True)
    return root


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _collect(root: Path) -> None:
    for path in root.iterdir():
        parts = path.name.split("-")
        if len(parts) >= 3 and parts[1].isdigit() and not _alive(int(parts[1])):
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def scratch_directory(kind: str) -> Iterator[Path]:
    """A new directory (``KIND-PID-XXXX`` under the temporary directory's
    ``raptor-sweep``), removed on exit; temporary files made meanwhile
    (``tempfile``'s default directory) go inside it."""
    root = _root()
    _collect(root)
    path = Path(tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-", dir=root))
    saved = tempfile.tempdir
    tempfile.tempdir = str(path)
    try:
        yield path
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(path, ignore_errors=True)
