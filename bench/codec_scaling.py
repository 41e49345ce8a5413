#!/usr/bin/env python3
"""Scaling of codec placement: time per edge on synthetic DAGs of 10^3-10^6 edges.

Runs raptor-place-codecs (markers, semantics, subgraphs with dominators,
coalescing; no materialization) on reshape chains, concatenate trees,
residual ladders and random DAGs of growing size, and on the zoo models.
Prints time per edge and the log-log slope of time against edges (1.0 is
linear), and writes the results as JSON.

    python bench/codec_scaling.py [--max-edges 1000000] [--json docs/codec-scaling.json] [--doc docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from mlir import ir, passmanager

import raptor
from raptor import zoo
from raptor._io import write_atomically
from raptor.codec.synthetic import GENERATORS

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402

PIPELINE = "builtin.module(raptor-place-codecs{policy=W materialize=false})"
#: The generators' names in the table.
TITLES = {"reshape_chain": "reshape chain", "concat_tree": "concatenate tree", "residual_ladder": "residual ladder",
          "random_dag": "random DAG"}


def count_edges(module: ir.Module) -> int:
    block = module.body.operations[0].regions[0].blocks[0]
    return sum(len(op.operands) for op in block.operations)


def place_time(module: ir.Module, repeat: int) -> float:
    """Best of `repeat` runs, each on a fresh copy of the module."""
    best = math.inf
    text = str(module)
    for _ in range(repeat):
        copy = ir.Module.parse(text, module.context)
        pm = passmanager.PassManager.parse(PIPELINE, module.context)
        start = time.perf_counter()
        pm.run(copy.operation)
        best = min(best, time.perf_counter() - start)
    return best


def slope(points: list[tuple[int, float]]) -> float:
    xs = [math.log(e) for e, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def table(synthetic: dict[str, dict]) -> str:
    """Time per edge at each size (10^3 edges up, a decade a column) and the
    log-log slope of each synthetic graph."""
    columns = len(next(iter(synthetic.values()))["points"])
    lines = ["| graph | 10^3 edges | " + " | ".join(f"10^{3 + k}" for k in range(1, columns)) + " | log-log slope |",
             "|---|" + "---:|" * (columns + 1)]
    for i, (name, r) in enumerate(synthetic.items()):
        cells = [f"{1e6 * t / edges:.1f}" for edges, t in r["points"]]
        if i == 0:
            cells[0] += " µs/edge"
        lines.append(f"| {TITLES[name]} | " + " | ".join(cells) + f" | {r['slope']:.3f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-edges", type=int, default=1_000_000)
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/codec-scaling.json)")
    parser.add_argument("--doc", metavar="FILE",
                        help="replace the table between this document's codec-scaling markers")
    args = parser.parse_args()
    context = raptor.Context()
    context.enable_multithreading(False)
    sizes = [s for s in (1_000, 10_000, 100_000, 1_000_000) if s <= args.max_edges]
    results: dict = {"synthetic": {}, "models": {}}
    print(f"{'graph':<16}{'edges':>10}{'time (ms)':>12}{'ns/edge':>10}")
    for name, generate in GENERATORS.items():
        points = []
        # Calibrate the generator's edges per step, then size each graph.
        with context:
            per_step = count_edges(ir.Module.parse(generate(1000))) / 1000
        for target in sizes:
            size = max(1, round(target / per_step))
            print(f"  generating {name} with ~{target} edges ...", file=sys.stderr)
            with context:
                module = ir.Module.parse(generate(size))
            edges = count_edges(module)
            t = place_time(module, repeat=3 if edges < 200_000 else 1)
            points.append((edges, t))
            print(f"{name:<16}{edges:>10}{1e3 * t:>12.2f}{1e9 * t / edges:>10.0f}")
        results["synthetic"][name] = {"points": points, "slope": slope(points)}
    for name in zoo.NAMES:
        module = zoo.load_graph(name, context)
        edges = count_edges(module)
        t = place_time(module, repeat=5)
        results["models"][name] = {"edges": edges, "seconds": t}
        print(f"{name:<16}{edges:>10}{1e3 * t:>12.2f}{1e9 * t / edges:>10.0f}")
    print("\nlog-log slope of time vs edges (1.0 = linear):")
    for name, r in results["synthetic"].items():
        print(f"  {name:<16}{r['slope']:.3f}")
    if args.json:
        write_atomically(args.json, json.dumps(results, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "codec-scaling", table(results["synthetic"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
