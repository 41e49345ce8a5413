"""A sweep's output directory: its record, its lock and where each output goes.

    OUT/sweep.json        the spec (self-contained), the state (running or
                          complete) and the counts of the last run
    OUT/cache/            finished points by content address (--cache moves it)
    OUT/results.csv, results.parquet, report.html, pareto-MODEL.svg
    OUT/programs/KEY/     program directories, when the spec keeps them

A directory that exists must be empty or a sweep's: ``raptor sweep`` never
writes among files it did not write. One sweep at a time holds the lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._io import UserError, write_atomically

__all__ = ["SweepDirectory"]

RECORD = "sweep.json"


class SweepDirectory:
    """The directory ``path``, its cache in ``cache`` (default ``path/cache``)."""

    def __init__(self, path: str | Path, cache: str | Path | None = None) -> None:
        self.path = Path(path)
        self.cache = Path(cache) if cache is not None else self.path / "cache"

    @property
    def record_path(self) -> Path:
        return self.path / RECORD

    @property
    def programs(self) -> Path:
        return self.path / "programs"

    def pareto_svg(self, model: str) -> Path:
        return self.path / f"pareto-{safe_name(model)}.svg"

    def check_writable(self) -> None:
        """Refuses a file, a directory that is neither empty nor a sweep's,
        and a missing parent, before anything is written."""
        if self.path.exists() and not self.path.is_dir():
            raise UserError(f"cannot write the sweep into '{self.path}': it is not a directory")
        if self.path.is_dir() and any(self.path.iterdir()) and not self.record_path.is_file():
            raise UserError(f"'{self.path}' is not empty and holds no sweep ({RECORD}): give a new or empty "
                            "directory")
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not self.path.exists() and not parent.is_dir():
            raise UserError(f"cannot write '{self.path}': directory '{parent}' does not exist")

    def recorded(self) -> dict[str, Any] | None:
        """The record of the last run in this directory, if any."""
        if not self.record_path.is_file():
            return None
        try:
            data = json.loads(self.record_path.read_text())
        except (OSError, ValueError) as e:
            raise UserError(f"cannot read '{self.record_path}': {e}") from None
        if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
            raise UserError(f"'{self.record_path}' is not a sweep record")
        return data

    def write_record(self, record: dict[str, Any]) -> None:
        write_atomically(self.record_path, json.dumps(record, indent=2, sort_keys=True) + "\n")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Creates the directory and holds its lock (released when the
        process ends, however it ends)."""
        try:
            self.path.mkdir(exist_ok=True)
            fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            raise UserError(f"cannot write '{self.path}': {e.strerror or e}") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise UserError(f"another sweep is running in '{self.path}'") from None
            yield
        finally:
            os.close(fd)

    def stale_plots(self, keep: set[Path]) -> list[Path]:
        """Pareto pictures of models no longer in the spec."""
        return [p for p in self.path.glob("pareto-*.svg") if p not in keep]


def safe_name(name: str) -> str:
    """A model name as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "model"
