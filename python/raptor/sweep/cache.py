"""The content-addressed store of finished points: one JSON file per key.

Each result is written atomically the moment its point finishes, so an
interrupted sweep keeps every point that had finished. Only results that
would come out the same again are stored: 'ok' rows and the compiler's or
simulator's refusals ('failed'); timeouts and crashes depend on the
machine and are computed again next time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._io import UserError, write_atomically

__all__ = ["CACHED_STATUSES", "PointCache"]

CACHED_STATUSES = ("ok", "failed")


class PointCache:
    """Results by point key under ``directory`` (``KEY[:2]/KEY.json``)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored row, or None (also for a file that is not a row: it is
        computed again and replaced)."""
        try:
            row = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None
        return row if isinstance(row, dict) and row.get("status") in CACHED_STATUSES else None

    def put(self, key: str, row: dict[str, Any]) -> bool:
        """Stores ``row`` if its status is reproducible; returns whether it did."""
        if row.get("status") not in CACHED_STATUSES:
            return False
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot write the point cache '{self.directory}': {e.strerror or e}") from None
        write_atomically(path, json.dumps(row, indent=1, sort_keys=True) + "\n")
        return True
