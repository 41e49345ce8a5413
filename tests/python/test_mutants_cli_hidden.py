"""Hand-made mutants of raptor.cli that no other test pinned: the documented
--seed default of `raptor simulate`, the bounds of the count and fraction
option types, the milliseconds `raptor schedule` prints, the predicted end
of a task beside its simulated one and the task shown as farthest from it
(`simulate --timing`), the relative error of `simulate --check`, the
codec-report table's traffic parts and `raptor summary`'s operator order.
Each expectation comes from the documented rule, a hand count, eager torch
or the sum of the report's own parts, never from the output under test."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import cli
from raptor.cli.common import count, fraction


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.c = torch.nn.Linear(8, 16), torch.nn.Linear(16, 16), torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(torch.relu(self.b(torch.relu(self.a(x)))))


@pytest.fixture(scope="module")
def mlp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mlp") / "mlp.pt2"
    torch.manual_seed(0)
    torch.export.save(torch.export.export(_Mlp().eval(), (torch.randn(2, 8),), strict=False), path)
    return path


@pytest.fixture(scope="module")
def program(mlp: Path) -> Path:
    out = mlp.parent / "program"
    assert cli.main(["compile", str(mlp), "-o", str(out), "--format", "none", "-q"]) == 0
    return out


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert cli.main([str(a) for a in args]) == 0
    return capsys.readouterr().out


def test_simulate_without_seed_draws_from_default_rng_0(program: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """--seed's documented default is 0: the same output as the array
    default_rng(0) draws, given by hand."""
    _run(capsys, "simulate", program, "--output", tmp_path / "seeded.npy", "--json")
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32))
    _run(capsys, "simulate", program, "--input", tmp_path / "x.npy", "--output", tmp_path / "given.npy", "--json")
    np.testing.assert_array_equal(np.load(tmp_path / "seeded.npy"), np.load(tmp_path / "given.npy"))
    text = _run(capsys, "simulate", program)
    assert "  random input(s) x (seed 0)" in text.splitlines()


def test_count_options_take_their_minimum_and_refuse_below_it() -> None:
    assert count(1)("1") == 1 and count(1)("1e3") == 1000 and count(0)("0") == 0
    for minimum, text in ((1, "0"), (1, "-1"), (0, "-1"), (1, "x")):
        with pytest.raises(argparse.ArgumentTypeError):
            count(minimum)(text)


def test_fraction_options_take_both_ends_of_zero_to_one() -> None:
    assert fraction("0") == 0.0 and fraction("1") == 1.0 and fraction("0.25") == 0.25
    for text in ("-0.01", "1.01", "half", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            fraction(text)


def test_compile_takes_a_pipeline_of_one_stage_and_no_unroll_limit(mlp: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    summary = json.loads(_run(capsys, "compile", mlp, "-o", tmp_path / "p", "--pipeline", "1", "--unroll-limit",
                              "0", "--format", "none", "-q", "--json"))
    assert summary["schedule_mode"] == "pipeline" and summary["pipeline_stages"] == 1


def test_schedule_prints_its_figures_in_milliseconds(mlp: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The summary lines are the report's nanoseconds / 1e6, each key once."""
    text = _run(capsys, "schedule", mlp, "--report-dir", tmp_path / "r")
    s = json.loads((tmp_path / "r" / "schedule.json").read_text())["summary"]
    shown = {m.group(1): m.group(2) for m in re.finditer(r"^  ([a-z ]+?) +(-?[\d.]+) ms$", text, re.M)}
    expected = {key.removesuffix("_ns").replace("_", " "): f"{s[key] / 1e6:.3f}"
                for key in ("completion_ns", "predicted_latency_ns", "predicted_interval_ns", "critical_path_ns",
                            "serial_work_ns", "max_core_work_ns", "transfer_work_ns") if key in s}
    assert len(expected) >= 5 and shown == expected
    assert s["completion_ns"] > 1000  # (a figure that a wrong unit would move)
    assert re.search(rf"^  crossbars used +{s['crossbars_used']}$", text, re.M)


def test_timing_json_gives_each_task_its_predicted_end(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A task's predicted end is the queue model's predicted start plus its
    cost, as reports/schedule_tasks.json gives them."""
    tasks = json.loads(_run(capsys, "simulate", program, "--timing", "--json"))["tasks"]
    rows = {(r["name"], r["core"]): r for r in json.loads((program / "reports" / "schedule_tasks.json").read_text())}
    predicted = [t for t in tasks if "predicted_end_ns" in t]
    assert predicted
    for t in predicted:
        r = rows[(t["name"], t["core"])]
        assert r["cost_ns"] > 0
        assert t["predicted_end_ns"] == r["predicted_start_ns"] + r["cost_ns"]


def test_timing_names_the_task_farthest_from_its_prediction_early_or_late(program: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]
                                                                           ) -> None:
    """The schedule report edited so that every compared task is predicted
    to end exactly when it is simulated to, but one, predicted a second
    later (the simulation 1e9 ns early): that one is the farthest."""
    copy = tmp_path / "p"
    shutil.copytree(program, copy)
    tasks = json.loads(_run(capsys, "simulate", copy, "--timing", "--json"))["tasks"]
    compared = [t for t in tasks if "predicted_end_ns" in t]
    assert len(compared) >= 2
    early = compared[0]
    ends = {(t["name"], t["core"]): t["end_ns"] for t in compared}
    path = copy / "reports" / "schedule_tasks.json"
    rows = json.loads(path.read_text())
    for r in rows:
        if (r["name"], r["core"]) in ends:
            r["predicted_start_ns"] = round(ends[(r["name"], r["core"])]) - r["cost_ns"]
            if (r["name"], r["core"]) == (early["name"], early["core"]):
                r["predicted_start_ns"] += 10**9
    path.write_text(json.dumps(rows))
    text = _run(capsys, "simulate", copy, "--timing")
    line = next(line for line in text.splitlines() if line.startswith("  tasks against the schedule"))
    assert (f"farthest {early['name'].split(' ')[-1]} on core {early['core']}, simulated end "
            f"{early['end_ns'] / 1e6:.4f} ms, predicted {(round(early['end_ns']) + 10**9) / 1e6:.4f} ms") in line


def test_check_reports_the_error_relative_to_the_models_largest_output(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """int8, so that the simulated output's largest magnitude is not the
    model's: max_error is max |simulated - eager torch| and the relative
    error divides it by eager torch's largest |output|."""
    torch.manual_seed(1)
    model = torch.nn.Linear(8, 6).eval()
    source = tmp_path / "linear.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(1, 8),), strict=False), source)
    _run(capsys, "compile", source, "-o", tmp_path / "p", "--precision", "int8", "--format", "none", "-q")
    report = json.loads(_run(capsys, "simulate", tmp_path / "p", "--check", "--output", tmp_path / "y.npy",
                             "--json"))
    x = np.random.default_rng(0).standard_normal((1, 8)).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    out = np.load(tmp_path / "y.npy")
    error = float(np.abs(out - ref).max())
    assert error > 0 and float(np.abs(out).max()) != float(np.abs(ref).max())
    assert report["max_error"] == pytest.approx(error, rel=1e-6)
    assert report["max_error_relative"] == pytest.approx(error / float(np.abs(ref).max()), rel=1e-6)


def test_check_says_when_the_models_output_is_all_zeros(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A head initialized to zeros (torchvision's ViT) makes every output
    zero, and a random initialization can shrink activations below float32's
    normal numbers (HF MobileViT's reach 6.7e-40): a --check against either
    compares nothing, and says so; a model with an output of normal size
    (1e-37 here, just above the smallest normal number) gets no such
    note."""
    torch.manual_seed(1)
    for zero, scale in ((True, 0.0), (True, 1e-40), (False, 1e-37)):
        model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 4)).eval()
        with torch.no_grad():
            model[2].weight.fill_(0.0)
            model[2].bias.fill_(scale)
        source = tmp_path / f"head{scale}.pt2"
        torch.export.save(torch.export.export(model, (torch.randn(1, 8),), strict=False), source)
        _run(capsys, "compile", source, "-o", tmp_path / f"p{scale}", "--format", "none", "-q")
        text = _run(capsys, "simulate", tmp_path / f"p{scale}", "--check")
        assert ("output is all zeros or subnormal (below float32's smallest normal number, 1.2e-38), "
                "so the comparison checks little" in text) == zero
        report = json.loads(_run(capsys, "simulate", tmp_path / f"p{scale}", "--check", "--json"))
        assert report["reference_all_zero"] == zero


def test_codec_report_table_shows_the_operators_and_codecs_traffic(capsys: pytest.CaptureFixture[str]) -> None:
    """The traffic's two parts add up to it; the table shows each in its own
    row (MiB of 2^20 bytes)."""
    data = json.loads(_run(capsys, "codec-report", "shufflenet_v2", "--json"))
    assert data["operator_traffic_bytes"] + data["codec_traffic_bytes"] == data["traffic_bytes"]
    assert data["operator_traffic_bytes"] != data["codec_traffic_bytes"]
    text = _run(capsys, "codec-report", "shufflenet_v2", "--policy", "W")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^ +(\S.*?) {2,}(\S.*)$", text, re.M)}
    mib = 1024 * 1024
    assert rows["traffic"] == f"{data['traffic_bytes'] / mib:.2f} MiB"
    assert rows["operators"] == f"{data['operator_traffic_bytes'] / mib:.2f} MiB"
    assert rows["codecs"] == f"{data['codec_traffic_bytes'] / mib:.2f} MiB"


def test_summary_lists_operators_most_frequent_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three linear layers and two ReLUs (counted by hand): nn.linear's row
    (3) comes before nn.relu's (2); rows of one count by name."""
    source = tmp_path / "mlp.pt2"
    torch.manual_seed(0)
    torch.export.save(torch.export.export(_Mlp().eval(), (torch.randn(2, 8),), strict=False), source)
    text = _run(capsys, "summary", source)
    rows = [(m.group(1), int(m.group(2))) for m in re.finditer(r"^  (nn\.\w+) +(\d+)$", text, re.M)]
    counts = dict(rows)
    assert counts["nn.linear"] == 3 and counts["nn.relu"] == 2
    assert [n for n, _ in rows].index("nn.linear") < [n for n, _ in rows].index("nn.relu")
    assert [c for _, c in rows] == sorted((c for _, c in rows), reverse=True)


def test_only_an_onnx_file_is_checked_against_onnxruntime() -> None:
    """A zoo name and a .pt2 file run eager torch; an .onnx file onnxruntime
    (what `simulate --check` reports as its reference)."""
    from mlir import ir

    import raptor
    from raptor.sources import Model

    with raptor.Context(), ir.Location.unknown():
        module = ir.Module.create()
        names = {source: Model(module, None, source).reference_name
                 for source in ("shufflenet_v2", "m.pt2", "dir/m.onnx", "m.mlir")}
    assert names == {"shufflenet_v2": "torch", "m.pt2": "torch", "dir/m.onnx": "onnxruntime", "m.mlir": "torch"}


def test_targets_describes_each_bundled_chip_from_its_file(capsys: pytest.CaptureFixture[str]) -> None:
    """The lines of the bundled targets, from their JSON files by hand:
    small has 4 cores on a 2 x 2 mesh, 8 crossbars each (32 in all);
    isaac168 168 cores on 12 rows by 14 columns, 96 each (16,128), and is
    the default. Local memory in MiB of 2^20 bytes, as --json gives it."""
    text = _run(capsys, "targets")
    described = json.loads(_run(capsys, "targets", "--json"))
    lines = text.splitlines()
    small = lines.index("small: A small test chip: 4 cores x 8 crossbars of 16x16")
    assert lines[small + 1:small + 4] == [
        "  cores 4 on a 2 x 2 mesh, clock 2 ns",
        "  crossbars 8 per core (32 in all) of 16 x 16 cells, 4-bit cells, 8-bit weights",
        f"  local memory {described['small']['memory']['local_bytes'] / 2**20:g} MiB per core"]
    isaac = lines.index("isaac168: ISAAC-like chip: 168 cores x 96 crossbars of 128x128 (the seed's default)")
    assert lines[isaac + 1:isaac + 3] == [
        "  cores 168 on a 12 x 14 mesh, clock 1 ns",
        "  crossbars 96 per core (16,128 in all) of 128 x 128 cells, 8-bit cells, 8-bit weights"]
    assert lines[isaac + 4] == "  (the default)" and "  (the default)" not in lines[small:small + 5]
    assert described["isaac168"]["memory"]["local_bytes"] % 2**20 == 0  # (a whole number of MiB, not of MB)
    assert f"  local memory {described['isaac168']['memory']['local_bytes'] // 2**20} MiB per core" == lines[isaac + 3]


def test_a_dependencys_error_is_one_line_naming_its_type_except_a_failed_assertion() -> None:
    """A frontend dependency's exception reads 'Type: text' on one line
    (whitespace folded); a failed assertion of the dependency's own checks
    is its text alone (its type would read as Raptor's crash); no text, the
    type alone."""
    from raptor.sources import _one_line

    assert _one_line(ValueError("bad\n   archive")) == "ValueError: bad archive"
    assert _one_line(AssertionError("truncated  file")) == "truncated file"
    assert _one_line(RuntimeError()) == "RuntimeError"
    assert _one_line(AssertionError()) == "AssertionError"


def test_an_nn_graph_that_does_not_verify_names_the_node_and_its_first_complaint(monkeypatch) -> None:
    """An importer's MLIRError (an nn op refusing what torch exported) is
    one UserError line: the file, the node's location and the first
    diagnostic's message (the op's own, not the generic one after it)."""
    import raptor
    from mlir import ir

    from raptor import sources
    from raptor._io import UserError
    from raptor.frontend import torch as frontend

    def refuse(ep, options, context):
        ir.Module.parse('''
func.func @g(%x: tensor<4xf32>) -> tensor<3xf32> {
  %0 = nn.view %x {size = array<i64: 3>} : (tensor<4xf32>) -> tensor<3xf32> loc("view_3")
  return %0 : tensor<3xf32>
}''', context=context)

    monkeypatch.setattr(frontend, "import_program", refuse)
    with pytest.raises(UserError) as e:
        sources._import_program(None, "m.pt2", None, raptor.Context())
    assert str(e.value) == ("m.pt2: the nn graph does not verify: loc(\"view_3\"): cannot view 'tensor<4xf32>' "
                            "(4 elements) as [3] (3 elements)")
