#!/usr/bin/env python3
"""PEFT vs HEFT on random task graphs, and scheduler runtime as tasks grow.

Random DAGs in the style of Topcuoglu et al. (n tasks in layers, out-degree
around 2, heterogeneity beta, communication-to-computation ratio CCR) are
scheduled by both algorithms in one process. Prints the mean schedule-length
ratio (SLR = makespan / the critical path at cheapest costs) and win/tie/loss
counts per CCR, then the runtime for 10^2..10^4 tasks on 168 processors
with the log-log scaling exponent.

    python bench/schedule_peft_vs_heft.py [--graphs 300] [--max-tasks 10000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

from raptor import spatial
from raptor._io import write_atomically


def random_graph(rng: random.Random, n: int, p: int, ccr: float, beta: float = 1.0) -> spatial.TaskGraph:
    mean_cost = 20.0
    width = max(1, int(math.sqrt(n)))
    layers, t = [], 0
    while t < n:
        size = min(n - t, rng.randint(1, 2 * width))
        layers.append(list(range(t, t + size)))
        t += size
    cost = []
    for _ in range(n):
        w = rng.uniform(1, 2 * mean_cost)
        cost.append([rng.uniform(w * (1 - beta / 2), w * (1 + beta / 2)) for _ in range(p)])
    edges = []
    for i, layer in enumerate(layers[:-1]):
        later = [x for layer2 in layers[i + 1:i + 3] for x in layer2]
        for a in layer:
            for b in rng.sample(later, k=min(len(later), rng.randint(1, 3))):
                edges.append((a, b, rng.uniform(0, 2 * mean_cost * ccr)))
    return spatial.TaskGraph(cost, edges)


def critical_path_min(graph: spatial.TaskGraph) -> float:
    longest = [min(row) for row in graph.cost]
    for a, b, _ in sorted(graph.edges, key=lambda e: e[0]):
        longest[b] = max(longest[b], longest[a] + min(graph.cost[b]))
    return max(longest)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=300)
    parser.add_argument("--max-tasks", type=int, default=10_000)
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/schedule-peft-vs-heft.json)")
    args = parser.parse_args()
    rng = random.Random(2014)
    results: dict = {"quality": {}, "runtime": []}
    print(f"{'CCR':>6}{'graphs':>8}{'SLR PEFT':>10}{'SLR HEFT':>10}{'PEFT wins':>11}{'ties':>6}{'HEFT wins':>11}")
    for ccr in (0.1, 1.0, 5.0):
        slr = {"peft": 0.0, "heft": 0.0}
        wins = {"peft": 0, "tie": 0, "heft": 0}
        count = args.graphs // 3
        for i in range(count):
            graph = random_graph(rng, rng.randint(20, 100), rng.choice([2, 4, 8]), ccr)
            base = critical_path_min(graph)
            spans = {a: spatial.schedule(graph, a).makespan for a in ("peft", "heft")}
            for a in spans:
                slr[a] += spans[a] / base / count
            key = "tie" if abs(spans["peft"] - spans["heft"]) < 1e-9 else min(spans, key=spans.get)
            wins[key] += 1
        results["quality"][str(ccr)] = {"graphs": count, "slr": slr, "wins": wins}
        print(f"{ccr:>6}{count:>8}{slr['peft']:>10.3f}{slr['heft']:>10.3f}{wins['peft']:>11}"
              f"{wins['tie']:>6}{wins['heft']:>11}")
    print(f"\n{'tasks':>8}{'edges':>9}{'PEFT s':>10}{'HEFT s':>10}   (168 processors)")
    sizes = [n for n in (100, 1000, 10_000, 100_000) if n <= args.max_tasks]
    for n in sizes:
        print(f"  scheduling {n} tasks ...", file=sys.stderr)
        graph = random_graph(random.Random(n), n, 168, 1.0)
        row = {"tasks": n, "edges": len(graph.edges)}
        for a in ("peft", "heft"):
            start = time.perf_counter()
            spatial.schedule(graph, a)
            row[a] = time.perf_counter() - start
        results["runtime"].append(row)
        print(f"{n:>8}{row['edges']:>9}{row['peft']:>10.3f}{row['heft']:>10.3f}")
    if len(results["runtime"]) > 1:
        first, last = results["runtime"][0], results["runtime"][-1]
        for a in ("peft", "heft"):
            exponent = math.log(last[a] / first[a]) / math.log(last["tasks"] / first["tasks"])
            results[f"{a}_exponent"] = exponent
        print(f"scaling exponent (time ~ tasks^k): PEFT {results['peft_exponent']:.2f}, "
              f"HEFT {results['heft_exponent']:.2f}")
    if args.json:
        write_atomically(args.json, json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
