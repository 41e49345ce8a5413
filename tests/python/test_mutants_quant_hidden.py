"""Hand-made mutants of raptor.quant that no other test pinned: the
quantization report's held-out rows (8 inputs of seed 1, not the
calibration's seed 0), its table's columns, and calibration's range over
several inputs (the smallest value of all of them, not of the last)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import cli, quant, sources
from raptor.quant import accuracy


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(8, 12), torch.nn.Linear(12, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.tanh(self.a(x)))


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, Path]:
    torch.manual_seed(3)
    model = _Net().eval()
    path = tmp_path_factory.mktemp("net") / "net.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 8),), strict=False), path)
    return model, path


def test_held_out_rows_are_eight_inputs_of_seed_1(net: tuple[torch.nn.Module, Path], tmp_path: Path) -> None:
    """Each held-out row is the integer reference against eager torch on
    the next standard-normal draw of default_rng(1) (drawn here); the
    calibration's default inputs are default_rng(0)'s, other rows."""
    model, path = net
    out = tmp_path / "p"
    assert cli.main(["compile", str(path), "-o", str(out), "--precision", "int8", "--policy", "W", "--report",
                     "--format", "none", "-q"]) == 0
    report = json.loads((out / "reports" / "quantization.json").read_text())
    rows = report["held_out"]["per_sample"]
    assert report["held_out"]["summary"]["samples"] == len(rows) == 8
    imported = sources.load(str(path), weights_as="arrays")
    from mlir import ir

    import raptor
    module = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
    rng = np.random.default_rng(1)
    for row in rows:
        x = rng.standard_normal((1, 8)).astype(np.float32)
        with torch.no_grad():
            fp32 = model(torch.from_numpy(x)).numpy()
        (int8,) = quant.reference(module, {"x": x}, imported.tensors)
        assert row["max_relative_error"] == pytest.approx(float(np.abs(int8 - fp32).max() / np.abs(fp32).max()),
                                                          rel=1e-6)
    assert rows[0] != report["calibration"]["per_sample"][0]


def test_the_report_table_by_hand() -> None:
    def summary(samples: int, top1: float | None = None) -> dict:
        s = {"samples": samples, "max_relative_error": 0.5, "mean_relative_error": 0.25, "min_cosine": 0.9,
             "mean_cosine": 0.95}
        if top1 is not None:
            s["top1_agreement"] = top1
        return {"summary": s, "per_sample": []}

    report = {"policy": "W", "placement": "local", "fp32_oracle": "torch", "calibration": summary(3, 2 / 3),
              "held_out": summary(8), "simulation": {"bit_exact": False, "max_difference": 0.125}}
    assert accuracy.format_report(report).splitlines() == [
        "int8 (policy W, local) against float32 (torch):",
        "  inputs                       n   max rel  mean rel  min cos  top-1",
        "  calibration                  3    0.5000    0.2500  0.90000   0.67",
        "  held-out                     8    0.5000    0.2500  0.90000      -",
        "  simulated program vs integer reference: max difference 0.125"]
    report["simulation"]["bit_exact"] = True
    assert accuracy.format_report(report).splitlines()[-1] == "  simulated program vs integer reference: bit-exact"


def test_calibration_ranges_cover_every_input_not_the_last(net: tuple[torch.nn.Module, Path]) -> None:
    """The range over two inputs is the union of the two inputs' ranges:
    the larger maximum and the smaller minimum, whichever input has it (the
    first, here: three times the second's spread)."""
    _, path = net

    def calibrated(samples: list[np.ndarray]) -> quant.Calibration:
        model = sources.load(str(path), weights_as="arrays")
        quant.prepare(model.module, policy="W")
        return quant.calibrate(model.module, model.tensors, [{"x": s} for s in samples])

    rng = np.random.default_rng(5)
    wide, narrow = 3 * rng.standard_normal((1, 8)).astype(np.float32), rng.standard_normal((1, 8)).astype(np.float32)
    both, first, second = calibrated([wide, narrow]), calibrated([wide]), calibrated([narrow])
    assert both.amax and both.samples == 2
    for k in both.amax:
        assert both.amax[k] == max(first.amax[k], second.amax[k])
        assert both.minimum[k] == min(first.minimum[k], second.minimum[k])
    assert any(first.minimum[k] < second.minimum[k] < 0 for k in both.minimum)


def test_the_calibration_record_counts_the_offset_subgraphs() -> None:
    """Two of three subgraphs hold non-negative data (zero point -127):
    two offset subgraphs; each subgraph's fields under its id."""
    cal = quant.Calibration(amax={1: 2.0, 2: 3.0, 3: 4.0}, minimum={1: 0.0, 2: -1.0, 3: 0.5},
                            scales={1: 2 / 254, 2: 3 / 127, 3: 4 / 254}, zeros={1: -127, 2: 0, 3: -127}, samples=2,
                            source="given")
    record = cal.as_dict()
    assert record["offset_subgraphs"] == 2 and record["samples"] == 2 and record["source"] == "given"
    assert record["subgraphs"]["2"] == {"amax": 3.0, "min": -1.0, "scale": 3 / 127, "zero_point": 0}
    assert list(record["subgraphs"]) == ["1", "2", "3"]


class _Pools(torch.nn.Module):
    """Padded average pooling, counting the padding (torch's default, which
    the nn IR leaves unsaid) and not."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1) +
                2 * torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))


def test_the_interpreter_counts_the_padding_of_an_average_pool_unless_told(tmp_path: Path) -> None:
    """The float32 interpreter against eager torch: the border windows'
    averages divide by 9 with the padding counted, by 4 or 6 without."""
    path = tmp_path / "pools.pt2"
    torch.export.save(torch.export.export(_Pools().eval(), (torch.randn(1, 2, 6, 6),), strict=False), path)
    model = sources.load(str(path), weights_as="arrays")
    x = np.random.default_rng(2).standard_normal((1, 2, 6, 6)).astype(np.float32) + 1.0
    (got,) = quant.reference(model.module, {"x": x}, model.tensors, mode="fp32")
    with torch.no_grad():
        want = _Pools()(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


class _PoolNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.avg_pool2d(torch.relu(self.conv(x)), 3, stride=2, padding=1)


def test_integer_programs_count_the_padding_of_an_average_pool(tmp_path: Path) -> None:
    """An integer-only int8 program's reference (fixed point between the
    codecs) stays within a few percent of eager torch on every window,
    the border ones too, whose averages count the padding (9 cells, not
    the 4 or 6 inside: a factor of 1.5 to 2.25)."""
    from mlir import ir

    import raptor
    torch.manual_seed(4)
    model = _PoolNet().eval()
    path = tmp_path / "pool.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 8, 8),), strict=False), path)
    out = tmp_path / "p"
    assert cli.main(["compile", str(path), "-o", str(out), "--precision", "int8", "--policy", "W",
                     "--arithmetic", "integer", "--format", "none", "-q"]) == 0
    module = ir.Module.parse((out / "reports" / "quantized_model.mlir").read_text(), context=raptor.Context())
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    (got,) = quant.reference(module, {"x": x}, sources.load(str(path), weights_as="arrays").tensors)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 0.05 * np.abs(want).max()
