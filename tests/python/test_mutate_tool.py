"""tools/mutate/ (make mutate, docs/mutation.md): the C++ mutation sites, the
in-place edit that is always undone, the kill ratio. The Python side needs
cosmic-ray (installed by `make mutate` only) and is exercised by that target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "mutate"))

import cpp_side  # noqa: E402
import report  # noqa: E402
from common import KILLED, SURVIVED, TIMEOUT, INVALID, Mutant, edited  # noqa: E402

SOURCE = """\
// a < b in a comment
static int f(std::vector<int> &v, int n) {
  llvm::SmallVector<int64_t, 8> tiles;
  assert(n < 4 && "a string < too");
  if (n < 0 || !v.empty())
    return v->size() - 1;
  return -n + 2;
}
"""


def _sites(tmp_path: Path) -> set[tuple[int, str, str]]:
    path = tmp_path / "f.cpp"
    path.write_text(SOURCE)
    return {(s.line, s.operator, cpp_side.apply(s, SOURCE).splitlines()[s.line - 1].strip())
            for s in cpp_side.enumerate_sites(str(path))}


def test_cpp_sites_are_the_spaced_operators_constants_and_negations(tmp_path: Path) -> None:
    # Read off SOURCE by hand: line 5 has `n < 0`, `||` and `!v`; line 6 `- 1`;
    # line 7 `+ 2` (the unary minus is not a binary operator). Untouched: the
    # comment, the template brackets, SmallVector's inline size 8, the assert,
    # the string, `->`.
    assert _sites(tmp_path) == {
        (5, "< to <=", "if (n <= 0 || !v.empty())"),
        (5, "constant + 1", "if (n < 1 || !v.empty())"),
        (5, "|| to &&", "if (n < 0 && !v.empty())"),
        (5, "! removed", "if (n < 0 || v.empty())"),
        (6, "- to +", "return v->size() + 1;"),
        (6, "constant + 1", "return v->size() - 2;"),
        (6, "constant - 1", "return v->size() - 0;"),
        (7, "+ to -", "return -n - 2;"),
        (7, "constant + 1", "return -n + 3;"),
        (7, "constant - 1", "return -n + 1;"),
    }


def test_an_edit_is_undone_even_when_the_block_fails(tmp_path: Path) -> None:
    path = tmp_path / "x.cpp"
    path.write_bytes(b"int a = 1;\n")
    with pytest.raises(RuntimeError), edited(path, "int a = 2;\n"):
        assert path.read_text() == "int a = 2;\n"
        raise RuntimeError("build failed")
    assert path.read_bytes() == b"int a = 1;\n"


def test_the_kill_ratio_counts_timeouts_as_killed_and_leaves_invalid_mutants_out() -> None:
    outcomes = [KILLED, KILLED, TIMEOUT, SURVIVED, INVALID]
    mutants = [Mutant("c++", "passes/x", "passes/x/a.cpp", i, "op", "", outcome=o)
               for i, o in enumerate(outcomes)]
    row = report.summarize(mutants)["c++"]["passes/x"]
    assert row == {"mutants": 5, KILLED: 2, SURVIVED: 1, TIMEOUT: 1, INVALID: 1, "kill_ratio": 0.75}
    assert report.summarize(mutants)["c++"]["total"]["kill_ratio"] == 0.75
