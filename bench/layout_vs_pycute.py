#!/usr/bin/env python3
"""Throughput of raptor.layout against pycute on the same random inputs.

Composition, complement and logical divide on --count random layouts (or
pairs) that both accept, measured three ways in one run:

  python  raptor.layout's object API called from a Python loop (C++ Layout
          objects in, C++ Layout objects out: no tuple conversion);
  core    the same operations on the same inputs in a C++ loop
          (raptor._raptor.layout.core_seconds_per_operation), no Python;
  pycute  pycute's functions called from the same Python loop.

The inputs are timed in chunks of --chunk, every chunk twice in a row on
each side: the first run finds its inputs out of cache (the other sides ran
in between: "cold"), the second in cache ("warm", the steady state of a
chain of operations on live objects, and the headline figure). Each run's
time is the best of --rounds interleaved rounds (so that a chunk the
scheduler interrupted does not count, on any side), and a rate is inputs /
the sum of the chunks' times. The ratios (ours / pycute, warm against warm
and cold against cold) come from the same run, so they depend less on the
machine than the rates do.

    python bench/layout_vs_pycute.py [--count 5000] [--rounds 5] [--json docs/layout-vs-pycute.json]
        [--doc docs/layout.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

import pycute

from raptor import layout as rl
from raptor._io import write_atomically
from raptor._raptor import layout as core

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402

OPERATIONS = ("composition", "complement", "logical_divide")


def random_layout(rng: random.Random) -> tuple:
    n = rng.randint(1, 4)
    shape = tuple(rng.choice([2, 3, 4, 8]) for _ in range(n))
    stride, running = [], 1
    for s in shape:
        stride.append(running)
        running *= s * rng.choice([1, 1, 2])
    order = list(range(n))
    rng.shuffle(order)
    return tuple(shape[i] for i in order), tuple(stride[i] for i in order)


def make_cases(count: int, seed: int = 4) -> dict[str, list[tuple]]:
    """Per operation: (raptor arguments, pycute arguments) both accept."""
    rng = random.Random(seed)
    cases: dict[str, list[tuple]] = {name: [] for name in OPERATIONS}
    while min(len(v) for v in cases.values()) < count:
        a, b = random_layout(rng), random_layout(rng)
        ra, rb = rl.Layout(*a), rl.Layout(*b)
        pa, pb = pycute.Layout(*a), pycute.Layout(*b)
        size = ra.cosize() * 2
        for name, ours, theirs in (("composition", (ra, rb), (pa, pb)),
                                   ("complement", (ra, size), (pa, size)),
                                   ("logical_divide", (ra, rb), (pa, pb))):
            if len(cases[name]) >= count:
                continue
            try:
                getattr(rl, name)(*ours)
                getattr(pycute, name)(*theirs)
            except (ValueError, AssertionError):
                continue
            cases[name].append((ours, theirs))
    return cases


def python_seconds(fn, args: list[tuple]) -> float:
    """Seconds for calls of fn over args from a plain Python loop."""
    start = time.perf_counter()
    for x, y in args:
        fn(x, y)
    return time.perf_counter() - start


def core_seconds(name: str, args: list[tuple]) -> float:
    """Seconds for the same operations in a C++ loop (no Python between them)."""
    return core.core_seconds_per_operation(name, args, 1) * len(args)


def check_agreement(cases: dict[str, list[tuple]]) -> None:
    """The timed calls compute the same layout functions (a sample)."""
    for name, calls in cases.items():
        for ours, theirs in calls[:: max(1, len(calls) // 200)]:
            r, p = getattr(rl, name)(*ours), getattr(pycute, name)(*theirs)
            assert r.size() == pycute.size(p) and all(r(i) == p(i) for i in range(r.size())), (name, ours)


def table(operations: dict[str, dict]) -> str:
    """Warm rates of each side and the ratios, one row per operation."""
    lines = ["| operation | raptor via Python ops/s | raptor C++ core ops/s | pycute ops/s "
             "| Python / pycute | (cold) | core / pycute |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, row in operations.items():
        lines.append(f"| {name.replace('_', ' ')} | {row['raptor_python_ops_per_s']:,.0f} "
                     f"| {row['raptor_core_ops_per_s']:,.0f} | {row['pycute_ops_per_s']:,.0f} "
                     f"| {row['python_ratio']:.1f} | {row['python_ratio_cold']:.1f} | {row['core_ratio']:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--chunk", type=int, default=250)
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/layout-vs-pycute.json)")
    parser.add_argument("--doc", metavar="FILE",
                        help="replace the table between this document's layout-vs-pycute markers")
    args = parser.parse_args()
    cases = make_cases(args.count)
    check_agreement(cases)
    # best[name][side][warmth][chunk]: the chunk's best time over the rounds.
    chunks = {name: [calls[i:i + args.chunk] for i in range(0, len(calls), args.chunk)]
              for name, calls in cases.items()}
    best = {name: {side: {w: [float("inf")] * len(chunks[name]) for w in ("cold", "warm")}
                   for side in ("python", "core", "pycute")}
            for name in OPERATIONS}
    timers = {"python": lambda name, chunk: python_seconds(getattr(rl, name), [c[0] for c in chunk]),
              "core": lambda name, chunk: core_seconds(name, [c[0] for c in chunk]),
              "pycute": lambda name, chunk: python_seconds(getattr(pycute, name), [c[1] for c in chunk])}
    for _ in range(args.rounds):
        for name in OPERATIONS:
            for side, timer in timers.items():  # one side's chunks back to back
                t = best[name][side]
                for k, chunk in enumerate(chunks[name]):
                    for warmth in ("cold", "warm"):
                        t[warmth][k] = min(t[warmth][k], timer(name, chunk))
    results: dict[str, object] = {
        "inputs_per_operation": args.count, "rounds": args.rounds, "chunk": args.chunk,
        "python": platform.python_version(), "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%d"), "operations": {}}
    print(f"{'operation':<16}{'raptor python':>15}{'raptor core':>14}{'pycute':>12}"
          f"{'python/pycute':>15}{'(cold)':>8}{'core/pycute':>13}")
    for name in OPERATIONS:
        t = {side: {w: sum(times) / len(cases[name]) for w, times in by_warmth.items()}
             for side, by_warmth in best[name].items()}
        row = {"raptor_python_ops_per_s": 1 / t["python"]["warm"],
               "raptor_core_ops_per_s": 1 / t["core"]["warm"],
               "pycute_ops_per_s": 1 / t["pycute"]["warm"],
               "python_ratio": t["pycute"]["warm"] / t["python"]["warm"],
               "python_ratio_cold": t["pycute"]["cold"] / t["python"]["cold"],
               "core_ratio": t["pycute"]["warm"] / t["core"]["warm"]}
        results["operations"][name] = row
        print(f"{name:<16}{row['raptor_python_ops_per_s']:>15,.0f}{row['raptor_core_ops_per_s']:>14,.0f}"
              f"{row['pycute_ops_per_s']:>12,.0f}{row['python_ratio']:>15.1f}"
              f"{row['python_ratio_cold']:>8.1f}{row['core_ratio']:>13.1f}")
    if args.json:
        write_atomically(args.json, json.dumps(results, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "layout-vs-pycute", table(results["operations"]))
    print("\n" + table(results["operations"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
