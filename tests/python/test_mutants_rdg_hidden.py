"""Hand-made mutants of raptor.rdg that no other test pinned: the
enumeration limit is a bound the analyses may reach (a domain of exactly
max_points points is analysed, one more is refused), and the points they
report are the domain's, counted by hand."""

from __future__ import annotations

import pytest

from raptor import rdg
from raptor.rdg.analysis import AnalysisError, analyze

# A 4 x 3 box: 12 points, each reading its left neighbour.
TEXT = "N = 4;\nM = 3;\nsystem ((i,j) | 0 <= i < N, 0 <= j < M) {\n  a(i,j) = a(i-1,j);\n}\n"


def test_the_enumeration_limit_admits_a_domain_of_exactly_that_many_points() -> None:
    graph = rdg.extract(rdg.parse_sure(TEXT, "box.sure"), "extended")
    verdicts = analyze(graph, max_points=12)
    assert verdicts["points"] == 12 and verdicts["computable"]
    assert verdicts["free_schedule_length"] == 4  # a(0, j) .. a(3, j), one after another
    with pytest.raises(AnalysisError, match="has 12 points, more than the enumeration limit of 11"):
        analyze(graph, max_points=11)
