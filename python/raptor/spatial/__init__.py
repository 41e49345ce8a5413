"""Spatial scheduling (shared seed 002), latency mode, and periodic timing
analysis.

The list-scheduling core runs in C++ (`passes/spatial/ListScheduler`):

    from raptor import spatial
    graph = spatial.load_task_graph("topcuoglu2002.json")
    result = spatial.schedule(graph, "heft")     # makespan 80
    spatial.evaluate(graph, result)              # checks and summary figures

So does the exact maximum cycle ratio of an event graph
(`passes/spatial/CycleRatio`, see `cycle_ratio`):

    spatial.max_cycle_ratio(2, [(0, 1, 3, 0), (1, 0, 4, 1)]).ratio   # Fraction(7, 1)
    spatial.load_event_graph("graph.json").max_cycle_ratio()
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _raptor
from . import cycle_ratio
from .cycle_ratio import CycleRatio, EventGraph, RatioBracket, bisect_cycle_ratio, max_cycle_ratio
from .cycle_ratio import load_graph as load_event_graph
from .report import bundled_targets, default_target, gantt_svg, resolve_target, schedule_model

__all__ = ["ALGORITHMS", "CycleRatio", "EventGraph", "RatioBracket", "TaskGraph", "ScheduleResult",
           "bisect_cycle_ratio", "bundled_targets", "cycle_ratio", "default_target", "evaluate", "gantt_svg",
           "load_event_graph", "load_task_graph", "max_cycle_ratio", "optimistic_cost_table",
           "resolve_target", "schedule", "schedule_model"]

ALGORITHMS = ("peft", "heft")


@dataclass
class TaskGraph:
    """cost[task][processor]; edges (from, to, communication), the
    communication paid only when the two tasks run on different processors."""

    cost: list[list[float]]
    edges: list[tuple[int, int, float]] = field(default_factory=list)

    @property
    def num_tasks(self) -> int:
        return len(self.cost)

    @property
    def num_processors(self) -> int:
        return len(self.cost[0]) if self.cost else 0

    #: Costs and communications in total at most this (in any unit): beyond
    #: it, double arithmetic can no longer tell a start plus a cost from its
    #: finish to the precision schedules are checked at.
    MAX_TOTAL = 1e12

    def validate(self) -> None:
        """Raises ValueError with a one-line reason unless the graph can be
        scheduled: equal non-empty cost rows, finite non-negative costs,
        edges between existing tasks, totals within MAX_TOTAL."""
        n, p = self.num_tasks, self.num_processors
        if n == 0 or p == 0:
            raise ValueError("the task graph needs at least one task and one processor")
        if any(len(row) != p for row in self.cost):
            raise ValueError(f"every task needs one cost per processor ({p})")
        values = [c for row in self.cost for c in row] + [c for _, _, c in self.edges]
        if not all(math.isfinite(c) and c >= 0 for c in values):
            raise ValueError("costs and communications must be finite and non-negative")
        if sum(values) > self.MAX_TOTAL:
            raise ValueError(f"costs and communications add up to {sum(values):.3g}, above {self.MAX_TOTAL:.0e}: "
                             "scale them down")
        for a, b, _ in self.edges:
            if not (0 <= a < n and 0 <= b < n):
                raise ValueError(f"edge {a} -> {b} names a task outside 0..{n - 1}")


@dataclass
class ScheduleResult:
    makespan: float
    processor: list[int]
    start: list[float]
    finish: list[float]
    order: list[int]

    def as_dict(self) -> dict[str, Any]:
        return {"makespan": self.makespan,
                "tasks": [{"task": t, "processor": p, "start": s, "finish": f}
                          for t, (p, s, f) in enumerate(zip(self.processor, self.start, self.finish))],
                "order": self.order}


def _json_float(c: Any) -> float | None:
    """A JSON number as a float; None for anything else (float() would read
    the string "3" and true as numbers) and for an integer no float holds."""
    if not isinstance(c, (int, float)) or isinstance(c, bool):
        return None
    try:
        return float(c)
    except OverflowError:
        return None


def load_task_graph(path: str | Path) -> TaskGraph:
    """Reads the task-graph JSON of ../shared/data/sched (`processors`,
    `cost`, `edges`); raises ValueError with a one-line reason if malformed."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read task graph '{path}': {e}") from None
    if not isinstance(data, dict) or "cost" not in data:
        raise ValueError(f"'{path}': expected a JSON object with 'cost' "
                         "(one row per task), 'edges' and 'processors'")
    rows = data["cost"]
    tabular = isinstance(rows, list) and all(isinstance(row, list) for row in rows)
    cost = [[_json_float(c) for c in row] for row in rows] if tabular else []
    if not tabular or any(c is None for row in cost for c in row):
        raise ValueError(f"'{path}': 'cost' must be a list of rows of numbers")
    edges = []
    if not isinstance(data.get("edges", []), list):
        raise ValueError(f"'{path}': 'edges' must be a list of [from, to, communication cost]")
    for e in data.get("edges", []):
        if (not isinstance(e, list) or len(e) != 3 or not all(isinstance(i, int) and not isinstance(i, bool)
                                                               for i in e[:2])
                or _json_float(e[2]) is None):
            raise ValueError(f"'{path}': every edge must be [from, to, communication cost] with integer "
                             f"task indices, not {json.dumps(e)}")
        edges.append((e[0], e[1], float(e[2])))
    if "processors" in data and (not isinstance(data["processors"], int) or isinstance(data["processors"], bool)):
        raise ValueError(f"'{path}': 'processors' must be an integer")
    if "processors" in data and cost and len(cost[0]) != data["processors"]:
        raise ValueError(f"'{path}': cost rows have {len(cost[0])} entries but "
                         f"processors = {data['processors']}")
    graph = TaskGraph(cost, edges)
    try:
        graph.validate()
    except ValueError as e:
        raise ValueError(f"'{path}': {e}") from None
    return graph


def schedule(graph: TaskGraph, algorithm: str = "peft") -> ScheduleResult:
    """Insertion-based list scheduling with PEFT or HEFT (C++)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm '{algorithm}' (expected peft or heft)")
    graph.validate()
    r = _raptor.schedule_dag(graph.cost, graph.edges, algorithm)
    return ScheduleResult(r["makespan"], list(r["processor"]), list(r["start"]),
                          list(r["finish"]), list(r["order"]))


def optimistic_cost_table(graph: TaskGraph) -> list[list[float]]:
    """PEFT's OCT[task][processor]."""
    return [list(row) for row in _raptor.optimistic_cost_table(graph.cost, graph.edges)]


def evaluate(graph: TaskGraph, result: ScheduleResult) -> dict[str, float]:
    """Checks a schedule (dependencies with transfers, no overlap on a
    processor) and reports serial work, critical path and transfer work."""
    # Relative to the schedule's length: starts plus costs are rounded to it.
    eps = 1e-9 * max([1.0, *result.finish])
    for a, b, c in graph.edges:
        transfer = 0.0 if result.processor[a] == result.processor[b] else c
        if result.start[b] + eps < result.finish[a] + transfer:
            raise AssertionError(f"task {b} starts before task {a}'s data arrives")
    by_processor: dict[int, list[tuple[float, float]]] = {}
    for t in range(graph.num_tasks):
        if abs(result.finish[t] - result.start[t] - graph.cost[t][result.processor[t]]) > eps:
            raise AssertionError(f"task {t} does not run for its cost")
        by_processor.setdefault(result.processor[t], []).append((result.start[t], result.finish[t]))
    for slots in by_processor.values():
        slots.sort()
        for (s0, f0), (s1, f1) in zip(slots, slots[1:]):
            if s1 + eps < f0:
                raise AssertionError("two tasks overlap on one processor")
    # Lower bound: the longest path with every task at its cheapest cost and
    # no transfers; the edges are in any order, so relax in topological order.
    succ: dict[int, list[int]] = {t: [] for t in range(graph.num_tasks)}
    indeg = [0] * graph.num_tasks
    for a, b, _ in graph.edges:
        succ[a].append(b)
        indeg[b] += 1
    ready = [t for t in range(graph.num_tasks) if indeg[t] == 0]
    longest = [min(row) for row in graph.cost]
    while ready:
        t = ready.pop()
        for s in succ[t]:
            longest[s] = max(longest[s], longest[t] + min(graph.cost[s]))
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    transfers = sum(c for a, b, c in graph.edges if result.processor[a] != result.processor[b])
    return {
        "makespan": result.makespan,
        "serial_work": sum(graph.cost[t][result.processor[t]] for t in range(graph.num_tasks)),
        "critical_path_lower_bound": max(longest, default=0.0),
        "transfer_work": transfers,
        "processors_used": len(by_processor),
    }
