"""Hand-made mutants of raptor.pim's reports (timing.py, report.py,
timeline.py) that no other test pinned: the terminal lines of a timing run
(ratio to the schedule, the longest tasks in order, units), the compile
summary's sums (cells to bytes, the peak core, transfer bytes, which estimate
is the latency) and the timeline's pixels (the dominant kind of a column, a
wait counted against its transfer, rows by order of the cores). Every
expected value is worked out by hand from the inputs built here."""

from __future__ import annotations

import re

from raptor import pim
from raptor.pim.timeline import timeline_svg
from raptor.pim.timing import CoreTiming, TaskTiming, Timing, format_timing


def _task(name: str, core: int, start: float, end: float, blocked: float, busy: float) -> TaskTiming:
    return TaskTiming(name=name, core=core, instructions=3, start_ns=start, end_ns=end, busy_ns=busy,
                      blocked_ns=blocked)


def _timing(**kw) -> Timing:
    cores = [CoreTiming(4, 2_000_000, 1_500_000, 0, 0, 0, 0, 0), CoreTiming(0, 0, 0, 0, 0, 0, 0, 0)]
    args = dict(latency_ns=2_000_000, throughput=True, interval_ns=500_000, converged=True,
                generation_end_ns=[1.0, 2.0, 3.0], cores=cores, global_requests=1234, global_busy_ns=2_500_000,
                approximated={"vmax": 2, "atan": 1}, seconds=0.25,
                tasks=[_task("nn.linear a", 0, 0, 300_000, 100_000, 250_000),
                       _task("nn.linear b", 0, 300_000, 1_300_000, 0, 900_000),
                       _task("nn.relu c", 1, 0, 50_000, 0, 50_000),
                       _task("nn.relu d", 1, 100_000, 800_000, 200_000, 650_000)])
    args.update(kw)
    return Timing(**args)


def test_the_timing_lines_by_hand() -> None:
    """Latency 2 ms against a 1.6 ms schedule: simulated / estimated =
    1.25; the three longest tasks by span, longest first (b 1 ms, d 0.7 ms,
    a 0.3 ms) with their waits; global memory's 2.5e6 ns are 2.5 ms."""
    lines = format_timing(_timing(), "d", 1_600_000).splitlines()
    assert lines == [
        "d: latency 2.0000 ms on 1 cores (timing simulated in 0.25 s)",
        "  schedule estimate 1.6000 ms (simulated / estimated = 1.25)",
        "  throughput: interval 0.5000 ms (converged after 3 passes)",
        "  busiest core 0: matrix 1.5000 ms, vector 0.0000 ms, memory 0.0000 ms, communication 0.0000 ms "
        "(0.0000 ms blocked)",
        "  longest tasks: b on core 0 1.0000 ms (0.0000 blocked), d on core 1 0.7000 ms (0.2000 blocked), "
        "a on core 0 0.3000 ms (0.1000 blocked)",
        "  global memory: 1,234 requests, 2.5000 ms of service",
        "  timed as vector work (no pimsim-nn timing): atan x1, vmax x2"]


def test_the_timing_lines_without_a_schedule_or_throughput() -> None:
    lines = format_timing(_timing(throughput=False, interval_ns=None, approximated={}, tasks=[]), "d").splitlines()
    assert lines == [
        "d: latency 2.0000 ms on 1 cores (timing simulated in 0.25 s)",
        "  busiest core 0: matrix 1.5000 ms, vector 0.0000 ms, memory 0.0000 ms, communication 0.0000 ms "
        "(0.0000 ms blocked)",
        "  global memory: 1,234 requests, 2.5000 ms of service"]
    slow = format_timing(_timing(converged=False), "d", 4_000_000).splitlines()
    assert slow[1] == "  schedule estimate 4.0000 ms (simulated / estimated = 0.50)"
    assert slow[2] == "  throughput: interval 0.5000 ms (not converged after 3 passes)"


def test_a_single_inference_has_no_interval() -> None:
    """Timing.interval_ns is the steady state's, in throughput mode only."""
    stats = {"latency_ns": 10.0, "interval_ns": 7.0, "converged": True, "generation_end_ns": [10.0, 17.0],
             "cores": [], "global_requests": 0, "global_busy_ns": 0.0, "approximated": {}, "seconds": 0.0}
    assert Timing.from_stats(stats, False).interval_ns is None
    assert Timing.from_stats(stats, True).interval_ns == 7.0


def _manifest(precision: str = "int8", **schedule) -> dict:
    """Three cores; core 1 holds the most local memory (not the first nor
    the last). 2-bit cells."""
    def group(rows: int, cols: int, crossbars: int) -> dict:
        return {"rows": rows, "cols": cols, "crossbars": crossbars}

    cores = [{"id": 0, "local_bytes": 1000, "weights_bytes": 40, "groups": [group(128, 128, 2)]},
             {"id": 1, "local_bytes": 3000, "weights_bytes": 60, "groups": [group(64, 32, 1), group(16, 16, 1)]},
             {"id": 2, "local_bytes": 2000, "weights_bytes": 5, "groups": []}]
    return {"source": "m.pt2", "target": "chip", "precision": precision, "chip": {"cell_bits": 2},
            "cores": cores,
            "program": {"instructions": 10, "unrolled_instructions": 20, "pimsim_compatible": True,
                        "pimsim_files": "binary", "extensions": {}, "arithmetic": "integer"},
            "transfers": [{"bytes": 100}, {"bytes": 28}, {"bytes": 3}],
            "schedule": schedule}


def test_the_summary_sums_a_hand_made_manifest() -> None:
    """Crossbars 2 + 1 + 1 = 4; int8 cells 128*128 + 64*32 + 16*16 = 18688
    of 2 bits = 4672 bytes; float32 weights 40 + 60 + 5 = 105 bytes; the
    peak is core 1's 3000 bytes; 3 transfers of 131 bytes; the latency
    estimate is the queue model's prediction when there is one, else the
    list schedule's makespan."""
    s = pim.summary(_manifest(makespan_ns=2_000_000, critical_path_ns=1_250_000, predicted_latency_ns=2_500_000))
    assert s["crossbars"] == 4
    assert s["weight_storage_bytes"] == 4672
    assert s["weights_bytes"] == 105
    assert (s["local_bytes_peak"], s["local_bytes_peak_core"]) == (3000, 1)
    assert (s["transfers"], s["transfer_bytes"]) == (3, 131)
    assert s["latency_estimate_ns"] == 2_500_000
    assert pim.summary(_manifest(makespan_ns=700))["latency_estimate_ns"] == 700
    assert pim.summary(_manifest("fp32"))["weight_storage_bytes"] == 105
    # Latency mode has no stages (null, not 0); pipeline mode one per stage.
    assert s["schedule_mode"] == "latency" and s["pipeline_stages"] is None
    staged = pim.summary(_manifest(mode="pipeline", stage_cores=[[0], [1, 2]], predicted_interval_ns=10**6))
    assert (staged["schedule_mode"], staged["pipeline_stages"]) == ("pipeline", 2)


def test_the_summary_lines_show_the_estimate_the_list_schedule_and_the_critical_path() -> None:
    s = pim.summary(_manifest(makespan_ns=2_000_000, critical_path_ns=1_250_000, predicted_latency_ns=2_500_000))
    lines = pim.format_summary(s, "out").splitlines()
    assert lines[0] == ("m.pt2 -> out: 3 cores, 10 instructions (20 unrolled for pimsim-nn), "
                        "pimsim-compatible (binary pimsim-nn files)")
    assert lines[1].startswith("  crossbars 4, weights 0.00 MiB (int8 codes in 2-bit cells, integer-only arithmetic), "
                               "local memory peak 0.00 MiB (core 1), 3 transfers")
    assert lines[2] == "  schedule estimate: 2.500 ms (list schedule 2.000 ms, critical path 1.250 ms)"
    assert lines[3] == "  whole tensors per task"


# --- the timeline ---------------------------------------------------------------

_COLOURS = {"matrix": "#4c72b0", "vector": "#55a868", "memory": "#8c8c8c", "transfer": "#dd8452",
            "wait": "#c44e52"}


def _rows(svg: str) -> list[tuple[int, int, int, str]]:
    """(x, y, width, fill) of the timeline's bars (6 pixels high; the legend's are 10)."""
    return [(int(x), int(y), int(w), fill) for x, y, w, fill in
            re.findall(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="6" fill="(#\w+)"/>', svg)]


def test_the_timeline_draws_each_columns_dominant_kind_on_its_cores_row() -> None:
    """1120 pixel columns over 1120 ns: one ns per column, bars from x = 60.
    Core 3 (the first row, y = 46): a matrix span 0..560 (columns 0..559),
    a memory blip of 0.3 ns (under half a column: idle), a transfer 800..900
    held up by a wait over the same time (the wait is what shows). Core 7
    (the second row, y = 46 + 7): vector work all along."""
    timeline = [(3, "matrix", 0.0, 560.0), (3, "memory", 700.0, 700.3), (3, "transfer", 800.0, 900.0),
                (3, "wait", 800.0, 900.0), (7, "vector", 0.0, 1120.0)]
    timing = Timing(latency_ns=1120.0, throughput=False, interval_ns=None, converged=False, generation_end_ns=[],
                    cores=[], global_requests=0, global_busy_ns=0.0, timeline=timeline)
    svg = timeline_svg(timing, "t")
    assert _rows(svg) == [(60, 46, 560, _COLOURS["matrix"]), (860, 46, 100, _COLOURS["wait"]),
                          (60, 53, 1120, _COLOURS["vector"])]
    assert '<text x="54" y="52" text-anchor="end">core 3</text>' in svg
    assert "t one inference: 0.001 ms on 2 cores (timing simulator)" in svg


def test_short_spans_of_one_kind_add_up_in_their_column() -> None:
    """Columns full of short instructions: core 3 runs three vector spans of
    0.3 ns in each of columns 0..9 (0.9 ns of 1 per column: vector), then
    two of 0.3 ns in column 10 (0.6 ns: more than half, vector), then one of
    0.3 ns in column 11 (idle). A column counting only its last span would
    draw nothing."""
    timeline = [(3, "vector", c + 0.3 * i, c + 0.3 * i + 0.3) for c in range(10) for i in range(3)]
    timeline += [(3, "vector", 10.0, 10.3), (3, "vector", 10.4, 10.7), (3, "vector", 11.0, 11.3),
                 (7, "matrix", 0.0, 1120.0)]
    timing = Timing(latency_ns=1120.0, throughput=False, interval_ns=None, converged=False, generation_end_ns=[],
                    cores=[], global_requests=0, global_busy_ns=0.0, timeline=timeline)
    assert _rows(timeline_svg(timing, "t")) == [(60, 46, 11, _COLOURS["vector"]), (60, 53, 1120, _COLOURS["matrix"])]


def test_the_latency_modes_form_line_by_hand() -> None:
    """Rows streamed in blocks of 4, the whole-tensor alternative estimated
    at 3 ms, lanes of at most 3 row tiles, transfers through global memory;
    the compile's steps rounded to the millisecond and added up."""
    manifest = _manifest("fp32", makespan_ns=2_000_000, critical_path_ns=1_250_000, predicted_latency_ns=2_500_000,
                         row_block=4, alternative_latency_ns=3_000_000, lane_tiles=3, transfers="global")
    s = pim.summary(manifest, {"prepare": 1.23456, "backend": 2.0024})
    assert (s["row_block"], s["lane_tiles"], s["transfer_mode"]) == (4, 3, "global")
    assert s["compile_seconds"] == {"prepare": 1.235, "backend": 2.002}
    lines = pim.format_summary(s, "out").splitlines()
    assert lines[3:] == ["  rows streamed in blocks of 4 (whole tensors: 3.000 ms estimated); lanes of at most 3 "
                         "row tiles; transfers through global memory",
                         "  compiled in 3.24 s"]
    whole = pim.summary(_manifest("fp32", makespan_ns=2_000_000, critical_path_ns=1_250_000,
                                  alternative_latency_ns=1_500_000, transfers="rendezvous"))
    assert pim.format_summary(whole, "out").splitlines()[3:] == [
        "  whole tensors per task (streamed rows: 1.500 ms estimated)"]


def test_each_column_of_a_timeline_shows_the_kind_that_filled_most_of_it() -> None:
    """Columns of 50 ns over 500 ns: an MVM over 100-300 ns fills columns
    2-5; a vector op over 340-390 ns fills most of column 7 (40 of 50 ns)
    but only 10 ns of column 6, which stays idle; the rest idle too."""
    from raptor.pim.timeline import _dominant

    got = _dominant([("matrix", 100.0, 300.0), ("vector", 340.0, 390.0)], 10, 50.0)
    assert got == [None, None, "matrix", "matrix", "matrix", "matrix", None, "vector", None, None]
