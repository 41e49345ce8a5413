#!/usr/bin/env python3
"""Benchmark: importing SmolLM2 into nn, and raptor-opt round trips.

Prints a table of wall times (medians) and the machine-independent ratios:
  * nn import / torch.export: what Raptor's import adds to the export;
  * raptor-opt / mlir-opt round trip of the same graph, where mlir-opt
    parses and prints the generic form with the nn dialect unregistered:
    the cost of Raptor's verifiers and shape inference over bare parsing.

    python bench/import_roundtrip.py [--model smollm2] [--repeat 5] [--json out.json] [--doc docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import raptor
from raptor import zoo
from raptor.frontend.torch import ImportOptions, import_program

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def table(r: dict) -> str:
    """One run's results (its JSON): the steps' median times and ratios."""
    return "\n".join([
        f"| step ({r['model']}, {r['nn_ops']} nn ops) | time | ratio |",
        "|---|---:|---|",
        f"| torch.export + decompositions | {r['torch_export_s']:.3f} s | baseline |",
        f"| nn import (FX rewrites + emission + verify) | {r['nn_import_s']:.3f} s | "
        f"{r['import_over_export']:.3f} x export |",
        f"| print nn IR | {r['print_s']:.3f} s | |",
        f"| `raptor-opt` round trip (parse, verify, infer, print) | {r['raptor_opt_roundtrip_s']:.3f} s | "
        f"{r['raptor_opt_over_mlir_opt']:.2f} x mlir-opt |",
        f"| `mlir-opt` generic-form round trip, nn unregistered | {r['mlir_opt_generic_roundtrip_s']:.3f} s | "
        "baseline |",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", choices=zoo.NAMES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the results as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's import-roundtrip markers")
    args = parser.parse_args()

    mlir_opt = Path(importlib.util.find_spec("mlir").submodule_search_locations[0]) / "bin" / "mlir-opt"
    raptor_opt = Path(sys.executable).parent / "raptor-opt"

    print(f"[1/3] torch.export of {args.model} ...", file=sys.stderr)
    eps = []
    export_s = _median_time(lambda: eps.append(zoo.export(args.model)), max(1, args.repeat // 2))
    ep = eps[-1]
    print("[2/3] nn import ...", file=sys.stderr)
    options = ImportOptions(**zoo.import_options(args.model))
    modules = []
    import_s = _median_time(lambda: modules.append(import_program(ep, options)[0]), args.repeat)
    module = modules[-1]
    print_s = _median_time(lambda: str(module), args.repeat)
    num_ops = raptor.graph_summary(module)["functions"][0]["num_ops"]

    print("[3/3] raptor-opt and mlir-opt round trips ...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        custom = Path(tmp) / "custom.mlir"
        generic = Path(tmp) / "generic.mlir"
        custom.write_text(str(module))
        subprocess.run([raptor_opt, custom, "--mlir-print-op-generic", "-o", generic], check=True)
        raptor_s = _median_time(lambda: subprocess.run(
            [raptor_opt, custom, "-o", "/dev/null"], check=True), args.repeat)
        mlir_s = _median_time(lambda: subprocess.run(
            [mlir_opt, "--allow-unregistered-dialect", generic, "-o", "/dev/null"], check=True),
            args.repeat)

    results = {
        "model": args.model, "nn_ops": num_ops, "repeat": args.repeat,
        "torch_export_s": export_s, "nn_import_s": import_s, "print_s": print_s,
        "raptor_opt_roundtrip_s": raptor_s, "mlir_opt_generic_roundtrip_s": mlir_s,
        "import_over_export": import_s / export_s,
        "raptor_opt_over_mlir_opt": raptor_s / mlir_s,
        "nn_import_us_per_op": 1e6 * import_s / num_ops,
    }
    print(f"{args.model}: medians of {args.repeat} runs")
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "import-roundtrip", table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
