"""Near-miss commutation tables: the table reader (passes/codec/
CommutationTable, `table=` of the codec passes, `raptor codec-report
--table`) on tables one edit away from a valid one.

The valid neighbour says that views commute with codecs and have an INT8
variant from policy Y on. On a chain x -> view -> view -> cat(v, v) placed
with policy Y it makes the two views one encoded subgraph: x is encoded, the
views run on codes, one decoder feeds both operands of the fp32 cat
(the CUSTOM case of tests/lit/passes/codec/bad-table.mlir). Without an INT8
view nothing is encoded; with INT8 views that have no port block, each view
is a subgraph of its own. Each negative must be refused with exit 1 and one
`error:` line naming the file, line (and column) and the problem; each legal
near miss must give exactly one of those two placements."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RAPTOR = [sys.executable, "-m", "raptor"]
RAPTOR_OPT = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"

MODEL = """func.func @views(%x: tensor<2x8xf32> {nn.input = "x"}) -> tensor<32xf32> {
  %0 = nn.view %x {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %1 = nn.view %0 {size = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %2 = nn.cat %1, %1 : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  return %2 : tensor<32xf32>
}
"""

VALID = "operator aten.view.default int8 Y\n  block self -> out\n"

#: The ops of @views after placement, in order.
ENCODED = ["codec.encode", "nn.view", "nn.view", "codec.observe", "codec.decode", "nn.cat"]
PLAIN = ["nn.view", "nn.view", "nn.cat"]
#: INT8 views that do not commute: one subgraph per value, observed each.
SEPARATE = ["codec.encode", "codec.observe", "nn.view", "codec.observe", "nn.view", "codec.observe", "codec.decode",
            "nn.cat"]


def place(tmp_path: Path, table: str, policy: str = "Y") -> subprocess.CompletedProcess[str]:
    (tmp_path / "model.mlir").write_text(MODEL)
    (tmp_path / "t.txt").write_bytes(table.encode())
    return subprocess.run([RAPTOR_OPT, str(tmp_path / "model.mlir"), "--mlir-print-op-on-diagnostic=false",
                           f"--raptor-place-codecs=policy={policy} table={tmp_path / 't.txt'}"],
                          capture_output=True, text=True, timeout=60)


def ops(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [name for name in re.findall(r"^\s*(?:%\S+ = )?([a-z_]+\.[a-z_]+)\b", result.stdout, re.M)
            if name not in ("func.func", "func.return")]


def test_the_valid_table_encodes_the_view_chain(tmp_path: Path) -> None:
    """The neighbour: one encoded subgraph over both views, one decoder."""
    assert ops(place(tmp_path, VALID)) == ENCODED


@pytest.mark.parametrize("table, message", [
    # A keyword misspelt, a policy in lower case, the int8 pair truncated, swapped, extended or misnamed.
    ("operatr aten.view.default int8 Y\n  block self -> out\n",
     "t.txt:1:1: unknown keyword 'operatr' (expected operator, block, fp32 or type)"),
    ("  blok self -> out\n", "t.txt:1:3: unknown keyword 'blok'"),
    ("operator aten.view.default int8 y\n  block self -> out\n", "t.txt:1:1: unknown policy 'y' (expected Z, Y, X or W)"),
    ("operator aten.view.default int8\n  block self -> out\n", "t.txt:1:1: expected 'operator NAME [int8 POLICY]'"),
    ("operator aten.view.default Y int8\n  block self -> out\n", "t.txt:1:1: expected 'operator NAME [int8 POLICY]'"),
    ("operator aten.view.default int8 Y Y\n  block self -> out\n", "t.txt:1:1: expected 'operator NAME [int8 POLICY]'"),
    ("operator aten.view.default int16 Y\n  block self -> out\n", "t.txt:1:1: expected 'operator NAME [int8 POLICY]'"),
    ("operator\n  block self -> out\n", "t.txt:1:1: 'operator' needs an operator name"),
    # The operator or a port misspelt; input and output swapped.
    ("operator aten.view.defualt int8 Y\n  block self -> out\n",
     "t.txt:1: unknown operator 'aten.view.defualt' (no nn op stands for it)"),
    ("operator aten.view.default int8 Y\n  block selff -> out\n",
     "t.txt:1: unknown port 'selff' of 'aten.view.default' (its input ports: self)"),
    ("operator aten.view.default int8 Y\n  block self -> outt\n",
     "t.txt:1: unknown output port 'outt' of 'aten.view.default' (expected out, out[N] or out[*])"),
    ("operator aten.view.default int8 Y\n  block out -> self\n", "t.txt:1: unknown port 'out' of 'aten.view.default'"),
    ("operator aten.view.default int8 Y\n  block self -> out[-1]\n", "unknown output port 'out[-1]'"),
    ("operator aten.view.default int8 Y\n  block self -> out[]\n", "unknown output port 'out[]'"),
    ("operator aten.view.default int8 Y\n  block self -> out[0\n", "unknown output port 'out[0'"),
    # The arrow broken; an empty block; a port twice, in one block or in two; an operator twice.
    ("operator aten.view.default int8 Y\n  block self - > out\n",
     "t.txt:2:3: malformed block 'self - > out': expected 'INPUTS -> OUTPUTS'"),
    ("operator aten.view.default int8 Y\n  block ->\n", "t.txt:2:3: empty port block"),
    ("operator aten.view.default int8 Y\n  block self -> out, out\n",
     "t.txt:2:3: output port 'out' of 'aten.view.default' is in two blocks"),
    ("operator aten.view.default int8 Y\n  block self -> out\n  block self -> out[1]\n",
     "t.txt:3:3: input port 'self' of 'aten.view.default' is in two blocks"),
    ("operator aten.view.default int8 Y\n  block self -> out\noperator aten.view.default\n",
     "t.txt:3:1: operator 'aten.view.default' is listed twice"),
    # Port types: width 0 and 65, the 'i' missing, the width missing.
    (VALID + "  type out i0\n", "t.txt:3:3: expected 'type PORT iN' (e.g. 'type out i32')"),
    (VALID + "  type out i65\n", "t.txt:3:3: expected 'type PORT iN'"),
    (VALID + "  type out 32\n", "t.txt:3:3: expected 'type PORT iN'"),
    (VALID + "  type out\n", "t.txt:3:3: expected 'type PORT iN'"),
    (VALID + "  type selff i8\n", "unknown port 'selff' of 'aten.view.default'"),
    # fp32 ports: none, or one misspelt.
    (VALID + "  fp32\n", "t.txt:3:3: 'fp32' needs at least one port"),
    (VALID + "  fp32 selff\n", "unknown port 'selff' of 'aten.view.default'"),
    # Not UTF-8 (a Latin-1 byte in a comment).
    (VALID + "# caf\xe9\n", "is not UTF-8 text (line 3)"),
])
def test_table_near_misses_are_one_line_errors(tmp_path: Path, table: str, message: str) -> None:
    """Each check of CommutationTable::parse and ::load refuses its near
    miss, located, and the pass leaves no output."""
    data = table.encode("latin-1") if "\xe9" in table else table.encode()
    (tmp_path / "model.mlir").write_text(MODEL)
    (tmp_path / "t.txt").write_bytes(data)
    result = subprocess.run([RAPTOR_OPT, str(tmp_path / "model.mlir"), "--mlir-print-op-on-diagnostic=false",
                             f"--raptor-place-codecs=policy=Y table={tmp_path / 't.txt'}"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    # One diagnostic (MLIR may quote the source line it is attached to after it).
    lines = result.stderr.strip().splitlines()
    assert result.stderr.count("error: ") == 1 and re.match(rf"{re.escape(str(tmp_path))}/model.mlir:\d+:\d+: error: ",
                                                          lines[0]), result.stderr
    assert message in lines[0]


@pytest.mark.parametrize("table, policy, expected", [
    # Comments, blank lines, CRLF line ends, tabs and runs of spaces are layout only.
    ("# views\n\noperator aten.view.default int8 Y   # from Y on\n  block self -> out  # one block\n", "Y", ENCODED),
    (VALID.replace("\n", "\r\n"), "Y", ENCODED),
    ("operator   aten.view.default  int8   Y\n\tblock  self ->   out\n", "Y", ENCODED),
    # Tabs between the words are blanks too (they were part of the keyword or operator name).
    ("operator\taten.view.default\tint8\tY\n\tblock\tself\t->\tout\n", "Y", ENCODED),
    ("operator aten.view.default int8 Y\n  block self -> out\n  type\tout\ti8\n", "Y", ENCODED),
    # Empty list items are dropped; a block at column 1 is a block.
    ("operator aten.view.default int8 Y\nblock self, -> out,\n", "Y", ENCODED),
    # A port type spelt right.
    (VALID + "  type out i8\n", "Y", ENCODED),
    (VALID + "  type out i64\n", "Y", ENCODED),
    # The policy is a threshold: INT8 from X on is not INT8 under Y, but is under X and W.
    ("operator aten.view.default int8 X\n  block self -> out\n", "Y", PLAIN),
    ("operator aten.view.default int8 X\n  block self -> out\n", "X", ENCODED),
    ("operator aten.view.default int8 X\n  block self -> out\n", "W", ENCODED),
    (VALID, "Z", PLAIN),
    # An operator without INT8: nothing to encode, even under W.
    ("operator aten.view.default\n  block self -> out\n", "W", PLAIN),
    # INT8 but no block (the views do not commute): each view its own subgraph.
    ("operator aten.view.default int8 Y\n", "Y", SEPARATE),
    # An empty table (only a comment): no operator has INT8.
    ("# nothing\n", "W", PLAIN),
])
def test_table_legal_near_misses_place_exactly(tmp_path: Path, table: str, policy: str, expected) -> None:
    """The legal neighbours of the refusals above, each with the placement
    its meaning implies."""
    assert ops(place(tmp_path, table, policy)) == expected


def test_codec_report_refuses_a_near_miss_table_in_one_line(tmp_path: Path) -> None:
    """`raptor codec-report --table`: exit 1, one `raptor: error:` line with
    the location, nothing on stdout; the valid table reports."""
    (tmp_path / "model.mlir").write_text(MODEL)
    (tmp_path / "bad.txt").write_text("operator aten.view.default int8 Y\n  block self -> outt\n")
    (tmp_path / "good.txt").write_text(VALID)
    bad = subprocess.run(RAPTOR + ["codec-report", str(tmp_path / "model.mlir"), "--policy", "Y", "--table",
                                   str(tmp_path / "bad.txt"), "--json"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("raptor: error: ")
    assert f"{tmp_path / 'bad.txt'}:1: unknown output port 'outt' of 'aten.view.default'" in bad.stderr
    good = subprocess.run(RAPTOR + ["codec-report", str(tmp_path / "model.mlir"), "--policy", "Y", "--table",
                                    str(tmp_path / "good.txt"), "--json"], capture_output=True, text=True, timeout=120)
    assert good.returncode == 0, good.stderr
    assert '"encoders": 1' in good.stdout and '"decoders": 1' in good.stdout
