"""The command lines: `raptor` and `raptor-opt`, including their bad-input behaviour."""

from __future__ import annotations

import json
import shutil
import os
import subprocess
import sys
from pathlib import Path

import pytest

from raptor import zoo

RAPTOR = [sys.executable, "-m", "raptor"]
RAPTOR_OPT = shutil.which("raptor-opt", path=str(Path(sys.executable).parent)) or "raptor-opt"

BAD_SHAPE = """func.func @f(%a: tensor<2x4xf32>, %w: tensor<3x5xf32>) -> tensor<2x3xf32> {
  %0 = nn.linear %a, %w : (tensor<2x4xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


def run(cmd: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)


def test_summary_of_a_bundled_model_as_json() -> None:
    result = run(RAPTOR + ["summary", "unet", "--json"])
    assert result.returncode == 0, result.stderr
    (f,) = json.loads(result.stdout)["functions"]
    assert round(f["fp32_storage_mib"], 1) == zoo.PAPER_FP32_MIB["unet"]
    assert f["op_counts"]["nn.convolution"] == 47


def test_summary_table_of_a_file(tmp_path: Path) -> None:
    result = run(RAPTOR + ["summary", str(zoo.graph_path("shufflenet_v2"))])
    assert result.returncode == 0, result.stderr
    assert "8.75 MiB fp32" in result.stdout
    assert "nn.convolution" in result.stdout


def test_models_lists_the_zoo() -> None:
    result = run(RAPTOR + ["models"])
    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == list(zoo.NAMES)


@pytest.mark.parametrize("args, stdin, message", [
    (["summary", "no/such/file.mlir"], None, "cannot read 'no/such/file.mlir'"),
    (["summary", "-"], "func.func @f( {", "-:1:"),
    (["summary", "-"], BAD_SHAPE, "-:2:8: input features 4 do not match weight in-features 5"),
    (["summary", "-"], "func.func @f() {\n  nn.bogus\n  return\n}", "-:2:3:"),
])
def test_bad_input_is_one_located_error(args: list[str], stdin: str | None, message: str) -> None:
    result = run(RAPTOR + args, stdin)
    assert result.returncode == 1
    assert result.stderr.startswith("raptor: error: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_non_utf8_file_is_one_line_error(tmp_path: Path) -> None:
    binary = tmp_path / "binary.sure"
    binary.write_bytes(b"\xff\xfe\x00")
    result = run(RAPTOR + ["rdg", str(binary)])
    assert result.returncode == 1
    assert result.stderr == f"raptor: error: cannot read '{binary}': not UTF-8 text (byte 0)\n"


def test_import_refuses_unknown_model() -> None:
    result = run(RAPTOR + ["import", "--model", "resnet"])
    assert result.returncode == 2  # a usage error, reported by argparse
    assert "invalid choice: 'resnet'" in result.stderr


def test_every_subcommand_help_has_an_example() -> None:
    from raptor import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    missing = [name for name, p in sub.choices.items() if "example" not in (p.epilog or "")]
    assert not missing, missing
    # The whole text must format: argparse expands % in every option's help,
    # so a literal "10%" taken from a C++ vocabulary once crashed --help.
    for name, p in sub.choices.items():
        assert "example" in p.format_help(), name


def test_compile_help_runs_from_the_command_line() -> None:
    result = subprocess.run([*RAPTOR, "compile", "--help"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "--crossing" in result.stdout and "10% faster" in result.stdout


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    result = run(RAPTOR + ["--version"])
    assert result.returncode == 0 and result.stdout == f"raptor {version('raptor')}\n"


def test_raptor_opt_help_lists_raptor() -> None:
    result = run([RAPTOR_OPT, "--help"])
    assert result.returncode == 0
    assert "Available Dialects:" in result.stdout and " nn," in result.stdout + ","
    assert "--raptor-summarize-graph" in result.stdout
    # LLVM's own code-generation options are not this tool's business (hidden, still accepted).
    assert "--aarch64-neon-syntax" not in result.stdout and "--x86-asm-syntax" not in result.stdout
    assert len(result.stdout.splitlines()) < 300


def test_raptor_opt_leaves_no_partial_output(tmp_path: Path) -> None:
    src = tmp_path / "bad.mlir"
    src.write_text(BAD_SHAPE)
    out = tmp_path / "out.mlir"
    result = run([RAPTOR_OPT, str(src), "-o", str(out)])
    assert result.returncode == 1
    assert "input features 4 do not match weight in-features 5" in result.stderr
    assert f"{src}:2:8" in result.stderr
    assert not out.exists()


def test_raptor_opt_round_trips_a_bundled_model(tmp_path: Path) -> None:
    out = tmp_path / "siglip.mlir"
    result = run([RAPTOR_OPT, str(zoo.graph_path("siglip")), "-o", str(out)])
    assert result.returncode == 0, result.stderr
    # raptor-opt ends its output with an empty line.
    assert out.read_text().rstrip() == zoo.graph_path("siglip").read_text().rstrip()


@pytest.mark.parametrize("spec, message", [
    ("2147483648:1", "the layout has 2147483648 cells; pictures draw at most 4096"),
    ("(1000,1000):(1,1000)", "the layout has 1000000 cells; pictures draw at most 4096"),
    ("-x", "cannot draw '-x'"),
])
def test_layout_svg_refuses_what_it_cannot_draw(tmp_path: Path, spec: str, message: str) -> None:
    """Fuzz findings: a 2^31-cell layout hung, a 10^6-cell one wrote 157 MB,
    a spec starting with '-' was taken for an option (usage, exit 2)."""
    out = tmp_path / "x.svg"
    result = run(RAPTOR + ["layout-svg", spec, "-o", str(out)])
    assert result.returncode == 1 and message in result.stderr and not out.exists()


def test_layout_svg_takes_specs_with_leading_minus_anywhere(tmp_path: Path) -> None:
    for args in (["-1:2", "-o", str(tmp_path / "a.svg")], ["-o", str(tmp_path / "b.svg"), "-1:2"]):
        result = run(RAPTOR + ["layout-svg"] + args)
        assert result.returncode == 1 and "cannot draw '-1:2'" in result.stderr  # a spec, judged as one


def test_outputs_respect_the_umask_directories_symlinks_and_fifos(tmp_path: Path) -> None:
    """Fuzz findings: reports were created 0600 whatever the umask, a
    directory as output gave a traceback, a symlink or FIFO was replaced by
    a regular file."""
    spec = "(2,2):(1,2)"
    old = os.umask(0o022)
    try:
        out = tmp_path / "a.svg"
        assert run(RAPTOR + ["layout-svg", spec, "-o", str(out)]).returncode == 0
        assert out.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)
    result = run(RAPTOR + ["layout-svg", spec, "-o", str(tmp_path)])
    assert result.returncode == 1 and "it is a directory" in result.stderr and "Traceback" not in result.stderr
    real = tmp_path / "real.svg"
    real.write_text("old")
    link = tmp_path / "link.svg"
    link.symlink_to(real)
    assert run(RAPTOR + ["layout-svg", spec, "-o", str(link)]).returncode == 0
    assert link.is_symlink() and "<svg" in real.read_text()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    assert run(RAPTOR + ["layout-svg", spec, "-o", str(fifo)]).returncode == 0
    assert "<svg" in reader.communicate(timeout=60)[0]
    assert fifo.is_fifo()


def test_summary_of_a_tensor_too_large_to_count() -> None:
    """Fuzz repro K2: the Python process aborted in MLIR's element count."""
    from test_rdg import DATA

    result = run(RAPTOR + ["summary", str(DATA / "fuzz-repros" / "K2-summary-numelements-overflow.mlir")])
    assert result.returncode == 1 and "has more elements than int64 counts" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name, message", [
    ("T-sure-unbounded.sure", "no constant bound"),
    ("P-sure-deep.sure", "nested too deeply"),
    ("Q-sure-memerror.sure", "the domain is empty"),
    ("R-sure-overflow.sure", "bounding box has 9223372036854775807 points"),
])
def test_rdg_failures_are_one_line_and_write_nothing(tmp_path: Path, name: str, message: str) -> None:
    """Fuzz repros: tracebacks (P, Q, R) and outputs written, and clobbered,
    by a failing run (T)."""
    from test_rdg import DATA

    outputs = [tmp_path / "o.json", tmp_path / "o.svg", tmp_path / "o.mlir"]
    outputs[0].write_text("keep")
    result = run(RAPTOR + ["rdg", str(DATA / "fuzz-repros" / name), "--json", str(outputs[0]), "--svg",
                           str(outputs[1]), "--mlir", str(outputs[2]), "--analyze"])
    assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert outputs[0].read_text() == "keep" and not outputs[1].exists() and not outputs[2].exists()


@pytest.mark.parametrize("name, message", [
    ("N-sure-wrap-empty.sure", "bounding box has 9223372036854775808 points"),
    ("S-sure-prodwrap-hang.sure", "bounding box has 18446744073709551616 points"),
])
def test_rdg_analysis_counts_domains_exactly(name: str, message: str) -> None:
    """Fuzz repros N (2*N with N = 2^62 wrapped: "the domain is empty")
    and S (the box's size wrapped to 0 and skipped the limit: a hang)."""
    from test_rdg import DATA

    result = run(RAPTOR + ["rdg", str(DATA / "fuzz-repros" / name), "--analyze"])
    assert result.returncode == 1 and message in result.stderr and "enumeration limit" in result.stderr


def test_rdg_subscript_offsets_overflowing_int64_are_refused() -> None:
    """Fuzz repro O: a(i-N-N) with N = 2^63-1 wrapped to theta = -2, exit 0."""
    from test_rdg import DATA

    result = run(RAPTOR + ["rdg", str(DATA / "fuzz-repros" / "O-sure-dfactl-wrap.sure")])
    assert result.returncode == 1 and "O-sure-dfactl-wrap.sure\":2:36" in result.stderr
    assert "subscript offset overflows int64 at the parameters' values" in result.stderr
    assert '"theta"' not in result.stdout


def test_rdg_analysis_refuses_by_default_what_would_take_more_than_seconds(tmp_path: Path) -> None:
    """A 58^3 gemm (195,112 points) took 17 s and 930 MB under the old
    default of 200,000 points; the default now stops it at once, and
    --max-points lifts the limit for a user who wants to wait."""
    from test_rdg import DATA

    system = tmp_path / "gemm.sure"
    system.write_text((DATA / "sure" / "gemm.sure").read_text().replace("M = 2; N = 2; K = 3;",
                                                                       "M = 58; N = 58; K = 58;"))
    result = run(RAPTOR + ["rdg", str(system), "--analyze"])
    assert result.returncode == 1
    assert "bounding box has 195112 points, more than the enumeration limit of 50000" in result.stderr
    small = tmp_path / "small.sure"
    small.write_text(system.read_text().replace("M = 58; N = 58; K = 58;", "M = 3; N = 4; K = 5;"))
    result = run(RAPTOR + ["rdg", str(small), "--analyze", "--max-points", "59"])
    assert result.returncode == 1 and "60 points, more than the enumeration limit of 59" in result.stderr
    assert run(RAPTOR + ["rdg", str(small), "--analyze", "--max-points", "60"]).returncode == 0


def test_each_choice_marks_its_default_once() -> None:
    """Every option whose choices come from a C++ vocabulary marks the one
    the parser (or, for int8's policy and placement, the compile) takes:
    `--precision f32`, `--policy Y` (shown, though argparse leaves it None
    until int8 asks for it), codec-report's `--policy W`."""
    from raptor import _raptor, cli
    from raptor.cli.common import DEFAULTS

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    expected = [("compile", "--precision", "precision", DEFAULTS.precision),
                ("compile", "--policy", "policy", DEFAULTS.policy),
                ("compile", "--placement", "placement", DEFAULTS.placement),
                ("compile", "--transfers", "transfers", DEFAULTS.transfers),
                ("compile", "--format", "pimsim", DEFAULTS.pimsim), ("codec-report", "--policy", "policy", "W")]
    for command, flag, vocabulary, default in expected:
        action = next(a for a in sub.choices[command]._actions if flag in a.option_strings)
        choices = _raptor.vocabulary(vocabulary)
        assert action.choices == [name for name, _ in choices], flag
        marked = [name for name, text in choices if f"{name}: {text} (default)".replace("%", "%%") in action.help]
        assert marked == [default], (command, flag, marked)
