"""The sweep's progress line: points done, failed and left, and an ETA.

On a terminal the line is redrawn in place (and its ETA every second); into
a file or a pipe it is one line per finished point, which logs read well.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """``45s``, ``3m05s``, ``2h10m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Progress:
    """Counts finished points; the ETA extrapolates from the points computed
    in this run (cached ones took no time)."""

    def __init__(self, total: int, stream: TextIO | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.ok = 0
        self.failed = 0
        self.computed = 0
        self.stream = stream
        self.live = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.clock = clock
        self.start = clock()
        self.last = ""

    @property
    def left(self) -> int:
        return self.total - self.ok - self.failed

    def eta(self) -> float | None:
        """Seconds until the last point, at this run's pace so far."""
        if not self.computed:
            return None
        return (self.clock() - self.start) / self.computed * self.left

    def line(self) -> str:
        eta = self.eta()
        text = (f"[sweep] {self.ok + self.failed}/{self.total} finished: {self.ok} ok, {self.failed} failed, "
                f"{self.left} left")
        if self.left:
            text += f", ETA {format_duration(eta) if eta is not None else '?'}"
        return text + (f" (last: {self.last})" if self.last else "")

    def cached(self, rows: list[dict[str, Any]]) -> None:
        """Counts the points found in the cache, then shows the line."""
        for row in rows:
            self._count(row)
        self.start = self.clock()
        self._show()

    def finished(self, label: str, row: dict[str, Any]) -> None:
        self.computed += 1
        self._count(row)
        outcome = row["status"] if row["status"] == "ok" else f"{row['status']}: {row.get('error') or ''}"
        self.last = f"{label}: {outcome} in {row.get('seconds', 0):.1f} s"
        self._show()

    def tick(self) -> None:
        """Redraws the line on a terminal (the ETA moves)."""
        if self.live:
            self._show()

    def close(self) -> None:
        if self.live and self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()

    def _count(self, row: dict[str, Any]) -> None:
        if row["status"] == "ok":
            self.ok += 1
        else:
            self.failed += 1

    def _show(self) -> None:
        if self.stream is None:
            return
        if self.live:
            self.stream.write("\r\x1b[K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
