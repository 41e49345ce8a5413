#!/usr/bin/env python3
"""RDG extraction and analysis time for systems of growing size.

Synthetic SUREs with V variables on a 2-d domain (N x N): each variable
reads itself one step back along j and its two predecessors, so arcs grow
as 3V. Prints parse (Python), extraction (C++ pass via the binding) and
analysis times (free schedule, KMW, linear schedule; they enumerate the
N x N x V points) per arc, and the log-log slope against arcs.

    python bench/rdg_scaling.py [--n 6] [--json docs/rdg-scaling.json] [--doc docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from raptor import rdg
from raptor._io import write_atomically
from raptor.rdg.analysis import analyze

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402


def system(variables: int, n: int) -> str:
    lines = []
    for v in range(variables):
        taps = [f"v{v}(i,j-1)"] + [f"v{u}(i-1,j)" for u in (v - 1, v - 2) if u >= 0]
        lines.append(f"  v{v}(i,j) = {' + '.join(taps)};")
    return f"N = {n};\nsystem ((i,j) | 0 <= i < N, 0 <= j < N) {{\n" + "\n".join(lines) + "\n}\n"


def timed(fn, repeat: int = 3):
    best, value = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def slope(points: list[tuple[int, float]]) -> float:
    xs, ys = [math.log(a) for a, _ in points], [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def table(rows: list[dict]) -> str:
    """Each size's best times: parse, extraction, analyses."""
    lines = ["| variables | arcs | parse (Python) | extraction (C++) | analyses |", "|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['variables']} | {r['arcs']} | {1e3 * r['parse_s']:.1f} ms | "
                     f"{1e3 * r['extract_s']:.2f} ms | {1e3 * r['analyze_s']:.1f} ms |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=6, help="domain extent (N x N)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/rdg-scaling.json)")
    parser.add_argument("--doc", metavar="FILE",
                        help="replace the table between this document's rdg-scaling markers")
    args = parser.parse_args()
    rows, series = [], {"parse": [], "extract": [], "analyze": []}
    # Warm up (imports, the first context) outside the measurements.
    analyze(rdg.extract(rdg.parse_sure(system(2, 3), "warmup.sure"), "extended"))
    print(f"{'variables':>10}{'arcs':>8}{'parse ms':>10}{'extract ms':>12}{'analyze ms':>12}")
    for variables in (4, 16, 64, 256):
        print(f"  V = {variables} ...", file=sys.stderr)
        text = system(variables, args.n)
        t_parse, module = timed(lambda: rdg.parse_sure(text, "synthetic.sure", "synthetic"))
        t_extract, doc = timed(lambda: rdg.to_json(module, "extended"))
        graph = json.loads(doc)
        t_analyze, verdicts = timed(lambda: analyze(graph), repeat=1)
        assert verdicts["computable"] and verdicts["kmw"]["computable"]
        arcs = len(graph["arcs"])
        for key, t in (("parse", t_parse), ("extract", t_extract), ("analyze", t_analyze)):
            series[key].append((arcs, t))
        rows.append({"variables": variables, "arcs": arcs, "parse_s": t_parse,
                     "extract_s": t_extract, "analyze_s": t_analyze})
        print(f"{variables:>10}{arcs:>8}{1e3 * t_parse:>10.1f}{1e3 * t_extract:>12.2f}"
              f"{1e3 * t_analyze:>12.1f}")
    slopes = {k: slope(v) for k, v in series.items()}
    print("log-log slope against arcs: " + ", ".join(f"{k} {s:.2f}" for k, s in slopes.items()))
    if args.json:
        write_atomically(args.json, json.dumps({"n": args.n, "rows": rows, "slopes": slopes}, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "rdg-scaling", table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
