"""Survivors of the drawn semantic sample of seed 919149 in `raptor.sweep`
(docs/mutation.md): the message for a spec that is not a mapping, and the
record of a sweep stopped after some points were cached by an earlier
run (its `computed` counts this run's points only). The executor is
replaced by one that finishes some points and then stops, as Ctrl-C
does, so no cluster runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from raptor import sweep
from raptor.sweep import driver
from raptor.sweep.spec import SpecError, parse_spec


def test_a_spec_that_is_not_a_mapping_says_what_it_is() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec(["models"], "s.yaml", Path("."))
    assert str(e.value).startswith("s.yaml: a sweep spec is a mapping with keys ")
    assert str(e.value).endswith(", not a list")


def _stopping_after(count: int):
    """An executor that finishes the first `count` jobs (ok rows, which the
    cache keeps), then is interrupted."""
    def execute(todo, run, cluster, fingerprint, programs, finished, tick, stopped):
        for job in todo[:count]:
            finished(job, {"status": "ok", "seconds": 0.0})
        raise KeyboardInterrupt
    return execute


def test_a_stopped_sweep_counts_this_runs_points_apart_from_the_cached(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m.mlir"
    model.write_text("func.func @main(%x: tensor<1x4xf32> {nn.input = \"x\"}) -> tensor<1x4xf32> {\n"
                     "  %0 = nn.relu %x : tensor<1x4xf32>\n  return %0 : tensor<1x4xf32>\n}\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"models: [{model}]\ntarget: {{base: small, grid: {{crossbar.cell_bits: [1, 2, 4, 8]}}}}\n")
    out = tmp_path / "out"
    records = []
    for count in (1, 2):  # 1 of 4 computed; then 2 of the 3 left, 1 cached
        monkeypatch.setattr(driver, "execute", _stopping_after(count))
        with pytest.raises(KeyboardInterrupt):
            sweep.run(spec, out)
        records.append(json.loads((out / "sweep.json").read_text()))
    assert [(r["state"], r["computed"], r["cached"]) for r in records] == [("interrupted", 1, 0),
                                                                           ("interrupted", 2, 1)]
