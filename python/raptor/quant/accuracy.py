"""How far int8 programs are from the float32 model, and whether they
compute exactly what the integer reference computes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["compare", "format_report", "metrics", "program_report", "traffic", "worst_metrics"]


def metrics(quantized: np.ndarray, exact: np.ndarray) -> dict[str, float]:
    """Max and mean relative error (against the largest / mean magnitude of
    ``exact``), cosine similarity and, for (1, K) outputs, top-1 agreement."""
    q = np.asarray(quantized, dtype=np.float64).ravel()
    f = np.asarray(exact, dtype=np.float64).ravel()
    diff = np.abs(q - f)
    peak, mean = float(np.abs(f).max(initial=0.0)) or 1.0, float(np.abs(f).mean()) if f.size else 1.0
    norm = float(np.linalg.norm(q) * np.linalg.norm(f))
    out = {"max_relative_error": float(diff.max(initial=0.0)) / peak,
           "mean_relative_error": float(diff.mean()) / (mean or 1.0) if f.size else 0.0,
           "cosine": float(q @ f) / norm if norm else float(np.array_equal(q, f))}
    if np.asarray(exact).ndim == 2 and np.asarray(exact).shape[0] == 1:
        out["top1_agrees"] = bool(np.argmax(q) == np.argmax(f))
    return out


Outputs = np.ndarray | Sequence[np.ndarray]


def worst_metrics(quantized: Outputs, exact: Outputs) -> dict[str, float]:
    """:func:`metrics` of every output of a model (one array, or a
    sequence in the model's order), the worst of them: the largest errors,
    the lowest cosine, top-1 agreement of every (1, K) output (as
    ``raptor simulate --check`` reports the worst output)."""
    def listed(x: Outputs) -> list[np.ndarray]:
        return [x] if isinstance(x, np.ndarray) else list(x)

    each = [metrics(q, f) for q, f in zip(listed(quantized), listed(exact), strict=True)]
    out = {"max_relative_error": max(m["max_relative_error"] for m in each),
           "mean_relative_error": max(m["mean_relative_error"] for m in each),
           "cosine": min(m["cosine"] for m in each)}
    if tops := [m["top1_agrees"] for m in each if "top1_agrees" in m]:
        out["top1_agrees"] = all(tops)
    return out


def compare(samples: Sequence[Mapping[str, np.ndarray]], fp32: Callable[[Mapping[str, np.ndarray]], Outputs],
            int8: Callable[[Mapping[str, np.ndarray]], Outputs]) -> dict[str, Any]:
    """Metrics of ``int8`` against ``fp32`` per sample (the worst output's,
    :func:`worst_metrics`), and their summary (worst max error, mean of the
    means, lowest cosine, top-1 rate)."""
    rows = [worst_metrics(int8(s), fp32(s)) for s in samples]
    summary: dict[str, Any] = {"samples": len(rows)}
    if rows:
        summary["max_relative_error"] = max(r["max_relative_error"] for r in rows)
        summary["mean_relative_error"] = float(np.mean([r["mean_relative_error"] for r in rows]))
        summary["min_cosine"] = min(r["cosine"] for r in rows)
        summary["mean_cosine"] = float(np.mean([r["cosine"] for r in rows]))
        if "top1_agrees" in rows[0]:
            summary["top1_agreement"] = float(np.mean([r["top1_agrees"] for r in rows]))
    return {"summary": summary, "per_sample": rows}


def format_report(report: Mapping[str, Any]) -> str:
    """A table of a quantization report (reports/quantization.json)."""
    lines = [f"int8 (policy {report['policy']}, {report['placement']}) against float32 "
             f"({report['fp32_oracle']}):",
             f"  {'inputs':<26} {'n':>3} {'max rel':>9} {'mean rel':>9} {'min cos':>8} {'top-1':>6}"]
    for key in ("calibration", "held_out"):
        s = report[key]["summary"]
        top1 = f"{s['top1_agreement']:.2f}" if "top1_agreement" in s else "-"
        lines.append(f"  {key.replace('_', '-'):<26} {s['samples']:>3} {s['max_relative_error']:>9.4f} "
                     f"{s['mean_relative_error']:>9.4f} {s['min_cosine']:>8.5f} {top1:>6}")
    sim = report.get("simulation")
    if sim:
        lines.append(f"  simulated program vs integer reference: "
                     f"{'bit-exact' if sim['bit_exact'] else 'max difference %.3g' % sim['max_difference']}")
    return "\n".join(lines)


def traffic(stats: Mapping[str, Any]) -> dict[str, int]:
    """Bytes the program's instructions read, from a simulation's counters:
    local memory (vector and matrix operands, copies), global memory and
    transfers received; split into the materialized codecs' instructions
    and the operators' (by the task each instruction belongs to)."""
    def reads(c: Mapping[str, int]) -> int:
        return int(c["local_read_bytes"] + c["global_read_bytes"] + c["received_bytes"])

    total = stats["total"]
    codec = sum(reads(c) for name, c in stats["operators"].items() if name.startswith("codec."))
    attributed = sum(reads(c) for c in stats["operators"].values())
    return {"local_read_bytes": int(total["local_read_bytes"]), "global_read_bytes": int(total["global_read_bytes"]),
            "received_bytes": int(total["received_bytes"]), "read_bytes": reads(total),
            "codec_read_bytes": codec, "operator_read_bytes": attributed - codec,
            "unattributed_read_bytes": reads(total) - attributed}


def program_report(directory: str, weights: Mapping[str, np.ndarray],
                   torch_reference: Callable[..., list[np.ndarray]] | None = None,
                   calibration: Sequence[Mapping[str, np.ndarray]] | None = None, held_out: int = 8,
                   simulate: bool = True, reference_name: str = "torch") -> dict[str, Any]:
    """The quantization report of an int8 program directory: accuracy of
    the integer reference against float32 (``torch_reference``, given every
    input in the model's order, else the float32 interpreter), the worst
    output's, on the calibration inputs and on ``held_out`` seeded inputs
    (seed 1), and whether the simulated program equals the integer
    reference bit for bit, at every output, on the first of them.
    ``reference_name`` names what ``torch_reference`` runs (onnxruntime for
    an ONNX model) in the report's ``fp32_oracle``."""
    import json
    from pathlib import Path

    import raptor
    from mlir import ir

    from .. import pim
    from ..pim.check import integer_agreement
    from .._io import UserError
    from . import random_inputs
    from .interpreter import evaluate

    root = Path(directory)
    manifest = json.loads((root / "manifest.json").read_text())
    q = manifest.get("quantization")
    ir_path = root / "reports" / "quantized_model.mlir"
    if not q or not ir_path.is_file():
        raise UserError(f"'{directory}' is not an int8 program (no quantization in its manifest)")
    module = ir.Module.parse(ir_path.read_text(), context=raptor.Context())
    if calibration is None:
        count = int(q["calibration"]["samples"])
        calibration = random_inputs(module, count)
    tests = random_inputs(module, held_out, seed=1)

    def exact(sample: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        if torch_reference is not None:
            return torch_reference(*sample.values())
        return evaluate(module, sample, weights, mode="fp32")

    def integer(sample: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        return evaluate(module, sample, weights, mode="int8")

    report: dict[str, Any] = {"policy": q["policy"], "placement": q["placement"],
                              "fp32_oracle": reference_name if torch_reference is not None else "fp32 interpreter",
                              "calibration": compare(calibration, exact, integer),
                              "held_out": compare(tests, exact, integer)}
    if simulate and tests:
        run = pim.Program.load(root).simulate(dict(tests[0]))
        agreement = integer_agreement(list(run.outputs.values()), integer(tests[0]))
        report["simulation"] = {"bit_exact": agreement["bit_exact"], "max_difference": agreement["max_difference"],
                                "instructions": int(run.stats["total"]["instructions"]),
                                "traffic": traffic(run.stats)}
    return report
