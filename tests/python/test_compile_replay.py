"""raptor-opt replays raptor compile (issue 28): the CLI runs the C++
pipelines raptor-prepare-model / raptor-compile-backend / raptor-compile,
so the same pipelines from raptor-opt write the same program directory,
byte for byte; and the raptor-opt commands the documentation shows give
what the CLI gives."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from raptor import spatial

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


class Small(torch.nn.Module):
    """A residual CNN: convolutions with batch norms, a pool, a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(self.conv1(x)))
        y = torch.relu(y + self.conv2(y))
        return self.fc(torch.nn.functional.max_pool2d(y, 2).flatten(1))


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (args, result.stderr[-2000:])
    return result


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """model.mlir + model.safetensors (imported by `raptor import` from a
    torch.export file) and chip.json, the bundled default target."""
    d = tmp_path_factory.mktemp("replay")
    torch.manual_seed(0)
    model = Small().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.2, 0.2)
        model.bn.running_var.uniform_(0.5, 1.5)
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, 8, 8),)), str(d / "model.pt2"))
    run([str(BIN / "raptor"), "import", "model.pt2", "-o", "model.mlir"], d)
    shutil.copyfile(spatial.default_target(), d / "chip.json")
    return d


def files(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def assert_same_program(cli: Path, replay: Path, replay_input: str | None = None) -> None:
    """Every file of the CLI's directory, byte for byte, but the IR the
    replay started from (which it read, not wrote)."""
    want = {k: v for k, v in files(cli).items() if k != replay_input}
    got = files(replay)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], name


@pytest.mark.parametrize("pipeline", [None, 3])
def test_raptor_opt_replays_a_float32_compile(work: Path, pipeline: int | None) -> None:
    tag = f"f{pipeline or 0}"
    flags = ["--pipeline", str(pipeline)] if pipeline else []
    run([str(BIN / "raptor"), "compile", "model.mlir", "-o", f"cli-{tag}", "--target", "chip.json", *flags], work)
    options = f"target=chip.json weights=model.safetensors output=opt-{tag} source=model.mlir"
    if pipeline:
        options += f" pipeline={pipeline}"
    run([str(BIN / "raptor-opt"), "model.mlir", f"--raptor-compile={options}", "-o", "/dev/null"], work)
    assert_same_program(work / f"cli-{tag}", work / f"opt-{tag}")
    manifest = json.loads((work / f"cli-{tag}" / "manifest.json").read_text())
    assert manifest["schedule"]["mode"] == ("pipeline" if pipeline else "latency")
    assert (work / f"cli-{tag}" / "reports" / "pipeline_selection.json").exists() == bool(pipeline)


@pytest.mark.parametrize("pipeline", [None, 3])
def test_raptor_opt_replays_the_back_end_of_an_int8_compile(work: Path, pipeline: int | None) -> None:
    """From reports/quantized_model.mlir (calibrated; it carries its
    target and its quantization record), raptor-compile-backend writes the
    rest of the directory as the CLI did."""
    tag = f"q{pipeline or 0}"
    flags = ["--pipeline", str(pipeline)] if pipeline else []
    run([str(BIN / "raptor"), "compile", "model.mlir", "-o", f"cli-{tag}", "--precision", "int8", *flags], work)
    options = f"weights=model.safetensors output=opt-{tag} source=model.mlir"
    if pipeline:
        options += f" pipeline={pipeline}"
    run([str(BIN / "raptor-opt"), f"cli-{tag}/reports/quantized_model.mlir", f"--raptor-compile-backend={options}",
         "-o", "/dev/null"], work)
    assert_same_program(work / f"cli-{tag}", work / f"opt-{tag}", "reports/quantized_model.mlir")
    quantization = json.loads((work / f"opt-{tag}" / "manifest.json").read_text())["quantization"]
    assert quantization["policy"] == "Y" and quantization["arithmetic"] == "integer"


def test_a_compile_reads_its_target_once_and_names_it(work: Path) -> None:
    """After raptor-build-compute-graph no pass reads the target file: a
    compile's IR carries it (#pim.target), and the manifest names it."""
    run([str(BIN / "raptor"), "compile", "model.mlir", "-o", "cli-t", "--precision", "int8"], work)
    text = (work / "cli-t" / "reports" / "quantized_model.mlir").read_text()
    assert re.search(r'pim\.target = #pim\.target<"ISAAC-like chip: 168 cores', text)
    assert "chip.json" not in text
    manifest = json.loads((work / "cli-t" / "manifest.json").read_text())
    assert manifest["target"].startswith("ISAAC-like chip: 168 cores") and manifest["source"] == "model.mlir"


# The CLI flag of each raptor-compile option a documented command may use.
_FLAGS = {"target": "--target", "pimsim": "--format", "pipeline": "--pipeline", "replicate": "--replicate",
          "algorithm": "--algorithm", "replication-budget": "--replication-budget", "unroll-limit": "--unroll-limit"}


def documented_pipelines() -> list[tuple[str, str]]:
    """(file, command) of every raptor-opt --raptor-compile[-backend] command
    in the README and docs/."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in doc.read_text().splitlines():
            if line.startswith("raptor-opt ") and "--raptor-compile" in line:
                found.append((doc.name, line.split("  #")[0].split(" # ")[0].strip()))
    return found


def test_the_documentation_shows_the_compile_pipelines() -> None:
    assert {name for name, _ in documented_pipelines()} >= {"README.md", "pim.md"}


@pytest.mark.parametrize("doc,command", documented_pipelines())
def test_documented_pipelines_give_what_the_cli_gives(work: Path, doc: str, command: str) -> None:
    """Each documented replay, run as written in a directory holding the
    files it names, writes the directory raptor compile writes with the same
    options."""
    args = shlex.split(command)
    (pipeline_arg,) = [a for a in args if a.startswith("--raptor-compile")]
    name, _, text = pipeline_arg[2:].partition("=")
    options = dict(item.split("=", 1) for item in text.split())
    # The one thing a replay must be told that the IR does not say: the
    # model's name for the manifest (`raptor simulate --check` reads it).
    assert options.get("source") == "model.mlir", f"{doc}: {command} gives no source=model.mlir"
    output = Path(options["output"])
    flags = [x for key, value in options.items() if key in _FLAGS for x in (_FLAGS[key], value)]
    if name == "raptor-compile":
        cli_dir, replay_input = f"cli-doc-{output.name}", None
        run([str(BIN / "raptor"), "compile", args[1], "-o", cli_dir, *flags], work)
    else:  # the back end of an int8 compile, from the directory the CLI wrote
        cli_dir = Path(args[1]).parts[0]
        shutil.rmtree(work / cli_dir, ignore_errors=True)
        run([str(BIN / "raptor"), "compile", "model.mlir", "-o", cli_dir, "--precision", "int8", *flags], work)
        replay_input = "reports/quantized_model.mlir"
    shutil.rmtree(work / output, ignore_errors=True)
    run([str(BIN / "raptor-opt"), *args[1:]], work)
    assert_same_program(work / cli_dir, work / output, replay_input)


def test_documented_schedule_passes_give_raptor_schedules_schedule(work: Path) -> None:
    """docs/scheduling.md's raptor-opt passes are `raptor schedule`'s: the
    same tasks on the same cores at the same times."""
    text = (ROOT / "docs" / "scheduling.md").read_text()
    (line,) = [x for x in text.splitlines() if x.startswith("raptor-opt model.mlir --raptor-prepare-model ")]
    args = shlex.split(line.split("  #")[0])
    printed = run([str(BIN / "raptor-opt"), *args[1:]], work).stdout
    opt = sorted(re.findall(r'spatial\.task "([^"]+)".*?\bcore = (\d+) : i64.*?\bstart_ns = (\d+) : i64', printed))
    run([str(BIN / "raptor"), "schedule", "model.mlir", "--target", "chip.json", "--report-dir", "sched"], work)
    report = json.loads((work / "sched" / "schedule.json").read_text())
    cli = sorted((t["name"], str(t["core"]), str(t["start_ns"])) for t in report["tasks"])
    assert opt and opt == cli


def test_a_compile_opens_the_weights_once(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """raptor compile --precision int8 --report: calibration, the lowering
    and the accuracy report read one open weights file."""
    from raptor import _raptor, cli

    opened: list[str] = []
    real = _raptor.Weights.open

    class Counting:
        @staticmethod
        def open(path: str):
            opened.append(path)
            return real(path)

    monkeypatch.setattr(_raptor, "Weights", Counting)
    monkeypatch.chdir(work)
    assert cli.main(["compile", "model.mlir", "-o", "cli-w", "--precision", "int8", "--report", "-q"]) == 0
    assert opened == ["model.safetensors"]
