"""Every field of the reports people read, against an independent
computation: a hand count, a brute force, the sum of the parts, or another
part of the tool that computes it another way (the simulator's counters
against the manifest's, the program files against the transfers list).

Reports: the schedule (raptor schedule's schedule.json, schedule_model),
raptor schedule-dag's summary, the timing run (raptor simulate --timing
--json, Timing), the periodic diagnostic (raptor periodic, Periodic), the
manifest and raptor compile's summary, and the codec costs (raptor
codec-report)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import pim, spatial
from raptor.pim.timing import CoreTiming, Timing, format_timing

from pim_helpers import imported

RAPTOR = [sys.executable, "-m", "raptor"]


def _core(instructions: int = 5, finish: float = 0.0, matrix: float = 0.0, vector: float = 0.0,
          memory: float = 0.0, communication: float = 0.0, blocked: float = 0.0) -> CoreTiming:
    return CoreTiming(instructions, finish, matrix, vector, memory, communication, blocked, 0.0)


def _timing(cores: list[CoreTiming]) -> Timing:
    return Timing(latency_ns=max(c.finish_ns for c in cores), throughput=False, interval_ns=None,
                  converged=False, generation_end_ns=[], cores=cores, global_requests=0, global_busy_ns=0.0)


def test_the_busiest_core_is_the_one_whose_units_worked_longest_not_the_one_blocked_longest() -> None:
    """Core 0 finishes last and has the largest total (100 ns), but 75 ns
    of it is waiting for a peer: its work is 25 ns. Core 1 worked 45 ns,
    core 2 40 ns (by hand: matrix + vector + memory + communication - blocked)."""
    cores = [_core(finish=100, matrix=10, vector=5, memory=5, communication=80, blocked=75),
             _core(finish=60, matrix=30, vector=10, memory=0, communication=5, blocked=0),
             _core(finish=50, matrix=0, vector=20, memory=20, communication=0, blocked=0)]
    t = _timing(cores)
    assert t.busiest_core == 1
    assert "busiest core 1: matrix 0.0000 ms" in format_timing(t, "d")
    # The same cores in another order: the answer follows the core.
    assert _timing([cores[2], cores[0], cores[1]]).busiest_core == 2


def test_the_timing_json_lists_the_used_cores_under_their_own_numbers() -> None:
    cores = [_core(instructions=0), _core(instructions=3, finish=7, vector=7), _core(instructions=0),
             _core(instructions=9, finish=4, matrix=4)]
    listed = _timing(cores).to_json()["cores"]
    assert [(c["core"], c["instructions"], c["finish_ns"]) for c in listed] == [(1, 3, 7), (3, 9, 4)]


def test_schedule_dag_summary_fields_against_a_hand_count(tmp_path: Path) -> None:
    """Four tasks on two processors. Critical path at the cheapest costs (2,
    3, 2, 1) without transfers: 0 -> 1 -> 3 = 6 (0 -> 2 -> 3 is 5). The
    other fields follow from the placement the schedule reports: serial
    work the costs on the chosen processors, transfer work the edges whose
    ends are apart, the makespan the last finish."""
    cost = [[2, 4], [3, 3], [4, 2], [1, 1]]
    edges = [[0, 1, 5], [0, 2, 1], [1, 3, 1], [2, 3, 6]]
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"processors": 2, "cost": cost, "edges": edges}))
    for algorithm in ("peft", "heft"):
        out = subprocess.run([*RAPTOR, "schedule-dag", str(path), "--algorithm", algorithm],
                             capture_output=True, text=True, check=True)
        report = json.loads(out.stdout)
        tasks = {t["task"]: t for t in report["tasks"]}
        proc = [tasks[i]["processor"] for i in range(4)]
        s = report["summary"]
        assert s["critical_path_lower_bound"] == 6
        assert s["serial_work"] == sum(cost[t][proc[t]] for t in range(4))
        assert s["transfer_work"] == sum(c for a, b, c in edges if proc[a] != proc[b])
        assert s["processors_used"] == len(set(proc))
        assert s["makespan"] == report["makespan"] == max(t["finish"] for t in tasks.values())
        # Each task runs for its cost after its inputs arrive.
        for t in range(4):
            assert tasks[t]["finish"] - tasks[t]["start"] == cost[t][proc[t]]
        for a, b, c in edges:
            assert tasks[b]["start"] >= tasks[a]["finish"] + (c if proc[a] != proc[b] else 0)


class _Stages(torch.nn.Module):
    """Four convolutions: enough layers for a pipeline of several stages."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(c, 8, 3, padding=1) for c in (3, 8, 8, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = torch.relu(conv(x))
        return x


def test_the_pipeline_summary_predicts_the_interval_the_simulator_measures(tmp_path: Path) -> None:
    """raptor compile --pipeline prints the scheduler's interval (and the
    stages and first inference of the manifest's schedule); the timing
    simulator's steady-state interval of the same program agrees within 10%."""
    torch.manual_seed(0)
    source = tmp_path / "stages.pt2"
    torch.export.save(torch.export.export(_Stages().eval(), (torch.randn(1, 3, 12, 12),)), source)
    out = tmp_path / "program"
    run = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(out), "--pipeline", "3", "-q", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    schedule = json.loads((out / "manifest.json").read_text())["schedule"]
    assert summary["schedule_mode"] == schedule["mode"] == "pipeline"
    assert summary["predicted_interval_ns"] == schedule["predicted_interval_ns"] > 0
    assert summary["predicted_latency_ns"] == schedule["predicted_latency_ns"] >= schedule["predicted_interval_ns"]
    assert summary["pipeline_stages"] == len(schedule["stage_cores"]) and 1 < summary["pipeline_stages"] <= 3
    text = pim.format_summary(summary, str(out))
    interval = schedule["predicted_interval_ns"]
    assert (f"  pipeline estimate: {summary['pipeline_stages']} stages, interval {interval / 1e6:.3f} ms "
            f"({1e9 / interval:,.0f} inferences/s), first inference "
            f"{schedule['predicted_latency_ns'] / 1e6:.3f} ms") in text.splitlines()
    timed = subprocess.run(RAPTOR + ["simulate", str(out), "--timing", "--throughput", "--json"],
                           capture_output=True, text=True, timeout=300)
    assert timed.returncode == 0, timed.stderr
    measured = json.loads(timed.stdout)["interval_ns"]
    assert measured == pytest.approx(interval, rel=0.10)
    latency = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(tmp_path / "latency"), "-q", "--json"],
                             capture_output=True, text=True, timeout=300)
    lines = pim.format_summary(json.loads(latency.stdout), "d").splitlines()
    assert any(line.startswith("  schedule estimate: ") for line in lines)
    assert not any("pipeline estimate" in line for line in lines)
