#!/usr/bin/env python3
"""Benchmark: the PIM back end on the zoo and on torchvision classifiers.

For each model: compile time (raptor compile's stages), program size
(instructions in Raptor's compact form and unrolled for pimsim-nn, bytes of
the binary pimsim-nn files or what they would be), functional simulation
time and instructions per second, and the error against eager torch on the
same input. The machine-independent figures are the ratios against torch
in the same run: compile time over torch.export time, simulation time over
torch's eager inference time.

    python bench/pim_models.py [--models resnet18,shufflenet_v2] [--json docs/pim-benchmarks.json]
        [--doc docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torchvision

import raptor
from raptor import pim, sources, weights, zoo
from raptor.frontend.torch import import_program

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402

TORCHVISION = ("resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
               "squeezenet1_0", "googlenet", "regnet_y_400mf", "densenet121")
DEFAULT = ("shufflenet_v2", "unet", "siglip", "smollm2") + TORCHVISION


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _torchvision(name: str, work: Path):
    """Exports `name` (seeded random weights, BN statistics randomized so
    that activations keep their scale) and returns the model pieces."""
    torch.manual_seed(0)
    kw = {"weights": None}
    if name == "googlenet":
        kw.update(aux_logits=False, init_weights=False)
    model = getattr(torchvision.models, name)(**kw).eval()
    g = torch.Generator().manual_seed(0)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(0.1 * torch.randn(m.num_features, generator=g))
            m.running_var.copy_(0.5 + torch.rand(m.num_features, generator=g))
    x = torch.randn(1, 3, 224, 224, generator=g)
    with torch.no_grad():
        ep, export_s = _timed(lambda: torch.export.export(model, (x,)).run_decompositions(zoo.decomposition_table()))
        reference, eager_s = _timed(lambda: model(x))
    module, _ = import_program(ep)
    w = work / f"{name}.safetensors"
    weights.save(w, weights.from_exported_program(ep, module))
    return module, w, x.numpy(), reference.numpy(), export_s, eager_s


def _zoo(name: str):
    model = sources.load(name)
    x = zoo.example_input(name)
    with torch.no_grad():
        _, export_s = _timed(lambda: zoo.export(name))
        built = zoo.MODELS[name].build()
        reference, eager_s = _timed(lambda: built(x))
    return model.module, model.weights, x.numpy(), reference.numpy(), export_s, eager_s


def measure(name: str, work: Path) -> dict:
    print(f"[{name}] preparing ...", file=sys.stderr)
    module, w, x, reference, export_s, eager_s = (_zoo(name) if name in zoo.NAMES else _torchvision(name, work))
    out = work / name
    result, compile_s = _timed(lambda: pim.compile(module, out, weights=w, source=name, pimsim="binary"))
    s = pim.summary(result.manifest)
    print(f"[{name}] compiled in {compile_s:.2f} s, simulating ...", file=sys.stderr)
    program = pim.Program.load(out)
    run = program.simulate(x)
    output = next(iter(run.outputs.values()))
    error = float(np.abs(output - reference).max() / np.abs(reference).max())
    stats = run.stats
    row = {
        "model": name,
        "cores": s["cores_used"],
        "crossbars": s["crossbars"],
        "compile_s": round(compile_s, 3),
        "compile_over_export": round(compile_s / export_s, 3),
        "instructions": s["instructions"],
        "unrolled_instructions": s["unrolled_instructions"],
        "pimsim_binary_bytes": 12 * s["cores_used"] + 20 * s["unrolled_instructions"],
        "pimsim_files": s["pimsim_files"],
        "pimsim_compatible": s["pimsim_compatible"],
        "weights_bytes": s["weights_bytes"],
        "local_bytes_peak": s["local_bytes_peak"],
        "simulate_s": round(stats["seconds"], 3),
        "simulate_over_eager": round(stats["seconds"] / eager_s, 2),
        "executed_instructions": stats["total"]["instructions"],
        "instructions_per_s": int(stats["total"]["instructions"] / max(stats["seconds"], 1e-9)),
        "macs": stats["total"]["macs"],
        "max_error_relative": error,
        "schedule_makespan_ms": s["schedule_makespan_ns"] / 1e6,
    }
    print(json.dumps(row), file=sys.stderr)
    return row


def table(rows: list[dict]) -> str:
    lines = ["| model | cores | compile | compile / export | instructions (compact) | unrolled | pimsim binary | "
             "simulate | simulate / eager | instructions/s | max error (rel.) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        size = f"{r['pimsim_binary_bytes'] / 1e6:.1f} MB" + ("" if r["pimsim_files"] != "none" else " (not written)")
        lines.append(f"| {r['model']} | {r['cores']} | {r['compile_s']:.2f} s | {r['compile_over_export']:.2f} | "
                     f"{r['instructions']:,} | {r['unrolled_instructions']:,} | {size} | {r['simulate_s']:.2f} s | "
                     f"{r['simulate_over_eager']:.1f} | {r['instructions_per_s'] / 1e6:.1f} M | "
                     f"{r['max_error_relative']:.1e} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT), help="comma-separated zoo or torchvision names")
    parser.add_argument("--json", help="also write the rows as JSON here")
    parser.add_argument("--doc", help="replace the table between this document's pim-benchmarks markers")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            rows.append(measure(name, Path(tmp)))
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "pim-benchmarks", table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
