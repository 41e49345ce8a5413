#!/usr/bin/env python3
"""Throughput of raptor.layout against pycute on the same random inputs.

Composition, complement and logical divide on 5,000 random layouts that
both accept; prints operations per second and the ratio (ours / pycute).
Both are called from Python, so the ratio includes the binding's cost.

    python bench/layout_vs_pycute.py [--count 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import pycute

from raptor import layout as rl


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--json", default="docs/layout-vs-pycute.json")
    args = parser.parse_args()
    rng = random.Random(4)
    cases = {"composition": [], "complement": [], "logical_divide": []}
    while min(len(v) for v in cases.values()) < args.count:
        a, b = random_layout(rng), random_layout(rng)
        ra, rb = rl.Layout(*a), rl.Layout(*b)
        pa, pb = pycute.Layout(*a), pycute.Layout(*b)
        size = ra.cosize() * 2
        # Default arguments bind this iteration's layouts into the closures.
        for name, ours, theirs in (
                ("composition", lambda ra=ra, rb=rb: rl.composition(ra, rb),
                 lambda pa=pa, pb=pb: pycute.composition(pa, pb)),
                ("complement", lambda ra=ra, n=size: rl.complement(ra, n),
                 lambda pa=pa, n=size: pycute.complement(pa, n)),
                ("logical_divide", lambda ra=ra, rb=rb: rl.logical_divide(ra, rb),
                 lambda pa=pa, pb=pb: pycute.logical_divide(pa, pb))):
            if len(cases[name]) >= args.count:
                continue
            try:
                ours()
                theirs()
            except (ValueError, AssertionError):
                continue
            cases[name].append((ours, theirs))
    results = {}
    print(f"{'operation':<16}{'raptor ops/s':>14}{'pycute ops/s':>14}{'ratio':>8}")
    for name, calls in cases.items():
        timings = []
        for side in (0, 1):
            start = time.perf_counter()
            for pair in calls:
                pair[side]()
            timings.append(len(calls) / (time.perf_counter() - start))
        results[name] = {"raptor_ops_per_s": timings[0], "pycute_ops_per_s": timings[1],
                         "ratio": timings[0] / timings[1]}
        print(f"{name:<16}{timings[0]:>14.0f}{timings[1]:>14.0f}{timings[0] / timings[1]:>8.2f}")
    Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
