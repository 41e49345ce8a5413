"""Random convolutions, each lowered alone (one nn.convolution, its bias,
nothing around it) to PIM programs, simulated and compared with torch's
conv2d: every combination the lowering's window walks must get right,
stride and padding per axis, dilation, groups, non-square kernels and maps
(batch 1; a batch of N, from torch or ONNX, is one map of N times the
channels and groups, tested last). Fixed seeds and small shapes (the whole file runs in
seconds); every case names its parameters when it fails."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import pim

from pim_helpers import compile_and_run, compile_source

# 8 cores of 8 crossbars of 16 x 16: the weight tiles of these convolutions
# fit, and lanes spread over several cores.
TARGET = {
    "name": "tests: 8 cores x 8 crossbars of 16x16",
    "clock": {"period_ns": 1.0},
    "cores": {"count": 8, "mesh_rows": 2, "mesh_cols": 4},
    "crossbar": {"per_core": 8, "rows": 16, "cols": 16, "cell_bits": 8, "weight_bits": 8},
    "network": {"link_bytes_per_cycle": 4, "hop_latency_cycles": 1},
    "memory": {"local_bytes": 1048576},
}


def case(seed: int) -> dict:
    """A convolution drawn from `seed`: every parameter per axis, the output
    at least one pixel each way."""
    rng = random.Random(seed)
    while True:
        groups = rng.choice([1, 1, 2, 3])
        c = dict(groups=groups, cin=groups * rng.randint(1, 3),
                 cout=groups * rng.randint(1, 2), kernel=(rng.randint(1, 3), rng.randint(1, 3)),
                 stride=(rng.randint(1, 3), rng.randint(1, 3)), padding=(rng.randint(0, 2), rng.randint(0, 2)),
                 dilation=(rng.randint(1, 2), rng.randint(1, 2)), size=(rng.randint(4, 9), rng.randint(4, 9)),
                 bias=rng.random() < 0.7)
        if min(out_size(c)) >= 1:
            return c


SEEDS = range(14)


def tail_rows(c: dict) -> int:
    """The rows of the K x N matrix's last 16-row tile (K = input channels
    x kernel taps)."""
    k = c["cin"] * c["kernel"][0] * c["kernel"][1]
    return k - 16 * ((k - 1) // 16)


def positions_per_mvm(c: dict) -> int:
    """Output positions one MVM of the last row tile computes, by the rule
    docs/pim.md states: the tile's r rows by N outputs placed p times on the
    16 x 16 crossbar's diagonal, p the largest number of copies that fits
    and divides the positions of an output row (the whole matrix when it is
    one tile)."""
    r, n, ow = tail_rows(c), c["cout"], out_size(c)[1]
    if n > 16:
        return 1
    return next(p for p in range(min(16 // r, 16 // n, ow), 0, -1) if ow % p == 0)


def out_size(c: dict) -> list[int]:
    return [(s + 2 * p - d * (k - 1) - 1) // st + 1
            for s, p, d, k, st in zip(c["size"], c["padding"], c["dilation"], c["kernel"], c["stride"])]


def test_the_sample_covers_every_parameter() -> None:
    """The fixed seeds draw each parameter's non-trivial values (else a walk
    could ignore one and every case still pass)."""
    cases = [case(s) for s in SEEDS]
    for key in ("stride", "padding", "dilation", "kernel", "size"):
        for axis in (0, 1):
            assert len({c[key][axis] for c in cases}) >= 2, (key, axis)
    assert {c["groups"] for c in cases} >= {1, 2, 3}
    assert any(c["stride"][0] != c["stride"][1] for c in cases)
    assert any(c["padding"][0] != c["padding"][1] for c in cases)
    assert any(c["kernel"][0] != c["kernel"][1] for c in cases)
    # Packed tiles (several positions per MVM) with strides, padding and
    # groups, and tiles holding the matrix once; packed last tiles after
    # full ones (K > 16), with groups, and a taller matrix not packed.
    packed = [c for c in cases if positions_per_mvm(c) > 1]
    assert len(packed) >= 4 and len(packed) < len(cases)
    assert any(c["stride"][1] > 1 for c in packed) and any(c["padding"][1] > 0 for c in packed)
    assert any(c["groups"] > 1 for c in packed)
    tall = [c for c in cases if c["cin"] * c["kernel"][0] * c["kernel"][1] > 16]
    assert len([c for c in tall if positions_per_mvm(c) > 1]) >= 3
    assert any(c["groups"] > 1 and positions_per_mvm(c) > 1 for c in tall)
    assert any(positions_per_mvm(c) == 1 for c in tall)


def lowered(seed: int, directory: Path, **options):
    """Case `seed`'s convolution (weights and input seeded by it) compiled
    alone for TARGET into `directory` / out, run, and its case."""
    c = case(seed)
    torch.manual_seed(seed)
    conv = torch.nn.Conv2d(c["cin"], c["cout"], c["kernel"], stride=c["stride"], padding=c["padding"],
                           dilation=c["dilation"], groups=c["groups"], bias=c["bias"]).eval()
    x = torch.randn(1, c["cin"], *c["size"])
    target = directory / "target.json"
    target.write_text(json.dumps(TARGET))
    return c, compile_and_run(conv, x, directory / "out", target=target, **options)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_convolution_lowered_alone_equals_torch(seed: int, tmp_path: Path) -> None:
    c, run = lowered(seed, tmp_path)
    assert run.output.shape == run.reference.shape, c
    # The crossbars hold the full 16-row tiles once and the last tile p
    # times: p r rows by p N columns.
    k, p = c["cin"] * c["kernel"][0] * c["kernel"][1], positions_per_mvm(c)
    tiles = {(g["rows"], g["cols"]) for core in run.manifest["cores"] for g in core["groups"]}
    assert tiles == {(p * tail_rows(c), p * c["cout"])} | ({(16, c["cout"])} if k > 16 else set()), (c, tiles)
    # The compute graph prices the MVMs the lowering emits (p positions
    # each): its latency estimate is the timing simulator's within 10%.
    simulated = pim.Program.load(tmp_path / "out").time().latency_ns
    assert run.manifest["schedule"]["predicted_latency_ns"] == pytest.approx(simulated, rel=0.1), c
    np.testing.assert_allclose(run.output, run.reference, rtol=1e-4, atol=1e-5 * np.abs(run.reference).max(),
                               err_msg=str(c))


@pytest.mark.parametrize("seed", [s for s in SEEDS if tail_rows(case(s)) < case(s)["cin"] * case(s)["kernel"][0]
                                  * case(s)["kernel"][1]])
def test_every_row_tile_a_lane_of_its_own_equals_torch(seed: int, tmp_path: Path) -> None:
    """Lanes of one row tile (lane_tiles=1): the last tile is a lane alone,
    packed when it fits, its windows gathered as in a lane with full tiles
    (each window is K long: gathered in order they overwrote each other's
    tails, GoogLeNet with lanes of 2 row tiles)."""
    c, run = lowered(seed, tmp_path, lane_tiles=1)
    lanes = {(g["rows"], g["cols"]) for core in run.manifest["cores"] for g in core["groups"]}
    assert (positions_per_mvm(c) * tail_rows(c), positions_per_mvm(c) * c["cout"]) in lanes, (c, lanes)
    np.testing.assert_allclose(run.output, run.reference, rtol=1e-4, atol=1e-5 * np.abs(run.reference).max(),
                               err_msg=str(c))


@pytest.mark.parametrize("groups, stride, padding", [(1, 1, 0), (2, 2, 1)])
def test_a_batch_of_two_from_torch_convolves_each_sample(tmp_path: Path, groups: int, stride: int,
                                                         padding: int) -> None:
    """raptor-fold-batch-into-channels makes a batch of N maps one map of
    N C channels in N times the groups: each sample convolved by the same
    weights, against torch."""
    target = tmp_path / "target.json"
    target.write_text(json.dumps(TARGET))
    torch.manual_seed(groups)
    conv = torch.nn.Conv2d(4, 6, 3, stride=stride, padding=padding, groups=groups).eval()
    run = compile_and_run(conv, torch.randn(2, 4, 6, 5), tmp_path / "out", target=target)
    assert run.output.shape == run.reference.shape == (2, 6) + run.reference.shape[2:]
    np.testing.assert_allclose(run.output, run.reference, rtol=1e-5, atol=1e-5)


class _BatchedPools(torch.nn.Module):
    """A convolution and the three poolings the fold rewrites, every result
    read: max (padded), average (padding not counted), adaptive average."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        a = torch.nn.functional.max_pool2d(y, 3, 2, padding=1)
        b = torch.nn.functional.avg_pool2d(y, 2, 2, count_include_pad=False)
        c = torch.nn.functional.adaptive_avg_pool2d(y, (2, 2))
        return torch.cat([a.flatten(1), b.flatten(1), c.flatten(1)], 1)


def test_poolings_of_a_batch_of_three_from_torch_pool_each_sample(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text(json.dumps(TARGET))
    torch.manual_seed(3)
    x = torch.randn(3, 3, 8, 6)
    run = compile_and_run(_BatchedPools().eval(), x, tmp_path / "out", target=target)
    assert run.output.shape == run.reference.shape == (3, 4 * (4 * 3 + 4 * 3 + 4))
    # Samples differ, so a fold that mixed them (or pooled across) would show.
    assert not np.allclose(run.reference[0], run.reference[1])
    np.testing.assert_allclose(run.output, run.reference, rtol=1e-5, atol=1e-5)


def test_a_batch_of_two_from_onnx_equals_onnxruntime(tmp_path: Path) -> None:
    """The fold is on nn, so an ONNX Conv (and MaxPool) of a batch of 2
    compiles too: each sample against onnxruntime."""
    from test_onnx_frontend import _export, _runtime

    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(2), torch.nn.Conv2d(6, 6, 3, padding=1, groups=6))
    x = torch.randn(2, 4, 9, 8)
    data = _export(model, x)
    (tmp_path / "m.onnx").write_bytes(data)
    target = tmp_path / "target.json"
    target.write_text(json.dumps(TARGET))
    program = compile_source(tmp_path / "m.onnx", tmp_path / "out", target=target, pimsim="none")
    (output,) = program.simulate(x.numpy()).outputs.values()
    (expected,) = _runtime(data, x.numpy())
    assert output.shape == expected.shape == (2, 6, 2, 2)
    assert not np.allclose(expected[0], expected[1])
    np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-5)
