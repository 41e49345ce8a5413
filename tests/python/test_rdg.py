"""RDG extraction on the shared `.sure` systems, against dfactl's JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from raptor import rdg

# The project's shared material lies beside the repository (as in CI).
DATA = Path(os.environ.get("RAPTOR_SHARED_DIR",
                           Path(__file__).resolve().parents[2].parent / "shared")) / "data"
SYSTEMS = sorted(p.stem for p in (DATA / "sure").glob("*.sure"))


def test_the_shared_systems_are_there() -> None:
    assert len(SYSTEMS) == 10, f"expected the ten shared .sure systems in {DATA}"


@pytest.mark.parametrize("name", SYSTEMS)
def test_dfactl_form_matches_byte_for_byte(name: str) -> None:
    module = rdg.load_sure(DATA / "sure" / f"{name}.sure")
    assert rdg.to_json(module) == (DATA / "rdg" / f"{name}.json").read_text()


def test_gemv_is_a_sure_with_six_variables() -> None:
    graph = json.loads(rdg.to_json(rdg.load_sure(DATA / "sure" / "gemv.sure")))
    assert graph["kind"] == "SURE"
    assert graph["variables"] == ["a", "acc", "alpha", "beta", "xx", "yin"]
    into_acc = [(a["from"], a["theta"]) for a in graph["arcs"] if a["to"] == "acc"]
    assert into_acc == [("acc", [0, 1, 0]), ("alpha", [0, 0, 1]), ("a", [0, 0, 1]),
                        ("xx", [1, 0, 0])]


def test_lu_is_a_sare_with_three_affine_self_loops() -> None:
    graph = json.loads(rdg.to_json(rdg.load_sure(DATA / "sure" / "lu.sure")))
    assert graph["kind"] == "SARE"
    kinds = [a["kind"] for a in graph["arcs"] if a["from"] == a["to"] == "a"]
    assert kinds == ["uniform", "affine", "affine", "affine"]
    pivot = graph["arcs"][2]["map"]  # a(k,k,k-1)
    assert pivot == {"A": [[0, 0, 1], [0, 0, 1], [0, 0, 1]], "b": [0, 0, -1]}


def test_extended_form_keeps_parameters_and_branches() -> None:
    module = rdg.load_sure(DATA / "sure" / "gauss_seidel.sure")
    graph = rdg.extract(module, "extended")
    assert graph["parameters"] == [{"name": "N", "value": 3}, {"name": "K", "value": 8}]
    # accL reads xs(j, N, k): the second subscript is the parameter N, kept symbolic.
    arc = next(a for a in graph["arcs"] if a["to"] == "accL" and a["from"] == "xs")
    assert arc["map"]["b"] == [0, 0, 0]
    assert arc["map"]["bParameters"] == [[0, 0], [1, 0], [0, 0]]
    assert "theta" not in arc
    # jacobi_systolic: xx's three branches stay apart, with their domains.
    jacobi = rdg.extract(rdg.load_sure(DATA / "sure" / "jacobi_systolic.sure"), "extended")
    xx = [b for b in jacobi["branches"] if b["variable"] == "xx"]
    assert [b["branch"] for b in xx] == [0, 1, 2]
    assert all(b["domain"] for b in xx)
    assert {a["branch"] for a in jacobi["arcs"] if a["to"] == "xx"} == {0, 1, 2}


@pytest.mark.parametrize("text, message", [
    ("N = 3;\nsystem ((i,j) | 0 <= i < N) {\n  a(i,j) = a(i,j-1) + ;\n}", "x.sure:3:23: expected a number"),
    ("system ((i) | 0 <= i < N) { a(i) = 1; }", "x.sure:1:24: unknown index or parameter 'N'"),
    ("N = 2;\nsystem ((i,j) | 0 <= i < N) {\n  a(i,j) = b(i);\n}", "x.sure:3:12: tap 'b' has 1 subscripts"),
    ("system ((i) | 0 <= i) { a(i) = a(i*i); }", "x.sure:1:34: a product of indices is not affine"),
    ("system ((i) | 0 <= i) { a(j) = 1; }", "x.sure:1:25: 'a' must be defined at (i)"),
    ("system ((i) | 0 <= i) { a(i) = sqrt(1, 2); }", "'sqrt' takes 1 arguments, got 2"),
    ("system ((i) | 0 <= i) { a(i) = 1; } input T[4] ((i) | i = -1) : a(i) = U[i];",
     "x.sure:1:72: the face is of array 'T', not 'U'"),
    ("system ((i) | 0 <= i) { a(i) = 1; } input T[4] ((i) | i = -1) : a(i) = T[i][i];",
     "x.sure:1:72: array 'T' has 1 dimensions but 2 subscripts"),
    ("N = 2; system ((i) | 0 <= i) { a(i) = 1; } input T[i] ((i) | i = -1) : a(i) = T[i];",
     "unknown index or parameter 'i'"),
    ("system ((i) | 0 <= i) { a(i) = 1 $ 2; }", "x.sure:1:34: unexpected character '$'"),
    ("N = 2; N = 3; system ((i) | 0 <= i) { a(i) = 1; }", "parameter 'N' is defined twice"),
    ("N = 9223372036854775808; system ((i) | 0 <= i < N) { a(i) = 1; }",
     "x.sure:1:5: integer 9223372036854775808 does not fit in 64 bits"),
    ("system ((i) | 0 <= i) { a(i) = a(i - 99999999999999999999); }",
     "x.sure:1:38: integer 99999999999999999999 does not fit in 64 bits"),
])
def test_syntax_errors_name_line_and_column(text: str, message: str) -> None:
    with pytest.raises(rdg.SureSyntaxError) as info:
        rdg.parse_sure(text, "x.sure")
    assert message in str(info.value)


def test_boundary_faces() -> None:
    text = ("N = 3;\nsystem ((i,j) | 0 <= i < N, 0 <= j < N) {\n  c(i,j) = c(i,j-1) + 1;\n}\n"
            "input C0[N] ((i,j) | 0 <= i < N, j = -1) : c(i,j) = C0[i];\n"
            "output C[N] ((i,j) | 0 <= i < N, j = N - 1) : C[i] = c(i,j);\n")
    module = rdg.parse_sure(text, "faces.sure", "faces")
    ir_text = str(module)
    assert 'sure.input "C0"' in ir_text and 'sure.output "C"' in ir_text
    graph = rdg.extract(module, "extended")
    assert [(a["from"], a["to"]) for a in graph["arcs"]] == [("c", "c")]
    from mlir import ir
    with pytest.raises(ir.MLIRError, match="face of unknown variable 'd'"):
        rdg.parse_sure(text.replace(": c(i,j) = C0", ": d(i,j) = C0"), "faces.sure")


def test_unknown_variable_is_a_located_verifier_error() -> None:
    from mlir import ir
    with pytest.raises(ir.MLIRError, match="reads unknown variable 'b'"):
        rdg.parse_sure("system ((i) | 0 <= i) {\n  a(i) = b(i-1);\n}", "x.sure")


def test_rdg_command(tmp_path: Path) -> None:
    out = tmp_path / "gemm.json"
    result = subprocess.run([sys.executable, "-m", "raptor", "rdg", str(DATA / "sure" / "gemm.sure"),
                             "--json", str(out)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == (DATA / "rdg" / "gemm.json").read_text()
    bad = tmp_path / "bad.sure"
    bad.write_text("system ((i) | 0 <= i) {\n  a(i) = b(i-1);\n}\n")
    result = subprocess.run([sys.executable, "-m", "raptor", "rdg", str(bad), "--json",
                             str(tmp_path / "x.json")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "reads unknown variable 'b'" in result.stderr and "bad.sure" in result.stderr
    assert not (tmp_path / "x.json").exists()


def test_float_constants_in_every_usual_spelling_parse_exactly() -> None:
    """Fuzz repro M: 1e-9 was emitted as an MLIR integer literal and
    rejected with a location in the generated IR."""
    from mlir import ir

    text = "N = 3;\nsystem ((i) | 0 <= i < N) { a(i) = a(i-1) + 1e-9 + 0.000000001 + 1e308 + 2.5E+3 + 7; }\n"
    module = rdg.parse_sure(text, "consts.sure", "consts")
    values = [float(ir.FloatAttr(op.attributes["value"]).value) for op in _walk(module.operation)
              if op.name == "sure.constant"]
    assert values == [1e-9, 1e-9, 1e308, 2500.0, 7.0]
    with pytest.raises(rdg.SureSyntaxError, match=r"consts.sure:2:\d+: the constant 1e309 is beyond"):
        rdg.parse_sure(text.replace("1e308", "1e309"), "consts.sure", "consts")


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)


def test_the_python_api_reports_deep_nesting_and_empty_huge_boxes_as_its_own_errors() -> None:
    """Fuzz repros P and Q through the API, not the CLI: a RecursionError
    from the parser and a MemoryError from enumerating a box with one empty
    range (0 <= j < 0 beside 2^62 values of i) escaped before."""
    from raptor.rdg import SureSyntaxError, parse_sure, to_json
    from raptor.rdg.analysis import AnalysisError, analyze

    deep = (DATA / "fuzz-repros" / "P-sure-deep.sure").read_text()
    with pytest.raises(SureSyntaxError, match=r"^deep:2:\d+: expression nested too deeply"):
        parse_sure(deep, "deep", "deep")
    empty = parse_sure((DATA / "fuzz-repros" / "Q-sure-memerror.sure").read_text(), "q", "q")
    with pytest.raises(AnalysisError, match="the domain is empty"):
        analyze(json.loads(to_json(empty, "extended")))
