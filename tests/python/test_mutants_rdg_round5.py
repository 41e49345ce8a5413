"""Hand-made mutant of raptor.rdg (fifth round): the enumeration box rounds
a bound that does not divide exactly towards the domain (a lower bound up,
an upper bound down); rounded the other way it admits a point outside the
domain and reaches the enumeration limit one point early."""

from __future__ import annotations

import pytest

from raptor.rdg.analysis import AnalysisError, _box


def _at_least(coefficient: int, constant: int) -> dict:
    """coefficient * i + constant >= 0."""
    return {"dims": [coefficient], "params": [], "constant": constant, "equality": False}


def test_bounds_that_do_not_divide_round_into_the_domain() -> None:
    # 2i - 3 >= 0 and -2i + 9 >= 0: 1.5 <= i <= 4.5, so i in {2, 3, 4}.
    assert _box([_at_least(2, -3), _at_least(-2, 9)], 1, []) == [range(2, 5)]
    # Negative constants the other way round: -3i - 1 >= 0 and 3i + 8 >= 0: -8/3 <= i <= -1/3.
    assert _box([_at_least(-3, -1), _at_least(3, 8)], 1, []) == [range(-2, 0)]


def test_the_enumeration_limit_counts_the_rounded_box() -> None:
    from raptor import rdg
    from raptor.rdg.analysis import analyze

    # 2i >= 1 and i <= 10: i in 1..10, ten points (rounded down, i = 0 would make eleven).
    text = "N = 10;\nsystem ((i) | 2*i >= 1, i <= N) {\n  a(i) = a(i-1);\n}\n"
    graph = rdg.extract(rdg.parse_sure(text, "half.sure"), "extended")
    assert analyze(graph, max_points=10)["points"] == 10
    with pytest.raises(AnalysisError, match="more than the enumeration limit of 9"):
        analyze(graph, max_points=9)
