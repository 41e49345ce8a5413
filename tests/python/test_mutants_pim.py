"""Tests that kill the surviving mutants of `make mutate` (docs/mutation.md) in
raptor/pim/: the periodic report's text, its figures converted by hand; the
staging of a program directory."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from raptor import pim
from raptor.pim.timing import Periodic, format_periodic


def test_the_periodic_report_shows_milliseconds() -> None:
    p = Periodic(status="ok", reason="", recurrence_ns=Fraction(5_000_001, 2), interval_ns=3_250_000.0,
                 bound="busiest core", busiest_core=3, busiest_core_work_ns=3_250_000.0,
                 global_service_ns=1_000_000.0, nodes=1234, edges=5678,
                 cycle=[{"weight_ns": 500_000, "what": "send", "from": "c0:1", "to": "c3:2"},
                        {"weight_ns": 2_000_000.5, "what": "mvm", "from": "c3:2", "to": "c0:1"}],
                 cycle_edges=2, cycle_weight_ns=2_500_001, cycle_distance=1, cycle_cores=[0, 3])
    assert format_periodic(p, "out").splitlines() == [
        "out: interval estimate 3.2500 ms (bound: busiest core)",
        "  recurrence 2.5000 ms: a cycle of 2 events over 1 iteration(s) across 2 core(s) (0, 3)",
        "  busiest core 3: 3.2500 ms of work; global memory 1.0000 ms of service",
        "  event graph: 1,234 events, 5,678 edges",
        "       2.0000 ms  mvm: c3:2 -> c0:1",
        "       0.5000 ms  send: c0:1 -> c3:2"]


def test_int8_alone_compiles_to_integer_arithmetic_on_pimsims_instructions(tmp_path) -> None:
    """`--precision int8` without --arithmetic: a model whose every operator
    has an integer lowering gets integer arithmetic (the documented `auto`),
    so its program uses pimsim-nn's instructions only; the summary names the
    chip the manifest records (the default target's name, then a bundled
    one's)."""
    import json
    import subprocess
    import sys

    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)).eval()
    torch.export.save(torch.export.export(model, (torch.randn(1, 3),)), tmp_path / "m.pt2")
    raptor = [sys.executable, "-m", "raptor", "compile", str(tmp_path / "m.pt2"), "-q", "--json", "--format", "none"]
    run = subprocess.run(raptor + ["-o", str(tmp_path / "q"), "--precision", "int8"], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "q" / "manifest.json").read_text())
    assert manifest["quantization"]["arithmetic"] == "integer"
    assert not manifest["program"]["extensions"] and manifest["program"]["pimsim_compatible"]
    summary = json.loads(run.stdout)
    assert summary["target"] == manifest["target"]
    assert summary["target"].startswith("ISAAC-like chip: 168 cores")
    small = subprocess.run(raptor + ["-o", str(tmp_path / "s"), "--target", "small", "--precision", "int8"], capture_output=True,
                           text=True, timeout=300)
    assert small.returncode == 0, small.stderr
    assert json.loads(small.stdout)["target"] == json.loads((tmp_path / "s" / "manifest.json").read_text())["target"]
    assert json.loads(small.stdout)["target"] != summary["target"]


def test_a_staged_program_names_its_output_when_a_parent_is_a_file(tmp_path: Path) -> None:
    """`-o f/sub/prog` with `f` a file: the error names the output asked
    for; and while a program is staged, its parents exist, not the output
    itself (it appears when installed)."""
    from raptor._io import UserError
    from raptor.pim._outputs import staging

    (tmp_path / "f").write_text("a file")
    out = tmp_path / "f" / "sub" / "prog"
    with pytest.raises(UserError, match=f"cannot write '{out}': '{tmp_path / 'f'}' is not a directory"):
        with staging(out):
            pass
    fresh = tmp_path / "new" / "prog"
    with staging(fresh) as staged:
        assert staged.parent == fresh.parent and fresh.parent.is_dir() and not fresh.exists()


class _Stop(Exception):
    pass


def _backend_options(tmp_path, **kw):
    """The compile options pim.compile hands its first pass pipeline."""
    import raptor
    from raptor import ir

    seen = []

    def run(steps, module, phase, options, weights):
        seen.append((options.lane_tiles, options.lane_tiles_auto))
        raise _Stop

    with raptor.Context():
        module = ir.Module.parse("func.func @f() { return }")
        with pytest.MonkeyPatch.context() as m:
            m.setattr(pim._Steps, "run", run)
            with pytest.raises(_Stop):
                pim.compile(module, tmp_path / "out", pimsim="none", **kw)
    return seen[0]


def test_lane_tiles_zero_asks_for_lanes_as_tall_as_a_core_holds(tmp_path) -> None:
    """lane_tiles=0 is a height (as tall as a core holds), not 'auto' and
    not an error; a negative height is refused before any work."""
    assert _backend_options(tmp_path, lane_tiles=0) == (0, False)
    assert _backend_options(tmp_path, lane_tiles=2) == (2, False)
    assert _backend_options(tmp_path)[1] is True
    with pytest.raises(ValueError, match="lane_tiles must be a non-negative integer"):
        _backend_options(tmp_path, lane_tiles=-1)


def test_an_unknown_arithmetic_is_named_with_the_choices(tmp_path: Path) -> None:
    """`arithmetic=` is checked before any work, the message naming the
    value given and every accepted one."""
    import raptor
    from raptor import ir

    with raptor.Context():
        module = ir.Module.parse("func.func @f() { return }")
        with pytest.raises(ValueError, match=r"^unknown arithmetic 'fixed' \(expected one of auto, integer, "
                                             r"float\)$"):
            pim.compile(module, tmp_path / "out", precision="int8", arithmetic="fixed")
    assert not (tmp_path / "out").exists()
