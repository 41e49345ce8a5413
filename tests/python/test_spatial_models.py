"""Scheduling the zoo models on the default PIM target, checked for
validity: dependencies, one task at a time per core, crossbar capacity."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from mlir import ir

from raptor import spatial, zoo


def _tasks_with_deps(module: ir.Module) -> list[dict]:
    graph = next(op for op in module.body.operations if op.name == "spatial.graph")
    index, out = {}, []
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        task = {"start": ir.IntegerAttr(a["start_ns"]).value, "cost": ir.IntegerAttr(a["cost_ns"]).value,
                "core": ir.IntegerAttr(a["core"]).value, "tiles": ir.IntegerAttr(a["tiles"]).value,
                "deps": [index[d] for d in (str(v.get_name()) for v in op.operands)]}
        index[str(op.result.get_name())] = len(out)
        out.append(task)
    return out


@pytest.mark.parametrize("name", zoo.NAMES)
def test_zoo_models_schedule_validly_on_the_default_target(name: str) -> None:
    module = zoo.load_graph(name)
    report = spatial.schedule_model(module, spatial.default_target())
    tasks = _tasks_with_deps(module)
    for t in tasks:
        for d in t["deps"]:
            assert tasks[d]["start"] + tasks[d]["cost"] <= t["start"] + 1  # ns rounding
    by_core = defaultdict(list)
    for t in tasks:
        by_core[t["core"]].append((t["start"], t["start"] + t["cost"]))
    for slots in by_core.values():
        slots.sort()
        assert all(b[0] >= a[1] - 1 for a, b in zip(slots, slots[1:]))
    tiles = defaultdict(int)
    for t in tasks:
        tiles[t["core"]] += t["tiles"]
    assert max(tiles.values()) <= 96
    s = report["summary"]
    assert s["critical_path_ns"] <= s["completion_ns"] <= s["serial_work_ns"] + s["transfer_work_ns"]
    assert s["tasks"] == len(tasks) and all(
        sum(t["last"] for t in report["tasks"] if t["core"] == c) == 1 for c in by_core)


def test_schedule_command_writes_the_report_and_chart(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "raptor", "schedule", "shufflenet_v2",
                             "--report-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "schedule.json").read_text())
    assert report["algorithm"] == "peft" and report["summary"]["completion_ns"] > 0
    assert (tmp_path / "gantt.svg").read_text().startswith("<svg")


def test_a_model_too_large_for_the_chip(tmp_path: Path) -> None:
    small = Path(spatial.__file__).parent / "targets" / "small.json"
    result = subprocess.run([sys.executable, "-m", "raptor", "schedule", "unet", "--target", str(small),
                             "--report-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    # One line, located in the bundled graph the zoo name stands for.
    from raptor import zoo
    assert result.stderr.startswith(f"raptor: error: {zoo.graph_path('unet')}:")
    assert "crossbars but the chip has 32" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "schedule.json").exists()
