"""Near-miss targets: the target JSON reader (simulator/TargetModel,
`--target` of raptor compile and schedule, `target=` of
raptor-build-compute-graph) on inputs one edit away from the bundled
small.json.

Each negative must be refused by raptor-opt with exit 1 and one `error:` line
naming the field; each legal near miss is accepted with a value derived by
hand: the core count of the graph, or the cost of a relu over 40 floats
under pimsim-nn's rules (docs/timing.md): read 160 bytes at
`local_data_width` bytes per cycle, ceil(40 / vector_width) times
`vector_latency_cycle` ns, write them back, plus 7 cycles of dispatch and
retire; on small.json (2 ns clock, widths 64 and 16, latency 4) that is
3 * 2 + 3 * 4 + 3 * 2 + 14 = 38 ns."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

RAPTOR_OPT = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"
SMALL = Path(__file__).parents[2] / "python" / "raptor" / "spatial" / "targets" / "small.json"

MODEL = """func.func @forward(%x: tensor<1x40xf32> {nn.input = "x"}) -> tensor<1x40xf32> {
  %0 = nn.relu %x : tensor<1x40xf32> loc("relu")
  return %0 : tensor<1x40xf32>
}
"""


def small() -> dict[str, Any]:
    return json.loads(SMALL.read_text())


def build(tmp_path: Path, target: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "model.mlir").write_text(MODEL)
    (tmp_path / "target.json").write_text(target)
    return subprocess.run([RAPTOR_OPT, str(tmp_path / "model.mlir"), "--mlir-print-op-on-diagnostic=false",
                           f"--raptor-build-compute-graph=target={tmp_path / 'target.json'}"],
                          capture_output=True, text=True, timeout=60)


def graph_values(result: subprocess.CompletedProcess[str]) -> tuple[int, int, int]:
    """(cores, crossbars per core, the relu's cost in ns) of the graph printed."""
    assert result.returncode == 0, result.stderr
    graph = re.search(r"cores = (\d+) : i64, crossbars_per_core = (\d+) : i64", result.stdout)
    cost = re.search(r'spatial.task "relu#0".*cost_ns = (\d+) : i64', result.stdout)
    assert graph and cost, result.stdout
    return int(graph[1]), int(graph[2]), int(cost[1])


def edited(**changes: Any) -> str:
    """small.json with `section.key` (a dotted name) set, or removed for None."""
    t = small()
    for dotted, value in changes.items():
        *path, key = dotted.split("__")
        node = t
        for p in path:
            node = node.setdefault(p, {})
        if value is None:
            node.pop(key)
        else:
            node[key] = value
    return json.dumps(t)


def test_the_valid_target_gives_the_hand_derived_graph(tmp_path: Path) -> None:
    """small.json itself: 4 cores of 8 crossbars, the relu 38 ns."""
    assert graph_values(build(tmp_path, SMALL.read_text())) == (4, 8, 38)


@pytest.mark.parametrize("target, message", [
    # A field misspelt (so missing), in a required section.
    (edited(cores__count=None, cores__cuont=4), "unknown key 'cores.cuont' (expected count, mesh_rows, mesh_cols)"),
    (edited(crossbar__rows=None), "'crossbar.rows' must be a positive number"),
    # A misspelt optional section or pimsim parameter: its default would have been used silently.
    (edited(memroy__local_bytes=4096), "unknown key 'memroy' (expected name, clock, cores, crossbar, network, "
                                       "memory, pimsim, timing_cycles)"),
    (edited(memory__local_byte=4096), "unknown key 'memory.local_byte' (expected local_bytes)"),
    (edited(pimsim__vector_latency_cylce=8), "unknown key 'pimsim.vector_latency_cylce' (expected adc_count, "),
    (edited(network__hop_latency_cycle=4), "unknown key 'network.hop_latency_cycle'"),
    # Wrong types: a string number, a bool, a fraction where an integer is required.
    (edited(clock__period_ns="2.0"), "'clock.period_ns' must be a positive number"),
    (edited(cores__count=True), "'cores.count' must be a positive number"),
    (edited(cores__count=3.5), "'cores.count' must be a positive integer"),
    (edited(pimsim__vector_width="16"), "'pimsim.vector_width' must be a number"),
    (edited(pimsim=[16]), "'pimsim' must be an object of numbers"),
    # Zero or negative where positive is required, and one past the integer cap.
    (edited(clock__period_ns=0), "'clock.period_ns' must be a positive number"),
    (edited(crossbar__per_core=0), "'crossbar.per_core' must be a positive number"),
    (edited(network__link_bytes_per_cycle=0), "'network.link_bytes_per_cycle' must be a positive number"),
    (edited(network__hop_latency_cycles=-1), "'network.hop_latency_cycles' must be a non-negative number"),
    (edited(cores__count=10**9 + 1), "'cores.count' must be a positive integer"),
    (edited(pimsim__vector_latency_cycle=0), "'vector_latency_cycle' must be a positive number"),
    # One core more than the 2 x 2 mesh holds; one more than the 1024 supported
    # (100001 cores, over TimingConfig's cap, took 30 s and 8.7 GB before it was refused).
    (edited(cores__count=5), "a 2x2 mesh cannot hold 5 cores"),
    (edited(cores__count=1025, cores__mesh_rows=32, cores__mesh_cols=33), "'cores.count' 1025 is more than the 1024 supported"),
    (edited(cores__count=100001, cores__mesh_rows=1, cores__mesh_cols=100001), "'cores.count' 100001 is more than the"),
    # Truncated, an extra trailing token, not an object.
    (SMALL.read_text().rstrip()[:-1], "invalid JSON"),
    (SMALL.read_text() + "}", "invalid JSON"),
    (json.dumps([small()]), "the target must be a JSON object"),
])
def test_target_near_misses_are_one_line_errors(tmp_path: Path, target: str, message: str) -> None:
    """Each check of TargetModel::parse (and of the pimsim timing rules it
    derives) refuses its near miss: exit 1, one line naming the field."""
    result = build(tmp_path, target)
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{tmp_path / 'model.mlir'}:0:0: error: {tmp_path / 'target.json'}: "), \
        result.stderr
    assert message in lines[0]


@pytest.mark.parametrize("target, expected", [
    # The legal side of the boundaries above.
    (edited(cores__count=3), (3, 8, 38)),                      # fewer cores than mesh places
    (edited(cores__count=4.0), (4, 8, 38)),                    # an integral float is an integer
    (edited(network__hop_latency_cycles=0), (4, 8, 38)),       # zero hop latency (a relu sends nothing)
    (edited(memory__local_bytes=4096), (4, 8, 38)),            # the optional section spelt right
    (edited(name=None), (4, 8, 38)),                           # the name is optional
    # The cap itself, and a mesh whose size overflows 32 bits (65536 x 65536
    # was 0 places in unsigned arithmetic: "cannot hold 4 cores").
    (edited(cores__count=1024, cores__mesh_rows=32, cores__mesh_cols=32), (1024, 8, 38)),
    (edited(cores__mesh_rows=65536, cores__mesh_cols=65536), (4, 8, 38)),
    # A pimsim parameter spelt right takes effect: 6 + ceil(40/16) * 8 + 6 + 14.
    (edited(pimsim__vector_latency_cycle=8), (4, 8, 50)),
    # 160 bytes at 32 bytes per cycle: 5 * 2 + 12 + 5 * 2 + 14.
    (edited(pimsim__local_data_width=32), (4, 8, 46)),
    # vector width 8: 6 + ceil(40/8) * 4 + 6 + 14.
    (edited(pimsim__vector_width=8), (4, 8, 46)),
])
def test_target_legal_near_misses_take_their_exact_value(tmp_path: Path, target: str, expected) -> None:
    """Cores, crossbars per core and the relu's cost, derived by hand."""
    assert graph_values(build(tmp_path, target)) == expected


def test_every_documented_pimsim_default_is_a_known_key(tmp_path: Path) -> None:
    """Setting each pimsim parameter to its own default (chip.json's names as
    in docs/scheduling.md) is accepted and changes nothing: the unknown-key
    check does not refuse a real parameter."""
    defaults = {"rob_size": 1, "vector_width": 16, "vector_latency_cycle": 4, "xbar_latency": 30,
                "dac_resolution": 1, "dac_latency_cycle": 1, "sample_hold_latency_cycle": 1,
                "adc_resolution": 8, "adc_latency_cycle": 10, "adc_count": 2, "shift_adder_latency_cycle": 1,
                "input_buffer_latency_cycle": 1, "output_buffer_latency_cycle": 1, "local_data_width": 64,
                "local_read_latency_cycle": 1, "local_write_latency_cycle": 1, "global_data_width": 16,
                "global_read_latency_cycle": 1, "global_write_latency_cycle": 1, "bus_width": 8,
                "sim_mode": 1, "sim_time": 1000, "dac_count": 16, "global_memory_size": 2**32}
    t = copy.deepcopy(small())
    t["pimsim"] = defaults
    assert graph_values(build(tmp_path, json.dumps(t))) == (4, 8, 38)
