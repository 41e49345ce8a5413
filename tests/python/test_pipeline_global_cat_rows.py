"""Row copies of a concatenation under global crossings.

A U-Net skip: two convolutions' results concatenated along the channels
and read by a third. Balanced replication copies the convolutions by rows
and the concatenation follows their rows, one copy per block of rows; in a
pipeline whose crossings go through global memory, each copy gathers the
rows it reads onto its own core. Each copy must define only its rows: when
every copy defined the whole concatenation, the last copy's pieces (all on
its core) replaced the others', and a reader on another core fetched them
against the pipeline's stage order (U-Net int8, `--crossing global`,
stopped with "runs against the pipeline's stage order"); and every copy
loaded both inputs whole from global memory.

Every graph the scheduler keeps (the one weighed with followers, chosen,
and the one weighed by MVMs, its fallback) is lowered alone and must compute the model (eager
torch)."""

from __future__ import annotations

import re
import subprocess
import sys
import shutil
from pathlib import Path

import pytest
import torch
from mlir import ir

import raptor
from raptor import _raptor, pim

from pim_helpers import imported, isaac_target

RAPTOR_OPT = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"


class _Skip(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.b = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.c = torch.nn.Conv2d(32, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        # A depthwise convolution and a residual add follow `a`'s rows: the
        # work that makes the followers' weighing copy differently.
        z = torch.relu(self.b(torch.relu(self.dw(y)) + y))
        return self.c(torch.cat([y, z], dim=1))


@pytest.fixture(scope="module")
def scheduled(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The model scheduled as a 2-stage pipeline with global crossings on 16
    cores of 8 crossbars, both balanced graphs kept."""
    tmp = tmp_path_factory.mktemp("cat_rows")
    target = isaac_target(tmp, cores=16, crossbars=8)
    torch.manual_seed(0)
    model = _Skip().eval()
    x = torch.randn(1, 3, 32, 32)
    w = tmp / "w.safetensors"
    (tmp / "model.mlir").write_text(str(imported(model, x, w)))
    result = subprocess.run(
        [RAPTOR_OPT, str(tmp / "model.mlir"),
         f"--raptor-build-compute-graph=target={target} replicate=balance mode=pipeline "
         "balance-followers-challenger",
         "--raptor-schedule-spatial=mode=pipeline depth=2 crossing=global", "-o", str(tmp / "scheduled.mlir")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return {"model": model, "x": x, "w": w, "dir": tmp, "text": (tmp / "scheduled.mlir").read_text()}


def _graphs(text: str) -> list[str]:
    with raptor.Context():
        module = ir.Module.parse(text)
        return [ir.StringAttr(op.attributes["sym_name"]).value
                for op in module.body.operations if op.operation.name == "spatial.graph"]


def _alone(text: str, keep: str) -> ir.Module:
    """The scheduled module with the graph `keep` alone, as the lowering
    takes a chosen graph."""
    module = ir.Module.parse(text)
    for op in list(module.body.operations):
        if op.operation.name != "spatial.graph":
            continue
        if ir.StringAttr(op.attributes["sym_name"]).value != keep:
            op.operation.erase()
            continue
        for name in ("fallback_of", "challenger_of"):
            if name in op.attributes:
                del op.attributes[name]
    return module


def _cat_copies(graph: str) -> list[tuple[int, int, int]]:
    """(first row, end row, core) of each copy of the concatenation."""
    copies = []
    for line in graph.splitlines():
        if 'op = "nn.cat"' in line:
            rows = re.search(r"rows = array<i64: (\d+), (\d+)>", line)
            core = re.search(r"core = (\d+)", line)
            copies.append((int(rows.group(1)), int(rows.group(2)), int(core.group(1))))
    return sorted(copies)


def test_both_graphs_copy_the_concatenation_by_rows_crossing_globally(scheduled: dict) -> None:
    text = scheduled["text"]
    # The followers' plan kept (named as the chosen graph), the other its fallback.
    assert _graphs(text) == ["main_tasks_challenged", "main_tasks"]
    assert text.count('copies_weighed_by = "matrix and followers"') == 1
    for graph in text.split("spatial.graph @")[1:]:
        assert 'crossing = "global"' in graph
        # Blocks of rows tiling the 32, one core each.
        copies = _cat_copies(graph)
        assert len(copies) >= 2 and len({core for _, _, core in copies}) == len(copies)
        assert copies[0][0] == 0 and copies[-1][1] == 32
        assert all(a[1] == b[0] for a, b in zip(copies, copies[1:]))


@pytest.mark.parametrize("graph", ["main_tasks_challenged", "main_tasks"])
def test_each_graph_lowered_alone_computes_the_model(scheduled: dict, graph: str) -> None:
    out_dir = scheduled["dir"] / graph
    with raptor.Context():
        module = _alone(scheduled["text"], graph)
        _raptor.lower_to_pim(module, str(scheduled["w"]))
        lowered = str(module)
        _raptor.emit_pim(module, str(out_dir), "none", 0)
    (out,) = pim.Program.load(out_dir).simulate(scheduled["x"].numpy()).outputs.values()
    with torch.no_grad():
        reference = scheduled["model"](scheduled["x"]).numpy()
    assert float(abs(out - reference).max()) < 1e-4 * float(abs(reference).max())
    # Each copy loads from global memory the rows it concatenates, not the
    # whole inputs: every crossing value is stored once and loaded by the
    # blocks of rows that read it, the 3x3 windows' halos adding at most 2
    # rows to a block of 4 or more (old: every copy loaded both inputs
    # whole, 2.6x the bytes stored).
    loaded = sum(int(n) for n in re.findall(r"pim\.ld \S+, \S+ size (\d+)", lowered))
    stored = sum(int(n) for n in re.findall(r"pim\.st \S+, \S+ size (\d+)", lowered))
    assert stored > 0 and loaded <= 1.5 * stored
