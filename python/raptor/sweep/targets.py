"""Checking a spec's targets before any point runs.

The compiler is the one authority on what a target may say (its C++ loader
refuses unknown keys, wrong numbers, a mesh too small for the cores), so
each distinct target of the sweep is compiled once with a probe model of
one element-wise operator: a mistake in the spec's target grid is then one
line before the sweep starts, not a failed row on every point.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .. import pim, sources
from .._io import UserError
from .points import Point
from .spec import SpecError

__all__ = ["check_targets"]

#: A model the compiler accepts for any valid target: no weights, one core.
PROBE = """func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %0 = nn.relu %x : tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
"""


def check_targets(points: list[Point], source: str) -> None:
    """Raises SpecError naming the first grid point whose target the
    compiler refuses (``source`` is the spec, for the message)."""
    seen: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="raptor-sweep-targets-") as work:
        probe = Path(work, "probe.mlir")
        probe.write_text(PROBE)
        for point in points:
            text = json.dumps(point.target, sort_keys=True)
            if text in seen:
                continue
            seen.add(text)
            target = Path(work, f"target{len(seen)}.json")
            target.write_text(text)
            model = sources.load(str(probe))
            try:
                pim.compile(model.module, Path(work, f"out{len(seen)}"), target=target, pimsim="none",
                            source="probe")
            except UserError as e:
                where = ", ".join(f"{k}={v}" for k, v in point.params) or "the target"
                raise SpecError(f"{source}: target {where}: {_message(str(e), target)}") from None


def _message(error: str, target: Path) -> str:
    """The loader's first line without the temporary file's name."""
    line = error.splitlines()[0] if error else "refused"
    marker = f"{target}: "
    return line.split(marker, 1)[1] if marker in line else line
