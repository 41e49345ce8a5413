"""Periodic timing analysis: the exact maximum cycle ratio of an event graph.

An edge ``(u, v, w, d)`` says ``t(v, k) >= t(u, k - d) + w``: event ``v`` of
iteration ``k`` happens at least ``w`` ns after event ``u`` of iteration
``k - d``. The steady-state initiation interval is the maximum over cycles of
(total weight) / (total distance); a cycle of distance-0 edges is a deadlock.
The solver is C++ (``passes/spatial/CycleRatio``, see
docs/periodic-analysis.md):

    from raptor.spatial import cycle_ratio
    r = cycle_ratio.max_cycle_ratio(2, [(0, 1, 3, 0), (1, 0, 4, 1)])
    r.ratio, r.cycle                       # Fraction(7, 1), [0, 1]
    graph = cycle_ratio.load_graph("graph.json")   # {"nodes": N, "edges": [[u, v, w, d], ...]}
    graph.max_cycle_ratio().to_json()
    graph.bisect()                          # the 1 ns bracket of the seed's bisection
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .. import _raptor
from .._io import UserError, read_text

__all__ = ["CycleRatio", "EventGraph", "RatioBracket", "Status", "bisect_cycle_ratio",
           "load_graph", "max_cycle_ratio"]

Status = Literal["ok", "deadlock", "acyclic"]

#: Howard's defaults (CycleRatioOptions in CycleRatio.h).
DEFAULT_TOLERANCE = 1e-9
DEFAULT_MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class CycleRatio:
    """The maximum cycle ratio (``ratio``, exact; None unless status is "ok")
    and its witness: ``cycle`` lists edge indices in cycle order, a critical
    cycle for "ok", a cycle of distance-0 edges for "deadlock"; ``weight`` and
    ``distance`` are the witness's totals; ``howard_iterations`` and
    ``certification_checks`` what the solver did to find and certify it."""

    status: Status
    ratio: Fraction | None
    cycle: list[int]
    weight: int
    distance: int
    howard_iterations: int
    certification_checks: int

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``raptor cycle-ratio --json``: ratio_num and
        ratio_den are null unless status is "ok"."""
        return {
            "status": self.status,
            "ratio_num": self.ratio.numerator if self.ratio is not None else None,
            "ratio_den": self.ratio.denominator if self.ratio is not None else None,
            "cycle": list(self.cycle),
            "weight": self.weight,
            "distance": self.distance,
            "howard_iterations": self.howard_iterations,
            "certification_checks": self.certification_checks,
        }


@dataclass(frozen=True)
class RatioBracket:
    """The bisection's bracket ``lo < ratio <= hi`` (``hi == lo + 1``; both
    None unless status is "ok") and the number of probes (at most 64)."""

    status: Status
    lo: int | None
    hi: int | None
    probes: int

    def __contains__(self, ratio: Fraction) -> bool:
        return self.lo is not None and self.hi is not None and self.lo < ratio <= self.hi

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "lo": self.lo, "hi": self.hi, "probes": self.probes}


def _edge_array(edges: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """Edges as a C-contiguous int64 array of shape (E, 4); ValueError with a
    one-line reason when an edge is not four integers."""
    if isinstance(edges, np.ndarray):
        if edges.size and (edges.ndim != 2 or edges.shape[1] != 4):
            raise ValueError(f"edges must have shape (E, 4), got {edges.shape}")
        if edges.size and edges.dtype.kind not in "iu":
            raise ValueError(f"edges must be integers, got {edges.dtype}")
        if edges.dtype.kind == "u" and edges.size and int(edges.max()) >= 2**63:
            raise ValueError("edge values must fit in 64 bits")
        return np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 4)
    rows = list(edges)
    for i, edge in enumerate(rows):
        if (not isinstance(edge, (list, tuple)) or len(edge) != 4
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in edge)):
            raise ValueError(f"edge {i} must be [from, to, weight, distance] (four integers), "
                             f"got {edge!r}")
        if not all(-2**63 <= x < 2**63 for x in edge):
            raise ValueError(f"edge {i}: {list(edge)} has a value outside 64 bits")
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


class EventGraph:
    """An event graph validated once and held in C++. ``nodes`` events,
    ``edges[i] = (from, to, weight, distance)``; raises ValueError with a
    one-line reason (bad node index, negative distance, values outside the
    supported range |weight| < 2^40, 0 <= distance < 2^20, at most 2^20
    nodes)."""

    def __init__(self, nodes: int, edges: Sequence[Sequence[int]] | np.ndarray) -> None:
        if not isinstance(nodes, int) or isinstance(nodes, bool):
            raise ValueError(f"the node count must be an integer, got {nodes!r}")
        if not -2**63 <= nodes < 2**63:
            raise ValueError(f"the node count must be between 0 and 2^20 = 1048576 (got {nodes})")
        self.edges = _edge_array(edges)
        self._graph = _raptor.EventGraph(nodes, self.edges)

    @property
    def nodes(self) -> int:
        return self._graph.nodes

    @property
    def num_edges(self) -> int:
        return self._graph.num_edges

    def max_cycle_ratio(self, *, tolerance: float = DEFAULT_TOLERANCE,
                        max_iterations: int = DEFAULT_MAX_ITERATIONS) -> CycleRatio:
        """The exact maximum cycle ratio: Howard's policy iteration (values
        compared with ``tolerance``, at most ``max_iterations`` improvements)
        certified by positive-cycle checks in integers, so exact for any
        tolerance."""
        r = self._graph.max_cycle_ratio(tolerance, max_iterations)
        ratio = Fraction(r.num, r.den) if r.status == "ok" else None
        return CycleRatio(r.status, ratio, list(r.cycle), r.weight, r.distance,
                          r.howard_iterations, r.certification_checks)

    def bisect(self) -> RatioBracket:
        """The seed's bounded bisection: lo < ratio <= hi = lo + 1 from at
        most 64 positive-cycle probes on the weights w - II * d."""
        b = self._graph.bisect()
        ok = b.status == "ok"
        return RatioBracket(b.status, b.lo if ok else None, b.hi if ok else None, b.probes)


def max_cycle_ratio(nodes: int, edges: Sequence[Sequence[int]] | np.ndarray, *,
                    tolerance: float = DEFAULT_TOLERANCE,
                    max_iterations: int = DEFAULT_MAX_ITERATIONS) -> CycleRatio:
    """The exact maximum cycle ratio of ``nodes`` events and ``edges``
    ``(from, to, weight, distance)``; see :class:`EventGraph`."""
    return EventGraph(nodes, edges).max_cycle_ratio(tolerance=tolerance,
                                                    max_iterations=max_iterations)


def bisect_cycle_ratio(nodes: int, edges: Sequence[Sequence[int]] | np.ndarray) -> RatioBracket:
    """The seed's bisection bracket of the maximum cycle ratio."""
    return EventGraph(nodes, edges).bisect()


_FORMAT = '{"nodes": N, "edges": [[from, to, weight, distance], ...]}'


def load_graph(path: str | Path) -> EventGraph:
    """Reads ``{"nodes": N, "edges": [[u, v, w, d], ...]}`` (``-``: stdin).
    Raises UserError with a one-line reason naming the file."""
    text = read_text(str(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"'{path}' is not JSON: {e}") from None
    if not isinstance(data, dict) or "nodes" not in data or "edges" not in data:
        raise UserError(f"'{path}': expected {_FORMAT}")
    nodes, edges = data["nodes"], data["edges"]
    if not isinstance(nodes, int) or isinstance(nodes, bool):
        raise UserError(f"'{path}': \"nodes\" must be an integer, got {nodes!r}")
    if not isinstance(edges, list):
        raise UserError(f"'{path}': \"edges\" must be a list of [from, to, weight, distance]")
    try:
        return EventGraph(nodes, edges)
    except ValueError as e:
        raise UserError(f"'{path}': {e}") from None
