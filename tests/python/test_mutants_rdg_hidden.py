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


def test_a_read_through_a_parameter_shifts_by_its_value() -> None:
    """x(i) = x(i - N) + 1 with N = 4 over 0 <= i < 8: points 4..7 read
    points 0..3 (inside the domain), points 0..3 read below it (inputs).
    Computable in two steps; a read at i, not i - N, would read itself."""
    text = "N = 4;\nsystem ((i) | 0 <= i < 8) {\n  x(i) = x(i - N) + 1;\n}\n"
    verdicts = analyze(rdg.extract(rdg.parse_sure(text, "shift.sure"), "extended"))
    assert verdicts["points"] == 8 and verdicts["computable"]
    assert verdicts["free_schedule_length"] == 2


def test_a_syntax_error_at_the_end_names_the_column_after_the_last_token() -> None:
    """`N = 4` without its semicolon: the parser meets the end of the file
    right after the 4 (line 1, column 6)."""
    with pytest.raises(rdg.SureSyntaxError, match=r"^f\.sure:1:6: expected ';', found 'end of file'"):
        rdg.parse_sure("N = 4", "f.sure")
