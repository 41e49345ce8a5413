"""tools/mutate/ (make mutate, docs/mutation.md): the C++ mutation sites, the
in-place edit that is always undone, the kill ratio. The Python side needs
cosmic-ray (installed by `make mutate` only) and is exercised by that target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "mutate"))

import cpp_side  # noqa: E402
import python_side  # noqa: E402
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


import cpp_semantic  # noqa: E402

CPP_SEMANTIC_SOURCE = """\
// pad(a, b) in a comment
static int64_t walk(int64_t n, int64_t stride, double scale) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += pad(i, stride) + emit("x, y", n);
  }
  return std::max(n, sum) - stride;
}
"""


def _cpp_edits(operator: str, path: str, source: str) -> set[str]:
    lines = source.splitlines()
    return {f"{s.line}: {cpp_side.apply(s, source).splitlines()[s.line - 1].strip()}"
            for s in cpp_semantic.enumerate_sites(path, source) if s.operator == operator
            and lines[s.line - 1] != cpp_side.apply(s, source).splitlines()[s.line - 1]}


def test_cpp_semantic_operators_make_the_edits_read_off_by_hand() -> None:
    src = CPP_SEMANTIC_SOURCE
    # pad's arguments swap; emit's string is masked (not an argument to swap),
    # max commutes, the parameters of the declaration are not a call's.
    assert _cpp_edits(cpp_semantic.SWAP, "f.cpp", src) == {"5: sum += pad(stride, i) + emit(\"x, y\", n);"}
    assert _cpp_edits(cpp_semantic.DROP, "f.cpp", src) == {
        "5: sum = pad(i, stride) + emit(\"x, y\", n);", "5: sum += pad(i, stride);",
        "7: return std::max(n, sum);"}
    # int64_t names in scope stand for each other: `i` only inside its loop
    # (and not on its own line), `sum` after line 3; the written `sum` and
    # `++i` stay; the double `scale` has no peer.
    replaced = _cpp_edits(cpp_semantic.REPLACE, "f.cpp", src)
    assert "5: sum += pad(n, stride) + emit(\"x, y\", n);" in replaced
    assert "7: return std::max(n, i) - stride;" not in replaced  # i is out of scope
    assert "7: return std::max(stride, sum) - stride;" in replaced
    assert not any(e.startswith(("5: n +=", "5: i +=", "5: stride +=", "4: for (int64_t i = 0; i < n; ++n)"))
                   for e in replaced)
    # Counted by hand: line 4 reads n (by stride or sum: 2); line 5 reads i,
    # stride and n, each by the 3 other names in scope (9); line 7 reads n, sum
    # and stride, each by the 2 others (6).
    assert len(replaced) == 2 + 9 + 6
    # Defaults live in headers and ODS only: none in a .cpp.
    assert _cpp_edits(cpp_semantic.DEFAULT, "f.cpp", src) == set()


def test_cpp_semantic_defaults_are_ods_options_and_header_members() -> None:
    td = ('    Option<"budget", "budget", "double", /*default=*/"0.5",\n'
          '    Option<"follow", "follow", "bool", /*default=*/"true", "desc">,\n'
          '    Option<"out", "out", "std::string", /*default=*/"\\"-\\"", "x">,\n')
    assert _cpp_edits(cpp_semantic.DEFAULT, "P.td", td) == {
        '1: Option<"budget", "budget", "double", /*default=*/"1.0",',
        '2: Option<"follow", "follow", "bool", /*default=*/"false", "desc">,'}
    header = ("struct Options {\n  double budget = 0.5;\n  int64_t depth = 0;\n  bool quiet = false;\n"
              "  std::string name = \"x\";\n  void f() {\n    int64_t local = 3;\n  }\n};\n")
    assert _cpp_edits(cpp_semantic.DEFAULT, "O.h", header) == {
        "2: double budget = 1.0;", "3: int64_t depth = 1;", "4: bool quiet = true;"}
    # A header's code is not mutated by the other operators (its .cpp is).
    assert _cpp_edits(cpp_semantic.DROP, "O.h", "  int64_t x = a + b;\n") == set()


def test_the_cpp_semantic_sample_lets_every_operator_take_its_turn() -> None:
    mutants = cpp_side.sample(24, 5, family="semantic")
    assert len(mutants) == 24
    operators = {m.operator for m, _ in mutants}
    assert operators == set(cpp_semantic.OPERATORS)
    assert all(m.diff and m.tests for m, _ in mutants)
    # The same seed draws the same sample; the token family's stream is its own.
    again = cpp_side.sample(24, 5, family="semantic")
    assert [m.diff for m, _ in mutants] == [m.diff for m, _ in again]
    assert {m.diff for m, _ in cpp_side.sample(24, 5)}.isdisjoint(m.diff for m, _ in mutants)


def test_every_oracle_test_file_runs_for_some_module() -> None:
    """The defaults, report-field, property and near-miss tests are what kill
    semantic mutants: each must be in some module's test map, or `make mutate`
    never runs it against a mutant."""
    import testmap

    mapped = {f for m in testmap.PYTHON_MODULES for f in testmap.tests_for_python(m)}
    mapped |= {f for m in testmap.CPP_MODULES for f in testmap.tests_for_cpp(m)[1]}
    wanted = {p.relative_to(testmap.ROOT).as_posix() for pattern in
              ("test_defaults*.py", "test_report_fields*.py", "test_properties*.py", "test_near_misses*.py")
              for p in testmap.TESTS.glob(pattern)}
    assert len(wanted) >= 12 and wanted <= mapped, sorted(wanted - mapped)


def test_a_mutation_cosmic_ray_cannot_apply_is_none_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """cosmic-ray's ExceptionReplacer lists the names of a tuple of dotted
    exceptions but raises AttributeError applying them when the try has
    another dotted clause (raptor.sources has one): `make mutate` drew such
    a mutant and stopped with a traceback. Such a mutant is now not
    applicable (None), as the run records mutants that change nothing; a
    stand-in for cosmic-ray (installed by `make mutate` only) raises as it
    does."""
    import types

    def mutate_code(source: str, operator: object, occurrence: int) -> str:
        if occurrence == 3:
            raise AttributeError("'PythonNode' object has no attribute 'value'")
        return source + f"# mutant {occurrence}\n"

    mutating = types.SimpleNamespace(mutate_code=mutate_code)
    plugins = types.SimpleNamespace(get_operator=lambda name: object)
    monkeypatch.setitem(sys.modules, "cosmic_ray", types.SimpleNamespace(mutating=mutating, plugins=plugins))
    monkeypatch.setitem(sys.modules, "cosmic_ray.mutating", mutating)
    monkeypatch.setitem(sys.modules, "cosmic_ray.plugins", plugins)
    assert python_side.mutate("x = 1\n", "core/ExceptionReplacer#3") is None
    assert python_side.mutate("x = 1\n", "core/ExceptionReplacer#2") == "x = 1\n# mutant 2\n"
