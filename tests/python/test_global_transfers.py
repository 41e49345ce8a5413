"""Latency mode's transfers through global memory (`transfers`,
docs/scheduling.md "Transfers"): each producer stores its output to a
region of global memory right after its work and signals every core that
reads it; a reader waits for the signal and loads what it reads, so no
sender waits for a busy receiver. The programs must equal torch (f32) and
the integer reference (int8) as rendezvous programs do, run without
deadlock, and the queue model chooses the faster form under 'auto'."""

from __future__ import annotations

import json
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
from raptor import pim, quant, weights


class Branches(nn.Module):
    """Two convolution branches joined by a concatenation and a residual
    add: data crosses between cores in both directions of the graph."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.a = nn.Conv2d(8, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 1)
        self.mix = nn.Conv2d(16, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 4, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = torch.relu(self.stem(x))
        cat = torch.cat([torch.relu(self.a(s)), torch.relu(self.b(s))], 1)
        return self.head(torch.relu(self.mix(cat)) + s)


def _module(tmp_path: Path, x: torch.Tensor):
    torch.manual_seed(5)
    model = randomize(Branches())
    path = tmp_path / "m.safetensors"
    module = imported(model, x, path)
    with torch.no_grad():
        return module, path, model(x).numpy()


@pytest.mark.parametrize("row_block", [0, 2])
def test_global_transfers_equal_torch_and_the_rendezvous_program(tmp_path: Path, row_block: int) -> None:
    x = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(0))
    out = {}
    for transfers in ("rendezvous", "global"):
        module, path, reference = _module(tmp_path, x)
        # (One lane height: the default's choice may differ between the two,
        # and partial sums added in another order round differently.)
        result = pim.compile(module, tmp_path / transfers, weights=path, replicate="time", pimsim="none",
                             row_block=row_block, transfers=transfers, lane_tiles=3)
        assert result.manifest["schedule"]["transfers"] == transfers
        out[transfers] = pim.simulate(tmp_path / transfers, x.numpy()).outputs["out0"]
        np.testing.assert_allclose(out[transfers], reference, rtol=1e-4, atol=1e-5)
        # (A deadlock raises SimulationError.) The queue model predicts the
        # programs: a reader the graph does not name (a stride-2 layer's
        # copies read more rows than their dependencies hold) still takes
        # the data through global memory, signalled where the sender is
        # when it is lowered; by rendezvous it waited 4.8 ms for 0.9 ms
        # predicted.
        simulated = pim.Program.load(tmp_path / transfers).time().latency_ns
        predicted = result.manifest["schedule"]["predicted_latency_ns"]
        assert predicted == pytest.approx(simulated, rel=0.1), (transfers, predicted, simulated)
    np.testing.assert_array_equal(out["global"], out["rendezvous"])
    # The global programs store and load where the others send and receive.
    requests = {t: pim.Program.load(tmp_path / t).time().global_requests for t in out}
    assert requests["global"] > requests["rendezvous"]


def test_global_integer_program_equals_the_integer_reference(tmp_path: Path) -> None:
    x = torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(1))
    module, path, _ = _module(tmp_path, x)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    result = pim.compile(module, tmp_path / "q", weights=path, precision="int8", calibration=samples,
                         arithmetic="integer", pimsim="binary", replicate="time", row_block=2, transfers="global")
    assert result.manifest["schedule"]["transfers"] == "global"
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(path))
    np.testing.assert_array_equal(pim.simulate(tmp_path / "q", x.numpy()).outputs["out0"], want)


def test_auto_takes_the_form_the_queue_model_predicts_faster(tmp_path: Path) -> None:
    """'auto' (the default) schedules once and predicts both forms: global
    memory is kept only when predicted at least 5% faster; the manifest
    names the kept form, and the compile's summary says when it is global
    memory."""
    x = torch.randn(1, 3, 12, 12, generator=torch.Generator().manual_seed(0))
    predicted = {}
    for transfers in ("rendezvous", "global", "auto"):
        module, path, _ = _module(tmp_path, x)
        result = pim.compile(module, tmp_path / transfers, weights=path, replicate="time", pimsim="none",
                             row_block=2, transfers=transfers)
        predicted[transfers] = result.manifest["schedule"]["predicted_latency_ns"]
        if transfers == "auto":
            kept = result.manifest["schedule"]["transfers"]
            summary = pim.format_summary(pim.summary(result.manifest), "auto")
    clearly = predicted["global"] < 0.95 * predicted["rendezvous"]
    assert kept == ("global" if clearly else "rendezvous")
    assert predicted["auto"] == predicted[kept]
    assert ("transfers through global memory" in summary) == (kept == "global")


def test_transfers_is_refused_when_unknown(tmp_path: Path) -> None:
    x = torch.randn(1, 3, 12, 12)
    module, path, _ = _module(tmp_path, x)
    with pytest.raises(ValueError, match="transfer mode"):
        pim.compile(module, tmp_path / "n", weights=path, transfers="mail", pimsim="none")
    cli = subprocess.run([sys.executable, "-m", "raptor", "compile", "shufflenet_v2", "-o", str(tmp_path / "c"),
                          "--transfers", "mail"], capture_output=True, text=True)
    assert cli.returncode == 2 and "invalid choice: 'mail'" in cli.stderr


class Wide(nn.Module):
    """A linear layer of 40 column tiles on a chip of one 8 x 8 crossbar
    per core: 40 lanes on 40 cores, all read by the ReLU's core."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 320)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x)) * 2


def test_a_reader_of_more_senders_than_event_registers_receives_the_rest_by_rendezvous(tmp_path: Path) -> None:
    """A core has 32 event registers, one per sender it is signalled by:
    the ReLU reading 39 other cores' lanes takes 32 from global memory and 7
    by rendezvous (each send placed where its sender's program is when the
    reader is lowered). The program still equals torch, and the queue
    model, which hands out the registers as the lowering does, predicts
    its latency."""
    target = tmp_path / "wide.json"
    target.write_text(json.dumps({
        "name": "tests: 48 cores x 1 crossbar of 8x8", "clock": {"period_ns": 1.0},
        "cores": {"count": 48, "mesh_rows": 6, "mesh_cols": 8},
        "crossbar": {"per_core": 1, "rows": 8, "cols": 8, "cell_bits": 8, "weight_bits": 8},
        "network": {"link_bytes_per_cycle": 4, "hop_latency_cycles": 1}, "memory": {"local_bytes": 65536}}))
    torch.manual_seed(2)
    model = randomize(Wide())
    x = torch.randn(1, 8)
    module = imported(model, x, tmp_path / "w.safetensors")
    result = pim.compile(module, tmp_path / "p", weights=tmp_path / "w.safetensors", target=target,
                         replicate="none", pimsim="none", transfers="global")
    manifest = result.manifest
    tasks = json.loads((tmp_path / "p" / "reports" / "schedule_tasks.json").read_text())
    relu_core = next(t["core"] for t in tasks if t["name"].startswith("nn.relu"))
    senders = {t["from"] for t in manifest["transfers"] if t["to"] == relu_core}
    assert len(senders) == 39 - 32, manifest["transfers"]
    with torch.no_grad():
        np.testing.assert_allclose(pim.simulate(tmp_path / "p", x.numpy()).outputs["out0"], model(x).numpy(),
                                   rtol=1e-4, atol=1e-5)
    simulated = pim.Program.load(tmp_path / "p").time().latency_ns
    assert manifest["schedule"]["predicted_latency_ns"] == pytest.approx(simulated, rel=0.05)
