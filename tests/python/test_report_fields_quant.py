"""The quantization report's fields (raptor compile --precision int8
--report: reports/quantization.json) against independent computations: the
summaries are the extremes and means of the per-sample rows, each row's
metrics are recomputed by hand from the two outputs, the simulation's
instruction count is the timing simulator's, and the traffic's parts sum to
its whole, which is the simulator's counters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir

import raptor
from raptor import cli, pim, quant
from raptor.quant import accuracy

from pim_helpers import randomize
from test_quant import SmallCnn


@pytest.fixture(scope="module")
def int8_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quant-report")
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 8, 8),)), root / "m.pt2")
    np.save(root / "cal.npy", np.random.default_rng(0).standard_normal((3, 1, 3, 8, 8)).astype(np.float32))
    assert cli.main(["compile", str(root / "m.pt2"), "-o", str(root / "out"), "--precision", "int8",
                     "--policy", "W", "--placement", "local", "--calibrate", str(root / "cal.npy"),
                     "--report", "--format", "none", "-q"]) == 0
    return root / "out"


def program_module(directory: Path) -> ir.Module:
    return ir.Module.parse((directory / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())


def _report(directory: Path) -> dict:
    return json.loads((directory / "reports" / "quantization.json").read_text())


def test_summaries_are_the_extremes_and_means_of_the_rows(int8_program: Path) -> None:
    report = _report(int8_program)
    manifest = json.loads((int8_program / "manifest.json").read_text())
    assert report["policy"] == manifest["quantization"]["policy"] == "W"
    assert report["placement"] == manifest["quantization"]["placement"] == "local"
    assert report["fp32_oracle"] == "torch"
    for key, count in (("calibration", 3), ("held_out", 8)):
        rows, summary = report[key]["per_sample"], report[key]["summary"]
        assert summary["samples"] == len(rows) == count
        assert summary["max_relative_error"] == max(r["max_relative_error"] for r in rows)
        assert summary["mean_relative_error"] == pytest.approx(sum(r["mean_relative_error"] for r in rows) / count)
        assert summary["min_cosine"] == min(r["cosine"] for r in rows)
        assert summary["mean_cosine"] == pytest.approx(sum(r["cosine"] for r in rows) / count)
        # A (1, 10) classifier: top-1 agreement is the share of rows that agree.
        assert summary["top1_agreement"] == sum(r["top1_agrees"] for r in rows) / count
    assert manifest["quantization"]["calibration"]["samples"] == 3


def test_a_rows_metrics_follow_their_definitions_by_hand() -> None:
    exact = np.array([[2.0, -4.0, 1.0, 0.0]])
    quantized = np.array([[2.5, -4.0, 0.0, 0.0]])
    m = accuracy.metrics(quantized, exact)
    # |difference| = 0.5, 0, 1, 0: max 1 over the peak 4; mean 0.375 over the mean magnitude 1.75.
    assert m["max_relative_error"] == pytest.approx(1 / 4)
    assert m["mean_relative_error"] == pytest.approx(0.375 / 1.75)
    # q . f = 5 + 16 = 21; |q| = sqrt(22.25), |f| = sqrt(21).
    assert m["cosine"] == pytest.approx(21 / (22.25 ** 0.5 * 21 ** 0.5))
    assert m["top1_agrees"] is True  # both peak at index 0 (2.5 against 2.0)
    assert "top1_agrees" not in accuracy.metrics(quantized.reshape(2, 2), exact.reshape(2, 2))


def test_the_simulation_fields_are_the_simulators_counts(int8_program: Path) -> None:
    sim = _report(int8_program)["simulation"]
    program = pim.Program.load(int8_program)
    assert sim["bit_exact"] and sim["max_difference"] == 0.0
    # The instructions the functional simulator executed on the first held-out
    # input: the sum of its cores' counts, at least the program's compact
    # instructions (each runs) and at most its unrolled ones (loops executed
    # in full, as pimsim-nn's files spell them and the timing simulator counts them).
    first = quant.random_inputs(program_module(int8_program), 1, seed=1)[0]
    run = program.simulate(dict(first))
    assert sim["instructions"] == sum(c["instructions"] for c in run.stats["cores"])
    sizes = program.sizes()
    assert sum(compact for _, compact, _ in sizes) <= sim["instructions"] <= sum(unrolled for *_, unrolled in sizes)
    assert sum(unrolled for *_, unrolled in sizes) == sum(c.instructions for c in program.time().cores)
    t = sim["traffic"]
    assert t["read_bytes"] == t["local_read_bytes"] + t["global_read_bytes"] + t["received_bytes"]
    assert t["read_bytes"] == t["codec_read_bytes"] + t["operator_read_bytes"] + t["unattributed_read_bytes"]
    for key in ("local_read_bytes", "global_read_bytes", "received_bytes"):
        assert t[key] == sum(c[key] for c in run.stats["cores"])
    # Policy W materializes codecs: their instructions read, and so do the operators'.
    assert t["codec_read_bytes"] > 0 and t["operator_read_bytes"] > 0


def test_traffic_splits_a_simulations_counters_by_hand() -> None:
    def counters(local: int, global_: int, received: int) -> dict[str, int]:
        return {"local_read_bytes": local, "global_read_bytes": global_, "received_bytes": received}

    stats = {"total": counters(100, 20, 7),
             "operators": {"codec.quantize": counters(10, 0, 0), "codec.dequantize": counters(5, 1, 0),
                           "nn.convolution": counters(60, 19, 7)}}
    assert accuracy.traffic(stats) == {
        "local_read_bytes": 100, "global_read_bytes": 20, "received_bytes": 7, "read_bytes": 127,
        "codec_read_bytes": 16, "operator_read_bytes": 86, "unattributed_read_bytes": 25}


def test_the_calibration_rows_measure_int8_against_float32(int8_program: Path) -> None:
    """Each calibration row is the int8 output measured against the float32
    one (relative to float32's largest), recomputed from the calibration
    file, eager torch and the integer reference: not the other way round."""
    from raptor import sources

    root = int8_program.parent
    torch.manual_seed(0)
    model = randomize(SmallCnn())
    samples = np.load(root / "cal.npy")
    imported = sources.load(str(root / "m.pt2"), weights_as="arrays")
    (name,) = quant.input_shapes(imported.module)
    rows = _report(int8_program)["calibration"]["per_sample"]
    for sample, row in zip(samples, rows):
        with torch.no_grad():
            fp32 = model(torch.from_numpy(sample)).numpy()
        (int8,) = quant.reference(program_module(int8_program), {name: sample}, imported.tensors)
        want = accuracy.metrics(int8, fp32)["max_relative_error"]
        assert row["max_relative_error"] == pytest.approx(want, rel=1e-6)
        assert float(np.abs(int8 - fp32).max() / np.abs(fp32).max()) == pytest.approx(want, rel=1e-6)
