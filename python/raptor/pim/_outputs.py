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
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import _raptor
from .._io import UserError, make_parents, remove_made, signals_held

__all__ = ["check_replaceable", "install", "staging"]


def check_replaceable(out: Path, inputs: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """Raises UserError unless ``out`` does not exist, is an empty
    directory, or is a program directory holding only what Raptor writes
    (the C++ emitter's own rule, simulator/Program.h checkReplaceable),
    and none of ``inputs`` (files the compile reads) lies inside it: the
    replacement would delete them."""
    try:
        _raptor.check_replaceable(str(out))
    except ValueError as e:
        raise UserError(str(e)) from None
    if not out.is_dir():
        return
    root = out.resolve()
    for name in inputs:
        if name is None or not Path(name).exists():
            continue
        if root in Path(name).resolve().parents:
            raise UserError(f"'{name}' is inside '{out}', which the compile replaces: "
                            "move it or choose another output")


@contextmanager
def staging(out: Path) -> Iterator[Path]:
    """A new empty directory beside ``out`` (its missing parents created)
    for the program to be written into; on any exit that did not
    :func:`install` it, it is removed, and so are the parents it created.
    Its creation and removal run with SIGINT and SIGTERM held, so that no
    interruption leaves it behind."""
    parent = out.parent if str(out.parent) else Path(".")
    made: list[Path] = []
    path: Path | None = None
    try:
        # (A signal held here arrives as the block ends: inside this try, so
        # that what was created is removed.)
        with signals_held():
            made = make_parents(parent, out)
            try:
                path = Path(tempfile.mkdtemp(dir=parent, prefix=f".{out.name}.", suffix=".tmp"))
            except OSError as e:
                raise UserError(f"cannot write '{out}': {e.strerror or e}") from None
        yield path
    except BaseException:
        with signals_held():
            if path is not None:
                shutil.rmtree(path, ignore_errors=True)
            remove_made(made)
        raise


def install(staging: Path, out: Path) -> None:
    """Moves the complete program in ``staging`` to ``out``: the old one is
    renamed aside, the new one renamed in, the old one removed last; the
    two renames run with SIGINT and SIGTERM held, so that ``out`` always
    names a whole program."""
    with signals_held():
        aside = None
        if out.exists():
            aside = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old"))
            os.replace(out, aside / "program")
        os.replace(staging, out)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
