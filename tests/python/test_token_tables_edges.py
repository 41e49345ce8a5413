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
