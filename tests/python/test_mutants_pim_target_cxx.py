"""What raptor-emit-pim writes from a target (simulator/TargetModel.cpp,
passes/emission/EmitPim.cpp), against docs/scheduling.md's rules: cores are
numbered row-major on the mesh, network.json's latency between two cores
is 10 ns plus the hop latency per mesh hop, to and from global memory
(beside core 0) 15 ns plus the hops from core 0; the manifest lists every
send with its sending and receiving core.

Hand-made C++ mutants of 2026-12-06 (docs/mutation.md) that these kill: a
core's mesh row taken as its number divided by the mesh's rows instead of
its columns (the same on a square mesh), a transfer's sender and receiver
swapped in the manifest."""

from __future__ import annotations

import json
from pathlib import Path

from mlir import ir

import raptor
from raptor import _raptor, pim

TARGET = ('#pim.target<"mesh 2 x 4", cores = 8, mesh = [2, 4], crossbars = 2, crossbar = [8, 8], cell_bits = 8, '
          'weight_bits = 8, clock_ns = 0.5, link_bytes_per_cycle = 32, hop_latency_cycles = 3, '
          'local_memory_bytes = 8192>')


def emit(tmp_path: Path, body: str = "") -> Path:
    text = (f"pim.chip @m cores 8 crossbars 2 of [8, 8] memory 8192 attributes {{target = {TARGET}}} {{\n"
            f"{body}}}\n")
    with raptor.Context():
        _raptor.emit_pim(ir.Module.parse(text), str(tmp_path / "p"), "json")
    return tmp_path / "p"


def test_network_latencies_follow_the_row_major_mesh(tmp_path: Path) -> None:
    """8 cores on 2 rows of 4: core i at (i // 4, i % 4); a hop costs 3
    cycles of 0.5 ns. Every pair, brute force."""
    latency = json.loads((emit(tmp_path) / "network.json").read_text())["latency"]
    place = {i: (i // 4, i % 4) for i in range(8)}
    hops = {(a, b): abs(place[a][0] - place[b][0]) + abs(place[a][1] - place[b][1]) for a in place for b in place}
    assert hops[(0, 7)] == 4 and hops[(3, 4)] == 4 and hops[(1, 5)] == 1  # by hand
    for a in range(8):
        for b in range(8):
            if a != b:
                assert latency[str(a)][str(b)] == 10 + 1.5 * hops[(a, b)], (a, b)
        assert latency["-10"][str(a)] == 15 + 1.5 * hops[(0, a)], a
        assert latency[str(a)]["-10"] == 15 + 1.5 * hops[(0, a)], a
    chip = json.loads((tmp_path / "p" / "chip.json").read_text())["chip_config"]
    assert chip["network_config"]["layout"] == [2, 4]


def test_the_manifest_names_each_transfers_sender_and_receiver(tmp_path: Path) -> None:
    """Core 6 sends 24 bytes with tag 5 to core 1, which receives them."""
    body = ("  pim.core 1 {\n    pim.sldi r2, 0\n    pim.recv r2 from 6 size 24 tag 5\n  }\n"
            "  pim.core 6 {\n    pim.sldi r2, 0\n    pim.send r2 to 1 size 24 tag 5\n  }\n")
    directory = emit(tmp_path, body)
    manifest = pim.Program.load(directory).manifest
    assert manifest["transfers"] == [{"tag": 5, "from": 6, "to": 1, "bytes": 24}]
