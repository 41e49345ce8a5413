"""Pipeline mode's global crossings (spatial::Crossing::Global): data to a
later stage goes through a global-memory region, handed over by event
tokens (the search's choice when a local boundary is estimated not to fit
local memory, asked for here: crossing="global"). Checked against torch,
against the same schedule lowered with interleaved transfers, and against
an independent derivation of the stages (networkx)."""

from __future__ import annotations

import json
import re

import pytest
import torch
from mlir import ir

import raptor
from raptor import _raptor, pim

from pim_helpers import imported, isaac_target
from test_pipeline import _core_levels, _Residual

# A small local memory (32 KiB): relays copy in chunks of a quarter of it,
# here the skip connection's whole 8 KiB activation.
LOCAL_BYTES = 32 * 1024
READY, FREE = 0, 1  # spatial::kReadyEvent, kFreeEvent


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The residual model scheduled once (pipeline of 4 crossing globally on
    a small-memory 168-core target) and lowered as scheduled and, from the same
    schedule, with interleaved transfers."""
    tmp = tmp_path_factory.mktemp("global")
    target_path = isaac_target(tmp, local_bytes=LOCAL_BYTES)
    torch.manual_seed(0)
    model = _Residual().eval()
    x = torch.randn(1, 3, 16, 16)
    w = tmp / "w.safetensors"
    module = imported(model, x, w)
    report = tmp / "pipeline_selection.json"
    with module.context:
        _raptor.fold_batch_norm(module)
        _raptor.build_compute_graph(module, str(target_path), "none", 0.5, True)
        _raptor.schedule_spatial(module, "peft", "pipeline", 4, str(report), "", crossing="global")
    scheduled = str(module)
    interleaved = scheduled.replace('crossing = "global"', 'crossing = "interleaved"').replace(
        "boundaries = true", "boundaries = false")
    programs = {}
    for name, text in (("global", scheduled), ("interleaved", interleaved)):
        with raptor.Context() as ctx:
            m = ir.Module.parse(text, ctx)
            _raptor.lower_to_pim(m, str(w))
            _raptor.emit_pim(m, str(tmp / name), "none", 0)
            programs[name] = str(m)
    return {"model": model, "x": x, "dir": tmp, "scheduled": scheduled, "programs": programs,
            "selection": json.loads(report.read_text())}


def test_big_boundaries_cross_through_global_memory_and_compute_the_model(compiled: dict) -> None:
    assert compiled["selection"]["crossing"] == "global" and compiled["selection"]["boundaries"] is True
    assert 'crossing = "global"' in compiled["scheduled"]
    with torch.no_grad():
        reference = compiled["model"](compiled["x"]).numpy()
    for name in ("global", "interleaved"):
        (out,) = pim.Program.load(compiled["dir"] / name).simulate(compiled["x"].numpy()).outputs.values()
        assert float(abs(out - reference).max()) < 1e-4, name


def test_global_crossings_pipeline_better_than_interleaved_and_are_predicted(compiled: dict) -> None:
    """The simulated interval beats the same schedule's interleaved one; the
    queue model (the selection's figure) and the cycle ratio of the emitted
    programs predict it within 10%."""
    program = pim.Program.load(compiled["dir"] / "global")
    timing = program.time(throughput=True)
    baseline = pim.Program.load(compiled["dir"] / "interleaved").time(throughput=True)
    assert timing.converged and baseline.converged
    assert timing.interval_ns < 0.8 * baseline.interval_ns, (timing.interval_ns, baseline.interval_ns)
    selection = compiled["selection"]
    predicted = selection["candidates"][selection["selected"]]["interval_ns"]
    assert abs(predicted - timing.interval_ns) <= 0.1 * timing.interval_ns
    periodic = program.periodic()
    assert periodic.status == "ok", periodic
    assert abs(periodic.interval_ns - timing.interval_ns) <= 0.1 * timing.interval_ns


def _instructions(text: str) -> dict[int, list[str]]:
    """Each core's instructions (one line each, the group declarations left out)."""
    programs: dict[int, list[str]] = {}
    current = None
    for line in text.splitlines():
        if m := re.match(r"\s*pim\.core (\d+) ", line):
            current = programs.setdefault(int(m.group(1)), [])
        elif current is not None and re.match(r"\s*pim\.\w+", line) and "pim.group" not in line:
            current.append(line.strip())
    return programs


def _regions(program: list[str]) -> list[tuple[int, str, int]]:
    """(index, ld or st, global address) of a core's global accesses: the
    address is the register pair r0:r1 its sldi instructions last set."""
    regs = {0: 0, 1: 0}
    out = []
    for i, line in enumerate(program):
        if m := re.match(r"pim\.sldi r([01]), (-?\d+)", line):
            regs[int(m.group(1))] = int(m.group(2))
        elif m := re.match(r"pim\.(ld|st) ", line):
            out.append((i, m.group(1), (regs[0] << 32) | (regs[1] & 0xFFFFFFFF)))
    return out


def test_the_hand_over_follows_the_stages(compiled: dict) -> None:
    """The stages derived independently (networkx: components of the core
    graph by level): no send or receive crosses a stage; every region a
    core stores is loaded by cores of the next level only (data skipping
    levels is relayed); a receiver signals
    FREE to each of its senders and waits READY for all of them before its
    first instruction; a sender waits FREE for all of its receivers before
    its first store to a region and signals READY to each after its last
    instruction."""
    component, level, _ = _core_levels(compiled["scheduled"])
    programs = _instructions(compiled["programs"]["global"])
    outputs = {int(a) for a in re.findall(r'pim\.io @\w+ "output" name "\w+" at (\d+)', compiled["programs"]["global"])}
    stored: dict[int, int] = {}  # region -> the core storing it
    for core, program in programs.items():
        for line in program:
            if m := re.match(r"pim\.(send|recv) \S+ (?:to|from) (\d+) ", line):
                assert component[int(m.group(2))] == component[core], line
        for _, op, address in _regions(program):
            if op == "st" and address not in outputs:
                assert address not in stored, address  # a region has one writer
                stored[address] = core
    loaded: dict[int, list[int]] = {}  # region -> the cores loading it
    for core, program in programs.items():
        for _, op, address in _regions(program):
            if op == "ld" and address in stored:
                loaded.setdefault(address, []).append(core)
    assert stored and set(loaded) == set(stored)
    senders: dict[int, set[int]] = {}
    receivers: dict[int, set[int]] = {}
    for address, cores in loaded.items():
        for core in cores:
            assert level[core] == level[stored[address]] + 1, (address, stored[address], core)
            senders.setdefault(core, set()).add(stored[address])
            receivers.setdefault(stored[address], set()).add(core)
    # The skip connection spans levels, so some core relays: it loads a
    # region and stores another after its last instruction.
    _, _, edges = _core_levels(compiled["scheduled"])
    assert any(level[b] - level[a] > 1 for a, b in edges)
    relays = [c for c in senders if c in receivers and
              max(i for i, op, a in _regions(programs[c]) if op == "st" and a in stored) >
              max((i for i, line in enumerate(programs[c]) if re.match(r"pim\.(mvmul|v\w+) ", line)), default=-1)]
    assert relays
    for core, program in programs.items():
        syncs = [(i, int(m.group(1)), int(m.group(2))) for i, line in enumerate(program)
                 if (m := re.match(r"pim\.sync (\d+) event (\d+)", line))]
        waits = [(i, int(m.group(1)), int(m.group(2))) for i, line in enumerate(program)
                 if (m := re.match(r"pim\.wait event (\d+) value (\d+)", line))]
        work = [i for i, line in enumerate(program) if re.match(r"pim\.(mvmul|v\w+) ", line)]
        prologue = [(peer, event) for i, peer, event in syncs if i < waits[0][0]] if waits else []
        if core in senders:
            assert sorted(peer for peer, event in prologue if event == FREE) == sorted(senders[core])
            assert (READY, len(senders[core])) in [(e, v) for i, e, v in waits if i < work[0]]
        else:
            assert all(e != READY for _, e, _ in waits)
        if core in receivers:
            first_store = min(i for i, op, a in _regions(program) if op == "st" and a in stored)
            free = [i for i, e, v in waits if e == FREE and v == len(receivers[core])]
            assert len(free) == 1 and free[0] < first_store
            ready = sorted(peer for i, peer, event in syncs if event == READY)
            assert ready == sorted(receivers[core]) and min(i for i, _, e in syncs if e == READY) > work[-1]
        else:
            assert all(e != FREE for _, e, _ in waits)


def _stores(program: list[str]) -> list[tuple[int, int]]:
    """(local address, bytes) of each of a core's stores that is not a relay's
    (a relay stores the chunk it has just loaded to the same address)."""
    regs: dict[int, int] = {}
    loaded: tuple[int, int] | None = None
    out = []
    for line in program:
        if m := re.match(r"pim\.sldi r(\d+), (-?\d+)", line):
            regs[int(m.group(1))] = int(m.group(2))
        elif m := re.match(r"pim\.ld r(\d+), r\d+ size (\d+)", line):
            loaded = (regs.get(int(m.group(1)), -1), int(m.group(2)))
        elif m := re.match(r"pim\.st r\d+, r(\d+) size (\d+)", line):
            here = (regs.get(int(m.group(1)), -1), int(m.group(2)))
            if here != loaded:
                out.append(here)
            loaded = None
    return out


def test_readers_of_one_level_share_its_region(compiled: dict) -> None:
    """Data crossing to several readers is stored once per pipeline level:
    no core stores the same local bytes twice (one region, loaded by every
    reader of its level), and in this model two cores load one region."""
    programs = _instructions(compiled["programs"]["global"])
    for core, program in programs.items():
        stores = _stores(program)
        assert len(stores) == len(set(stores)), (core, stores)
    stored = {address for program in programs.values() for _, op, address in _regions(program) if op == "st"}
    loaders: dict[int, int] = {}
    for program in programs.values():
        for _, op, address in _regions(program):
            if op == "ld" and address in stored:
                loaders[address] = loaders.get(address, 0) + 1
    assert max(loaders.values()) >= 2, loaders
