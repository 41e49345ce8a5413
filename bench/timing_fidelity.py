#!/usr/bin/env python3
"""The timing simulator against pimsim-nn's measured table (pim-target.md):
every row of tests/python/test_pim_timing.py's MEASURED, timed with
`raptor simulate --timing`'s simulator, as docs/timing.md's Fidelity table.

    python bench/timing_fidelity.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "python"))
from test_pim_timing import MEASURED, program  # noqa: E402  (the programs the test reconstructs)


def main() -> None:
    print("| program | pimsim-nn | Raptor | difference |")
    print("|---|---:|---:|---:|")
    worst = 0.0
    for name, (cores, chip, measured) in MEASURED.items():
        with tempfile.TemporaryDirectory() as work:
            latency = program(Path(work), cores, chip=chip).time().latency_ns
        difference = (latency - measured) / measured
        worst = max(worst, abs(difference))
        shown = "0" if difference == 0 else f"{100 * difference:+.2f}%"
        print(f"| {name} | {measured:g} ns | {latency:g} ns | {shown} |")
    print(f"\nlargest difference {100 * worst:.2f}% over {len(MEASURED)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
