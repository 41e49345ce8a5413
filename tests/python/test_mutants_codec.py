"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/codec/synthetic.py: the generators' shapes, counted by hand from their
definitions (a binary tree over n leaves has n - 1 inner nodes, and so on)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from raptor.codec.synthetic import concat_tree, random_dag, reshape_chain, residual_ladder


def _ops(text: str) -> Counter[str]:
    return Counter(re.findall(r"= (nn\.\w+)", text))


def _uses(text: str) -> Counter[str]:
    """How often each SSA value is used as an operand (or returned)."""
    uses: Counter[str] = Counter()
    for line in text.splitlines():
        rhs = line.split("=", 1)[1] if " = " in line else line
        uses.update(re.findall(r"%[av]\d+", rhs))
    return uses


@pytest.mark.parametrize("size, leaves", [(1, 2), (3, 2), (9, 3), (12, 4), (15, 5), (21, 7), (24, 8)])
def test_concat_tree_is_a_binary_tree_over_its_leaves(size: int, leaves: int) -> None:
    text = concat_tree(size)
    assert _ops(text) == {"nn.view": leaves, "nn.cat": leaves - 1, "nn.slice": leaves - 1}
    uses = _uses(text)
    # A tree: every view and every slice feeds exactly one consumer; one result.
    assert all(n == 1 for v, n in uses.items() if v.startswith("%v"))
    assert uses["%a0"] == leaves
    assert text.count("return ") == 1 and "-> (tensor<4xf32>)" in text


@pytest.mark.parametrize("size, rungs", [(1, 1), (2, 1), (3, 1), (8, 2), (9, 3), (30, 10)])
def test_residual_ladder_has_one_rung_per_three_steps(size: int, rungs: int) -> None:
    assert _ops(residual_ladder(size)) == {"nn.view": rungs, "nn.relu": rungs, "nn.add": rungs}


@pytest.mark.parametrize("size", [1, 5, 17])
def test_reshape_chain_has_one_view_per_step(size: int) -> None:
    assert _ops(reshape_chain(size)) == {"nn.view": size}


def test_random_dag_draws_every_kind_of_step() -> None:
    # Nine kinds drawn uniformly per step: over 10 graphs of 30 steps each
    # (270 draws) every kind occurs (a kind is missed with probability < 1e-12).
    seen: Counter[str] = Counter()
    for seed in range(10):
        text = random_dag(seed, 30)
        seen += _ops(text)
        seen["split"] += len(re.findall(r":2 = nn\.split_with_sizes", text))
        seen["pool"] += len(re.findall(r":2 = nn\.max_pool2d", text))
        # Each concatenation feeds exactly one slice or one split, never both.
        for cat in re.findall(r"(%v\d+) = nn\.cat", text):
            consumers = re.findall(rf"= nn\.(\w+) {cat} ", text)
            assert consumers in (["slice"], ["split_with_sizes"]), (seed, cat, consumers)
    for op in ("nn.view", "nn.clone", "nn.relu", "nn.add", "nn.mul", "nn.permute", "nn.cat", "nn.slice"):
        assert seen[op] > 0, op
    assert seen["split"] > 0 and seen["pool"] > 0


def test_the_single_input_generators_take_one_input_and_the_random_dag_two() -> None:
    # reshape_chain, concat_tree and residual_ladder are documented as graphs
    # of one input x; random_dag draws from two.
    for text in (reshape_chain(3), concat_tree(6), residual_ladder(3)):
        assert text.count("nn.input") == 1 and '%a0: tensor<4xf32> {nn.input = "a0"}' in text
    assert random_dag(1, 8).count("nn.input") == 2


def test_a_random_dag_with_a_window_of_one_chains_each_step_on_the_last_value() -> None:
    """``window`` keeps operands among the last values: with a window of 1
    both operands of every two-operand step are the newest value; without
    one, they are drawn from every value, and some steps read two."""
    two = r"= nn\.(?:add|mul|cat) (%\S+), (%\S+) : \(tensor<4xf32>, tensor<4xf32>\)"
    windowed = [pair for seed in range(5) for pair in re.findall(two, random_dag(seed, 40, window=1))]
    assert windowed and all(a == b for a, b in windowed)
    free = [pair for seed in range(5) for pair in re.findall(two, random_dag(seed, 40))]
    assert any(a != b for a, b in free)
