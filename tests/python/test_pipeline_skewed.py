"""Skewed pipelines (spatial::Crossing::Skewed, `crossing="skewed"`): a task
of level l works on inference f - l in pass f, data read at a later level
crosses through double-buffered global-memory regions and waits in local
slots when it skips levels, and the first inference takes `frames` passes.

Checked against torch and the integer reference (after `frames` passes,
and not after one pass fewer), against an independent derivation of the
levels from the scheduled tasks, against the timing simulator (the
interval the queue model predicts, no core waiting in steady state), and
for the token discipline of the emitted programs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir

import raptor
from raptor import pim, quant, weights

from pim_helpers import imported
from test_pipeline import _Residual


class _Fire(torch.nn.Module):
    """A residual block and a channel concatenation (a view that moves no
    data: its readers read the two convolutions' buffers)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.left = torch.nn.Conv2d(8, 4, 1)
        self.right = torch.nn.Conv2d(8, 4, 3, padding=1)
        self.body = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.stem(x))
        z = torch.cat([torch.relu(self.left(y)), torch.relu(self.right(y))], dim=1)
        return self.head(torch.relu(self.body(z)) + y)


def _levels(graph_text: str) -> tuple[int, set[int]]:
    """An independent derivation of the passes a skewed program needs: each
    operator's level is the largest over the dependencies into its tasks of
    the producer operator's level, plus one when the two tasks sit on
    different cores; a model output gathered from lanes on several cores is
    stored a pass later. Returns (1 + the last level, the cores used)."""
    tasks = {}
    for m in re.finditer(r'%(\d+) = spatial\.task "[^"]*"(?: after\(([^)]*)\))?[^\n]*?core = (\d+)[^\n]*?'
                         r'source = (\d+)', graph_text):
        tasks[m.group(1)] = (int(m.group(3)), int(m.group(4)), re.findall(r"%(\d+)", m.group(2) or ""))
    level: dict[int, int] = {}
    for name in sorted(tasks, key=lambda t: tasks[t][1]):
        core, op, deps = tasks[name]
        for d in deps:
            dcore, dop, _ = tasks[d]
            if dop < op:
                level[op] = max(level.get(op, 0), level.get(dop, 0) + (dcore != core))
        level.setdefault(op, 0)
    used = {d for _, _, deps in tasks.values() for d in deps}
    last = max(level.values())
    outputs: dict[int, set[int]] = {}
    for name, (core, op, _) in tasks.items():
        if name not in used:
            outputs.setdefault(op, set()).add(core)
    gathered = max((level[op] + 1 for op, cores in outputs.items() if len(cores) > 1), default=0)
    return max(last, gathered) + 1, {core for core, _, _ in tasks.values()}


@pytest.fixture(scope="module")
def fire(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("skewed")
    torch.manual_seed(0)
    model = _Fire().eval()
    x = torch.randn(1, 3, 16, 16)
    w = tmp / "w.safetensors"
    module = imported(model, x, w)
    result = pim.compile(module, tmp / "p", weights=w, pipeline=4, crossing="skewed", replicate="balance",
                         pimsim="none", source="test")
    with torch.no_grad():
        reference = model(x).numpy()
    return {"dir": tmp / "p", "x": x, "reference": reference, "manifest": result.manifest,
            "graph": str(module), "chip": str(module)}


def test_a_skewed_program_computes_the_model_after_its_frames(fire: dict) -> None:
    manifest = fire["manifest"]
    assert manifest["schedule"]["crossing"] == "skewed"
    frames, cores = _levels(fire["graph"])
    assert manifest["program"]["frames"] == frames > 1
    assert len(cores) > 4  # the levels cross many cores
    out = pim.simulate(fire["dir"], fire["x"].numpy()).outputs["out0"]
    np.testing.assert_allclose(out, fire["reference"], rtol=1e-4, atol=1e-5)
    interval = manifest["schedule"]["predicted_interval_ns"]
    assert (f"  pipeline estimate: skewed over {frames} levels, interval {interval / 1e6:.3f} ms "
            f"({1e9 / interval:,.0f} inferences/s), first inference "
            f"{manifest['schedule']['predicted_latency_ns'] / 1e6:.3f} ms"
            ) in pim.format_summary(pim.summary(manifest), "p").splitlines()


def test_one_pass_fewer_leaves_a_pipeline_unfilled(fire: dict, tmp_path: Path) -> None:
    """The passes are needed: with program.frames one lower the output holds
    what the unfilled banks gave (zeros propagated), not the model's."""
    short = tmp_path / "short"
    shutil.copytree(fire["dir"], short)
    manifest = json.loads((short / "manifest.json").read_text())
    manifest["program"]["frames"] -= 1
    (short / "manifest.json").write_text(json.dumps(manifest))
    out = pim.simulate(short, fire["x"].numpy()).outputs["out0"]
    assert not np.allclose(out, fire["reference"], rtol=1e-3, atol=1e-3)


def test_frames_in_a_manifest_are_checked(fire: dict, tmp_path: Path) -> None:
    for frames in (0, 5000, "2"):
        bad = tmp_path / f"bad{frames}"
        shutil.copytree(fire["dir"], bad)
        manifest = json.loads((bad / "manifest.json").read_text())
        manifest["program"]["frames"] = frames
        (bad / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(pim.UserError, match="frames"):
            pim.Program.load(bad)


def test_skewed_cores_run_in_step_at_the_predicted_interval(fire: dict) -> None:
    """In steady state no core waits long: the interval is within 10% of the
    busiest core's work per pass, and the queue model predicts it within
    10% (the event graph's cycle ratio within 5%). The first inference ends
    with pass `frames`."""
    program = pim.Program.load(fire["dir"])
    steady = program.time(throughput=True)
    assert steady.converged
    passes = len(steady.generation_end_ns)
    busiest = max(c.matrix_ns + c.vector_ns + c.memory_ns + c.communication_ns - c.blocked_ns
                  for c in steady.cores) / passes
    assert steady.interval_ns <= 1.1 * busiest, (steady.interval_ns, busiest)
    predicted = fire["manifest"]["schedule"]["predicted_interval_ns"]
    assert predicted == pytest.approx(steady.interval_ns, rel=0.1)
    periodic = program.periodic()  # the exact cycle ratio of the emitted programs
    assert periodic.status == "ok" and periodic.interval_ns == pytest.approx(steady.interval_ns, rel=0.05)
    once = program.time()
    frames = fire["manifest"]["program"]["frames"]
    assert once.latency_ns == pytest.approx(once.generation_end_ns[frames - 1])
    assert len(once.generation_end_ns) == frames


def test_token_discipline_of_a_skewed_program(fire: dict) -> None:
    """Each core's pass starts with the bank registers exchanged, READY
    signals to its readers, one READY wait for every sender (event 0) and
    FREE signals to the senders; nothing else waits but one FREE wait
    (event 1) right before the first region store, for every reader. A
    region is stored to the current bank (r31). Signals to a core balance
    its waits. (The FREE signals follow the READY wait: a sender's next
    READY then comes after this core took the current ones, so senders
    sharing a register cannot stand in for each other.)"""
    cores = re.split(r"\n\s*pim\.core (\d+)", fire["chip"].split("pim.chip", 1)[1])[1:]
    sent: dict[tuple[int, int], int] = {}
    waited: dict[tuple[int, int], int] = {}
    for core, body in zip(cores[0::2], cores[1::2]):
        c = int(core)
        lines = [line.strip() for line in body.splitlines() if line.strip().startswith("pim.")]
        lines = [line for line in lines if not line.startswith("pim.group")]
        if not lines:
            continue
        assert lines[0].startswith("pim.sldi r2, ")
        assert lines[1:3] == ["pim.ssub r31, r2, r31", "pim.ssub r30, r2, r31"]
        start = 3
        while start < len(lines) and lines[start].startswith(("pim.sync", "pim.wait event 0")):
            start += 1
        prologue = lines[3:start]
        kinds = ["ready" if re.match(r"pim\.sync \d+ event 0", line) else
                 "wait" if line.startswith("pim.wait") else "free" for line in prologue]
        assert kinds == sorted(kinds, key=["ready", "wait", "free"].index), (c, prologue)
        assert kinds.count("wait") <= 1
        for line in prologue:
            if m := re.match(r"pim\.sync (\d+) event (\d)", line):
                key = (int(m.group(1)), int(m.group(2)))
                sent[key] = sent.get(key, 0) + 1
            if m := re.match(r"pim\.wait event 0 value (\d+)", line):
                waited[(c, 0)] = int(m.group(1))
        rest = lines[start:]
        assert not any(line.startswith("pim.sync") for line in rest)
        waits = [i for i, line in enumerate(rest) if line.startswith("pim.wait")]
        assert len(waits) <= 1
        for i in waits:
            m = re.match(r"pim\.wait event 1 value (\d+)", rest[i])
            assert m and rest[i + 1].startswith("pim.st ") and "pim.sadd r1, r1, r31" in rest[i - 2:i]
            assert not any(line.startswith("pim.st ") for line in rest[:i])
            waited[(c, 1)] = int(m.group(1))
    assert len(sent) > 4 and sent == waited


def test_a_skewed_integer_program_equals_the_integer_reference(tmp_path: Path) -> None:
    torch.manual_seed(1)
    model = _Residual().eval()
    x = torch.randn(1, 3, 16, 16)
    w = tmp_path / "w.safetensors"
    module = imported(model, x, w)
    samples = [{"x": x.numpy()}] + quant.random_inputs(module, 3)
    result = pim.compile(module, tmp_path / "q", weights=w, precision="int8", arithmetic="integer",
                         calibration=samples, pipeline=4, crossing="skewed", replicate="balance", pimsim="binary")
    assert result.manifest["schedule"]["crossing"] == "skewed" and result.manifest["program"]["pimsim_compatible"]
    saved = ir.Module.parse((tmp_path / "q" / "reports" / "quantized_model.mlir").read_text(),
                            context=raptor.Context())
    (want,) = quant.reference(saved, {"x": x.numpy()}, weights.load(w))
    for form in ("compact", "pimsim"):
        out = pim.simulate(tmp_path / "q", x.numpy(), form=form).outputs["out0"]
        np.testing.assert_array_equal(out, want)


def test_the_queue_model_prices_a_copys_whole_store(tmp_path: Path) -> None:
    """ResNet-18 at int8, a pipeline of depth 4 (skewed): the copies of a
    downsampling branch store their decoded 4-byte rows whole for the many
    copies of the residual sums that read them in parts, which keeps their
    cores the busiest. The queue model prices each copy's store as all its
    rows (as the lowering stores the buffer), not as the most one reader
    takes: its interval is within 3% of the timing simulator's (priced as
    the largest reader's share it read 0.95 of it)."""
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    w = tmp_path / "w.safetensors"
    module = imported(model, x, w)
    result = pim.compile(module, tmp_path / "p", weights=w, precision="int8", pipeline=4, pimsim="none",
                         source="resnet18")
    assert result.manifest["schedule"]["crossing"] == "skewed"
    steady = pim.Program.load(tmp_path / "p").time(throughput=True)
    predicted = result.manifest["schedule"]["predicted_interval_ns"]
    assert predicted == pytest.approx(steady.interval_ns, rel=0.03), (predicted, steady.interval_ns)
    # The balanced placement is refined by the queue model's per-core work:
    # the first round moves work off the busiest core (a downsampling
    # copy's stores weigh on it, which the chains' work leaves out) and is
    # the schedule kept, at least 2% faster than the balanced one.
    selection = json.loads((tmp_path / "p" / "reports" / "pipeline_selection.json").read_text())
    candidates = selection["candidates"]
    balanced = next(c for c in candidates if c["move"] == "balanced")
    first = next(c for c in candidates if c["move"] == "rebalanced (round 1)")
    assert first["parent"] == balanced["index"]
    assert first["busiest_core_work_ns"] < 0.98 * balanced["busiest_core_work_ns"]
    chosen = candidates[selection["selected"]]
    assert chosen["move"].startswith("rebalanced") and chosen["interval_ns"] < 0.98 * balanced["interval_ns"]
    # A round runs from the round before only when the queue model clearly
    # preferred that one to its own parent (the 2.1% rule).
    def ties(c: dict) -> tuple[float, float]:
        pair = (c["interval_ns"] * c["handicap"], c["alternative_tie_interval_ns"] * c["handicap"])
        return min(pair), max(pair)
    for c in candidates:
        parent = candidates[c["parent"]] if c["move"].startswith("rebalanced") else None
        if parent is not None and parent["move"] != "balanced":
            assert ties(parent)[1] / 0.979 < ties(candidates[parent["parent"]])[0] / 1.021, (c, parent)
