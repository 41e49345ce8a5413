"""Analyses of a reduced dependency graph (shared seed 003).

All analyses run on the *per-branch* graph: a variable defined piecewise has
one node per branch, and an arc goes from producer branch to consumer branch
only where some consumer point of the domain reads a producer point inside
that branch (domain-pruned arcs, decided at the given parameter values).

- `free_schedule`: the executable oracle. Enumerates every point, gives each
  computed value the earliest step it can run at (1 + the latest step of the
  values it reads; values read outside every definition are inputs at step
  0) and reports a dependence cycle as non-computable. Bounded: refuses
  domains of more than `max_points` points.
- `kmw`: Karp-Miller-Winograd computability with Darte-Vivien's depth, for
  uniform systems: recursively removes the edges that lie on no zero-weight
  multi-cycle (an LP per strongly connected component).
- `linear_schedule`: the minimal (L1) `tau` with per-node offsets `c` such
  that `tau.(p - q) + c_v - c_s >= 1` for every read of q at p, or None when
  the LP is infeasible (no linear schedule exists).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Node = tuple[str, int]  # (variable, branch)


class AnalysisError(ValueError):
    """The system cannot be analysed as given (unbounded, too large, ...)."""


@dataclass
class Instance:
    """The system at concrete parameter values: points and resolved reads."""

    rank: int
    points: dict[Node, list[tuple[int, ...]]]
    owner: dict[str, dict[tuple[int, ...], int]]
    # (producer node, consumer node, uniform theta or None) -> [(p, q), ...]
    reads: dict[tuple[Node, Node, tuple[int, ...] | None], list[tuple[tuple[int, ...], tuple[int, ...]]]] = field(default_factory=dict)



# The analyses enumerate every point in Python (they are the oracle the C++
# extraction is checked against): 50,000 points take a few seconds and a few
# hundred MB (a 37^3 gemm: about 4 s, 340 MB); 200,000 took 17 s and 930 MB.
DEFAULT_MAX_POINTS = 50_000

def _dot(a: list[int], b: list[int] | tuple[int, ...]) -> int:
    """An exact dot product (Python integers: numpy's int64 wraps, which
    turned 2*N with N = 2^62 into an empty domain)."""
    return sum(int(x) * int(y) for x, y in zip(a, b))


def _satisfies(constraints: list[dict], point: tuple[int, ...], params: list[int]) -> bool:
    for c in constraints:
        v = _dot(c["dims"], point) + _dot(c["params"], params) + int(c["constant"])
        if (v != 0) if c["equality"] else (v < 0):
            return False
    return True


def _box(domain: list[dict], rank: int, params: list[int]) -> list[range]:
    """Bounds of each index from the constraints on that index alone."""
    lo: list[int | None] = [None] * rank
    hi: list[int | None] = [None] * rank
    for c in domain:
        nonzero = [d for d in range(rank) if c["dims"][d] != 0]
        if len(nonzero) != 1:
            continue
        d = nonzero[0]
        a = int(c["dims"][d])
        rest = _dot(c["params"], params) + int(c["constant"])
        # a x + rest >= 0: x >= -rest / a (a > 0) or x <= -rest / a (a < 0),
        # rounded exactly (floats lost the last digits of 2^63-sized bounds).
        if c["equality"] or a > 0:
            value = -(rest // a)  # ceil(-rest / a)
            lo[d] = value if lo[d] is None else max(lo[d], value)
        if c["equality"] or a < 0:
            value = (-rest) // a  # floor(-rest / a)
            hi[d] = value if hi[d] is None else min(hi[d], value)
    for d in range(rank):
        if lo[d] is None or hi[d] is None:
            raise AnalysisError(f"the domain gives index #{d} no constant bound: "
                                "it is unbounded or needs a bound for enumeration")
    return [range(lo[d], hi[d] + 1) for d in range(rank)]


def instantiate(graph: dict[str, Any], max_points: int = DEFAULT_MAX_POINTS) -> Instance:
    """Enumerates the domain at the parameters' values and resolves every read."""
    params = [p.get("value") for p in graph["parameters"]]
    if any(v is None for v in params):
        raise AnalysisError("every parameter needs a value to enumerate the domain")
    rank = graph["rank"]
    box = _box(graph["domain"], rank, params)
    # Exact: an int64 product wrapped to 0 and skipped the limit.
    size = math.prod(max(0, r.stop - r.start) for r in box)
    if size > max_points:
        raise AnalysisError(f"the domain's bounding box has {size} points, more than the "
                            f"enumeration limit of {max_points}")
    # An empty range makes the box empty; itertools.product would still
    # materialize every other range (one of 2^62 points: MemoryError).
    domain = [] if size == 0 else [
        p for p in itertools.product(*box) if _satisfies(graph["domain"], p, params)]
    if not domain:
        raise AnalysisError("the domain is empty at the given parameter values")
    inst = Instance(rank, {}, {})
    for b in graph["branches"]:
        node = (b["variable"], b["branch"])
        pts = [p for p in domain if _satisfies(b["constraints"], p, params)]
        inst.points[node] = pts
        owner = inst.owner.setdefault(b["variable"], {})
        for p in pts:
            if p in owner:
                raise AnalysisError(f"'{b['variable']}' has two branches defining point {p}")
            owner[p] = b["branch"]
    for arc in graph["arcs"]:
        consumer: Node = (arc["to"], arc["branch"])
        A = [[int(x) for x in row] for row in arc["map"]["A"]]
        b = [int(x) for x in arc["map"]["b"]]
        if params and arc["map"]["bParameters"]:
            b = [bi + _dot(row, params) for bi, row in zip(b, arc["map"]["bParameters"])]
        # A = I: at given parameter values the read is a translation.
        uniform = arc["kind"] == "uniform"
        owners = inst.owner.get(arc["from"], {})
        for p in inst.points.get(consumer, []):
            q = tuple(_dot(row, p) + bi for row, bi in zip(A, b))
            if q not in owners:
                continue  # read from outside every definition: an input
            producer: Node = (arc["from"], owners[q])
            theta = tuple(x - y for x, y in zip(p, q)) if uniform else None
            inst.reads.setdefault((producer, consumer, theta), []).append((p, q))
    return inst


def free_schedule(inst: Instance) -> int | None:
    """Length of the free schedule, or None when a value depends on itself."""
    deps: dict[tuple[Node, tuple[int, ...]], list[tuple[Node, tuple[int, ...]]]] = {}
    for (producer, consumer, _), pairs in inst.reads.items():
        for p, q in pairs:
            deps.setdefault((consumer, p), []).append((producer, q))
    time: dict[tuple[Node, tuple[int, ...]], int] = {}
    on_stack: set[tuple[Node, tuple[int, ...]]] = set()
    for node, pts in inst.points.items():
        for p in pts:
            start = (node, p)
            if start in time:
                continue
            stack = [(start, iter(deps.get(start, [])))]
            on_stack.add(start)
            while stack:
                current, children = stack[-1]
                child = next(children, None)
                if child is None:
                    stack.pop()
                    on_stack.discard(current)
                    time[current] = 1 + max((time[d] for d in deps.get(current, [])), default=0)
                elif child in on_stack:
                    return None
                elif child not in time:
                    on_stack.add(child)
                    stack.append((child, iter(deps.get(child, []))))
    return max(time.values(), default=0)


def _sccs(nodes: list[Node], edges: list[tuple[Node, Node, tuple[int, ...]]]) -> list[list[Node]]:
    """Strongly connected components (Tarjan, iterative)."""
    succ: dict[Node, list[Node]] = {n: [] for n in nodes}
    for u, w, _ in edges:
        succ[u].append(w)
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    stack: list[Node] = []
    on: set[Node] = set()
    out: list[list[Node]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                out.append(comp)
    return out


def _zero_weight_edges(nodes: list[Node], edges: list[tuple[Node, Node, tuple[int, ...]]],
                       rank: int) -> list[int]:
    """Indices of the edges on some multi-cycle of zero total weight (one LP)."""
    from scipy.optimize import linprog

    m = len(edges)
    pos = {n: i for i, n in enumerate(nodes)}
    # Variables: flows q (m), indicators y (m). Maximize sum(y), y <= q, y <= 1.
    A_eq = np.zeros((len(nodes) + rank, 2 * m))
    for e, (u, w, theta) in enumerate(edges):
        A_eq[pos[u], e] -= 1
        A_eq[pos[w], e] += 1
        A_eq[len(nodes):, e] = theta
    A_ub = np.hstack([-np.eye(m), np.eye(m)])
    res = linprog(c=np.concatenate([np.zeros(m), -np.ones(m)]), A_ub=A_ub, b_ub=np.zeros(m),
                  A_eq=A_eq, b_eq=np.zeros(len(nodes) + rank),
                  bounds=[(0, None)] * m + [(0, 1)] * m, method="highs")
    if res.status != 0:
        raise AnalysisError(f"KMW linear program failed: {res.message}")
    return [e for e in range(m) if res.x[m + e] > 1e-7]


def _kmw(nodes: list[Node], edges: list[tuple[Node, Node, tuple[int, ...]]], rank: int) -> int | None:
    """Depth of a strongly connected graph, or None if it is not computable."""
    if not edges:
        return 0
    zero = [edges[i] for i in _zero_weight_edges(nodes, edges, rank)]
    if not zero:
        return 1
    depth = 0
    for comp in _sccs(nodes, zero):
        members = set(comp)
        sub = [e for e in zero if e[0] in members and e[1] in members]
        if not sub:
            continue
        if len(sub) == len(edges):
            return None  # every edge lies on a zero-weight multi-cycle
        d = _kmw(comp, sub, rank)
        if d is None:
            return None
        depth = max(depth, d)
    return depth + 1


def kmw(inst: Instance) -> tuple[bool, int] | None:
    """(computable, depth) of a uniform system's per-branch graph; None if
    some arc is affine (KMW does not apply)."""
    if any(theta is None for (_, _, theta) in inst.reads):
        return None
    nodes = list(inst.points)
    edges = [(u, w, theta) for (u, w, theta) in inst.reads]
    depth = 0
    for comp in _sccs(nodes, edges):
        members = set(comp)
        sub = [e for e in edges if e[0] in members and e[1] in members]
        d = _kmw(comp, sub, inst.rank)
        if d is None:
            return False, 0
        depth = max(depth, d)
    return True, depth


def linear_schedule(inst: Instance, uniform_only: bool = False) -> dict[str, Any] | None:
    """Minimal-L1 `tau` (and node offsets) with tau.(p-q) + c_v - c_s >= 1 on
    every read, or None when no such linear schedule exists."""
    from scipy.optimize import linprog

    nodes = list(inst.points)
    pos = {n: i for i, n in enumerate(nodes)}
    rank, n = inst.rank, len(nodes)
    rows: set[tuple] = set()
    for (producer, consumer, theta), pairs in inst.reads.items():
        if uniform_only and theta is None:
            continue
        for p, q in pairs:
            rows.add((tuple(a - b for a, b in zip(p, q)), producer, consumer))
    if not rows:
        return {"tau": [0] * rank, "offsets": {}}
    # Variables: tau+ (rank), tau- (rank), c+ (n), c- (n).
    A_ub = np.zeros((len(rows), 2 * rank + 2 * n))
    for r, (d, producer, consumer) in enumerate(sorted(rows)):
        A_ub[r, :rank] = -np.array(d)
        A_ub[r, rank:2 * rank] = np.array(d)
        for node, sign in ((consumer, -1), (producer, 1)):
            A_ub[r, 2 * rank + pos[node]] += sign
            A_ub[r, 2 * rank + n + pos[node]] -= sign
    cost = np.concatenate([np.ones(2 * rank), 1e-3 * np.ones(2 * n)])
    res = linprog(cost, A_ub=A_ub, b_ub=-np.ones(len(rows)), bounds=[(0, None)] * (2 * rank + 2 * n),
                  method="highs")
    if res.status == 2:
        return None
    if res.status != 0:
        raise AnalysisError(f"schedule linear program failed: {res.message}")
    tau = res.x[:rank] - res.x[rank:2 * rank]
    c = res.x[2 * rank:2 * rank + n] - res.x[2 * rank + n:]
    clean = lambda x: float(round(x, 6)) + 0.0  # noqa: E731
    return {"tau": [clean(t) for t in tau],
            "offsets": {f"{v}[{b}]": clean(c[pos[(v, b)]]) for v, b in nodes}}


def analyze(graph: dict[str, Any], max_points: int = DEFAULT_MAX_POINTS) -> dict[str, Any]:
    """All verdicts for an extended-form RDG, checked against the free schedule."""
    inst = instantiate(graph, max_points)
    free = free_schedule(inst)
    k = kmw(inst)
    schedule = linear_schedule(inst)
    result = {
        "kind": graph["kind"],
        "points": sum(len(p) for p in inst.points.values()),
        "computable": free is not None,
        "free_schedule_length": free,
        "kmw": None if k is None else {"computable": k[0], "depth": k[1]},
        "linear_schedule": schedule,
        "uniform_linear_schedule": linear_schedule(inst, uniform_only=True),
    }
    # The oracle decides: a linear schedule or a KMW "computable" must agree.
    if schedule is not None and free is None:
        raise AnalysisError("internal inconsistency: a linear schedule exists for a cyclic system")
    if k is not None and k[0] != (free is not None):
        result["kmw_disagrees_with_free_schedule"] = True
    return result
