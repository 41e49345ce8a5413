"""Defaults: each test omits an option (of `raptor compile`, `raptor
schedule`, `raptor codec-report`, or a keyword of the Python API) and checks
the behaviour its documented default must give: the same program, byte for
byte, as the documented value given explicitly, and (so that the option is
seen to matter) another program for another value. Where the default is a
computation (the calibration inputs), it is done here independently.

Documented defaults (raptor compile --help, docs/quantization.md,
docs/scheduling.md): --precision int8 alone means policy Y, placement
nonlocal-coalesced, arithmetic auto, 4 seeded standard-normal calibration
inputs (numpy's default_rng(0)); latency mode replicates by the time rule,
pipeline mode by balance, within half the chip's crossbars; element-wise
operators follow row copies in pipeline mode only; the scheduler is PEFT;
pimsim-nn files are binary; raptor schedule writes into ./reports;
codec-report places policy W, non-local coalesced, with the paper's graph
conventions for zoo models only."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import cli, codec, pim, quant, sources, spatial, zoo

from pim_helpers import export, randomize

RAPTOR_OPT = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"

# 6 cores x 6 crossbars of 16 x 16: the model below needs 18 crossbars
# without copies, so the replication budget (half of 36) binds.
TARGET = {
    "name": "tests: 6 cores x 6 crossbars of 16x16",
    "clock": {"period_ns": 1.0},
    "cores": {"count": 6, "mesh_rows": 2, "mesh_cols": 3},
    "crossbar": {"per_core": 6, "rows": 16, "cols": 16, "cell_bits": 8, "weight_bits": 8},
    "network": {"link_bytes_per_cycle": 4, "hop_latency_cycles": 1},
    "memory": {"local_bytes": 1048576},
}


class Small(torch.nn.Module):
    """Two convolutions, a residual add, pooling and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        y = torch.relu(self.b(y) + y)
        return self.head(torch.nn.functional.avg_pool2d(y, 2).flatten(1))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("defaults")
    torch.manual_seed(0)
    model = randomize(Small())
    torch.export.save(export(model, torch.randn(1, 3, 8, 8)), root / "small.pt2")
    (root / "target.json").write_text(json.dumps(TARGET))
    return {"root": root, "model": root / "small.pt2", "target": root / "target.json"}


def _raptor(*args: str) -> str:
    """`raptor ARGS` in this process; its stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main([str(a) for a in args]) == 0
    return out.getvalue()


def _files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _compile(files: dict[str, Path], name: str, *options: str) -> dict[str, bytes]:
    out = files["root"] / name
    _raptor("compile", files["model"], "-o", out, "--target", files["target"], "-q", *options)
    return _files(out)


def _api_compile(files: dict[str, Path], name: str, **options) -> dict[str, bytes]:
    model = sources.load(str(files["model"]))
    try:
        out = files["root"] / name
        pim.compile(model.module, out, weights=model.weights, target=files["target"], source=model.source,
                    **options)
    finally:
        model.cleanup()
    return _files(out)


def _crossbars(program: dict[str, bytes]) -> int:
    manifest = json.loads(program["manifest.json"])
    return sum(g["crossbars"] for c in manifest["cores"] for g in c["groups"])


# --- raptor compile and pim.compile: float32 ---------------------------------

@pytest.fixture(scope="module")
def latency_default(files: dict[str, Path]) -> dict[str, bytes]:
    return _compile(files, "latency-default")


def test_compile_defaults_in_latency_mode(files: dict[str, Path], latency_default: dict[str, bytes]) -> None:
    """No options: PEFT, the time rule within half the crossbars, no
    followers, transfers and row blocks chosen by the queue model, binary
    pimsim-nn files, float32. The Python API's keywords omitted give the
    same bytes."""
    explicit = _compile(files, "latency-explicit", "--algorithm", "peft", "--replicate", "time",
                        "--replication-budget", "0.5", "--no-follow-rows", "--format", "binary",
                        "--precision", "fp32", "--transfers", "auto", "--row-block", "auto")
    assert explicit == latency_default
    assert _api_compile(files, "latency-api") == latency_default
    names = set(latency_default)
    assert "core_0.pim" in names and not any(n.endswith(".json") and n.startswith("core_") for n in names)
    chip_crossbars = TARGET["cores"]["count"] * TARGET["crossbar"]["per_core"]
    assert _crossbars(latency_default) <= chip_crossbars // 2


def test_the_replication_budget_binds(files: dict[str, Path], latency_default: dict[str, bytes]) -> None:
    """By hand, the lanes without copies take 15 crossbars of 16 x 16 (conv
    a's 27 rows: 2, conv b's 72: 5, the head's 128: 8). Half of the chip's
    36 is 18: the default makes copies (17), a quarter (9) none, the whole
    chip more, each within its budget."""
    chip_crossbars = TARGET["cores"]["count"] * TARGET["crossbar"]["per_core"]
    assert 15 < _crossbars(latency_default) <= chip_crossbars // 2
    assert _crossbars(_compile(files, "budget-0.25", "--replication-budget", "0.25")) == 15
    whole = _compile(files, "budget-1", "--replication-budget", "1.0")
    assert _crossbars(latency_default) < _crossbars(whole) <= chip_crossbars


def test_a_chip_filled_by_copies_is_scheduled_by_the_best_fit_retry(files: dict[str, Path]) -> None:
    """Copies within the whole chip leave the list scheduler no room for a
    lane; its retry (largest weights first, best fit) schedules them.
    (The retry scheduled a copy of the graph whose link costs were looked up
    by the original's edge addresses: raptor compile aborted.)"""
    report = spatial.schedule_model(sources.load(str(files["model"]), weights_as=None).module,
                                    str(files["target"]), replication_budget=1.0)
    assert report["strategy"] == "largest-weight-first best fit"
    per_core: dict[int, int] = {}
    for t in report["tasks"]:
        per_core[t["core"]] = per_core.get(t["core"], 0) + t["tiles"]
    assert max(per_core.values()) <= TARGET["crossbar"]["per_core"]
    assert report["summary"]["crossbars_used"] == sum(per_core.values()) > 15


def test_compile_defaults_in_pipeline_mode(files: dict[str, Path]) -> None:
    """--pipeline alone: the balance rule, followers and the crossing the
    queue model picks."""
    default = _compile(files, "pipeline-default", "--pipeline", "2")
    explicit = _compile(files, "pipeline-explicit", "--pipeline", "2", "--replicate", "balance", "--follow-rows",
                        "--crossing", "auto")
    assert default == explicit
    assert _api_compile(files, "pipeline-api", pipeline=2) == default
    assert _compile(files, "pipeline-no-follow", "--pipeline", "2", "--no-follow-rows") != default
    assert _compile(files, "pipeline-none", "--pipeline", "2", "--replicate", "none") != default


# --- int8 ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def int8_default(files: dict[str, Path]) -> dict[str, bytes]:
    return _compile(files, "int8-default", "--precision", "int8")


def test_precision_int8_alone_uses_the_documented_policy(files: dict[str, Path],
                                                         int8_default: dict[str, bytes]) -> None:
    explicit = _compile(files, "int8-explicit", "--precision", "int8", "--policy", "Y", "--placement",
                        "nonlocal-coalesced", "--arithmetic", "auto", "--calibration-samples", "4")
    assert explicit == int8_default
    assert _api_compile(files, "int8-api", precision="int8") == int8_default
    # The policy matters for this model: W quantizes more than Y.
    assert _compile(files, "int8-w", "--precision", "int8", "--policy", "W") != int8_default


def test_the_default_calibration_is_four_inputs_of_numpys_default_rng_0(files: dict[str, Path],
                                                                        int8_default: dict[str, bytes]) -> None:
    """The same stream of standard-normal draws, made here and given as a
    file: the same calibration, the same program."""
    stack = np.random.default_rng(0).standard_normal((4, 1, 3, 8, 8)).astype(np.float32)
    np.save(files["root"] / "calibration.npy", stack)
    given = _compile(files, "int8-given", "--precision", "int8", "--calibrate", files["root"] / "calibration.npy")

    def calibration(program: dict[str, bytes]) -> dict:
        q = json.loads(program["manifest.json"])["quantization"]
        return {k: v for k, v in q["calibration"].items() if k != "source"}

    assert calibration(given) == calibration(int8_default)
    three = _compile(files, "int8-three", "--precision", "int8", "--calibration-samples", "3")
    assert calibration(three) != calibration(int8_default)


# --- raptor schedule and spatial.schedule_model -------------------------------

def test_schedule_defaults(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """No options: nothing written where the user did not say (reports only
    with --report-dir), PEFT and the time rule within half the crossbars in
    latency mode; schedule_model's keywords omitted agree."""
    monkeypatch.chdir(files["root"])
    before = sorted(p.name for p in files["root"].iterdir())
    _raptor("schedule", files["model"], "--target", files["target"])
    assert sorted(p.name for p in files["root"].iterdir()) == before
    _raptor("schedule", files["model"], "--target", files["target"], "--report-dir", "out")
    written = json.loads((files["root"] / "out" / "schedule.json").read_text())
    assert (files["root"] / "out" / "gantt.svg").is_file()

    def scheduled(**options) -> dict:
        report = spatial.schedule_model(sources.load(str(files["model"]), weights_as=None).module,
                                        str(files["target"]), **options)
        report.pop("selection", None)
        return report

    explicit = scheduled(algorithm="peft", replicate="time", replication_budget=0.5, follow_rows=False)
    assert written == explicit == scheduled()
    assert written["algorithm"] == "peft"
    assert scheduled(replicate="none") != explicit  # (copies were made)
    pipelined = scheduled(pipeline=2)
    assert pipelined == scheduled(pipeline=2, replicate="balance", follow_rows=True)


# --- codecs -----------------------------------------------------------------

def test_codec_report_defaults_for_a_file(files: dict[str, Path]) -> None:
    default = json.loads(_raptor("codec-report", files["model"], "--json"))
    explicit = json.loads(_raptor("codec-report", files["model"], "--json", "--policy", "W", "--placement",
                                  "nonlocal-coalesced", "--no-paper-conventions"))
    assert default == explicit
    assert json.loads(_raptor("codec-report", files["model"], "--json", "--policy", "Y"))["traffic_bytes"] != \
        default["traffic_bytes"]


def _placed(files: dict[str, Path], **options) -> str:
    module = sources.load(str(files["model"]), weights_as=None).module
    codec.place(module, **options)
    return str(module)


def test_codec_place_defaults(files: dict[str, Path]) -> None:
    assert _placed(files) == _placed(files, policy="W", placement="nonlocal-coalesced")
    assert _placed(files) != _placed(files, policy="Y")


def test_quant_prepare_defaults_are_the_compiles() -> None:
    """quant.prepare is the raptor-prepare-model phase of an int8 compile:
    omitted, its placement is the compile's, as raptor-opt's pipeline has
    it. (U-Net under W is placed differently non-locally and coalesced; the
    default was 'nonlocal'.)"""
    def prepared(**options) -> str:
        module = sources.load("unet", weights_as=None).module
        quant.prepare(module, **options)
        return str(module)

    pipeline = subprocess.run([RAPTOR_OPT, str(zoo.graph_path("unet")),
                               "--raptor-prepare-model=precision=int8 policy=W"],
                              capture_output=True, text=True, check=True).stdout
    assert prepared(policy="W").strip() == pipeline.strip()
    assert prepared(policy="W") != prepared(policy="W", placement="nonlocal")
    assert prepared() == prepared(policy="Y", placement="nonlocal-coalesced")


def test_random_calibration_inputs_default_to_seed_0(files: dict[str, Path]) -> None:
    module = sources.load(str(files["model"]), weights_as=None).module
    (name,) = quant.input_shapes(module)
    drawn = [s[name] for s in quant.random_inputs(module, 2)]
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(drawn[0], rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
    np.testing.assert_array_equal(drawn[1], rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
