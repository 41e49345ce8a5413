#!/usr/bin/env python3
"""Benchmark: int8 programs driven by codec placement, on the zoo and a
torchvision CNN.

For each model, policy and placement: compile with ``--precision int8``,
measure accuracy of the integer reference against float32 torch on the
calibration inputs and 8 held-out seeded inputs (max / mean relative
error, cosine, top-1 agreement for classifiers), check the simulated
program against the integer reference bit for bit on one held-out input,
and count the bytes the program's instructions read (local memory, global
memory, transfers received; codecs apart) beside the codec cost model's
predicted traffic for the same placement. The float32 program is the
baseline of the traffic columns (the machine-independent figure: traffic
over the float32 program's, measured and predicted).

    python bench/quant_models.py [--models shufflenet_v2,resnet18] [--json docs/quant-evaluation.json]
        [--doc docs/quantization.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

import raptor
from raptor import codec, pim, quant, sources, weights, zoo
from raptor._io import UserError
from raptor.frontend.torch import import_program
from raptor.quant.accuracy import program_report, traffic

sys.path.insert(0, str(Path(__file__).parent))
from doc_tables import replace_block  # noqa: E402

CNN_CONFIGS = (("Y", "local"), ("Y", "nonlocal"), ("W", "local"), ("W", "nonlocal"), ("W", "nonlocal-coalesced"))
TRANSFORMER_CONFIGS = (("Y", "nonlocal-coalesced"),)
MODELS = {"shufflenet_v2": CNN_CONFIGS, "resnet18": CNN_CONFIGS, "unet": CNN_CONFIGS,
          "siglip": TRANSFORMER_CONFIGS, "smollm2": TRANSFORMER_CONFIGS}
MIB = 1024 * 1024


def _resnet18(work: Path) -> sources.Model:
    """torchvision ResNet-18, seeded random weights, batch-norm statistics
    estimated on random inputs (zoo recipe), exported through torch.export."""
    import torchvision

    from raptor.zoo._models import estimate_batch_norms

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    estimate_batch_norms(model, (1, 3, 224, 224))
    model.eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        ep = torch.export.export(model, (x,)).run_decompositions(zoo.decomposition_table())
    module, _ = import_program(ep)
    path = work / "resnet18.safetensors"
    weights.save(path, weights.from_exported_program(ep, module))

    def reference(array: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model(torch.from_numpy(array)).numpy()

    return sources.Model(module, path, "torchvision resnet18", reference)


def _load(name: str, work: Path) -> sources.Model:
    return _resnet18(work) if name == "resnet18" else sources.load(name)


def _predicted(name: str, work: Path, policy: str, placement: str) -> dict:
    """The codec cost model's traffic for the placement (batch norms folded
    first, as the compiler does)."""
    model = _load(name, work)
    with model.module.context:
        raptor._raptor.fold_batch_norm(model.module)
    if policy == "Z":
        codec.place(model.module, "Z", "local")
    else:
        codec.place(model.module, policy, placement)
    (c,) = codec.costs(model.module)
    return {"traffic_bytes": c.traffic_bytes, "operator_traffic_bytes": c.operator_traffic_bytes,
            "codec_traffic_bytes": c.codec_traffic_bytes, "codec_items": c.codec_items}


def _roomier_target(work: Path) -> Path:
    """The default chip with 4x the local memory per core (256 MiB)."""
    from raptor import spatial

    spec = json.loads(Path(spatial.default_target()).read_text())
    spec.setdefault("memory", {})["local_bytes"] = 4 * spec.get("memory", {}).get("local_bytes", 64 * MIB)
    spec["name"] += ", 256 MiB of local memory per core"
    path = work / "roomy.json"
    path.write_text(json.dumps(spec))
    return path


def run_model(name: str, configs, work: Path, save: Callable[[dict], None], baseline: bool = True) -> list[dict]:
    """The rows of one model: the float32 program (traffic baseline, unless
    `baseline` is false) and each int8 (policy, placement)."""
    rows = []
    if baseline:
        rows.append(_fp32_row(name, work))
        save(rows[-1])
    for policy, placement in configs:
        rows.append(_int8_row(name, policy, placement, work))
        save(rows[-1])
    return rows


def _fp32_row(name: str, work: Path) -> dict:
    model = _load(name, work)
    start = time.perf_counter()
    out = work / f"{name}-fp32"
    pim.compile(model.module, out, weights=model.weights, pimsim="none", source=name)
    x = quant.random_inputs(model.module, 1, seed=1)[0]
    run = pim.Program.load(out).simulate(dict(x))
    row = {"model": name, "precision": "fp32", "policy": "Z", "placement": "-",
           "traffic": traffic(run.stats), "predicted": _predicted(name, work, "Z", "local"),
           "seconds": round(time.perf_counter() - start, 1)}
    print(f"  {name} fp32: {row['seconds']} s", file=sys.stderr)
    return row


def _int8_row(name: str, policy: str, placement: str, work: Path) -> dict:
    model = _load(name, work)
    start = time.perf_counter()
    out = work / f"{name}-{policy}-{placement}"
    target = None
    try:
        result = pim.compile(model.module, out, weights=model.weights, precision="int8", policy=policy,
                             placement=placement, pimsim="none", source=name)
    except UserError as e:
        # Whole-value tasks: a placement with many codecs can need more
        # local memory on a busy core than the default chip has.
        if "local memory" not in str(e):
            raise
        print(f"  {name} {policy} {placement}: {e}; again with 256 MiB per core", file=sys.stderr)
        target = _roomier_target(work)
        model = _load(name, work)
        result = pim.compile(model.module, out, weights=model.weights, precision="int8", policy=policy,
                             placement=placement, pimsim="none", source=name, target=target)
    tensors = weights.load(model.weights)
    report = program_report(str(out), tensors, model.reference)
    q = result.manifest["quantization"]
    row = {"model": name, "precision": "int8", "policy": policy, "placement": placement,
                 "encoded_subgraphs": q["encoded_subgraphs"],
                 "offset_subgraphs": q["calibration"]["offset_subgraphs"],
                 "calibration": report["calibration"]["summary"], "held_out": report["held_out"]["summary"],
                 "bit_exact": report["simulation"]["bit_exact"],
                 "max_difference": report["simulation"]["max_difference"],
                 "traffic": report["simulation"]["traffic"],
                 "predicted": _predicted(name, work, policy, placement),
                 "local_memory_bytes": result.manifest["chip"]["local_memory_bytes"],
                 "seconds": round(time.perf_counter() - start, 1)}
    print(f"  {name} {policy} {placement}: cosine {row['held_out']['min_cosine']:.4f}, "
          f"bit-exact {row['bit_exact']}, {row['seconds']} s", file=sys.stderr)
    return row


def accuracy_table(rows: list[dict]) -> str:
    """The int8 rows' accuracy against float32 torch on the held-out inputs."""
    lines = ["| model | policy | placement | offset or affine / subgraphs | max rel | mean rel | min cosine | top-1 | "
             "bit-exact |", "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["precision"] != "int8":
            continue
        h = r["held_out"]
        top1 = f"{h['top1_agreement']:.2f}" if "top1_agreement" in h else "-"
        exact = "yes" if r["bit_exact"] else f"no ({r['max_difference']:.2g})"
        lines.append(f"| {r['model']} | {r['policy']} | {r['placement']} | {r['offset_subgraphs']} / "
                     f"{r['encoded_subgraphs']} | {h['max_relative_error']:.4f} | {h['mean_relative_error']:.4f} | "
                     f"{h['min_cosine']:.5f} | {top1} | {exact} |")
    return "\n".join(lines)


def traffic_table(rows: list[dict]) -> str:
    """Every row's traffic, predicted and measured, beside its model's float32 row."""
    lines = ["| model | policy | placement | predicted MiB | measured MiB | measured codec MiB | "
             "predicted / fp32 | measured / fp32 |", "|---|---|---|---:|---:|---:|---:|---:|"]
    base = {r["model"]: r for r in rows if r["precision"] == "fp32"}
    for r in rows:
        b = base[r["model"]]
        p, m = r["predicted"]["traffic_bytes"], r["traffic"]["read_bytes"]
        lines.append(f"| {r['model']} | {r['policy']} | {r['placement']} | {p / MIB:.1f} | {m / MIB:.1f} | "
                     f"{r['traffic']['codec_read_bytes'] / MIB:.1f} | "
                     f"{p / b['predicted']['traffic_bytes']:.3f} | {m / b['traffic']['read_bytes']:.3f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated (default: all)")
    ap.add_argument("--json", help="write the rows as JSON (as they complete)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the JSON file's other rows (other models, or other configurations with --configs)")
    ap.add_argument("--doc", help="replace the tables between this document's quant-accuracy and "
                                  "quant-traffic markers")
    ap.add_argument("--configs", help="only these POLICY:PLACEMENT pairs, e.g. W:local (the float32 row is "
                                      "kept from the JSON file with --merge)")
    args = ap.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)} (choose from {', '.join(MODELS)})")
    # Rows are saved as they complete; with --merge, rows of other models
    # already in the JSON file are kept.
    chosen = None
    if args.configs:
        chosen = [tuple(c.split(":", 1)) for c in args.configs.split(",")]
        if any(len(c) != 2 for c in chosen):
            ap.error("--configs takes POLICY:PLACEMENT pairs")
    rows: list[dict] = []
    if args.json and args.merge and Path(args.json).is_file():
        def replaced(r: dict) -> bool:
            if r["model"] not in names:
                return False
            return chosen is None or (r["policy"], r["placement"]) in chosen
        rows = [r for r in json.loads(Path(args.json).read_text()) if not replaced(r)]

    def save(row: dict) -> None:
        rows.append(row)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")

    with tempfile.TemporaryDirectory(prefix="raptor-quant-") as tmp:
        for name in names:
            configs = MODELS[name] if chosen is None else [c for c in chosen]
            has_baseline = any(r["model"] == name and r["precision"] == "fp32" for r in rows)
            run_model(name, configs, Path(tmp), save, baseline=chosen is None or not has_baseline)
    order = {n: i for i, n in enumerate(MODELS)}
    configs = {c: i for i, c in enumerate((("Z", "-"),) + CNN_CONFIGS)}
    rows.sort(key=lambda r: (order.get(r["model"], len(order)), configs.get((r["policy"], r["placement"]), 99)))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    if args.doc:
        replace_block(Path(args.doc), "quant-accuracy", accuracy_table(rows))
        replace_block(Path(args.doc), "quant-traffic", traffic_table(rows))
    print(accuracy_table(rows) + "\n\n" + traffic_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
