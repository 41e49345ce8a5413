"""Random pipelines: chains of linear layers of random widths on random
small targets, scheduled in pipeline mode at random depths. Whatever the
search picks, every candidate's stages hand out exactly the chip's cores
(the DP reserves one core per stage and gives the cores left over to the
bottleneck; moves shift cores between stages, merges add them up), at most
the depth asked for; every task runs inside its stage's core range, within
a core's crossbars; and the same input schedules the same way twice."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch

import raptor
from raptor import spatial
from raptor.frontend.torch import import_program

from pim_helpers import export


def _case(seed: int) -> tuple[torch.nn.Module, torch.Tensor, dict, int]:
    rng = random.Random(seed)
    widths = [rng.randint(8, 40) for _ in range(rng.randint(3, 7))]
    layers: list[torch.nn.Module] = []
    for a, b in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    cores = rng.choice([4, 6, 8, 12, 16])
    target = {"name": f"tests: {cores} random cores", "clock": {"period_ns": 1.0},
              "cores": {"count": cores, "mesh_rows": 2, "mesh_cols": cores // 2},
              "crossbar": {"per_core": rng.randint(4, 8), "rows": 16, "cols": 16, "cell_bits": 8,
                           "weight_bits": 8},
              "network": {"link_bytes_per_cycle": 4, "hop_latency_cycles": 1},
              "memory": {"local_bytes": 1048576}}
    torch.manual_seed(seed)
    return torch.nn.Sequential(*layers), torch.randn(rng.choice([1, 4]), widths[0]), target, \
        rng.randint(1, min(cores, 5))


def _schedule(text: str, target: Path, depth: int) -> dict:
    with raptor.Context() as ctx:
        from mlir import ir

        return spatial.schedule_model(ir.Module.parse(text, ctx), target, pipeline=depth)


@pytest.mark.parametrize("seed", range(8))
def test_random_pipelines_hand_out_the_chip_and_repeat(seed: int, tmp_path: Path) -> None:
    model, x, target, depth = _case(seed)
    path = tmp_path / "target.json"
    path.write_text(json.dumps(target))
    module, _ = import_program(export(model, x))
    text = str(module)
    report = _schedule(text, path, depth)
    cores, per_core = target["cores"]["count"], target["crossbar"]["per_core"]
    selection = report["selection"]
    for c in selection["candidates"]:
        assert sum(c["stage_cores"]) == cores, (seed, c["stage_cores"])
        assert 1 <= len(c["stage_cores"]) <= depth and min(c["stage_cores"]) >= 1
    stages = report["stages"]
    assert stages == selection["candidates"][selection["selected"]]["stage_cores"]
    bases = [sum(stages[:i]) for i in range(len(stages) + 1)]
    starts = selection["candidates"][selection["selected"]]["stage_starts"]
    group: dict[int, int] = {}
    tiles: dict[int, int] = {}
    for t in report["tasks"]:
        g = group.setdefault(t["source"], len(group))
        s = max(i for i, start in enumerate(starts) if start <= g)
        assert bases[s] <= t["core"] < bases[s + 1], (seed, t["name"], s)
        tiles[t["core"]] = tiles.get(t["core"], 0) + t["tiles"]
    assert max(tiles.values()) <= per_core
    assert _schedule(text, path, depth) == report
