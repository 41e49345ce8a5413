"""Timing simulation of compiled programs (pimsim-nn's timing rules).

    from raptor import pim
    timing = pim.Program.load("out").time()                 # one inference
    timing.latency_ns, timing.cores[0].matrix_ns
    max(timing.tasks, key=lambda t: t.span_ns)             # the task that took longest
    steady = pim.Program.load("out").time(throughput=True)  # programs as loop bodies
    steady.interval_ns, steady.converged
    pim.Program.load("out").periodic()                      # the recurrence bound, exact, with its cycle

The event-driven simulator is C++ (simulator/TimingSimulator); its
parameters are the directory's chip.json and network.json (docs/timing.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["CoreTiming", "Periodic", "TaskTiming", "Timing", "format_periodic", "format_timing"]


@dataclass(frozen=True)
class CoreTiming:
    """One core's time in nanoseconds: when it finished the first pass, how
    long each unit was occupied (blocked: waiting for a peer or event), and
    the dispatch and retirement cycles around its unit instructions (with
    rob_size 1 they add to the units' time: the periodic analysis counts
    them in a core's work)."""

    instructions: int
    finish_ns: float
    matrix_ns: float
    vector_ns: float
    memory_ns: float
    communication_ns: float
    blocked_ns: float
    pipeline_ns: float


@dataclass(frozen=True)
class TaskTiming:
    """One task of the first pass (``name`` as the manifest's operators
    list says it, ``"<op> <task>"``): on ``core`` from the start of its first
    instruction to the end of its last; ``busy_ns`` sums its instructions'
    execution (waits included), ``blocked_ns`` is the part spent waiting for
    a peer or an event (its inputs' senders)."""

    name: str
    core: int
    instructions: int
    start_ns: float
    end_ns: float
    busy_ns: float
    blocked_ns: float

    @property
    def span_ns(self) -> float:
        return self.end_ns - self.start_ns


@dataclass(frozen=True)
class Timing:
    """A timing simulation: latency of one pass, and in throughput mode the
    steady-state initiation interval (converged when two two-generation
    windows agree within 1%)."""

    latency_ns: float
    throughput: bool
    interval_ns: float | None
    converged: bool
    generation_end_ns: list[float]
    cores: list[CoreTiming]
    global_requests: int
    global_busy_ns: float
    approximated: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: With ``time(timeline=True)``: the first pass, (core, kind, start_ns,
    #: end_ns) with kind matrix, vector, memory, transfer or wait.
    timeline: list[tuple[int, str, float, float]] = field(default_factory=list)
    #: The first pass per task, in the manifest's operator order.
    tasks: list[TaskTiming] = field(default_factory=list)

    @classmethod
    def from_stats(cls, stats: dict[str, Any], throughput: bool) -> Timing:
        return cls(latency_ns=stats["latency_ns"], throughput=throughput,
                   interval_ns=stats["interval_ns"] if throughput else None,
                   converged=bool(stats["converged"]), generation_end_ns=list(stats["generation_end_ns"]),
                   cores=[CoreTiming(**c) for c in stats["cores"]], global_requests=stats["global_requests"],
                   global_busy_ns=stats["global_busy_ns"], approximated=dict(stats["approximated"]),
                   seconds=stats["seconds"], timeline=list(stats.get("timeline", [])),
                   tasks=[TaskTiming(**t) for t in stats.get("tasks", [])])

    @property
    def busiest_core(self) -> int:
        """The core whose units were occupied longest."""
        work = [c.matrix_ns + c.vector_ns + c.memory_ns + c.communication_ns - c.blocked_ns for c in self.cores]
        return max(range(len(work)), key=work.__getitem__) if work else 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["timeline"]  # (the picture's, not the report's)
        data["cores"] = [dict(asdict(c), core=i) for i, c in enumerate(self.cores) if c.instructions]
        return data


def format_timing(t: Timing, directory: str, schedule_ns: float | None = None) -> str:
    """A few lines for the terminal, with the schedule's estimate beside."""
    used = [c for c in t.cores if c.instructions]
    lines = [f"{directory}: latency {t.latency_ns / 1e6:.4f} ms on {len(used)} cores "
             f"(timing simulated in {t.seconds:.2f} s)"]
    if schedule_ns:
        lines.append(f"  schedule estimate {schedule_ns / 1e6:.4f} ms "
                     f"(simulated / estimated = {t.latency_ns / schedule_ns:.2f})")
    if t.throughput:
        state = "converged" if t.converged else "not converged"
        lines.append(f"  throughput: interval {t.interval_ns / 1e6:.4f} ms ({state} after "
                     f"{len(t.generation_end_ns)} passes)")
    if used:
        b = t.cores[t.busiest_core]
        lines.append(f"  busiest core {t.busiest_core}: matrix {b.matrix_ns / 1e6:.4f} ms, vector "
                     f"{b.vector_ns / 1e6:.4f} ms, memory {b.memory_ns / 1e6:.4f} ms, communication "
                     f"{b.communication_ns / 1e6:.4f} ms ({b.blocked_ns / 1e6:.4f} ms blocked)")
    if t.tasks:
        longest = sorted(t.tasks, key=lambda k: k.span_ns, reverse=True)[:3]
        lines.append("  longest tasks: " + ", ".join(
            f"{k.name.split(' ')[-1]} on core {k.core} {k.span_ns / 1e6:.4f} ms ({k.blocked_ns / 1e6:.4f} blocked)"
            for k in longest))
    lines.append(f"  global memory: {t.global_requests:,} requests, {t.global_busy_ns / 1e6:.4f} ms of service")
    if t.approximated:
        lines.append("  timed as vector work (no pimsim-nn timing): " +
                     ", ".join(f"{k} x{v}" for k, v in sorted(t.approximated.items())))
    return "\n".join(lines)


@dataclass(frozen=True)
class Periodic:
    """The periodic dependency diagnostic of the programs run as loop bodies:
    the interval the recurrence allows (an exact maximum cycle ratio, in
    nanoseconds), its critical cycle, and the estimate max(recurrence,
    busiest core's work, global memory's service)."""

    status: str  # ok, deadlock, acyclic or unavailable
    reason: str
    recurrence_ns: Fraction | None
    interval_ns: float | None
    bound: str
    busiest_core: int
    busiest_core_work_ns: float
    global_service_ns: float
    nodes: int
    edges: int
    cycle: list[dict[str, Any]]
    cycle_edges: int
    cycle_weight_ns: int
    cycle_distance: int
    cycle_cores: list[int]

    @classmethod
    def from_stats(cls, s: dict[str, Any]) -> Periodic:
        ok = s["status"] == "ok"
        return cls(status=s["status"], reason=s["reason"],
                   recurrence_ns=Fraction(s["ratio_num"], s["ratio_den"]) if ok else None,
                   interval_ns=s["interval_ns"] if ok else None, bound=s["bound"], busiest_core=s["busiest_core"],
                   busiest_core_work_ns=s["busiest_core_work_ns"], global_service_ns=s["global_service_ns"],
                   nodes=s["nodes"], edges=s["edges"], cycle=list(s["cycle"]), cycle_edges=s["cycle_edges"],
                   cycle_weight_ns=s["cycle_weight_ns"], cycle_distance=s["cycle_distance"],
                   cycle_cores=list(s["cycle_cores"]))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.recurrence_ns is not None:
            data["recurrence_ns"] = {"num": self.recurrence_ns.numerator, "den": self.recurrence_ns.denominator}
        return data


def format_periodic(p: Periodic, directory: str) -> str:
    if p.status == "unavailable":
        return f"{directory}: periodic analysis unavailable: {p.reason}"
    if p.status == "deadlock":
        return (f"{directory}: deadlock: a cycle of {p.cycle_edges} events within one iteration across cores "
                f"{', '.join(map(str, p.cycle_cores))}, e.g. {p.cycle[0]['from']} -> {p.cycle[0]['to']}")
    if p.status == "acyclic":
        return f"{directory}: no core loops: no recurrence"
    lines = [f"{directory}: interval estimate {p.interval_ns / 1e6:.4f} ms (bound: {p.bound})",
             f"  recurrence {float(p.recurrence_ns) / 1e6:.4f} ms: a cycle of {p.cycle_edges} events over "
             f"{p.cycle_distance} iteration(s) across {len(p.cycle_cores)} core(s) "
             f"({', '.join(map(str, p.cycle_cores[:12]))}{' ...' if len(p.cycle_cores) > 12 else ''})",
             f"  busiest core {p.busiest_core}: {p.busiest_core_work_ns / 1e6:.4f} ms of work; global memory "
             f"{p.global_service_ns / 1e6:.4f} ms of service",
             f"  event graph: {p.nodes:,} events, {p.edges:,} edges"]
    heaviest = sorted(p.cycle, key=lambda e: -e["weight_ns"])[:3]
    for e in heaviest:
        lines.append(f"    {e['weight_ns'] / 1e6:9.4f} ms  {e['what']}: {e['from']} -> {e['to']}")
    return "\n".join(lines)
