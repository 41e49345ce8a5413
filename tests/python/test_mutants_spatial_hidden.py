"""Hand-made mutants of raptor.spatial that no other test pinned: the
schedule report's per-core work (the sum of each core's task costs, not the
last one) and its busiest core (the largest of them, not their total), and
the bisection bracket's open lower end (lo < ratio <= hi)."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import torch
from pim_helpers import small_target

from raptor import sources, spatial
from raptor.spatial import cycle_ratio
from raptor.spatial.cycle_ratio import RatioBracket

# Two cores: the three layers' tasks share them.
TARGET = small_target(2, (1, 2), 2)


def test_per_core_work_is_the_sum_of_each_cores_task_costs(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 4)).eval()
    path = tmp_path / "mlp.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(2, 8),), strict=False), path)
    (tmp_path / "target.json").write_text(json.dumps(TARGET))
    report = spatial.schedule_model(sources.load(str(path), weights_as=None).module, str(tmp_path / "target.json"),
                                    replicate="none")
    work: dict[int, int] = defaultdict(int)
    costly: dict[int, int] = defaultdict(int)
    for t in report["tasks"]:
        work[t["core"]] += t["cost_ns"]
        costly[t["core"]] += t["cost_ns"] > 0
    assert max(costly.values()) >= 2  # (a core with several tasks: a sum, not the last one)
    assert len(work) == 2  # (two cores: the busiest is not the total)
    assert report["per_core_work_ns"] == {str(c): w for c, w in sorted(work.items())}
    assert report["summary"]["max_core_work_ns"] == max(work.values()) < sum(work.values())
    assert report["summary"]["serial_work_ns"] >= sum(work.values()) - report["summary"]["transfer_work_ns"]


def test_the_bisection_bracket_excludes_its_lower_end() -> None:
    bracket = RatioBracket("ok", 6, 7, 3)
    assert Fraction(7) in bracket and Fraction(13, 2) in bracket
    assert Fraction(6) not in bracket and Fraction(15, 2) not in bracket
    assert Fraction(7) not in RatioBracket("deadlock", None, None, 1)
    # A cycle 3 + 4 over one iteration: ratio 7, bracketed by 6 < 7 <= 7.
    edges = [(0, 1, 3, 0), (1, 0, 4, 1)]
    found = cycle_ratio.bisect_cycle_ratio(2, edges)
    assert (found.lo, found.hi) == (6, 7)
    assert cycle_ratio.max_cycle_ratio(2, edges).ratio in found and Fraction(6) not in found
