#!/usr/bin/env python3
"""Benchmark: integer-only int8 programs (pimsim-nn's instruction set)
against the float-scale int8 programs (f32 between the codecs, extension
instructions) on torchvision CNNs.

Each model (seeded random weights, batch-norm statistics estimated on
random inputs as the zoo does, 96 x 96 inputs, exported with
torch.export) is compiled with ``--precision int8`` twice, with
``--arithmetic integer`` and ``--arithmetic float``, calibrated on the
same 4 seeded inputs. Reported: whether the integer program uses only
pimsim-nn's instructions, whether its simulation equals the integer
reference bit for bit (from the compact form and from pimsim-nn's own
files), the cosine between the two programs' outputs and of each against
float32 torch on 8 held-out seeded inputs, the cosine between the
float-scale program's outputs on those inputs and on the inputs moved by
1e-5 of themselves (how much the network amplifies any change of
rounding: the floor below which no other int8 realization can agree with
it), and both programs' latency in the timing simulator (the ratio is the
machine-independent figure).

    python bench/integer_programs.py [--models resnet18,squeezenet1_1] [--json docs/integer-evaluation.json]
        [--doc docs/quantization.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from mlir import ir

import raptor
from raptor import pim, quant, sources, weights
from raptor._io import UserError

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402

MODELS = ("resnet18", "squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "efficientnet_b0")
SIZE = 96
HELD_OUT = 8
#: The relative perturbation of the inputs that measures how much a network
#: amplifies a change of its int8 program's rounding (about a thousandth
#: of a code step of the input's encoding).
NUDGE = 1e-5


def _export(name: str, work: Path) -> tuple[Path, torch.nn.Module]:
    import torchvision

    from raptor.zoo._models import estimate_batch_norms

    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    estimate_batch_norms(model, (1, 3, SIZE, SIZE))
    model.eval()
    path = work / f"{name}.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, SIZE, SIZE),)), path)
    return path, model


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def run_model(name: str, work: Path) -> dict:
    path, model = _export(name, work)
    row: dict = {"model": name, "input": [1, 3, SIZE, SIZE]}
    outputs: dict[str, list[np.ndarray]] = {}
    for arithmetic in ("integer", "float"):
        loaded = sources.load(str(path))
        try:
            out = work / f"{name}-{arithmetic}"
            try:
                result = pim.compile(loaded.module, out, weights=loaded.weights, precision="int8",
                                     arithmetic=arithmetic, source=str(path))
            except UserError as e:
                row[arithmetic] = {"error": str(e).splitlines()[0]}
                continue
            program = pim.Program.load(out)
            shape = program.inputs[0][1]
            rng = np.random.default_rng(1)
            xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(HELD_OUT)]
            outputs[arithmetic] = [program.simulate({"x": x}).outputs["out0"] for x in xs]
            timing = program.time()
            manifest = result.manifest
            entry = {"arithmetic": manifest["program"]["arithmetic"],
                     "extensions": manifest["program"]["extensions"],
                     "pimsim_compatible": manifest["program"]["pimsim_compatible"],
                     "instructions": manifest["program"]["instructions"],
                     "latency_ms": timing.latency_ns / 1e6}
            saved = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(),
                                           context=raptor.Context())
            tensors = weights.load(loaded.weights)
            (want,) = quant.reference(saved, {"x": xs[0]}, tensors)
            entry["bit_exact"] = bool(np.array_equal(outputs[arithmetic][0], want))
            if manifest["program"]["pimsim_files"] != "none":
                pimsim = pim.Program.load(out, "pimsim").simulate({"x": xs[0]}).outputs["out0"]
                entry["bit_exact_pimsim_files"] = bool(np.array_equal(pimsim, want))
            if arithmetic == "float":  # the network's own sensitivity: the same program, inputs moved by 1e-5
                nudged = [program.simulate({"x": (x * (1 + NUDGE * rng.standard_normal(x.shape))).astype(np.float32)})
                          .outputs["out0"] for x in xs]
                cos = [_cosine(a, b) for a, b in zip(outputs[arithmetic], nudged)]
                row["cosine_float_vs_nudged_input"] = {"min": min(cos), "mean": float(np.mean(cos))}
            with torch.no_grad():
                exact = [model(torch.from_numpy(x)).numpy() for x in xs]
            cos = [_cosine(y, e) for y, e in zip(outputs[arithmetic], exact)]
            entry["cosine_vs_fp32"] = {"min": min(cos), "mean": float(np.mean(cos))}
            row[arithmetic] = entry
        finally:
            loaded.cleanup()
    if len(outputs) == 2:
        between = [_cosine(a, b) for a, b in zip(outputs["integer"], outputs["float"])]
        row["cosine_integer_vs_float"] = {"min": min(between), "mean": float(np.mean(between))}
        row["latency_ratio"] = row["integer"]["latency_ms"] / row["float"]["latency_ms"]
    return row


def table(rows: list[dict]) -> str:
    lines = ["| model | pimsim-only | bit-exact (compact / pimsim files) | cosine integer vs float-scale (min / mean) "
             "| float-scale vs itself, inputs moved by 1e-5 (min / mean) "
             "| cosine vs fp32: integer / float-scale (mean) | latency integer / float-scale (ms) | ratio |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        i, f = r.get("integer", {}), r.get("float", {})
        if "error" in i:
            lines.append(f"| {r['model']} | refused: {i['error']} | | | | | | |")
            continue
        lines.append(
            f"| {r['model']} | {'yes' if i['pimsim_compatible'] and not i['extensions'] else 'no'} "
            f"| {'yes' if i['bit_exact'] else 'NO'} / {'yes' if i.get('bit_exact_pimsim_files') else 'NO'} "
            f"| {r['cosine_integer_vs_float']['min']:.5f} / {r['cosine_integer_vs_float']['mean']:.5f} "
            f"| {r['cosine_float_vs_nudged_input']['min']:.5f} / {r['cosine_float_vs_nudged_input']['mean']:.5f} "
            f"| {i['cosine_vs_fp32']['mean']:.5f} / {f['cosine_vs_fp32']['mean']:.5f} "
            f"| {i['latency_ms']:.2f} / {f['latency_ms']:.2f} | {r['latency_ratio']:.2f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated torchvision names")
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--doc", help="replace the table between this document's integer-evaluation markers")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="raptor-integer-") as tmp:
        for name in [n for n in args.models.split(",") if n]:
            print(f"[{name}] ...", flush=True)
            rows.append(run_model(name, Path(tmp)))
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "integer-evaluation", table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
