"""Edges of the token-id lookups (passes/nn/TokenTables.h) that the
model families of test_token_functions.py do not reach: which table sets
the ids' range (the smallest read by the ids themselves), a function that
reads exactly one row past its table, a count over several dimensions,
and a comparison of two different positions' ids (a function of two ids,
not of one: no lookup can state it). Expected values from eager torch and
the documented contract (ids index every table that reads them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import sources

from pim_helpers import compile_source


def _exported(model: torch.nn.Module, ids: torch.Tensor, path: Path) -> Path:
    with torch.no_grad():
        torch.export.save(torch.export.export(model.eval(), (ids,)), path)
    return path


def _equal_to_torch(model: torch.nn.Module, program, ids: np.ndarray) -> None:
    with torch.no_grad():
        want = model(torch.from_numpy(ids)).numpy()
    (got,) = program.simulate(ids).outputs.values()
    assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids


class _TwoTables(torch.nn.Module):
    """Ids read a table of 40 rows and one of 60 directly, and the 60-row
    table at id + 15: inside it for every id of the smaller table's range
    (at most 39 + 15 = 54), past it for ids from 45 on, which the larger
    table alone would allow."""

    def __init__(self) -> None:
        super().__init__()
        self.small = torch.nn.Embedding(40, 8)
        self.large = torch.nn.Embedding(60, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.small(ids) + self.large(ids) + self.large(ids + 15)


def test_the_smallest_table_read_by_the_ids_sets_their_range(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _TwoTables()
    ids = np.random.default_rng(0).integers(0, 40, (1, 10))
    program = compile_source(_exported(model, torch.from_numpy(ids), tmp_path / "m.pt2"), tmp_path / "p")
    assert program.vocabularies == {"ids": 40}
    # The largest ids the contract allows, and random ones.
    for x in (np.full((1, 10), 39), np.arange(30, 40)[None, :], ids):
        _equal_to_torch(model, program, x)


class _OnePast(torch.nn.Module):
    """id + 1 into a table of as many rows as the vocabulary: id 96 reads
    row 97 of 97."""

    def __init__(self) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(97, 8)
        self.next = torch.nn.Embedding(97, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.words(ids) + self.next(ids + 1)


@pytest.mark.parametrize("form", ["pt2", "onnx"])
def test_a_function_reading_one_row_past_its_table_stops_in_one_line(tmp_path: Path, form: str) -> None:
    """The same check and message from both importers (one pass,
    raptor-fold-token-arithmetic, decides), naming the embedding's node."""
    ids = torch.zeros((1, 6), dtype=torch.int64)
    if form == "pt2":
        path = _exported(_OnePast(), ids, tmp_path / "m.pt2")
    else:
        path = tmp_path / "m.onnx"
        torch.onnx.export(_OnePast().eval(), (ids,), str(path), input_names=["ids"], dynamo=False, opset_version=17)
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(path), "-o", str(tmp_path / "out"), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    node = "embedding_1" if form == "pt2" else "/next/Gather"
    assert f"node '{node}': an embedding of 97 rows reads row 97 computed from the token ids (ids 0..96" in line, line
    assert not (tmp_path / "out").exists()


class _CountAll(torch.nn.Module):
    """The count of ids above 50 over both dimensions of a (2, 6) batch,
    added to every embedding."""

    def __init__(self) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(97, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.words(ids) + (ids > 50).sum().float()


def test_a_count_over_every_dimension_counts_every_id(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _CountAll()
    ids = np.array([[51, 3, 96, 50, 70, 1], [0, 90, 52, 4, 5, 60]])  # 6 of 12 above 50
    program = compile_source(_exported(model, torch.from_numpy(ids), tmp_path / "m.pt2"), tmp_path / "p")
    for x in (ids, np.full((2, 6), 96), np.zeros((2, 6), dtype=np.int64)):
        _equal_to_torch(model, program, x)


class _Repeats(torch.nn.Module):
    """Whether each id repeats its predecessor: a function of two ids."""

    def __init__(self) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(97, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        same = (ids[:, 1:] == ids[:, :-1]).unsqueeze(-1)
        return torch.where(same, self.words(ids[:, 1:]), 0.0)


def test_a_function_of_two_positions_is_not_taken_for_a_lookup(tmp_path: Path) -> None:
    pt2 = _exported(_Repeats(), torch.zeros((1, 8), dtype=torch.int64), tmp_path / "m.pt2")
    imported = sources.load(str(pt2))
    try:
        # The comparison stays the generic op (a strict import names it);
        # the embedding of the slice alone is a lookup.
        assert imported.report.generic == {"aten.eq.Tensor": 1}
        text = str(imported.module)
    finally:
        imported.cleanup()
    assert "nn.where" in text  # the select by the comparison, kept
    # The embedding reads the ids themselves, the slice is of its rows.
    assert re.search(r"nn\.embedding %arg\d+, %arg0 :", text) and text.count("nn.embedding") == 1, text


class _Form(torch.nn.Module):
    """An embedding of 10 rows read by the ids, plus `form` of them."""

    def __init__(self, form) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(10, 4)
        self.form = form

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.form(self.words, ids)


def _shifted(ids: torch.Tensor) -> torch.Tensor:
    d = torch.zeros_like(ids)
    d[:, 1:] = ids[:, :-1]
    d[:, 0] = 2
    return d


def _forced(ids: torch.Tensor) -> torch.Tensor:
    m = (ids != 1).clone()
    m[:, 0] = True
    return m


#: Idioms of models computing on their ids, as torch.export gives them
#: (each once found left generic by a review of the pass).
FORMS = {
    # a comparison with a boolean (read as -1 it never held)
    "equals_true": lambda w, i: w(i).masked_fill(((i == 3) == True).unsqueeze(-1), 0.0),  # noqa: E712
    # ~, &, | of masks (aten.bitwise_*), logical ops
    "bitwise_masks": lambda w, i: w(i).masked_fill((~(i != 1) | ((i > 2) & (i < 5))).unsqueeze(-1), 0.0),
    "logical_masks": lambda w, i: w(i) * torch.logical_xor(i > 4, torch.logical_and(i > 1, i != 7)).float()[..., None],
    # logical operators of integers: "not zero" (id 3 against id - 3)
    "logical_of_integers": lambda w, i: w(i) * torch.logical_xor(i, i - 3).float()[..., None],
    # sentence-transformers' mean pooling: the mask broadcast, then cast
    "mean_pooling": lambda w, i: (w(i) * (i != 0).unsqueeze(-1).expand(1, 6, 4).float()).sum(1)
                                 / (i != 0).float().sum(1, keepdim=True).clamp(min=1.0),
    # a float product by a boolean mask without a cast (torch promotes it)
    "promoted_mask": lambda w, i: w(i) * (i != 2).unsqueeze(-1),
    # a mask with its first position forced, and one of shifted ids
    "forced_position": lambda w, i: w(i).masked_fill(_forced(i).logical_not().unsqueeze(-1), 0.0),
    "shifted_mask": lambda w, i: w(_shifted(i)) * (_shifted(i) != 1).unsqueeze(-1).float(),
    # a start token by F.pad, ids shifted right
    "padded_shift": lambda w, i: w(i) + w(torch.nn.functional.pad(i[:, :-1], (1, 0), value=2)),
    # integer arithmetic torch states with other operators
    "clamped": lambda w, i: w(torch.clamp(i, 2, 7)) + w(torch.minimum(i, torch.full_like(i, 4))),
    "negated": lambda w, i: w(-i + 9) + w(9 - i),
    "fmod": lambda w, i: w(torch.fmod(i * 3, 7)),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_integer_idioms_on_ids_are_lookups(tmp_path: Path, form: str) -> None:
    """Each idiom imports strictly (no generic operator left) and its
    program computes what eager torch does on every id of the vocabulary
    (ids 0..9 in two orders) and on ids holding the special values."""
    torch.manual_seed(0)
    model = _Form(FORMS[form]).eval()
    ids = np.array([[3, 0, 1, 2, 7, 9]])
    program = compile_source(_exported(model, torch.from_numpy(ids), tmp_path / "m.pt2"), tmp_path / "p")
    for x in (ids, np.array([[0, 1, 2, 3, 4, 5]]), np.array([[6, 7, 8, 9, 1, 1]]), np.array([[5, 4, 3, 2, 1, 0]])):
        _equal_to_torch(model, program, x)


#: Idioms as the ONNX exporter gives them (TorchScript, opset 17).
ONNX_FORMS = {
    # Canine's hash: `Mod` of `(ids + 1) * 3`
    "mod_hash": lambda w, i: w(i) + w(((i + 1) * 3) % 10),
    # `//` and a truncating div export as `Div` of integers (onnxruntime
    # truncates: (i - 5) // 2 + 5 reads row 3 for id 0, torch row 2)
    "integer_division": lambda w, i: w(i // 3) + w(torch.div(i, 2, rounding_mode="trunc"))
                                     + w((i - 5) // 2 + 5),
}


@pytest.mark.parametrize("form", sorted(ONNX_FORMS))
def test_onnx_integer_idioms_are_lookups(tmp_path: Path, form: str) -> None:
    """Each idiom exported to ONNX imports strictly (nothing left for the
    back end) and computes what onnxruntime does on every id of the
    vocabulary, within float rounding."""

    torch.manual_seed(0)
    model = _Form(ONNX_FORMS[form]).eval()
    ids = np.array([[3, 0, 1, 2, 7, 9]])
    path = tmp_path / "m.onnx"
    torch.onnx.export(model, (torch.from_numpy(ids),), str(path), input_names=["ids"], dynamo=False, opset_version=17)
    program = compile_source(path, tmp_path / "p")
    session = sources.onnxruntime_session(str(path))
    for x in (ids, np.array([[4, 5, 6, 7, 8, 9]])):
        (want,) = session.run(None, {"ids": x.astype(np.int64)})
        (got,) = program.simulate(x).outputs.values()
        assert np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


def test_the_first_table_read_out_of_range_is_the_one_reported() -> None:
    """Two functions each read their table outside it (the pass reports
    both): the error names the first, at its node, with its row."""
    import raptor
    from mlir import ir

    from raptor.frontend._token_arithmetic import TokenTableError, fold

    def function(name: str, op: str, row: str) -> str:
        return f'''
func.func @{name}(%ids: tensor<1x4xi64> {{nn.input = "input_ids"}}, %w: tensor<6x2xf32> {{nn.param = "w"}})
    -> tensor<1x4x2xf32> {{
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.{op} %ids scalar({row} : i64) : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %2 = nn.embedding %w, %1 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32> loc("{name}_lookup")
  return %2 : tensor<1x4x2xf32>
}}'''

    with raptor.Context():
        module = ir.Module.parse(function("one_past", "add", "1") + function("below", "sub", "2"))
        with pytest.raises(TokenTableError) as e:
            fold(module)
    assert str(e.value).startswith("node 'one_past_lookup': an embedding of 6 rows reads row 6"), str(e.value)
