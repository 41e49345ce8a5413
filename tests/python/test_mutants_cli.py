"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/cli.py: behaviour no other test pinned."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import torch

from raptor import cli


@pytest.fixture(scope="module")
def linear_pt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "linear.pt2"
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2).eval()
    torch.export.save(torch.export.export(model, (torch.randn(1, 3),), strict=False), path)
    return path


def test_a_failed_ir_write_removes_the_weights_already_written(linear_pt2: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.models, "_write_ir", disk_full)
    out = tmp_path / "linear.mlir"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(["import", str(linear_pt2), "-o", str(out)]) == 1
    assert err.getvalue().splitlines()[-1] == f"raptor: error: cannot write '{out}': No space left on device"
    # The weights were staged first; without the IR they are useless: neither is renamed in.
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_failed_ir_write_without_weights_raises_the_write_error(linear_pt2: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.models, "_write_ir", disk_full)
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["import", str(linear_pt2), "-o", str(tmp_path / "linear.mlir"), "--no-weights"]) == 1
    assert list(tmp_path.iterdir()) == []


def test_model_cleanup_removes_its_temporaries_and_tolerates_missing_ones(tmp_path: Path) -> None:
    import raptor
    from mlir import ir

    from raptor.sources import Model

    kept, gone = tmp_path / "weights.safetensors", tmp_path / "already-removed.safetensors"
    kept.write_bytes(b"x")
    with raptor.Context(), ir.Location.unknown():
        model = Model(ir.Module.create(), None, "m", temporary=[kept, gone])
        model.cleanup()
        model.cleanup()  # twice: nothing left to remove, no error
    assert list(tmp_path.iterdir()) == []


class _TwoOutputs(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.fc(x), x * 2


def test_a_pt2_source_refers_to_every_output_in_order(tmp_path: Path) -> None:
    import numpy as np

    from raptor import sources

    torch.manual_seed(0)
    model = _TwoOutputs().eval()
    x = torch.randn(1, 3)
    path = tmp_path / "two.pt2"
    torch.export.save(torch.export.export(model, (x,), strict=False), path)
    loaded = sources.load(str(path))
    try:
        with torch.no_grad():
            first, second = loaded.reference(x.numpy())
            np.testing.assert_array_equal(first, model(x)[0].numpy())
            np.testing.assert_array_equal(second, model(x)[1].numpy())
        assert loaded.weights is not None and loaded.weights.is_file()
    finally:
        loaded.cleanup()
    assert not loaded.weights.exists()


def test_a_missing_pt2_source_is_a_user_error(tmp_path: Path) -> None:
    from raptor import sources
    from raptor._io import UserError

    with pytest.raises(UserError, match="cannot read '.*none.pt2'"):
        sources.load(str(tmp_path / "none.pt2"))


def test_an_mlir_source_finds_its_weights_beside_it_or_where_told(tmp_path: Path) -> None:
    from raptor import sources

    path = tmp_path / "relu.mlir"
    path.write_text("func.func @f(%a: tensor<2xf32> {nn.input = \"x\"}) -> tensor<2xf32> {\n"
                    "  %r = nn.relu %a : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n")
    assert sources.load(str(path)).weights is None  # no weights beside it, none needed
    beside = tmp_path / "relu.safetensors"
    beside.write_bytes(b"")
    assert sources.load(str(path)).weights == beside
    elsewhere = tmp_path / "other.safetensors"
    elsewhere.write_bytes(b"")
    assert sources.load(str(path), str(elsewhere)).weights == elsewhere


def test_compile_names_int8_only_flags_with_the_verb_their_number_takes(linear_pt2: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out")
    assert cli.main(["compile", str(linear_pt2), "-o", out, "--policy", "Y"]) == 1
    assert "error: --policy only applies with --precision int8" in capsys.readouterr().err
    assert cli.main(["compile", str(linear_pt2), "-o", out, "--policy", "Y", "--report"]) == 1
    assert "error: --policy, --report only apply with --precision int8" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_simulate_feeds_inputs_not_given_seeded_random_ones(linear_pt2: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Without --input, each input is standard normal from default_rng(seed):
    the same output as giving that array by hand."""
    import json

    import numpy as np

    directory = tmp_path / "p"
    assert cli.main(["compile", str(linear_pt2), "-o", str(directory), "--format", "none", "-q"]) == 0
    capsys.readouterr()
    seeded = tmp_path / "seeded.npy"
    assert cli.main(["simulate", str(directory), "--seed", "3", "--output", str(seeded), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["random_inputs"] == ["input_1"]
    x = np.random.default_rng(3).standard_normal((1, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    given = tmp_path / "given.npy"
    assert cli.main(["simulate", str(directory), "--input", f"input_1={tmp_path / 'x.npy'}",
                     "--output", str(given), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["random_inputs"] == []
    np.testing.assert_array_equal(np.load(seeded), np.load(given))


def test_schedule_prints_the_periodic_interval_in_milliseconds(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import re

    path = tmp_path / "mlp.pt2"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)).eval()
    torch.export.save(torch.export.export(model, (torch.randn(4, 16),), strict=False), path)
    assert cli.main(["schedule", str(path), "--pipeline", "2", "--periodic", "--report-dir",
                     str(tmp_path / "r")]) == 0
    printed = re.search(r"periodic: interval (\S+) ms \((\w+); critical cycle over cores (\[[\d, ]*\]), "
                        r"distance (\d+)\)", capsys.readouterr().out)
    periodic = json.loads((tmp_path / "r" / "pipeline_periodic.json").read_text())
    assert periodic["status"] == "ok" and printed, periodic
    assert printed.group(1) == f"{periodic['interval_ns'] / 1e6:.3f}"
    assert (printed.group(2), json.loads(printed.group(3)), int(printed.group(4))) == (
        periodic["bound"], periodic["cycle_cores"], periodic["cycle_distance"])


def test_a_failed_weights_write_is_one_line_naming_the_os_reason(linear_pt2: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from raptor import weights

    def disk_full(path: object, tensors: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(weights, "save", disk_full)
    out = tmp_path / "linear.mlir"
    assert cli.main(["import", str(linear_pt2), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"raptor: error: cannot write '{weights.beside(out)}': No space left on device"
    assert not out.exists()


def test_simulate_prints_its_counts_and_rate_as_the_json_reports_them(linear_pt2: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The text summary of `raptor simulate`: the instructions, MVMs and bytes
    sent of the JSON report, and a rate of instructions per second that is
    the instructions over the seconds it prints (to the seconds' rounding)."""
    import json
    import re

    directory = tmp_path / "p"
    assert cli.main(["compile", str(linear_pt2), "-o", str(directory), "--format", "none", "-q"]) == 0
    capsys.readouterr()
    assert cli.main(["simulate", str(directory), "--seed", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert cli.main(["simulate", str(directory), "--seed", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    found = re.fullmatch(rf"{re.escape(str(directory))}: simulated ([\d,]+) instructions in ([\d.]+) s "
                         r"\(([\d,]+)/s\), ([\d,]+) MVMs, ([\d,]+) bytes sent between cores", first)
    assert found, first
    instructions, seconds, rate, mvmuls, sent = found.groups()
    assert int(instructions.replace(",", "")) == report["instructions"] > 0
    assert int(mvmuls.replace(",", "")) == report["mvmuls"] > 0
    assert int(sent.replace(",", "")) == report["sent_bytes"]
    rate_value, shown = int(rate.replace(",", "")), float(seconds)
    assert rate_value > 0
    if shown >= 0.01:  # (a faster run prints 0.00 s)
        assert report["instructions"] / (shown + 0.005) <= rate_value <= report["instructions"] / (shown - 0.005)


def test_a_zoo_name_with_export_is_built_exported_and_imported() -> None:
    """sources.load(NAME, export=True) builds the zoo model with torch,
    exports and imports it (what `raptor import --model NAME` does): the
    module has the bundled graph's input and nn operators, and the reference
    is the eager model."""
    import numpy as np

    from raptor import sources

    model = sources.load("shufflenet_v2", export=True, strict=True)
    try:
        text = str(model.module)
        assert "tensor<1x3x224x224xf32> {nn.input" in text and "nn.convolution" in text
        assert model.weights is not None and model.weights.is_file()
        x = np.zeros((1, 3, 224, 224), np.float32)
        (out,) = model.reference(x)
        assert out.shape == (1, 1000)
    finally:
        model.cleanup()
