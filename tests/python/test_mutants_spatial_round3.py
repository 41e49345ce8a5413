"""Hand-made mutants of raptor.spatial, third round (docs/mutation.md): the
Gantt chart's time axis (five equal steps over the schedule, labelled in
milliseconds), its title, its core labels, and the message of a missing
target file. Positions and labels from the drawing rules by hand."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from raptor._io import UserError
from raptor.spatial import resolve_target
from raptor.spatial.report import gantt_svg

SVG = "{http://www.w3.org/2000/svg}"


def _chart(tasks: list[dict], completion_ns: int, width: int = 1090) -> ET.Element:
    report = {"tasks": tasks, "algorithm": "heft", "summary": {"completion_ns": completion_ns}}
    return ET.fromstring(gantt_svg(report, width=width))


def test_the_time_axis_has_six_ticks_over_the_schedule_in_milliseconds() -> None:
    """A schedule ending at 5 ms on a 1000-unit axis from x = 70: ticks at
    0, 1, ..., 5 ms every 200 units."""
    tasks = [{"name": "a", "op": "nn.relu", "core": 0, "start_ns": 0, "cost_ns": 2_000_000},
             {"name": "b", "op": "nn.add", "core": 1, "start_ns": 1_000_000, "cost_ns": 4_000_000}]
    texts = [t for t in _chart(tasks, 5_000_000).iter(f"{SVG}text") if t.get("text-anchor") == "middle"]
    assert [t.text for t in texts] == [f"{k}.00 ms" for k in range(6)]
    assert [float(t.get("x")) for t in texts] == pytest.approx([70 + 200 * k for k in range(6)])


def test_the_title_gives_the_completion_in_milliseconds() -> None:
    tasks = [{"name": "a", "op": "nn.relu", "core": 3, "start_ns": 0, "cost_ns": 2_500_000}]
    title = next(_chart(tasks, 2_500_000).iter(f"{SVG}text")).text
    assert title == "HEFT schedule: 1 tasks on 1 cores, completion 2.500 ms"


def test_every_core_is_labelled_up_to_twenty_and_every_other_one_at_forty() -> None:
    """At most about 20 labels: every core of 3, every second of 40 (from the first)."""
    def labels(cores: list[int]) -> list[str]:
        tasks = [{"name": f"t{c}", "op": "nn.relu", "core": c, "start_ns": 0, "cost_ns": 10} for c in cores]
        return [t.text for t in _chart(tasks, 10).iter(f"{SVG}text") if t.get("text-anchor") == "end"]

    assert labels([7, 2, 5]) == ["core 2", "core 5", "core 7"]
    assert labels(list(range(40))) == [f"core {c}" for c in range(0, 40, 2)]


def test_a_missing_target_file_is_named_as_a_file(tmp_path) -> None:
    """A .json name or a path is a target file: 'cannot read'; a bare word
    that is no bundled target is 'unknown'."""
    for name in ("missing.json", str(tmp_path / "missing.json"), str(tmp_path / "chip")):
        with pytest.raises(UserError, match=r"^cannot read target '.*': no such file"):
            resolve_target(name)
    with pytest.raises(UserError, match="^unknown target 'nochip'"):
        resolve_target("nochip")
