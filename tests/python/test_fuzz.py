"""The project's fuzz harness (tools/fuzz/raptor_fuzz.py): a short seeded
smoke run over every entry point must find no crash, hang, traceback or
partial output; and the defects it found stay fixed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

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
    code = fuzz.main(["--runs", "33", "--seed", "3", "--timeout", "60", "--out", str(tmp_path)])
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["runs"] == 33 and len(report["outcomes"]) == 11  # every entry point ran
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
