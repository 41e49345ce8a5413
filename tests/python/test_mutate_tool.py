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


import semantic  # noqa: E402

SEMANTIC_SOURCE = '''\
def f(a: int, b: int, name: str = "x", scale=1.5, *, strict=False):
    total = a + b
    total += g(a, b)
    return max(a, b), choices.get(name, 3)


WORDS = ("x", "y")
'''


def _edits(name: str) -> set[str]:
    lines = SEMANTIC_SOURCE.splitlines()
    out = set()
    for m in semantic.mutations(SEMANTIC_SOURCE)[name]:
        after = semantic.apply(SEMANTIC_SOURCE, m).splitlines()
        out |= {f"{m.line}: {new.strip()}" for old, new in zip(lines, after) if old != new}
    return out


def test_semantic_operators_make_the_edits_read_off_by_hand() -> None:
    # max(a, b) commutes: no swap there; g(a, b) swaps.
    assert _edits(semantic.SWAP) == {"3: total += g(b, a)", "4: return max(a, b), choices.get(3, name)"}
    assert _edits(semantic.DROP) == {"2: total = a", "3: total = g(a, b)"}
    # Parameters and locals of one type (int: a, b, total) stand for each
    # other where the other is bound on an earlier line; the str `name` has no peer.
    assert _edits(semantic.REPLACE) == {
        "2: total = b + b", "2: total = a + a",
        "3: total += g(b, b)", "3: total += g(a, a)", "3: total += g(a, total)", "3: total += g(total, b)",
        "4: return max(b, b), choices.get(name, 3)", "4: return max(a, a), choices.get(name, 3)",
        "4: return max(total, b), choices.get(name, 3)", "4: return max(a, total), choices.get(name, 3)"}
    # "x" becomes the next word of the module's ("x", "y"); 1.5 doubles; False flips; .get's 3 moves.
    assert _edits(semantic.DEFAULT) == {
        "1: def f(a: int, b: int, name: str = 'y', scale=1.5, *, strict=False):",
        "1: def f(a: int, b: int, name: str = \"x\", scale=3.0, *, strict=False):",
        "1: def f(a: int, b: int, name: str = \"x\", scale=1.5, *, strict=True):",
        "4: return max(a, b), choices.get(name, 4)"}


def test_a_semantic_occurrence_reapplies_the_same_edit() -> None:
    for name, found in semantic.mutations(SEMANTIC_SOURCE).items():
        for k, m in enumerate(found):
            assert semantic.mutate_code(SEMANTIC_SOURCE, name, k) == semantic.apply(SEMANTIC_SOURCE, m)
        assert semantic.mutate_code(SEMANTIC_SOURCE, name, len(found)) is None


def test_semantic_mutants_count_in_their_own_table() -> None:
    mutants = [Mutant("python", "raptor.x", "x.py", 1, "core/NumberReplacer#0", "", outcome=KILLED),
               Mutant("python", "raptor.x", "x.py", 2, "semantic/DropTerm#0", "", outcome=SURVIVED)]
    summary = report.summarize(mutants)
    assert summary["python"]["raptor.x"]["kill_ratio"] == 1.0
    assert summary["python semantic"]["raptor.x"]["kill_ratio"] == 0.0
