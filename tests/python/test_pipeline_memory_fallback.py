"""A pipeline whose crossing the compile chose but whose cores run out of
local memory (the pipeline search does not model it) is lowered again in
each crossing form in turn, from the schedule's input, until one fits; a
crossing the user asked for is not changed (the one-line error stands)."""

from __future__ import annotations

from pathlib import Path

import pytest

import raptor
from raptor import ir, pim, sources


class _Backend:
    """Stands in for the backend phase: records the crossing and the module
    it was given, and runs out of local memory in the forms `failing`."""

    def __init__(self, failing: set[str]) -> None:
        self.failing, self.crossings, self.modules = failing, [], []

    def __call__(self, steps, module, phase, options, weights):
        self.crossings.append(options.crossing)
        self.modules.append(str(module))
        # What a lowering leaves behind when it fails: the retry must not see it.
        module.body.append(ir.Operation.create("builtin.module", regions=1, loc=ir.Location.unknown()))
        if options.crossing in self.failing:
            raise ir.MLIRError(f"core 3 needs 4096 {raptor._raptor.LOCAL_MEMORY_MARKER} (...)", [])
        return [(phase, 0.0)]


def _run(monkeypatch: pytest.MonkeyPatch, failing: set[str], crossing: str = "auto", depth: int = 4):
    backend = _Backend(failing)
    monkeypatch.setattr(pim._Steps, "run", lambda steps, *a: backend(steps, *a))
    options = raptor._raptor.CompileOptions()
    options.crossing, options.pipeline_depth = crossing, depth
    said: list[str] = []
    with raptor.Context():
        module = ir.Module.parse("func.func @f() { return }")
        try:
            pim._backend(module, pim._Steps(said.append, 1), options, None, said.append)
        finally:
            final = str(module)
    return backend, said, final, options


def test_each_crossing_form_is_tried_in_turn_from_the_same_input(monkeypatch: pytest.MonkeyPatch) -> None:
    backend, said, final, options = _run(monkeypatch, {"auto", "local"})
    assert backend.crossings == ["auto", "local", "interleaved"]
    assert said == ["the pipeline does not fit local memory: compiling again with --crossing local",
                    "the pipeline does not fit local memory: compiling again with --crossing interleaved"]
    # Every attempt starts from the module the first one was given.
    assert backend.modules[1] == backend.modules[2] == backend.modules[0]
    # The module ends as the last attempt left it (its leftover alone).
    assert options.crossing == "interleaved" and final.count('"builtin.module"()') == 2


def test_the_last_forms_error_is_raised_when_none_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ir.MLIRError, match="more bytes of local memory"):
        _run(monkeypatch, {"auto", "local", "interleaved", "skewed", "global"})


def test_a_crossing_asked_for_or_latency_mode_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    for crossing, depth in (("global", 4), ("auto", 0)):
        backend = _Backend({"global", "auto"})
        monkeypatch.setattr(pim._Steps, "run", lambda steps, *a, b=backend: b(steps, *a))
        options = raptor._raptor.CompileOptions()
        options.crossing, options.pipeline_depth, options.lane_tiles_auto = crossing, depth, False
        with raptor.Context(), pytest.raises(ir.MLIRError, match="more bytes of local memory"):
            pim._backend(ir.Module.parse("func.func @f() { return }"), pim._Steps(lambda _: None, 1), options, None,
                         lambda _: None)
        assert backend.crossings == [crossing]


def test_unet_int8_pipeline_fits_in_another_crossing(tmp_path: Path) -> None:
    """U-Net int8 with --pipeline 4: the form the search prefers (global)
    leaves one core reading a decoder's upsampled, concatenated map whole
    (67 MB of 64 MiB); asked for, it stops in one line. By default the
    compile says so, lowers the local form, and the program runs."""
    model = sources.load("unet")
    try:
        with pytest.raises(pim.UserError, match=r"needs \d+ more bytes of local memory"):
            pim.compile(model.module, tmp_path / "g", weights=model.weights, precision="int8", pipeline=4,
                        crossing="global", pimsim="none", source="unet")
        assert not (tmp_path / "g").exists()
        said: list[str] = []
        model = sources.load("unet")
        result = pim.compile(model.module, tmp_path / "u", weights=model.weights, precision="int8", pipeline=4,
                             pimsim="none", source="unet", progress=said.append)
    finally:
        model.cleanup()
    assert "the pipeline does not fit local memory: compiling again with --crossing local" in said
    assert result.manifest["schedule"]["crossing"] == "local"
    assert pim.Program.load(tmp_path / "u").time().latency_ns > 0
