"""Row streaming in latency mode (`row_block`, docs/scheduling.md "Row
streaming"): convolutions compute their rows in blocks on one core's
crossbars, the operators after them follow block by block, and a layer
starts on its input's first rows. The programs must equal torch (f32) and
the integer reference (int8) as whole-tensor programs do."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir
from pim_helpers import imported, randomize
from torch import nn

import raptor
from raptor import pim, quant, weights


class Fire(nn.Module):
    """SqueezeNet's shape in small: a squeeze, two expands concatenated
    along the channels, a residual add, a pooling and a head."""

    def __init__(self, pre: nn.Module | None = None) -> None:
        super().__init__()
        self.pre = pre or nn.Identity()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.squeeze = nn.Conv2d(8, 4, 1)
        self.e1 = nn.Conv2d(4, 8, 1)
        self.e3 = nn.Conv2d(4, 8, 3, padding=1)
        self.mix = nn.Conv2d(16, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Conv2d(8, 4, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.stem(self.pre(x))
        q = torch.relu(self.squeeze(s))
        cat = torch.cat([torch.relu(self.e1(q)), torch.relu(self.e3(q))], 1)
        y = torch.relu(self.mix(cat)) + s
        return self.head(self.pool(y))


def _module(tmp_path: Path, x: torch.Tensor, pre: nn.Module | None = None):
    torch.manual_seed(3)
    model = randomize(Fire(pre))
    path = tmp_path / "m.safetensors"
    module = imported(model, x, path)
    with torch.no_grad():
        return module, path, model(x).numpy()


def _tasks(module: ir.Module) -> list[dict]:
    graph = next(op for op in module.body.operations if op.operation.name == "spatial.graph")
    out = []
    for op in graph.regions[0].blocks[0].operations:
        a = op.attributes
        get = lambda k: ir.IntegerAttr(a[k]).value if k in a else None  # noqa: E731
        out.append({"name": ir.StringAttr(a["name"]).value, "op": ir.StringAttr(a["op"]).value,
                    "source": get("source"), "lane": get("lane"), "replica": get("replica"), "block": get("block"),
                    "core": get("core"), "start": get("start_ns"), "cost": get("cost_ns"),
                    "tiles": get("tiles") or 0, "position": get("position"),
                    "deps": [d.owner.attributes["name"] for d in op.operands],
                    "rows": list(ir.DenseI64ArrayAttr(a["rows"])) if "rows" in a else None})
    return out


@pytest.fixture(scope="module")
def float_programs(tmp_path_factory: pytest.TempPathFactory):
    """The model compiled whole (row_block 0) and streamed (2 rows), each
    with the IR it ends with."""
    tmp = tmp_path_factory.mktemp("rows")
    x = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(0))
    out = {}
    for block in (0, 2):
        module, path, reference = _module(tmp, x)
        pim.compile(module, tmp / f"b{block}", weights=path, replicate="none", pimsim="none", row_block=block)
        out[block] = (module, tmp / f"b{block}")
    return x, reference, out


def test_streamed_float_program_equals_torch(float_programs) -> None:
    x, reference, out = float_programs
    for block in (0, 2):
        got = pim.simulate(out[block][1], x.numpy()).outputs["out0"]
        np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)


def test_blocks_of_a_lane_share_its_core_and_crossbars(float_programs) -> None:
    """Each lane's blocks cover its rows in order, on one core; only the
    first holds the crossbars, and the program declares each weight group
    once per core (the crossbars the schedule counted, not one set per
    block)."""
    _, _, out = float_programs
    module, directory = out[2]
    tasks = _tasks(module)
    lanes = defaultdict(list)
    for t in tasks:
        if t["block"] is not None:
            lanes[(t["source"], t["lane"], t["replica"])].append(t)
    assert lanes and all(len(b) > 1 for b in lanes.values())
    for blocks in lanes.values():
        assert [b["block"] for b in blocks] == list(range(len(blocks)))
        assert len({b["core"] for b in blocks}) == 1
        assert blocks[0]["tiles"] > 0 and all(b["tiles"] == 0 for b in blocks[1:])
        assert all(a["rows"][1] == b["rows"][0] for a, b in zip(blocks, blocks[1:]))
        assert blocks[0]["rows"][0] == 0
    manifest = pim.Program.load(directory).manifest
    declared = sum(g["crossbars"] for c in manifest["cores"] for g in c["groups"])
    assert declared == sum(t["tiles"] for t in tasks)


def test_a_layer_starts_before_its_input_is_complete(float_programs) -> None:
    """Streaming: the squeeze convolution starts before the last block of
    the stem it reads has finished; in the whole-tensor program it waits
    for all of it; streaming is faster in the timing simulator."""
    _, _, out = float_programs

    def overlaps(module: ir.Module) -> bool:
        tasks = _tasks(module)
        conv = [t for t in tasks if t["op"] == "nn.convolution"]
        sources = sorted({t["source"] for t in conv})
        end = {s: max(t["start"] + t["cost"] for t in conv if t["source"] == s) for s in sources}
        # The stem and the squeeze that reads it (through its ReLU).
        stem, squeeze = sources[:2]
        return min(t["start"] for t in conv if t["source"] == squeeze) < end[stem]

    assert overlaps(out[2][0]) and not overlaps(out[0][0])
    whole, streamed = (pim.Program.load(out[b][1]).time().latency_ns for b in (0, 2))
    assert streamed < whole


@pytest.mark.parametrize("pre, layout", [(None, ":(3,96,1,3072)"), (nn.Hardtanh(-2.0, 2.0), ":(1,32,1024,3072)")],
                         ids=["encoded-for-the-stem", "activation-first"])
def test_streamed_integer_program_equals_the_integer_reference(tmp_path: Path, pre: nn.Module | None,
                                                               layout: str) -> None:
    """At 32 x 32 the input's encoder blocks read rows of the input: an
    input encoded for the stem lies channels-last (rows are whole runs);
    one an activation reads first stays channel-major, and its blocks read
    sparse views of global memory, loaded one channel at a time."""
    x = torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    module, path, _ = _module(tmp_path, x, pre)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    pim.compile(module, tmp_path / "q", weights=path, precision="int8", calibration=samples, arithmetic="integer",
                pimsim="none", replicate="none", row_block=3)
    assert any(t["block"] for t in _tasks(module))
    manifest = pim.Program.load(tmp_path / "q").manifest
    assert manifest["inputs"][0]["layout"].endswith(layout)
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(path))
    np.testing.assert_array_equal(pim.simulate(tmp_path / "q", x.numpy()).outputs["out0"], want)


def test_row_blocks_are_refused_in_pipeline_mode_and_when_negative(tmp_path: Path) -> None:
    x = torch.randn(1, 3, 12, 12)
    module, path, _ = _module(tmp_path, x)
    with pytest.raises(pim.UserError, match="row-block streams rows within one inference"):
        pim.compile(module, tmp_path / "p", weights=path, pipeline=2, row_block=2, pimsim="none")
    assert not (tmp_path / "p").exists()
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="row_block must be a non-negative integer"):
            pim.compile(module, tmp_path / "n", weights=path, row_block=bad, pimsim="none")
    cli = subprocess.run([sys.executable, "-m", "raptor", "compile", "shufflenet_v2", "-o", str(tmp_path / "c"),
                          "--row-block", "-2"], capture_output=True, text=True)
    assert cli.returncode == 2 and "--row-block: expected a non-negative integer" in cli.stderr


def test_the_lowering_order_is_topological_and_keeps_each_core_order(float_programs) -> None:
    """The scheduler's `position` (the order the lowering emits tasks, and
    with them every send and receive): a topological order of the
    dependencies that runs each core's tasks in the schedule's order, so
    only where one core's transfers fall against another's moves."""
    _, _, out = float_programs
    for block in (0, 2):
        tasks = _tasks(out[block][0])
        assert sorted(t["position"] for t in tasks) == list(range(len(tasks)))
        place = {t["name"]: t["position"] for t in tasks}
        assert all(place[ir.StringAttr(d).value] < t["position"] for t in tasks for d in t["deps"])
        for core in {t["core"] for t in tasks}:
            mine = [t for t in tasks if t["core"] == core]
            assert sorted(mine, key=lambda t: t["position"]) == sorted(mine, key=lambda t: (t["start"], t["position"]))


def test_auto_keeps_whole_tensors_unless_streaming_is_clearly_faster(tmp_path: Path) -> None:
    """The default (`auto`): the graphs are scheduled (blocks of 8 rows, of
    4 when they differ, whole tensors) and a streamed one is kept only when
    the queue model predicts it 5% faster; the manifest says which form was
    kept and what the other was predicted to take, and the compile's
    summary says so. Pipeline mode takes whole tensors."""
    x = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(0))
    module, path, reference = _module(tmp_path, x)
    result = pim.compile(module, tmp_path / "a", weights=path, replicate="none", pimsim="none")
    schedule = result.manifest["schedule"]
    kept, other = schedule["predicted_latency_ns"], schedule["alternative_latency_ns"]
    if schedule["row_block"] in (4, 8):
        assert kept < 0.95 * other and any(t["block"] is not None for t in _tasks(module))
        if schedule["row_block"] == 4:  # it challenged the 8-row graph and won by 5%
            assert kept < 0.95 * schedule["challenged_latency_ns"]
    else:
        assert schedule["row_block"] == 0 and not 0.95 * kept > other
        assert all(t["block"] is None and t["rows"] is None for t in _tasks(module))
    np.testing.assert_allclose(pim.simulate(tmp_path / "a", x.numpy()).outputs["out0"], reference, rtol=1e-4,
                               atol=1e-5)
    summary = pim.format_summary(pim.summary(result.manifest), "a")
    said = (f"rows streamed in blocks of {schedule['row_block']} (whole tensors: " if schedule["row_block"] else
            "whole tensors per task (streamed rows: ")
    assert said in summary
    module, path, _ = _module(tmp_path, x)
    piped = pim.compile(module, tmp_path / "p", weights=path, pipeline=2, pimsim="none").manifest["schedule"]
    assert piped["row_block"] == 0 and "alternative_latency_ns" not in piped


class TwoConvolutions(nn.Module):
    """Two 3 x 3 convolutions of 8 channels on a 32 x 32 map: on small.json
    with 8-bit cells a column is 5 row tiles, cut by lanes of 3 into 3 + 2
    and by lanes of 1 into five."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.b(torch.relu(self.a(x))))


def _tight(tmp_path: Path, local_bytes: int) -> tuple[ir.Module, Path, Path]:
    """TwoConvolutions imported, and small.json with 8-bit cells and
    `local_bytes` of local memory per core."""
    torch.manual_seed(0)
    path = tmp_path / "two.safetensors"
    module = imported(randomize(TwoConvolutions()), torch.randn(1, 8, 32, 32), path)
    target = json.loads((Path(raptor.__file__).parent / "spatial" / "targets" / "small.json").read_text())
    target["crossbar"]["cell_bits"] = 8
    target["memory"] = {"local_bytes": local_bytes}
    (tmp_path / "tight.json").write_text(json.dumps(target))
    return module, path, tmp_path / "tight.json"


def test_shorter_lanes_that_do_not_fit_fall_back_to_the_fastest_graph_that_does(tmp_path: Path) -> None:
    """On cores of 90,000 bytes the queue model keeps lanes of 1 row tile
    (predicted 11.28 ms against 19.73 for lanes of 3), whose programs need
    more local memory than a core has (each lane's core holds its partial
    sums); the graphs it beat stay as fallbacks, and the lowering takes the
    fastest predicted that fits: lanes of 2 (13.32 ms), rows streamed in
    blocks of 8 as before. The manifest and the summary say why. With room,
    lanes of 1 are lowered."""
    module, path, target = _tight(tmp_path, 90_000)
    result = pim.compile(module, tmp_path / "t", weights=path, target=target, pimsim="none")
    schedule = result.manifest["schedule"]
    assert schedule["lane_tiles"] == 2 and schedule["row_block"] == 8
    assert schedule["predicted_latency_ns"] == 13_318_722 and "challenged_latency_ns" not in schedule
    assert "more bytes of local memory" in schedule["lane_tiles_fallback"]
    assert "row_block_fallback" not in schedule
    summary = pim.format_summary(pim.summary(result.manifest), "t")
    assert "; lanes of at most 2 row tiles (other lanes estimated faster but not lowered: task '" in summary
    module, path, target = _tight(tmp_path, 1_000_000)
    roomy = pim.compile(module, tmp_path / "r", weights=path, target=target, pimsim="none").manifest["schedule"]
    assert roomy["lane_tiles"] == 1 and roomy["predicted_latency_ns"] == 11_278_716
    assert roomy["challenged_latency_ns"] == 19_725_651


def test_a_core_fragmented_by_first_fit_is_lowered_again_with_best_fit(tmp_path: Path) -> None:
    """U-Net without copies, full lanes, blocks of 8 rows, the default 64
    MiB: with first-fit allocation core 1 finds no gap of 0.3 MB among 19
    MB free, and the streamed programs fell back to whole tensors (69.9 s
    instead of 22.0 s); the lowering tries once more with best fit, and
    they fit."""
    from raptor import sources

    model = sources.load("unet")
    result = pim.compile(model.module, tmp_path / "u", weights=model.weights, replicate="none", pimsim="none",
                         lane_tiles=0, row_block=8)
    schedule = result.manifest["schedule"]
    assert schedule["row_block"] == 8 and not schedule.get("row_block_fallback")


def test_short_lanes_that_do_not_fit_fall_back_to_full_lanes_unless_asked_for(tmp_path: Path) -> None:
    """On cores of 67,000 bytes no program with lanes of 3, 2 or 1 row
    tiles fits. Asked for explicitly (lane_tiles=3), the one-line error
    names the core and the two ways out (more local memory, or full lanes)
    and writes nothing; by default (lane_tiles 'auto') the compile says so
    and lowers again with full lanes, where blocks of 4 rows (predicted
    fastest) do not fit either and blocks of 8 do: the manifest says both."""
    module, path, target = _tight(tmp_path, 67_000)
    with pytest.raises(pim.UserError, match=r"more bytes of local memory .*memory\.local_bytes\) or lanes as tall "
                                            r"as a core holds \(--lane-tiles 0; these lanes hold at most 3 row tiles"):
        pim.compile(module, tmp_path / "u", weights=path, target=target, pimsim="none", lane_tiles=3)
    assert not (tmp_path / "u").exists()
    said: list[str] = []
    module, path, target = _tight(tmp_path, 67_000)
    result = pim.compile(module, tmp_path / "u", weights=path, target=target, pimsim="none", progress=said.append)
    schedule = result.manifest["schedule"]
    assert schedule["lane_tiles"] == 0 and schedule["row_block"] == 8
    assert "more bytes of local memory" in schedule["row_block_fallback"]
    summary = pim.format_summary(pim.summary(result.manifest), "u")
    assert "rows streamed in blocks of 8 (other row blocks estimated faster but not lowered: task '" in summary
    assert said.count("short lanes' partial sums do not fit local memory: compiling again with full lanes "
                      "(--lane-tiles 0)") == 1
    # The steps are numbered once more from the backend's first.
    assert [line for line in said if line.startswith("[")][-1] == "[10/10] writing the program directory ..."
