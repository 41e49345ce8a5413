"""Survivors of the drawn semantic sample of seed 919149 in `raptor.sweep`
(docs/mutation.md): the message for a spec that is not a mapping, and the
record of a sweep stopped after some points were cached by an earlier
run (its `computed` counts this run's points only); and of seed 20261207:
a sweep whose points are all cached starts no cluster, an axis spanning
4x or more is logarithmic (and one spanning less is not), and a plot with
no successful point says so inside its frame. The executor is replaced by
one that finishes some points and then stops, as Ctrl-C does, so no
cluster runs."""

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


def _relu_sweep(tmp_path: Path, cell_bits: list[int]) -> Path:
    """A spec of one small model over ``cell_bits`` (a point each)."""
    model = tmp_path / "m.mlir"
    model.write_text("func.func @main(%x: tensor<1x4xf32> {nn.input = \"x\"}) -> tensor<1x4xf32> {\n"
                     "  %0 = nn.relu %x : tensor<1x4xf32>\n  return %0 : tensor<1x4xf32>\n}\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"models: [{model}]\ntarget: {{base: small, grid: {{crossbar.cell_bits: {cell_bits}}}}}\n")
    return spec


def test_a_stopped_sweep_counts_this_runs_points_apart_from_the_cached(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _relu_sweep(tmp_path, [1, 2, 4, 8])
    out = tmp_path / "out"
    records = []
    for count in (1, 2):  # 1 of 4 computed; then 2 of the 3 left, 1 cached
        monkeypatch.setattr(driver, "execute", _stopping_after(count))
        with pytest.raises(KeyboardInterrupt):
            sweep.run(spec, out)
        records.append(json.loads((out / "sweep.json").read_text()))
    assert [(r["state"], r["computed"], r["cached"]) for r in records] == [("interrupted", 1, 0),
                                                                           ("interrupted", 2, 1)]


def _finishing_all(todo, run, cluster, fingerprint, programs, finished, tick, stopped):
    for job in todo:
        finished(job, {"status": "ok", "seconds": 0.0})


def _never(*args, **kwargs):
    raise AssertionError("a sweep whose points are all cached started its executor")


def test_a_sweep_whose_points_are_all_cached_starts_no_cluster(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _relu_sweep(tmp_path, [4, 8])
    out = tmp_path / "out"
    monkeypatch.setattr(driver, "execute", _finishing_all)
    sweep.run(spec, out)
    monkeypatch.setattr(driver, "execute", _never)
    sweep.run(spec, out)
    record = json.loads((out / "sweep.json").read_text())
    assert (record["computed"], record["cached"]) == (0, 2)


def _svg_texts(svg: str) -> dict[str, tuple[float, float]]:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    return {t.text: (float(t.get("x")), float(t.get("y"))) for t in root.iter("{http://www.w3.org/2000/svg}text")
            if t.get("x") and t.text}


@pytest.mark.parametrize("latencies, log", [([1.0, 2.0, 3.9], False), ([1.0, 2.0, 4.0], True)],
                         ids=["3.9x", "4x"])
def test_an_axis_spanning_4x_or_more_is_logarithmic(latencies: list[float], log: bool) -> None:
    import pandas as pd

    from raptor.sweep.plot import pareto_svg

    df = pd.DataFrame({"model": ["m"] * 3, "status": ["ok"] * 3, "latency_ms": latencies,
                       "interval_ms": [3.0, 2.5, 2.0], "crossbars_used": [10, 20, 30], "cores_used": [1, 2, 3],
                       "precision": ["int8"] * 3, "mode": ["latency"] * 3, "pareto": [True, True, True]})
    texts = _svg_texts(pareto_svg(df, "m", []))
    assert ("latency of one inference, ms (log)" in texts) == log
    assert "interval between inferences, ms (log)" not in texts  # 1.5x


def test_a_plot_without_a_successful_point_says_so_inside_its_frame() -> None:
    import pandas as pd

    from raptor.sweep.plot import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, pareto_svg

    df = pd.DataFrame({"model": ["m"], "status": ["failed"], "latency_ms": [None], "interval_ms": [None],
                       "crossbars_used": [None], "cores_used": [None], "precision": ["int8"], "mode": ["latency"],
                       "pareto": [False]})
    x, y = _svg_texts(pareto_svg(df, "m", []))["no point succeeded"]
    assert LEFT < x < WIDTH - RIGHT and TOP < y < HEIGHT - BOTTOM


def test_a_cluster_without_cpus_is_refused_before_any_point_waits_on_it() -> None:
    """A running cluster whose resources name no CPU (all its nodes gone, or
    GPUs only) has none for a point: refused in one line, not waited on."""
    from types import SimpleNamespace

    from raptor._io import UserError
    from raptor.sweep.executor import Cluster, _connect
    from raptor.sweep.spec import RunSettings

    ray = SimpleNamespace(is_initialized=lambda: True, cluster_resources=lambda: {"GPU": 1.0})
    with pytest.raises(UserError, match=r"a point asks for 1 CPUs \(run.cpus_per_point\) but the Ray cluster has 0"):
        _connect(ray, Cluster(), [], RunSettings())
    ray.cluster_resources = lambda: {"CPU": 2.0}
    assert _connect(ray, Cluster(), [], RunSettings()) is False  # usable, not started by the sweep
