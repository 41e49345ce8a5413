"""The list-scheduling core (PEFT, HEFT) against the published example,
hand-computed tables and schedule invariants on random DAGs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from raptor import spatial
from test_rdg import DATA

TOPCUOGLU = DATA / "sched" / "topcuoglu2002.json"


def test_heft_reproduces_the_published_schedule() -> None:
    graph = spatial.load_task_graph(TOPCUOGLU)
    result = spatial.schedule(graph, "heft")
    assert result.makespan == 80
    # Topcuoglu et al. 2002, Fig. 2: order by upward rank and the processors chosen.
    assert result.order == [0, 2, 3, 1, 4, 5, 8, 6, 7, 9]
    assert result.processor == [2, 0, 2, 1, 2, 1, 2, 0, 1, 1]
    spatial.evaluate(graph, result)


SMALL = spatial.TaskGraph(cost=[[2, 3], [3, 1], [2, 2]], edges=[(0, 1, 4), (0, 2, 2)])


def test_optimistic_cost_table_by_hand() -> None:
    # OCT(0, p0) = max(min(3, 1 + 4), min(2, 2 + 2)) = 3;
    # OCT(0, p1) = max(min(3 + 4, 1), min(2 + 2, 2)) = 2; exits have 0.
    assert spatial.optimistic_cost_table(SMALL) == [[3, 2], [0, 0], [0, 0]]


def test_peft_schedule_by_hand() -> None:
    result = spatial.schedule(SMALL, "peft")
    # Task 0: EFT + OCT is 2 + 3 on p0 and 3 + 2 on p1 (tie: p0). Task 1 stays on
    # p0 (5 < 6 + 1); task 2 goes to p1 (ready at 2 + 2, finishes at 6 < 7).
    assert result.processor == [0, 0, 1]
    assert result.start == [0, 2, 4] and result.finish == [2, 5, 6]
    assert result.makespan == 6


def _random_dag(seed: int) -> spatial.TaskGraph:
    rng = random.Random(seed)
    n, p = rng.randint(5, 40), rng.randint(1, 6)
    cost = [[rng.randint(1, 20) for _ in range(p)] for _ in range(n)]
    edges = [(a, b, rng.randint(0, 30)) for b in range(n) for a in range(b)
             if rng.random() < 0.15]
    return spatial.TaskGraph(cost, edges)


@pytest.mark.parametrize("seed", range(50))
@pytest.mark.parametrize("algorithm", spatial.ALGORITHMS)
def test_schedules_respect_dependencies_and_bounds(seed: int, algorithm: str) -> None:
    graph = _random_dag(seed)
    result = spatial.schedule(graph, algorithm)
    summary = spatial.evaluate(graph, result)  # raises on a broken schedule
    assert result.makespan >= summary["critical_path_lower_bound"] - 1e-9
    upper = sum(max(row) for row in graph.cost) + sum(c for _, _, c in graph.edges)
    assert result.makespan <= upper + 1e-9
    assert sorted(result.order) == list(range(graph.num_tasks))


def test_bad_task_graphs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cycle"):
        spatial.schedule(spatial.TaskGraph([[1], [1]], [(0, 1, 0), (1, 0, 0)]))
    with pytest.raises(ValueError, match="one cost per processor"):
        spatial.schedule(spatial.TaskGraph([[1, 2], [1]], []))
    with pytest.raises(ValueError, match="outside"):
        spatial.schedule(spatial.TaskGraph([[1]], [(0, 3, 1)]))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"processors": 3, "cost": [[1, 2]], "edges": []}))
    result = subprocess.run([sys.executable, "-m", "raptor", "schedule-dag", str(bad)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "processors = 3" in result.stderr


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "expected a JSON object with 'cost'"),
    ('{"processors": 1}', "expected a JSON object with 'cost'"),
    ('{"cost": [[1], ["x"]]}', "'cost' must be a list of rows of numbers"),
    ('{"cost": [[1], [1]], "edges": [[0, 1]]}', "every edge must be"),
    ('{"cost": [[1]', "cannot read task graph"),
    # Found by tools/fuzz: a non-list 'edges' or 'processors' was a TypeError traceback.
    ('{"cost": [[1]], "edges": 48}', "'edges' must be a list"),
    ('{"cost": [[1]], "edges": 8.5}', "'edges' must be a list"),
    ('{"cost": [[1]], "processors": [1]}', "'processors' must be an integer"),
])
def test_malformed_task_graph_files(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "graph.json"
    bad.write_text(text)
    with pytest.raises(ValueError, match=message):
        spatial.load_task_graph(bad)


def test_schedule_dag_command() -> None:
    result = subprocess.run([sys.executable, "-m", "raptor", "schedule-dag", str(TOPCUOGLU),
                             "--algorithm", "heft"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["makespan"] == 80 and len(report["tasks"]) == 10
    assert report["tasks"][9] == {"task": 9, "processor": 1, "start": 73.0, "finish": 80.0}


FUZZ = DATA / "fuzz-repros"


@pytest.mark.parametrize("name, message", [
    ("U-dag-negidx.json", "edge -1 -> 1 names a task outside 0..1"),
    ("U2-dag-infidx.json", "integer task indices"),
    ("U3-dag-bigcost.json", "costs and communications add up to 1e+17"),
])
def test_schedule_dag_refuses_bad_graphs_in_one_line(name: str, message: str) -> None:
    """The fuzz repros that raised TypeError, OverflowError and an
    AssertionError inside the checker: now one line, exit 1."""
    out = subprocess.run([sys.executable, "-m", "raptor", "schedule-dag", str(FUZZ / name)], capture_output=True,
                         text=True)
    assert out.returncode == 1 and message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_validate_refuses_what_the_core_cannot_take() -> None:
    with pytest.raises(ValueError, match="outside 0..1"):
        spatial.schedule(spatial.TaskGraph([[1.0], [1.0]], [(0, 2, 1.0)]))
    with pytest.raises(ValueError, match="finite and non-negative"):
        spatial.schedule(spatial.TaskGraph([[1.0], [-1.0]], []))
    with pytest.raises(ValueError, match="one cost per processor"):
        spatial.schedule(spatial.TaskGraph([[1.0], [1.0, 2.0]], []))
    # Near the limit a schedule still checks out (relative tolerance).
    graph = spatial.TaskGraph([[4e11], [1.0]], [(0, 1, 0.0)])
    spatial.evaluate(graph, spatial.schedule(graph))


def test_schedule_of_a_module_without_a_model_graph(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "raptor", "schedule", str(FUZZ / "L-schedule-empty-module.mlir"),
                          "--report-dir", str(tmp_path / "r")], capture_output=True, text=True)
    assert out.returncode == 1 and "no model graph to schedule" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "r" / "schedule.json").exists()


def _diamond() -> spatial.TaskGraph:
    """0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3 on two processors; every transfer 5."""
    return spatial.TaskGraph(cost=[[4, 6], [3, 3], [2, 8], [5, 5]],
                             edges=[(0, 1, 5), (0, 2, 5), (1, 3, 5), (2, 3, 5)])


def _schedule(processor: list[int], start: list[float]) -> spatial.ScheduleResult:
    graph = _diamond()
    finish = [s + graph.cost[t][p] for t, (p, s) in enumerate(zip(processor, start))]
    return spatial.ScheduleResult(max(finish), processor, start, finish, sorted(range(4), key=lambda t: start[t]))


def test_evaluate_accepts_a_hand_checked_schedule_and_reports_it() -> None:
    """Derived by hand: 0 on P0 [0,4); 1 on P1 from 4 + 5 (transfer) to 12;
    2 on P0 [4,6); 3 on P0 after 1's data (12 + 5) to 22. Serial work
    4 + 3 + 2 + 5 = 14; two transfers (0->1, 1->3) = 10; the cheapest
    path 4 + 3 + 5 = 12."""
    summary = spatial.evaluate(_diamond(), _schedule([0, 1, 0, 0], [0, 9, 4, 17]))
    assert summary == {"makespan": 22, "serial_work": 14, "critical_path_lower_bound": 12,
                       "transfer_work": 10, "processors_used": 2}


def test_evaluate_counts_each_task_at_the_cost_of_its_processor() -> None:
    """Task 2 on the processor where it costs 8, not 2: 0 on P0 [0,4); 1
    on P0 [4,7); 2 on P1 from 4 + 5 (transfer) to 17; 3 on P0 after 2's
    data (17 + 5) to 27. Serial work 4 + 3 + 8 + 5 = 20 (2 at its cheapest
    would give 14); transfers 0->2 and 2->3, 10."""
    summary = spatial.evaluate(_diamond(), _schedule([0, 0, 1, 0], [0, 4, 9, 22]))
    assert summary == {"makespan": 27, "serial_work": 20, "critical_path_lower_bound": 12,
                       "transfer_work": 10, "processors_used": 2}


@pytest.mark.parametrize("processor, start, message", [
    # 1 on P1 at 4: right after 0 ends, as if the transfer were free.
    ([0, 1, 0, 0], [0, 4, 4, 17], "task 1 starts before task 0's data arrives"),
    # 3 on P0 at 16: one unit before 1's data arrives from P1.
    ([0, 1, 0, 0], [0, 9, 4, 16], "task 3 starts before task 1's data arrives"),
    # 1 and 2 both on P0 over [4, 7) and [6, 8).
    ([0, 0, 0, 0], [0, 4, 6, 12], "two tasks overlap on one processor"),
])
def test_evaluate_rejects_hand_broken_schedules(processor: list[int], start: list[float], message: str) -> None:
    """The scheduling tests' oracle must itself fail on broken schedules."""
    with pytest.raises(AssertionError, match=message):
        spatial.evaluate(_diamond(), _schedule(processor, start))


def test_evaluate_rejects_a_task_that_does_not_run_for_its_cost() -> None:
    broken = _schedule([0, 1, 0, 0], [0, 9, 4, 17])
    broken.finish[2] += 1  # 2 on P0 runs 3 instead of 2
    with pytest.raises(AssertionError, match="task 2 does not run for its cost"):
        spatial.evaluate(_diamond(), broken)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e6])
def test_evaluate_tolerates_rounding_relative_to_the_schedule_not_more(scale: float) -> None:
    """Starts and finishes are rounded: a dependency met but for 0.8e-9 of
    the schedule's length (or of 1 ns, for a schedule shorter than that) is
    accepted, one missed by 1.5e-9 of it is not, whatever the time unit."""
    graph = spatial.TaskGraph(cost=[[2 * scale], [scale]], edges=[(0, 1, 0)])
    unit = max(1.0, 3 * scale)

    def chain(gap: float) -> spatial.ScheduleResult:
        start = 2 * scale - gap * unit
        return spatial.ScheduleResult(start + scale, [0, 0], [0.0, start], [2 * scale, start + scale], [0, 1])

    spatial.evaluate(graph, chain(0.8e-9))
    with pytest.raises(AssertionError, match="task 1 starts before task 0's data arrives"):
        spatial.evaluate(graph, chain(1.5e-9))
