#!/usr/bin/env python3
"""Maximum-cycle-ratio solver time on random event graphs of growing size.

Event graphs like a pipelined schedule's: V events, E = 4V edges; distance-0
edges follow a random order of the events (no deadlock), the others have
distance 1..3, weights -50..1000 ns. For each size: the exact solver (Howard
plus certification, C++ through the binding, the graph built once), its
Howard iterations and certification checks, and the seed's bisection (at the
smaller sizes). The machine-independent figures: Howard's iterations and the
log-log slope of time against V + E (1 = linear).

    python bench/cycle_ratio.py [--max-nodes 100000] [--json docs/cycle-ratio-scaling.json]
        [--doc docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from raptor._io import write_atomically
from raptor.spatial import cycle_ratio

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402


def event_graph(nodes: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rank = rng.permutation(nodes)
    m = 4 * nodes
    u, v = rng.integers(0, nodes, m), rng.integers(0, nodes, m)
    backward = rank[u] >= rank[v]
    d = np.where(backward, rng.integers(1, 4, m), rng.choice([0, 0, 1, 2], m))
    return np.stack([u, v, rng.integers(-50, 1001, m), d], axis=1).astype(np.int64)


def best_of(repeat: int, fn):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def _ms(seconds: float) -> str:
    """To 0.1 ms below 100 ms, whole above: 87.7 ms, 444 ms."""
    return f"{1e3 * seconds:.1f} ms" if seconds < 0.1 else f"{1e3 * seconds:.0f} ms"


def table(rows: list[dict]) -> str:
    """Each size's solve time, Howard iterations and checks, and the bisection where it ran."""
    lines = ["| V | V + E | solve | per (V + E) | Howard iterations | certification checks | bisection | probes |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        size = r["nodes"] + r["edges"]
        bisect = f" {_ms(r['bisect_s'])} | {r['probes']} |" if "bisect_s" in r else " | |"
        lines.append(f"| {r['nodes']:,} | {size:,} | {_ms(r['solve_s'])} | {1e9 * r['solve_s'] / size:.0f} ns | "
                     f"{r['howard_iterations']} | {r['certification_checks']} |" + bisect)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=100_000)
    parser.add_argument("--bisect-max-nodes", type=int, default=30_000,
                        help="run the bisection up to this size (it is the slower cross-check)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/cycle-ratio-scaling.json)")
    parser.add_argument("--doc", metavar="FILE",
                        help="replace the table between this document's cycle-ratio-scaling markers")
    args = parser.parse_args()
    sizes = [n for n in (1_000, 3_000, 10_000, 30_000, 100_000, 300_000) if n <= args.max_nodes]
    rows = []
    print(f"{'V':>8}{'V+E':>9}{'solve ms':>10}{'ns/(V+E)':>10}{'Howard it':>10}{'checks':>7}"
          f"{'bisect ms':>10}{'probes':>7}")
    for nodes in sizes:
        graph = cycle_ratio.EventGraph(nodes, event_graph(nodes, seed=nodes))
        seconds, result = best_of(3 if nodes <= 100_000 else 1, graph.max_cycle_ratio)
        assert result.status == "ok"
        row = {"nodes": nodes, "edges": graph.num_edges, "solve_s": seconds,
               "howard_iterations": result.howard_iterations,
               "certification_checks": result.certification_checks,
               "ratio": [result.ratio.numerator, result.ratio.denominator]}
        bisect = "-", "-"
        if nodes <= args.bisect_max_nodes:
            row["bisect_s"], bracket = best_of(1, graph.bisect)
            assert result.ratio in bracket
            row["probes"] = bracket.probes
            bisect = f"{1e3 * row['bisect_s']:.1f}", bracket.probes
        rows.append(row)
        size = nodes + graph.num_edges
        print(f"{nodes:>8}{size:>9}{1e3 * seconds:>10.1f}{1e9 * seconds / size:>10.0f}"
              f"{result.howard_iterations:>10}{result.certification_checks:>7}"
              f"{bisect[0]:>10}{bisect[1]:>7}")
    sizes_ve = np.log([r["nodes"] + r["edges"] for r in rows])
    slope = float(np.polyfit(sizes_ve, np.log([r["solve_s"] for r in rows]), 1)[0])
    iterations = float(np.polyfit(sizes_ve, np.log([r["howard_iterations"] for r in rows]), 1)[0])
    print(f"log-log slope against V + E: time {slope:.2f}, Howard iterations {iterations:.2f}")
    if args.json:
        write_atomically(args.json, json.dumps(
            {"rows": rows, "time_slope": slope, "iterations_slope": iterations}, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "cycle-ratio-scaling", table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
