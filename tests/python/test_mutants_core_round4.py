"""Survivor of the drawn semantic sample of seed 919149 in `raptor._io`
(docs/mutation.md): a type too large for int64 found after parsing, on an
operation whose location names no line, is reported against the file the
user gave (it once printed the whole text instead)."""

from __future__ import annotations

import pytest

import raptor
from raptor._io import UserError, parse_module


def test_an_oversized_type_without_a_line_names_the_users_file() -> None:
    text = ('!big = tensor<4294967296x4294967296xf32>\nfunc.func @f(%x: !big) -> !big {\n'
            '  return %x : !big loc("r")\n} loc("f")\n')
    with pytest.raises(UserError) as e:
        parse_module(text, "user.mlir", raptor.Context())
    assert str(e.value) == ("user.mlir: argument 0 of type tensor<4294967296x4294967296xf32> has more elements "
                            "than int64 counts")
