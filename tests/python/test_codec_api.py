"""Codec placement from Python and the `raptor codec-report` command, on the
bundled zoo graphs in the paper's graph conventions, checked against the
paper's tables (seed 000, Tables 1-4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

import raptor
from raptor import codec, zoo

MIB = 1024 * 1024
# Paper, Table 1 (storage under Y, X and W) and the Y - Z change of Table 2.
PAPER_INT8_STORAGE = {"shufflenet_v2": 2.3, "unet": 23.4, "siglip": 85.0, "smollm2": 101.4}
PAPER_Y_MINUS_Z = {"shufflenet_v2": 3.1, "unet": 119.5, "siglip": 227.1, "smollm2": -194.8}
PAPER_Y_CODEC_ITEMS = {"shufflenet_v2": 4.2, "unet": 90.4, "siglip": 209.2, "smollm2": 47.9}
# Table 2 under Z (MiB) and Table 4's reductions of traffic by non-local
# placement (without, with coalescing) relative to local placement (%).
PAPER_Z_TRAFFIC = {"shufflenet_v2": 54.8, "unet": 920.4, "siglip": 1802.7, "smollm2": 741.1}
PAPER_REDUCTIONS = {"shufflenet_v2": (44.2, 44.2), "unet": (38.7, 39.3), "siglip": (23.5, 23.5),
                    "smollm2": (33.6, 33.6)}
# How close issue 12 asks Table 4 to be (points); SigLIP's and SmolLM2's
# graphs are further from the paper's (docs/codec.md).
REDUCTION_TOLERANCE = {"shufflenet_v2": 2.5, "unet": 2.5, "siglip": 4.0, "smollm2": 7.0}


def _graph(name: str) -> ir.Module:
    module = zoo.load_graph(name)
    codec.apply_paper_conventions(module)
    return module


def _costs(name: str, policy: str, placement: str = "nonlocal-coalesced") -> codec.Costs:
    module = _graph(name)
    codec.place(module, policy, placement)
    (costs,) = codec.costs(module)
    return costs


@pytest.mark.parametrize("name", zoo.NAMES)
def test_storage_matches_table_1_under_every_policy(name: str) -> None:
    assert round(_costs(name, "Z").storage_mib, 1) == zoo.PAPER_FP32_MIB[name]
    for policy in "YXW":
        assert round(_costs(name, policy).storage_mib, 1) == PAPER_INT8_STORAGE[name]


@pytest.mark.parametrize("name", zoo.NAMES)
def test_policy_z_needs_no_codecs(name: str) -> None:
    z = _costs(name, "Z")
    assert (z.codec_items, z.encoders, z.decoders, z.encoded_subgraphs) == (0, 0, 0, 0)
    assert z.codec_traffic_bytes == 0


@pytest.mark.parametrize("name", zoo.NAMES)
def test_policy_y_reproduces_the_traffic_change_and_codec_items(name: str) -> None:
    z, y = _costs(name, "Z"), _costs(name, "Y")
    # The paper prints one decimal: its differences are good to 0.1 MiB,
    # its item counts to half a printed digit (1.2% of ShuffleNetV2's 4.2 M).
    assert (y.traffic_bytes - z.traffic_bytes) / MIB == pytest.approx(PAPER_Y_MINUS_Z[name], abs=0.15)
    assert y.codec_items_m == pytest.approx(PAPER_Y_CODEC_ITEMS[name], rel=0.015)


@pytest.mark.parametrize("name", zoo.NAMES)
def test_non_local_placement_beats_local(name: str) -> None:
    local = _costs(name, "W", "local")
    nonlocal_ = _costs(name, "W", "nonlocal")
    coalesced = _costs(name, "W", "nonlocal-coalesced")
    assert coalesced.traffic_bytes <= nonlocal_.traffic_bytes < local.traffic_bytes
    assert coalesced.codec_items <= nonlocal_.codec_items < local.codec_items
    assert coalesced.subgraphs <= nonlocal_.subgraphs
    # Storage does not depend on placement.
    assert local.storage_bytes == nonlocal_.storage_bytes == coalesced.storage_bytes


@pytest.mark.parametrize("name, w_minus_z, w_items", [("shufflenet_v2", -15.4, 4.3), ("unet", -160.8, 84.0)])
def test_policy_w_reproduces_the_traffic_change_and_codec_items_of_the_cnns(name: str, w_minus_z: float,
                                                                            w_items: float) -> None:
    """W routes layout operators (padding, pooling, cat, split) as INT8: on
    the CNNs its figures depend on the requantizer being one codec and on
    the explicit padding (docs/codec.md)."""
    z, w = _costs(name, "Z"), _costs(name, "W")
    assert (w.traffic_bytes - z.traffic_bytes) / MIB == pytest.approx(w_minus_z, abs=0.15)
    assert w.codec_items_m == pytest.approx(w_items, rel=0.012)


def test_policy_w_codec_items_of_smollm2_need_rotations_before_the_head_split() -> None:
    """The rotation is FP32 only and the head layout operators INT8 at W:
    rotating the projections before their split (raptor-pack-rotary-heads)
    gives Table 3's 47.1 M; after it, each query and key is decoded and
    re-encoded once more (53.1 M)."""
    assert _costs("smollm2", "W").codec_items_m == pytest.approx(47.1, rel=0.012)
    module = zoo.load_graph("smollm2")
    codec._run(module, ",".join(p for p in codec.PAPER_CONVENTIONS if p != "raptor-pack-rotary-heads"))
    codec.place(module, "W")
    assert codec.costs(module)[0].codec_items_m == pytest.approx(53.1, abs=0.05)


@pytest.mark.parametrize("name", ["shufflenet_v2", "unet", "smollm2"])
def test_traffic_under_z_matches_table_2(name: str) -> None:
    """Z has no codecs: the traffic is the graph's operand reads, which the
    paper's conventions (explicit padding; for SmolLM2 the unfused repeat_kv
    and the tables without a head axis) make the paper's within 2%."""
    assert _costs(name, "Z").traffic_bytes / MIB == pytest.approx(PAPER_Z_TRAFFIC[name], rel=0.02)


@pytest.mark.parametrize("name", zoo.NAMES)
def test_non_local_placement_reduces_traffic_as_in_table_4(name: str) -> None:
    local = _costs(name, "W", "local").traffic_bytes
    for placement, paper in zip(("nonlocal", "nonlocal-coalesced"), PAPER_REDUCTIONS[name]):
        reduction = 100 * (1 - _costs(name, "W", placement).traffic_bytes / local)
        assert reduction == pytest.approx(paper, abs=REDUCTION_TOLERANCE[name]), placement


def test_non_local_placement_beats_local_on_a_torchvision_model() -> None:
    """MobileNetV3-small (random weights): a projection's sums are read by
    the residual add (FP32) and, re-encoded, by the next block; decoding
    them twice made non-local placement cost more items than local."""
    import re

    import torch
    import torchvision
    from pim_helpers import export

    from raptor.frontend.torch import import_program

    model = torchvision.models.mobilenet_v3_small(num_classes=10).eval()
    module, _ = import_program(export(model, torch.randn(1, 3, 96, 96)), context=raptor.Context())
    placed = {}
    for placement in ("local", "nonlocal"):
        m = ir.Module.parse(str(module), context=module.context)
        codec.place(m, "W", placement)
        (placed[placement],) = codec.costs(m)
        codec.materialize(m)
        decodes = re.findall(r"codec\.decode (%\w+) from <(\d+)", str(m))
        assert len(decodes) == len(set(decodes)), placement  # each value decoded once per semantics
    assert placed["nonlocal"].codec_items < placed["local"].codec_items
    assert placed["nonlocal"].traffic_bytes < placed["local"].traffic_bytes


def test_materialized_codecs_match_the_counts() -> None:
    module = _graph("unet")
    codec.place(module, "W")
    (costs,) = codec.costs(module)
    codec.materialize(module)
    assert module.operation.verify()
    names = [op.name for op in module.body.operations[0].regions[0].blocks[0].operations]
    assert not any(n.startswith("codec.mark") for n in names)
    # Weights are encoded ahead of time: one encode per convolution weight.
    weights = 47
    assert names.count("codec.encode") == costs.encoders + weights
    assert names.count("codec.decode") == costs.decoders
    assert names.count("codec.requantize") == costs.requantizers
    assert names.count("codec.observe") == costs.encoded_subgraphs
    with pytest.raises(ValueError, match="carry no codec semantics"):
        codec.costs(module)


def test_bad_arguments_are_reported(tmp_path: Path) -> None:
    module = zoo.load_graph("shufflenet_v2")
    with pytest.raises(ValueError, match="unknown policy 'Q'"):
        codec.place(module, "Q")
    with pytest.raises(ValueError, match="unknown placement"):
        codec.place(module, "W", "everywhere")
    table = tmp_path / "table.txt"
    table.write_text("operator aten.view.default int8 W\n  block self -> outt\n")
    with pytest.raises(ir.MLIRError, match="unknown output port 'outt'"):
        codec.place(module, "W", table=str(table))
    # The failed placement left no markers behind.
    assert "codec.mark" not in str(module)


def test_seed_table_round_trips_through_a_file(tmp_path: Path) -> None:
    table = tmp_path / "seed.txt"
    table.write_text(codec.seed_table())
    a, b = zoo.load_graph("siglip"), zoo.load_graph("siglip")
    codec.place(a, "X")
    codec.place(b, "X", table=str(table))
    assert codec.costs(a) == codec.costs(b)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "raptor", *args], capture_output=True,
                          text=True, timeout=120)


def test_codec_report_json(tmp_path: Path) -> None:
    out = tmp_path / "placed.mlir"
    result = _cli("codec-report", "shufflenet_v2", "--policy", "W", "--placement", "local",
                  "--json", "-o", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for key in ("storage_mib", "traffic_mib", "codec_items", "subgraphs"):
        assert key in report
    assert report["placement"] == "local" and round(report["storage_mib"], 1) == 2.3
    assert "codec.decode" in out.read_text()
    # A zoo model is reported in the paper's conventions unless asked not to
    # (Table 4's local column: 71.0 MiB with explicit padding, 61.4 without).
    assert report["paper_conventions"] is True and round(report["traffic_mib"], 1) == 71.0
    assert "nn.constant_pad_nd" in out.read_text()
    plain = json.loads(_cli("codec-report", "shufflenet_v2", "--placement", "local", "--json",
                            "--no-paper-conventions").stdout)
    assert plain["paper_conventions"] is False and round(plain["traffic_mib"], 1) == 61.4
    # A file is reported as it is (the graph the compiler would compile).
    graph = tmp_path / "snv2.mlir"
    graph.write_text(zoo.graph_path("shufflenet_v2").read_text())
    as_file = json.loads(_cli("codec-report", str(graph), "--placement", "local", "--json").stdout)
    assert as_file["paper_conventions"] is False and as_file["traffic_mib"] == plain["traffic_mib"]


def test_codec_report_table_and_errors(tmp_path: Path) -> None:
    result = _cli("codec-report", "unet", "--policy", "Y")
    assert result.returncode == 0, result.stderr
    assert "storage" in result.stdout and "23.43 MiB" in result.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text("operator aten.nope.default\n")
    result = _cli("codec-report", "unet", "--table", str(bad), "-o", str(tmp_path / "x.mlir"))
    assert result.returncode == 1
    assert "unknown operator 'aten.nope.default'" in result.stderr
    assert not (tmp_path / "x.mlir").exists()


@pytest.mark.parametrize("name", ["with space.txt", "t},raptor-summarize-graph{output=inj.txt", "q\"'.txt"])
def test_any_table_file_name_is_one_option_value(tmp_path: Path, name: str, monkeypatch) -> None:
    """A table path used to be pasted into the pass pipeline: a space broke
    it and a crafted name added a pass that wrote a file (fuzz finding)."""
    monkeypatch.chdir(tmp_path)
    table = tmp_path / name
    table.write_text(codec.seed_table())
    module = zoo.load_graph("shufflenet_v2")
    codec.place(module, "W", table=str(table))
    plain = zoo.load_graph("shufflenet_v2")
    codec.place(plain, "W")
    assert codec.costs(module)[0].traffic_bytes == codec.costs(plain)[0].traffic_bytes
    assert not (tmp_path / "inj.txt").exists()
