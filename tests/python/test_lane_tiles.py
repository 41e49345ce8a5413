"""Shorter lanes in latency mode (`lane_tiles`, docs/scheduling.md "Shorter
lanes"): a weight column taller than T row tiles becomes lanes of partial
sums on other cores, which their readers add. A lane runs one MVM per row
tile for each output position, so once every copy computes a single row,
shorter lanes are what shortens a layer. The programs must equal torch
(f32) and the integer reference (int8) as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import imported, randomize
from torch import nn

import raptor
from raptor import pim, quant, spatial, weights

CHANNELS, SIZE = 64, 8
# 64 channels x 3 x 3 = 576 weight rows: 5 row tiles of the default 128-row crossbars.
ROW_TILES = 5


class Chain(nn.Module):
    """ResNet's layer1 in small: 3 x 3 convolutions of 64 channels."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, CHANNELS, 3, padding=1)
        self.body = nn.Sequential(*[m for _ in range(3) for m in (nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1),
                                                                  nn.ReLU())])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(torch.relu(self.stem(x)))


def _module(tmp_path: Path, x: torch.Tensor):
    torch.manual_seed(5)
    model = randomize(Chain())
    path = tmp_path / "m.safetensors"
    module = imported(model, x, path)
    with torch.no_grad():
        return module, path, model(x).numpy()


def _conv_tasks(module: ir.Module) -> list[dict]:
    graph = next(op for op in module.body.operations if op.operation.name == "spatial.graph")
    out = []
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        if ir.StringAttr(a["op"]).value != "nn.convolution":
            continue
        out.append({"source": ir.IntegerAttr(a["source"]).value,
                    "replica": ir.IntegerAttr(a["replica"]).value if "replica" in a else 0,
                    "row_tiles": tuple(ir.DenseI64ArrayAttr(a["row_tiles"]))})
    return out


@pytest.fixture(scope="module")
def float_programs(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("lanes")
    x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(0))
    out = {}
    for tiles in (0, 2):
        module, path, reference = _module(tmp, x)
        result = pim.compile(module, tmp / f"t{tiles}", weights=path, pimsim="none", row_block=2, lane_tiles=tiles)
        out[tiles] = (module, tmp / f"t{tiles}", result.manifest)
    return x, reference, out


def test_short_lanes_equal_torch_and_record_the_choice(float_programs) -> None:
    x, reference, out = float_programs
    for tiles in (0, 2):
        got = pim.simulate(out[tiles][1], x.numpy()).outputs["out0"]
        np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)
        assert out[tiles][2]["schedule"]["lane_tiles"] == tiles


def test_each_copy_splits_its_column_into_balanced_lanes(float_programs) -> None:
    """With lane_tiles=2 every copy of a 64-channel 3 x 3 convolution has
    ceil(5 / 2) = 3 lanes of 2, 2 and 1 row tiles, which cover the column
    once; without, one lane holds all 5 (a core holds 24 f32 tiles)."""
    _, _, out = float_programs
    for tiles, want in ((0, [(0, 5)]), (2, [(0, 2), (2, 4), (4, 5)])):
        conv = [t for t in _conv_tasks(out[tiles][0]) if t["source"] > 0 and t["row_tiles"][1] > 1]
        assert conv
        copies: dict[tuple[int, int], set] = {}
        for t in conv:
            copies.setdefault((t["source"], t["replica"]), set()).add(t["row_tiles"])
        assert all(sorted(spans) == want for spans in copies.values()), copies


def test_short_lanes_shorten_the_latency(float_programs) -> None:
    """Every copy of the body's convolutions computes one row at most at
    8 x 8 on the 168-core chip: the split lanes are what makes it faster,
    in the timing simulator and in the compile's estimate."""
    _, _, out = float_programs
    simulated = {t: pim.Program.load(out[t][1]).time().latency_ns for t in (0, 2)}
    predicted = {t: out[t][2]["schedule"]["predicted_latency_ns"] for t in (0, 2)}
    assert simulated[2] < 0.8 * simulated[0], simulated
    assert predicted[2] < predicted[0], predicted


def test_a_partial_lane_sends_four_byte_sums_of_its_columns(tmp_path: Path) -> None:
    """What a reader receives from each lane of partial sums: all of the
    lane's output columns as 4-byte sums (64 x 8 x 8 x 4 bytes), checked
    in the graph raptor-build-compute-graph builds."""
    x = torch.randn(1, 3, SIZE, SIZE)
    module, _, _ = _module(tmp_path, x)
    with module.context:
        raptor._raptor.build_compute_graph(module, str(spatial.resolve_target(None)), "none", 0.5, False, "latency",
                                           lane_tiles=2)
    graph = next(op for op in module.body.operations if op.operation.name == "spatial.graph")
    tasks = list(graph.regions[0].blocks[0].operations)
    names = [ir.StringAttr(t.attributes["name"]).value for t in tasks]
    relu = tasks[names.index("relu_1#0")]
    assert list(ir.DenseI64ArrayAttr(relu.attributes["bytes"])) == [4 * CHANNELS * SIZE * SIZE] * 3


def test_integer_program_with_short_lanes_equals_the_integer_reference(tmp_path: Path) -> None:
    x = torch.randn(1, 3, SIZE, SIZE, generator=torch.Generator().manual_seed(1))
    module, path, _ = _module(tmp_path, x)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "q", weights=path, precision="int8", calibration=samples, arithmetic="integer",
                pimsim="none", lane_tiles=2)
    assert {t["row_tiles"] for t in _conv_tasks(module) if t["source"] > 0} >= {(0, 2), (2, 4), (4, 5)}
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(path))
    np.testing.assert_array_equal(pim.simulate(tmp_path / "q", x.numpy()).outputs["out0"], want)


def test_lane_tiles_are_refused_in_pipeline_mode_and_when_negative(tmp_path: Path) -> None:
    x = torch.randn(1, 3, SIZE, SIZE)
    module, path, _ = _module(tmp_path, x)
    with pytest.raises(pim.UserError, match="lane-tiles shortens the copies of one inference's critical path"):
        pim.compile(module, tmp_path / "p", weights=path, pipeline=2, lane_tiles=2, pimsim="none")
    assert not (tmp_path / "p").exists()
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="lane_tiles must be a non-negative integer or .auto."):
            pim.compile(module, tmp_path / "n", weights=path, lane_tiles=bad, pimsim="none")
    cli = subprocess.run([sys.executable, "-m", "raptor", "compile", "shufflenet_v2", "-o", str(tmp_path / "c"),
                          "--lane-tiles", "-2"], capture_output=True, text=True)
    assert cli.returncode == 2 and "--lane-tiles: expected a non-negative integer" in cli.stderr


def _lanes_of(tasks: list[dict]) -> set[tuple[int, int]]:
    return {t["row_tiles"] for t in tasks if t["source"] > 0}


def test_the_default_keeps_the_lane_height_predicted_clearly_fastest_and_full_lanes_in_pipelines(
        tmp_path: Path) -> None:
    """Omitted (or 'auto'), a latency compile starts from lanes of 3 row
    tiles (the 5-tile columns cut into 3 + 2) and lets lanes of 2 and of 1
    challenge them: it keeps the height whose programs the queue model
    predicts fastest when that is at least 5% faster than 3 (and records
    the prediction it beat), else 3; the program is the explicit compile
    of that height, task for task (rows streamed in blocks of 8 throughout:
    `row_block='auto'` would weigh whole tensors too). A pipeline keeps
    whole columns (and is no error, unlike an explicit height)."""
    x = torch.randn(1, 3, SIZE, SIZE)
    explicit = {}
    for height, lanes in ((3, {(0, 3), (3, 5)}), (2, {(0, 2), (2, 4), (4, 5)}), (1, {(i, i + 1) for i in range(5)})):
        module, path, _ = _module(tmp_path, x)
        result = pim.compile(module, tmp_path / f"h{height}", weights=path, pimsim="none", row_block=8,
                             lane_tiles=height)
        assert _lanes_of(_conv_tasks(module)) == lanes
        explicit[height] = (result.manifest["schedule"]["predicted_latency_ns"], _conv_tasks(module))
    fastest = min(explicit, key=lambda h: explicit[h][0])
    want = fastest if explicit[fastest][0] < 0.95 * explicit[3][0] else 3
    for options in ({}, {"lane_tiles": "auto"}):
        module, path, _ = _module(tmp_path, x)
        schedule = pim.compile(module, tmp_path / "d", weights=path, pimsim="none", row_block=8,
                               **options).manifest["schedule"]
        assert schedule["lane_tiles"] == want, options
        assert schedule["predicted_latency_ns"] == explicit[want][0]
        assert _conv_tasks(module) == explicit[want][1]
        assert schedule.get("challenged_latency_ns") == (explicit[3][0] if want != 3 else None)
    module, path, _ = _module(tmp_path, x)
    result = pim.compile(module, tmp_path / "p", weights=path, pimsim="none", pipeline=2)
    assert _lanes_of(_conv_tasks(module)) == {(0, 5)}
    assert result.manifest["schedule"]["lane_tiles"] == 0


def test_a_model_with_nothing_to_stream_keeps_short_lanes_and_says_whole_tensors(tmp_path: Path) -> None:
    """Linear layers (a transformer's shape): no rows stream, so the
    manifest says whole tensors, while the 512-row weights (4 row tiles)
    are cut into short lanes by the default (2 and 2 with lanes of 3 or 2,
    four with lanes of 1); the program equals torch."""
    model = randomize(nn.Sequential(nn.Linear(512, 64), nn.ReLU(), nn.Linear(64, 512), nn.ReLU(),
                                    nn.Linear(512, 16)))
    x = torch.randn(4, 512, generator=torch.Generator().manual_seed(2))
    path = tmp_path / "w.safetensors"
    module = imported(model, x, path)
    result = pim.compile(module, tmp_path / "t", weights=path, pimsim="none")
    schedule = result.manifest["schedule"]
    assert schedule["row_block"] == 0 and schedule["lane_tiles"] in (1, 3)
    linear = [ir.DenseI64ArrayAttr(op.attributes["row_tiles"]) for op in next(
        o for o in module.body.operations if o.operation.name == "spatial.graph").regions[0].blocks[0].operations
        if ir.StringAttr(op.attributes["op"]).value == "nn.linear"]
    assert {tuple(r) for r in linear} >= ({(0, 2), (2, 4)} if schedule["lane_tiles"] == 3 else
                                          {(0, 1), (1, 2), (2, 3), (3, 4)})
    with torch.no_grad():
        np.testing.assert_allclose(pim.simulate(tmp_path / "t", x.numpy()).outputs["out0"], model(x).numpy(),
                                   rtol=1e-4, atol=1e-5)
