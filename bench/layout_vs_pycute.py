#!/usr/bin/env python3
"""Throughput of raptor.layout against pycute on the same random inputs.

Composition, complement and logical divide on --count random layouts (or
pairs) that both accept, measured three ways in one run:

  python  raptor.layout's object API called from a Python loop (C++ Layout
          objects in, C++ Layout objects out: no tuple conversion);
  core    the same operations on the same inputs in a C++ loop
          (raptor._raptor.layout.core_seconds_per_operation), no Python;
  pycute  pycute's functions called from the same Python loop.

Each figure is the best of --rounds interleaved rounds; the ratios (ours /
pycute) come from the same run, so they do not depend on the machine as
much as the operation rates do.

    python bench/layout_vs_pycute.py [--count 5000] [--rounds 5] [--json docs/layout-vs-pycute.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import pycute

from raptor import layout as rl
from raptor._raptor import layout as core

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
    """Seconds per call of fn over args from a plain Python loop."""
    start = time.perf_counter()
    for x, y in args:
        fn(x, y)
    return (time.perf_counter() - start) / len(args)


def check_agreement(cases: dict[str, list[tuple]]) -> None:
    """The timed calls compute the same layout functions (a sample)."""
    for name, calls in cases.items():
        for ours, theirs in calls[:: max(1, len(calls) // 200)]:
            r, p = getattr(rl, name)(*ours), getattr(pycute, name)(*theirs)
            assert r.size() == pycute.size(p) and all(r(i) == p(i) for i in range(r.size())), (name, ours)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", default="docs/layout-vs-pycute.json")
    args = parser.parse_args()
    cases = make_cases(args.count)
    check_agreement(cases)
    best: dict[str, dict[str, float]] = {name: {"python": float("inf"), "core": float("inf"),
                                                "pycute": float("inf")} for name in OPERATIONS}
    for _ in range(args.rounds):
        for name, calls in cases.items():
            ours = [c[0] for c in calls]
            theirs = [c[1] for c in calls]
            t = best[name]
            t["python"] = min(t["python"], python_seconds(getattr(rl, name), ours))
            t["pycute"] = min(t["pycute"], python_seconds(getattr(pycute, name), theirs))
            t["core"] = min(t["core"], core.core_seconds_per_operation(name, ours, 20))
    results: dict[str, object] = {
        "inputs_per_operation": args.count, "rounds": args.rounds,
        "python": platform.python_version(), "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%d"), "operations": {}}
    print(f"{'operation':<16}{'raptor python':>15}{'raptor core':>14}{'pycute':>12}"
          f"{'python/pycute':>15}{'core/pycute':>13}")
    for name in OPERATIONS:
        t = best[name]
        row = {"raptor_python_ops_per_s": 1 / t["python"], "raptor_core_ops_per_s": 1 / t["core"],
               "pycute_ops_per_s": 1 / t["pycute"], "python_ratio": t["pycute"] / t["python"],
               "core_ratio": t["pycute"] / t["core"]}
        results["operations"][name] = row
        print(f"{name:<16}{row['raptor_python_ops_per_s']:>15,.0f}{row['raptor_core_ops_per_s']:>14,.0f}"
              f"{row['pycute_ops_per_s']:>12,.0f}{row['python_ratio']:>15.1f}{row['core_ratio']:>13.1f}")
    Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
