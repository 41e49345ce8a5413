"""raptor sweep: design-space sweeps on Ray (docs/sweep.md).

The sweeps run on one in-process Ray cluster (2 CPUs, a small object store,
no dashboard). Every row is checked against the same point compiled and
timed alone with the command line (`raptor compile` + `raptor simulate
--timing`, and `--check` for the error against torch); the cache is checked
through its files (a recomputed point would replace its file).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
import ray
import torch

from raptor import cli, sweep
from raptor._io import UserError
from raptor.spatial import default_target

SMALL = default_target().parent / "small.json"

#: One test worker runs every sweep (`--dist loadgroup`, scripts/test.sh): two
#: workers each starting a local Ray cluster stalled both (a clean-clone CI
#: run sat idle for over ten minutes).
pytestmark = pytest.mark.xdist_group("ray")


class Cnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.fc(x.mean(dim=(2, 3)))


class Mlp(torch.nn.Module):
    def __init__(self, n: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.a = torch.nn.Linear(n, hidden)
        self.b = torch.nn.Linear(hidden, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.relu(self.a(x)))


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cnn.pt2 and mlp.pt2 fit the small chip; big.pt2 (a 256 x 256 layer:
    544 crossbars of 16 x 16 at 4-bit cells) does not."""
    d = tmp_path_factory.mktemp("models")
    torch.manual_seed(0)
    for name, model, x in (("cnn", Cnn(), torch.randn(1, 3, 8, 8)), ("mlp", Mlp(), torch.randn(1, 32)),
                           ("big", Mlp(256, 256), torch.randn(1, 256))):
        torch.export.save(torch.export.export(model.eval(), (x,)), d / f"{name}.pt2")
    return d


@pytest.fixture(scope="module")
def cluster() -> str:
    """The in-process cluster the sweeps use (and its address, for a sweep
    run from another process)."""
    ray.init(num_cpus=2, object_store_memory=96 << 20, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def _spec(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


GRID = """
models: [{models}/cnn.pt2, {models}/mlp.pt2, {models}/big.pt2]
target:
  base: small
  grid:
    crossbar.cell_bits: [{bits}]
compile:
  precision: int8
  mode: [latency, pipeline 2]
  check: true
"""


@pytest.fixture(scope="module")
def first(models: Path, cluster: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """3 models x 2 targets x 2 modes on the small target."""
    d = tmp_path_factory.mktemp("first")
    spec = _spec(d, "spec.yaml", GRID.format(models=models, bits="2, 4"))
    return d / "out", sweep.run(spec, d / "out")


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_row_is_the_point_compiled_and_timed_alone(first: tuple[Path, pd.DataFrame], models: Path,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, df = first
    assert len(df) == 12
    assert sorted(zip(df["model"], df["crossbar.cell_bits"], df["mode"])) == sorted(
        (m, b, mode) for m in ("cnn", "mlp", "big") for b in (2, 4) for mode in ("latency", "pipeline 2"))
    for i, row in df.iterrows():
        target = json.loads(SMALL.read_text())
        target["crossbar"]["cell_bits"] = int(row["crossbar.cell_bits"])
        (tmp_path / "target.json").write_text(json.dumps(target))
        out = tmp_path / f"p{i}"
        argv = ["compile", str(models / f"{row['model']}.pt2"), "-o", str(out), "--target",
                str(tmp_path / "target.json"), "--precision", "int8", "--json", "-q"]
        if row["mode"] != "latency":
            argv += ["--pipeline", row["mode"].split()[1]]
        status, text, err = _cli(capsys, *argv)
        if row["model"] == "big":  # 544 or 1088 crossbars on a chip of 32: a row with the compiler's line
            assert status == 1 and row["status"] == "failed" and row["stage"] == "compiling"
            assert err == f"raptor: error: {row['error']}\n"
            assert "crossbars but the chip has 32" in row["error"]
            assert pd.isna(row["latency_ms"]) and not row["pareto"]
            continue
        assert status == 0, err
        assert row["status"] == "ok" and pd.isna(row["error"])
        compiled = json.loads(text)
        assert (row["cores_used"], row["crossbars_used"], row["local_memory_peak_bytes"], row["instructions"],
                row["unrolled_instructions"]) == (compiled["cores_used"], compiled["crossbars"],
                                                  compiled["local_bytes_peak"], compiled["instructions"],
                                                  compiled["unrolled_instructions"])
        assert row["crossbars_chip"] == 32 and row["cores_chip"] == 4
        # The compiler's own estimate, in ms: the manifest's list-schedule makespan.
        manifest = json.loads((out / "manifest.json").read_text())
        assert row["schedule_estimate_ms"] * 1e6 == pytest.approx(manifest["schedule"]["makespan_ns"], rel=1e-12)
        status, text, err = _cli(capsys, "simulate", str(out), "--timing", "--json")
        assert status == 0, err
        assert row["latency_ms"] * 1e6 == pytest.approx(json.loads(text)["latency_ns"], rel=1e-12)
        status, text, err = _cli(capsys, "simulate", str(out), "--timing", "--throughput", "--json")
        assert status == 0, err
        assert row["interval_ms"] * 1e6 == pytest.approx(json.loads(text)["interval_ns"], rel=1e-12)
        status, text, err = _cli(capsys, "simulate", str(out), "--check", "--json")
        assert status == 0, err
        assert row["max_error_relative"] == pytest.approx(json.loads(text)["max_error_relative"], rel=1e-6)
        assert row["compile_seconds"] > 0 and not row["cached"]


def test_the_tables_pictures_and_report_are_the_results(first: tuple[Path, pd.DataFrame]) -> None:
    out, df = first
    pd.testing.assert_frame_equal(sweep.load(out), df)
    csv = pd.read_csv(out / "results.csv")
    assert list(csv.columns) == list(df.columns)
    assert csv["latency_ms"].tolist() == pytest.approx(df["latency_ms"].astype(float).tolist(), nan_ok=True)
    # The front, by its definition: no other point of the model at most as slow on both counts.
    for _, r in df.iterrows():
        ok = df[(df["model"] == r["model"]) & (df["status"] == "ok")]
        beaten = ((ok["latency_ms"] <= r["latency_ms"]) & (ok["interval_ms"] <= r["interval_ms"]) &
                  ((ok["latency_ms"] < r["latency_ms"]) | (ok["interval_ms"] < r["interval_ms"]))).any()
        assert bool(r["pareto"]) == (r["status"] == "ok" and not beaten)
    for model in ("cnn", "mlp"):
        svg = (out / f"pareto-{model}.svg").read_text()
        rows = df[df["model"] == model]
        # One titled marker per point (and one per mode in the legend).
        assert svg.count("<title>") == len(rows) + rows["mode"].nunique()
        for _, r in rows.iterrows():
            assert f"latency {r['latency_ms']:.4g} ms" in svg
        assert svg.count('stroke="#000" stroke-width="2"') == int(rows["pareto"].sum())
    assert "no point succeeded" in (out / "pareto-big.svg").read_text()
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 3 and "the model needs 544 crossbars" in html
    record = json.loads((out / "sweep.json").read_text())
    assert record["state"] == "complete" and record["computed"] == 12 and record["cached"] == 0


def _cache_files(out: Path) -> dict[str, int]:
    """Cached point files by name, with their inodes (a rewrite changes it)."""
    return {p.name: p.stat().st_ino for p in (out / "cache").glob("*/*.json")}


def test_adding_a_grid_value_computes_only_the_new_points(first: tuple[Path, pd.DataFrame], models: Path,
                                                          tmp_path: Path) -> None:
    shutil.copytree(first[0], tmp_path / "out")
    before = _cache_files(tmp_path / "out")
    assert len(before) == 12  # failed points are cached too: they would fail again
    spec = _spec(tmp_path, "spec.yaml", GRID.format(models=models, bits="2, 4, 8"))
    df = sweep.run(spec, tmp_path / "out")
    after = _cache_files(tmp_path / "out")
    assert {k: after[k] for k in before} == before
    assert len(after) == 18
    assert df["cached"].tolist() == [b != 8 for b in df["crossbar.cell_bits"]]
    old = df[df["crossbar.cell_bits"] != 8].reset_index(drop=True)
    pd.testing.assert_frame_equal(old.drop(columns=["cached", "pareto"]),
                                  first[1].drop(columns=["cached", "pareto"]), check_dtype=False)
    assert (df[df["crossbar.cell_bits"] == 8]["status"] == df[df["crossbar.cell_bits"] == 8]["model"].map(
        {"cnn": "ok", "mlp": "ok", "big": "failed"})).all()


KILLED = """
models: [{models}/cnn.pt2, {models}/mlp.pt2]
target: {{base: small, grid: {{crossbar.cell_bits: [2, 4]}}}}
compile:
  precision: int8
  mode: [latency, pipeline 2, pipeline 3]
  replicate: [time, none]
"""


def _sweep_until_three_points(spec: Path, out: Path, cluster: str) -> subprocess.Popen:
    """`raptor sweep` in another process, returned once three points are cached.
    SIGINT is set back to its default in the child: a test run started in
    the background by a non-interactive shell inherits it ignored, and
    Python then never raises KeyboardInterrupt."""
    process = subprocess.Popen([sys.executable, "-m", "raptor", "sweep", str(spec), "-o", str(out),
                                "--address", cluster], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 90
    while len(_cache_files(out)) < 3:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    return process


def test_a_killed_sweep_resumes_without_recomputing(models: Path, cluster: str, tmp_path: Path) -> None:
    spec = _spec(tmp_path, "spec.yaml", KILLED.format(models=models))
    out = tmp_path / "out"
    process = _sweep_until_three_points(spec, out, cluster)
    process.send_signal(signal.SIGKILL)
    _, err = process.communicate()
    done = _cache_files(out)
    assert 3 <= len(done) < 24 and not (out / "results.csv").exists()
    assert re.search(r"^\[sweep\] \d+/24 finished: \d+ ok, 0 failed, \d+ left, ETA \d+(s|m\d\ds)", err, re.M), err
    assert json.loads((out / "sweep.json").read_text())["state"] == "running"
    df = sweep.run(None, out, resume=True)
    assert len(df) == 24 and (df["status"] == "ok").all()
    after = _cache_files(out)
    assert {k: after[k] for k in done} == done and len(after) == 24
    assert df["cached"].sum() == len(done)
    assert set(df[df["cached"]]["point"]) == {name[:16] for name in done}
    # The killed tasks' scratch directories were collected by the tasks after them.
    scratch = Path(tempfile.gettempdir()) / "raptor-sweep"
    assert [p.name for p in scratch.iterdir() if not _alive(int(p.name.split("-")[1]))] == []


# 72 points, so that the sweep cannot finish between the interrupt and its
# delivery (points of these small models take 0.1 s once the workers are warm).
INTERRUPTED = """
models: [{models}/cnn.pt2, {models}/mlp.pt2]
target: {{base: small, grid: {{crossbar.cell_bits: [2, 4, 8]}}}}
compile:
  precision: int8
  mode: [latency, pipeline 2, pipeline 3, pipeline 4]
  replicate: [time, none, windows]
"""


def test_an_interrupted_sweep_records_the_points_it_computed(models: Path, cluster: str, tmp_path: Path) -> None:
    """Ctrl-C: the sweep stops, and its record says so and counts the points
    this run computed (each one a cache file: none was cached before). The
    record is written before the cluster's tasks are cancelled: Ray's core
    worker sometimes aborts the process then ("An unexpected system state
    has occurred"), which had left the record saying "running"."""
    spec = _spec(tmp_path, "spec.yaml", INTERRUPTED.format(models=models))
    out = tmp_path / "out"
    process = _sweep_until_three_points(spec, out, cluster)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0, err
    record = json.loads((out / "sweep.json").read_text())
    done = len(_cache_files(out))
    assert record["state"] == "interrupted", err
    assert (record["computed"], record["cached"]) == (done, 0) and 3 <= done < 72


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_point_out_of_time_is_a_row_and_is_tried_again(models: Path, cluster: str, tmp_path: Path) -> None:
    text = f"models: [{models}/mlp.pt2]\ntarget: {{base: small}}\ncompile: {{precision: int8}}\n"
    spec = _spec(tmp_path, "spec.yaml", text + "run: {timeout_seconds: 0.001}\n")
    df = sweep.run(spec, tmp_path / "out")
    assert df["status"].tolist() == ["timeout"]
    assert df["error"].tolist() == ["no result after 0.001 s (the timeout)"]
    assert _cache_files(tmp_path / "out") == {}
    spec = _spec(tmp_path, "spec.yaml", text)
    df = sweep.run(spec, tmp_path / "out")
    assert df["status"].tolist() == ["ok"] and not df["cached"].any()


BAD_SPECS = [
    ("spec.yaml", "models: [{m}]\ncompiel: {{}}\n", "spec.yaml: unknown key 'compiel' (expected name, models"),
    ("spec.yaml", "models: [{m}]\ncompile: {{precison: int8}}\n", "compile: unknown key 'precison'"),
    ("spec.yaml", "models: [{m}]\ncompile: {{replication_budget: lots}}\n",
     "compile.replication_budget: expected a fraction from 0 to 1, not 'lots'"),
    ("spec.yaml", "models: [{m}]\ncompile: {{mode: [latency, pipline 2]}}\n",
     "compile.mode[1]: expected 'latency' or 'pipeline N' (N >= 1), not 'pipline 2'"),
    ("spec.yaml", "models: [{m}]\ncompile: {{precision: [int8, int8]}}\n", "compile.precision[1]: repeats"),
    ("spec.yaml", "models: [{m}]\ncompile: {{policy: W}}\n", "policy only apply with precision int8"),
    ("spec.yaml", "models: {m}\n", "models: expected a non-empty list of models, not '"),
    ("spec.yaml", "models: []\n", "models: expected a non-empty list"),
    ("spec.yaml", "models: [nothing.pt2]\n", "models[0]: cannot read 'nothing.pt2'"),
    ("spec.yaml", "models: [resnet99]\n", "models[0]: unknown model 'resnet99'"),
    ("spec.yaml", "models: [{m}]\ntarget: {{grid: {{crossbar.rows: []}}}}\n",
     "target.grid.crossbar.rows: is an empty list"),
    ("spec.yaml", "models: [{m}]\ntarget: {{grid: {{}}}}\n", "target.grid: is empty"),
    ("spec.yaml", "models: [{m}]\ntarget: {{grid: {{crossbar.rows: [16, 16]}}}}\n",
     "target.grid.crossbar.rows[1]: repeats the value 16"),
    ("spec.yaml", "models: [{m}]\ntarget: {{grid: {{crossbar.rows: 16}}}}\n", "expected a list of values, not 16"),
    ("spec.yaml", "models: [{m}]\ntarget: {{grid: {{'crossbar.rows,crossbar.cols': [[16, 16, 16]]}}}}\n",
     "expected one value or 2 (one per key), not 3"),
    ("spec.yaml", "models: [{m}]\ntarget: {{base: small, grid: {{crossbar.rowz: [16]}}}}\n",
     "target crossbar.rowz=16: unknown key 'crossbar.rowz' (expected per_core, rows, cols"),
    ("spec.yaml", "models: [{m}]\ntarget: {{base: small, grid: {{cores.count: [4, 0]}}}}\n",
     "target cores.count=0: 'cores.count' must be a positive number"),
    ("spec.yaml", "models: [{m}]\ntarget: {{base: tiny}}\n", "target.base: unknown target 'tiny'"),
    ("spec.yaml", "models: [{m}]\ntarget: {{set: {{crossbar: 1}}, grid: {{crossbar.rows: [16]}}}}\n",
     "'crossbar' and 'crossbar.rows' set the same target key"),
    ("spec.yaml", "models: [{m}]\nrun: {{cpus_per_point: 0}}\n", "run.cpus_per_point: expected a positive integer"),
    ("spec.yaml", "models: [{m}\n", "spec.yaml:2:1: expected ',' or ']'"),
    ("spec.yaml", "- a\n- b\n", "a sweep spec is a mapping"),
    ("spec.yaml", "models: [{m}]\nmodels: [{m}]\n", "spec.yaml:2:1: key 'models' is given twice"),
    ("spec.json", '{{"models": ["{m}"], "models": []}}', "spec.json: key 'models' is given twice"),
    ("spec.json", '{{"models": ["{m}"],}}', "spec.json:1:"),
    ("spec.txt", "models: [{m}]\n", "a sweep spec is a .yaml, .yml or .json file"),
]


@pytest.mark.parametrize("name,text,message", BAD_SPECS, ids=[m.split(":")[-1][:40] for _, _, m in BAD_SPECS])
def test_a_bad_spec_is_one_line_and_writes_nothing(name: str, text: str, message: str, models: Path,
                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(tmp_path, name, text.format(m=models / "mlp.pt2"))
    status, out, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "out"))
    assert status == 1 and out == ""
    assert err.startswith("raptor: error: ") and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_bad_directories_are_one_line(models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(tmp_path, "spec.yaml", f"models: [{models}/mlp.pt2]\n")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    cases = [(["sweep", str(spec), "-o", str(tmp_path / "busy")], "is not empty and holds no sweep"),
             (["sweep", "--resume", "-o", str(tmp_path / "new")], "holds no sweep to resume"),
             (["sweep", "-o", str(tmp_path / "new")], "give a spec file"),
             (["sweep", str(spec), "-o", str(tmp_path / "no" / "such")], "directory"),
             (["sweep", str(spec), "-o", str(tmp_path / "new"), "--address", "auto", "--cpus", "2"],
              "--cpus and --object-store-mb size a local cluster")]
    for argv, message in cases:
        status, _, err = _cli(capsys, *argv)
        assert status == 1 and err.count("\n") == 1 and message in err, err
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine" and os.listdir(tmp_path / "busy") == ["notes.txt"]
    assert not (tmp_path / "new").exists()


def test_resume_refuses_another_spec(first: tuple[Path, pd.DataFrame], models: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(first[0], tmp_path / "out")
    other = _spec(tmp_path, "spec.yaml", GRID.format(models=models, bits="2"))
    status, _, err = _cli(capsys, "sweep", str(other), "-o", str(tmp_path / "out"), "--resume")
    assert status == 1 and "this spec differs from the sweep recorded" in err and err.count("\n") == 1


def test_points_asking_for_more_cpus_than_the_cluster_are_refused(models: Path, cluster: str, tmp_path: Path) -> None:
    spec = _spec(tmp_path, "spec.yaml", f"models: [{models}/mlp.pt2]\nrun: {{cpus_per_point: 3}}\n")
    # The test's cluster has 2 CPUs: no task could ever start.
    with pytest.raises(UserError, match=r"a point asks for 3 CPUs \(run.cpus_per_point\) but the Ray cluster has 2"):
        sweep.run(spec, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "sweep.json").read_text())["state"] == "failed"
    # A local cluster for the sweep (another process: this one has a cluster) is sized before anything is written.
    run = subprocess.run([sys.executable, "-m", "raptor", "sweep", str(spec), "-o", str(tmp_path / "local"),
                          "--cpus", "2"], capture_output=True, text=True)
    assert run.returncode == 1 and run.stderr == ("raptor: error: a point asks for 3 CPUs (run.cpus_per_point) but "
                                                  "the local cluster has 2\n")
    assert not (tmp_path / "local").exists()
