"""Program directories as outputs: what ``raptor compile`` may replace, and
replacing it so that an interruption at any instant leaves the old program
or the new one, complete, and nothing else.

A directory is replaced only when it is empty or is a program directory
Raptor wrote: its manifest says ``raptor-pim`` with an integer version, and
every entry is a name Raptor writes there. Anything else (a user's files,
the model being compiled, a symbolic link) is refused in one line before
any work is done.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .._io import UserError

__all__ = ["check_replaceable", "install"]

#: The entries of a program directory (writeDirectory and pim.compile).
_OWN = re.compile(r"(manifest\.json|memory\.bin|config\.json|chip\.json|network\.json|core_\d+\.(pim|json)"
                  r"|raptor|weights|reports)")


def check_replaceable(out: Path) -> None:
    """Raises UserError unless ``out`` does not exist, is an empty
    directory, or is a program directory holding only what Raptor writes."""
    if out.is_symlink():
        raise UserError(f"'{out}' is a symbolic link: give the program directory itself")
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"'{out}' exists and is not a program directory: choose another output")
    entries = sorted(p.name for p in out.iterdir())
    if not entries:
        return
    manifest = out / "manifest.json"
    try:
        data = json.loads(manifest.read_text()) if manifest.is_file() and not manifest.is_symlink() else None
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("format") != "raptor-pim" or not isinstance(data.get("version"), int):
        raise UserError(f"'{out}' exists and is not a program directory (no Raptor manifest): choose another output")
    foreign = [name for name in entries if not _OWN.fullmatch(name) or (out / name).is_symlink()]
    if foreign:
        raise UserError(f"'{out}' holds '{foreign[0]}', which Raptor did not write: move it or choose another output")


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (are delivered after) while the block runs."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def install(staging: Path, out: Path) -> None:
    """Moves the complete program in ``staging`` to ``out``: the old one is
    renamed aside, the new one renamed in, the old one removed last; the
    two renames run with SIGINT and SIGTERM held, so that ``out`` always
    names a whole program."""
    with _signals_held():
        aside = None
        if out.exists():
            aside = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old"))
            os.replace(out, aside / "program")
        os.replace(staging, out)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
