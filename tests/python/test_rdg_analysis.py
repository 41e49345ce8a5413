"""RDG analyses, each verdict checked against the free-schedule oracle."""

from __future__ import annotations

import copy
import random

import pytest

from raptor import rdg
from raptor.rdg.analysis import (AnalysisError, analyze, free_schedule, instantiate, kmw,
                                 linear_schedule)
from test_rdg import DATA, SYSTEMS


def _graph(name: str) -> dict:
    return rdg.extract(rdg.load_sure(DATA / "sure" / f"{name}.sure"), "extended")


def _check_schedule(inst, schedule: dict) -> None:
    """Every read happens strictly after its producer under tau and offsets."""
    tau, offsets = schedule["tau"], schedule["offsets"]
    for (producer, consumer, _), pairs in inst.reads.items():
        for p, q in pairs:
            tp = sum(t * x for t, x in zip(tau, p)) + offsets[f"{consumer[0]}[{consumer[1]}]"]
            tq = sum(t * x for t, x in zip(tau, q)) + offsets[f"{producer[0]}[{producer[1]}]"]
            assert tp - tq >= 1 - 1e-6


@pytest.mark.parametrize("name", SYSTEMS)
def test_verdicts_agree_with_the_free_schedule(name: str) -> None:
    graph = _graph(name)
    verdicts = analyze(graph)
    assert verdicts["computable"]  # every shared system is computable
    assert "kmw_disagrees_with_free_schedule" not in verdicts
    if graph["kind"] == "SURE":
        assert verdicts["kmw"]["computable"]
    inst = instantiate(graph)
    if verdicts["linear_schedule"] is not None:
        _check_schedule(inst, verdicts["linear_schedule"])


def test_jacobi_needs_its_branches_apart() -> None:
    graph = _graph("jacobi_systolic")
    assert kmw(instantiate(graph)) == (True, 2)
    # Merging xx's three branches into one node, as dfactl does, makes the
    # two opposite self-loops a zero-weight cycle: KMW then rejects it.
    merged = copy.deepcopy(graph)
    for b in merged["branches"]:
        b["branch"], b["constraints"] = 0, []
    merged["branches"] = [b for i, b in enumerate(merged["branches"])
                          if (b["variable"], 0) not in {(x["variable"], 0) for x in merged["branches"][:i]}]
    for a in merged["arcs"]:
        a["branch"] = 0
    assert kmw(instantiate(merged)) == (False, 0)


@pytest.mark.parametrize("name", ["lu", "cholesky"])
def test_uniform_part_schedule_of_the_factorizations(name: str) -> None:
    schedule = linear_schedule(instantiate(_graph(name)), uniform_only=True)
    assert schedule["tau"] == [0.0, 0.0, 1.0]


def test_a_cycle_is_not_computable() -> None:
    text = "N = 4;\nsystem ((i) | 0 <= i < N) {\n  a(i) = b(i);\n  b(i) = a(i);\n}\n"
    verdicts = analyze(rdg.extract(rdg.parse_sure(text, "cycle.sure"), "extended"))
    assert verdicts["computable"] is False and verdicts["free_schedule_length"] is None
    assert verdicts["kmw"] == {"computable": False, "depth": 0}
    assert verdicts["linear_schedule"] is None


def test_enumeration_is_bounded() -> None:
    text = "N = 1000;\nsystem ((i,j) | 0 <= i < N, 0 <= j < N) {\n  a(i,j) = a(i-1,j);\n}\n"
    graph = rdg.extract(rdg.parse_sure(text, "big.sure"), "extended")
    with pytest.raises(AnalysisError, match="more than the enumeration limit"):
        analyze(graph, max_points=10_000)
    empty = "N = 0;\nsystem ((i) | 0 <= i < N) {\n  a(i) = a(i-1);\n}\n"
    with pytest.raises(AnalysisError, match="the domain is empty"):
        analyze(rdg.extract(rdg.parse_sure(empty, "e.sure"), "extended"))
    unbounded = "system ((i) | 0 <= i) {\n  a(i) = a(i-1);\n}\n"
    with pytest.raises(AnalysisError, match="no constant bound"):
        analyze(rdg.extract(rdg.parse_sure(unbounded, "u.sure"), "extended"))


def _random_sure(seed: int) -> str:
    rng = random.Random(seed)
    names = ["a", "b", "c"][: rng.randint(1, 3)]
    lines = []
    for v in names:
        taps = []
        for _ in range(rng.randint(1, 3)):
            s = rng.choice(names)
            di, dj = rng.choice([-1, 0, 1]), rng.choice([-1, 0, 1])
            taps.append(f"{s}(i{di:+d},j{dj:+d})".replace("+0", "").replace("-0", ""))
        lines.append(f"  {v}(i,j) = {' + '.join(taps)};")
    return "N = 5;\nsystem ((i,j) | 0 <= i < N, 0 <= j < N) {\n" + "\n".join(lines) + "\n}\n"


@pytest.mark.parametrize("seed", range(40))
def test_kmw_and_linear_schedules_are_sound_on_random_sures(seed: int) -> None:
    graph = rdg.extract(rdg.parse_sure(_random_sure(seed), f"r{seed}.sure"), "extended")
    inst = instantiate(graph)
    free = free_schedule(inst)
    computable, _ = kmw(inst)
    # KMW holds for unbounded domains: if it accepts, the finite instance is
    # computable too; a cycle in the instance means KMW must reject.
    if computable:
        assert free is not None
    if free is None:
        assert not computable
    schedule = linear_schedule(inst)
    if schedule is not None:
        assert free is not None
        _check_schedule(inst, schedule)


def test_nn_operators_carry_computable_recurrences() -> None:
    from mlir import ir, passmanager

    import raptor
    from raptor import zoo

    with raptor.Context():
        module = ir.Module.parse("""
          func.func @f(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x2x2xf32>, %a: tensor<3x4xf32>,
                       %b: tensor<4x2xf32>) {
            %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>,
                   dilation = array<i64: 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x3x3xf32>
            %1 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
            return
          }""")
        passmanager.PassManager.parse("builtin.module(raptor-derive-recurrences)").run(module.operation)
    docs = rdg.to_json(module, "extended")
    graphs = [json_doc for json_doc in _split_json(docs)]
    assert [g["operator"] for g in graphs] == ["convolution_0", "matmul_1"]
    conv, matmul = (analyze(g) for g in graphs)
    # conv: 2x3x3 outputs, each a chain of C*R*S = 8 accumulation steps.
    assert conv["computable"] and conv["kmw"]["computable"]
    assert conv["points"] == 3 * 2 * 3 * 3 * 2 * 2 * 2
    assert matmul["computable"] and matmul["linear_schedule"]["tau"] == [1.0, 1.0, 1.0]
    # Every typed matrix op of a zoo model gets one (depthwise convolutions excepted).
    unet = zoo.load_graph("unet")
    with unet.context:
        passmanager.PassManager.parse("builtin.module(raptor-derive-recurrences)").run(unet.operation)
    assert str(unet).count("sure.system @") == 47


def _split_json(text: str) -> list[dict]:
    import json

    decoder, pos, out = json.JSONDecoder(), 0, []
    while pos < len(text.strip()):
        doc, end = decoder.raw_decode(text, pos)
        out.append(doc)
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out
