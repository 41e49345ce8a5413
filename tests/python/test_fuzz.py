"""The project's fuzz harness (tools/fuzz/raptor_fuzz.py): a short seeded
smoke run over every entry point must find no crash, hang, traceback or
partial output; and the defects it found stay fixed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAPTOR = Path(sys.executable).parent / "raptor"


def _harness():
    spec = importlib.util.spec_from_file_location("raptor_fuzz", ROOT / "tools" / "fuzz" / "raptor_fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("raptor_fuzz", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return sys.modules["raptor_fuzz"]


def test_a_seeded_smoke_run_finds_no_defect(tmp_path: Path) -> None:
    fuzz = _harness()
    # (The time budget leaves room for a machine shared with another test
    # worker: the run stops after its 40 inputs, about a minute alone.)
    code = fuzz.main(["--runs", "40", "--seconds", "240", "--seed", "3", "--timeout", "60", "--out",
                      str(tmp_path)])
    report = json.loads((tmp_path / "report.json").read_text())
    # Every entry point ran (the .pt2 and .safetensors ones need the shared repros' seeds).
    assert report["runs"] == 40 and len(report["outcomes"]) >= 18
    assert code == 0, report["defects"]


def test_mutators_change_their_input_deterministically() -> None:
    fuzz = _harness()
    seed = b'func.func @main(%x: tensor<1x12xf32>) -> tensor<1x12xf32> {\n  return %x : tensor<1x12xf32>\n}\n'
    for mutate in (*fuzz.MUTATORS, fuzz.mutate_json):
        a = mutate(fuzz.random.Random(5), seed)
        assert a == mutate(fuzz.random.Random(5), seed)
    assert json.loads(fuzz.mutate_json(fuzz.random.Random(1), b'{"a": [1, 2, {"b": 3}]}')) != {"a": [1, 2, {"b": 3}]}


def test_a_commutation_table_that_is_not_utf8_is_one_error(tmp_path: Path) -> None:
    """Found by the harness: the table parser quoted raw bytes in its
    diagnostic and the Python binding aborted decoding it."""
    table = tmp_path / "t.txt"
    table.write_bytes(b"# table\noperator \xe1ten.add.Tensor int8 X\n")
    p = subprocess.run([str(RAPTOR), "codec-report", "shufflenet_v2", "--table", str(table)], capture_output=True,
                       text=True)
    assert p.returncode == 1
    assert "is not UTF-8 text (line 2)" in p.stderr and "Traceback" not in p.stderr


def test_a_type_with_more_than_2_63_elements_is_one_located_error(tmp_path: Path) -> None:
    """Found by the harness: MLIR's parser asserted (the process aborted) on
    a dense attribute of such a type; Raptor screens IR text first. The
    column counts bytes, as MLIR's do, past a non-ASCII comment."""
    graph = tmp_path / "big.mlir"
    graph.write_text('// café\nfunc.func @f() -> tensor<4x9223372036854775807xf32> {\n'
                     '  %0 = arith.constant dense<1.0> : tensor<4x9223372036854775807xf32>\n'
                     '  return %0 : tensor<4x9223372036854775807xf32>\n}\n')
    p = subprocess.run([str(RAPTOR), "codec-report", str(graph)], capture_output=True, text=True)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.strip().endswith(
        f"{graph}:3:36: tensor type with shape 4x9223372036854775807 has more than 2^63 - 1 elements")


@pytest.mark.parametrize("command", ["codec-report", "summary"])
def test_a_signature_with_more_than_2_63_elements_is_one_located_error(tmp_path: Path, command: str) -> None:
    """No dense literal for the text screen to see: the type is in the
    signature and results (issue 27's repro o01: codec-report aborted on
    MLIR's element-count assertion). The parsed module is screened too."""
    graph = tmp_path / "huge.mlir"
    graph.write_text('func.func @huge(%x: tensor<4x9223372036854775807xf32> {nn.input = "x"}) -> '
                     'tensor<4x9223372036854775807xf32> {\n'
                     '  %0 = nn.relu %x : tensor<4x9223372036854775807xf32>\n'
                     '  return %0 : tensor<4x9223372036854775807xf32>\n}\n')
    p = subprocess.run([str(RAPTOR), command, str(graph)], capture_output=True, text=True)
    assert p.returncode == 1 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    assert f"{graph}:" in p.stderr and "has more elements than int64 counts" in p.stderr


def test_the_oversized_shape_screen_multiplies_only_static_dimensions_of_attributes() -> None:
    from raptor import _raptor

    def flagged(type_: str, attribute: str = "dense<1.0>") -> bool:
        return _raptor.find_oversized_shape(f"%0 = arith.constant {attribute} : {type_}") is not None

    assert flagged("vector<[4]x2305843009213693952x8xf32>")  # wraps to 0 if multiplied on
    assert flagged("memref<3x3074457345618258603xi8>", 'dense<"0x00">')  # 2^63 + 1, a string inside
    assert flagged("tensor<4x9223372036854775807xf32>", "sparse<[[0, 0]], [1.0]>")
    assert flagged("tensor<4x9223372036854775807xf32>", "dense<[[1.0], [2.0]]>")
    assert not flagged("tensor<3x3074457345618258602xi8>")  # 2^63 - 2: fits
    assert not flagged("tensor<0x9223372036854775807x4xf32>")  # empty
    assert not flagged("tensor<?x4xf32>") and not flagged("tensor<f32>")
    # A type that is not an attribute's parses safely: Raptor's verifiers report it.
    assert _raptor.find_oversized_shape("func.func @f(%a: tensor<4x9223372036854775807xf32>)") is None
    assert _raptor.find_oversized_shape('"dense<1.0> : tensor<4x9223372036854775807xf32>" '
                                        "// dense<1.0> : tensor<4x9223372036854775807xf32>") is None
    assert _raptor.find_oversized_shape("mydense<1.0> : tensor<4x9223372036854775807xf32>") is None
    # The lexer's white space, NUL bytes included, may sit between a keyword and its bracket.
    assert flagged("tensor <4x9223372036854775807xf32>", "dense \0\n<1.0>")
    assert flagged("tensor\0<4x\0 9223372036854775807xf32>")
    assert not flagged("tensor <4x4xf32>", "dense\0<1.0>")
    # So may comments (to '\n' or '\r'), anywhere between tokens; and a type
    # alias defined before its use is screened at the use (found by review).
    big = "tensor<4x9223372036854775807xf32>"
    for text in (f"dense<1.0> : // c\n {big}", f"dense // c\n<1.0> : {big}", f"dense<1.0> // c\n : {big}",
                 "dense<1.0> : tensor<4x // c\n 9223372036854775807xf32>", f"// c\r dense<1.0> : {big}",
                 f"dense<1.0 // >\n> : {big}"):
        found = _raptor.find_oversized_shape(text)
        assert found is not None and found[1] == "tensor type with shape 4x9223372036854775807 has more than " \
            "2^63 - 1 elements", text
    aliased = f"!big = {big}\n!small = tensor<4x4xf32>\n%0 = arith.constant dense<1.0> : !big"
    assert _raptor.find_oversized_shape(aliased)[1] == (
        "type alias !big: tensor type with shape 4x9223372036854775807 has more than 2^63 - 1 elements")
    assert _raptor.find_oversized_shape(aliased.replace(": !big", ": !small")) is None
    assert _raptor.find_oversized_shape(f"// c {big} dense<1.0> : {big}") is None  # all one comment
