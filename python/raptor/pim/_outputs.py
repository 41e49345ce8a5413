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

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import _raptor
from .._io import UserError

__all__ = ["check_replaceable", "install"]

def check_replaceable(out: Path) -> None:
    """Raises UserError unless ``out`` does not exist, is an empty
    directory, or is a program directory holding only what Raptor writes
    (the C++ emitter's own rule, simulator/Program.h checkReplaceable)."""
    try:
        _raptor.check_replaceable(str(out))
    except ValueError as e:
        raise UserError(str(e)) from None


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
