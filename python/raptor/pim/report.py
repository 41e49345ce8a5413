"""What a compile produced, for people and tools (from manifest.json)."""

from __future__ import annotations

from typing import Any

__all__ = ["format_summary", "summary"]


def summary(manifest: dict[str, Any], seconds: dict[str, float] | None = None) -> dict[str, Any]:
    """The figures of a compiled program: cores, instructions (compact and
    unrolled for pimsim-nn), crossbars, local memory, schedule estimate, and
    the compile's ``seconds`` per step when given (a program directory does
    not record them: two compiles of a model write the same bytes)."""
    cores = manifest["cores"]
    program = manifest["program"]
    peak = max(cores, key=lambda c: c["local_bytes"], default=None)
    schedule = manifest.get("schedule", {})
    return {
        "source": manifest.get("source", ""),
        "target": manifest.get("target", ""),
        "precision": manifest.get("precision", "fp32"),
        "cell_bits": manifest["chip"]["cell_bits"],
        "cores_used": len(cores),
        "instructions": program["instructions"],
        "unrolled_instructions": program["unrolled_instructions"],
        "pimsim_compatible": program["pimsim_compatible"],
        "pimsim_files": program["pimsim_files"],
        "pimsim_skipped": program.get("pimsim_skipped", ""),
        "extensions": program["extensions"],
        # Between an int8 program's codecs: int32 fixed point, or float32.
        "arithmetic": program.get("arithmetic", "float"),
        "integer_refusal": manifest.get("quantization", {}).get("integer_refusal"),
        "fixed_point_refusal": manifest.get("quantization", {}).get("fixed_point_refusal"),
        "crossbars": sum(g["crossbars"] for c in cores for g in c["groups"]),
        "weights_bytes": sum(c["weights_bytes"] for c in cores),
        # What the crossbars hold: f32 values, or int8 programs' cells.
        "weight_storage_bytes": (sum(g["rows"] * g["cols"] for c in cores for g in c["groups"]) *
                                 manifest["chip"]["cell_bits"] // 8 if manifest.get("precision") == "int8"
                                 else sum(c["weights_bytes"] for c in cores)),
        "local_bytes_peak": peak["local_bytes"] if peak else 0,
        "local_bytes_peak_core": peak["id"] if peak else None,
        "transfers": len(manifest.get("transfers", [])),
        "transfer_bytes": sum(t["bytes"] for t in manifest.get("transfers", [])),
        "schedule_makespan_ns": schedule.get("makespan_ns"),
        "schedule_critical_path_ns": schedule.get("critical_path_ns"),
        # What one inference will take: the queue model's run of the
        # scheduled programs (blocking transfers, each core's order), which
        # the list schedule's makespan (transfers overlapping freely) is not.
        "latency_estimate_ns": schedule.get("predicted_latency_ns", schedule.get("makespan_ns")),
        # Pipeline mode: stage cores, and the scheduler's predictions of one
        # inference's latency and of the steady-state initiation interval.
        "schedule_mode": schedule.get("mode", "latency"),
        "pipeline_stages": len(schedule.get("stage_cores", [])) or None,
        # How data crosses to later stages; a skewed pipeline's passes per
        # inference (its levels).
        "crossing": schedule.get("crossing"),
        "frames": program.get("frames", 1),
        "predicted_latency_ns": schedule.get("predicted_latency_ns"),
        "predicted_interval_ns": schedule.get("predicted_interval_ns"),
        # Pipeline mode: how the kept plan weighed its copies (matrix, or
        # matrix and followers), and the other plan's predicted interval
        # when this one replaced it.
        "copies_weighed_by": schedule.get("copies_weighed_by"),
        "challenged_interval_ns": schedule.get("challenged_interval_ns"),
        # Latency mode: rows per streamed block (0: whole tensors), and the
        # prediction of the form --row-block auto did not keep.
        "row_block": schedule.get("row_block", 0),
        "alternative_latency_ns": schedule.get("alternative_latency_ns"),
        # Why the streamed programs the scheduler kept were not lowered.
        "row_block_fallback": schedule.get("row_block_fallback"),
        # The most row tiles of a lane (0: what a core holds), and why the
        # shorter lanes the scheduler kept were not lowered.
        "lane_tiles": schedule.get("lane_tiles", 0),
        "lane_tiles_fallback": schedule.get("lane_tiles_fallback"),
        # Latency mode: data to other cores by rendezvous or through global memory.
        "transfer_mode": schedule.get("transfers"),
        "compile_seconds": {k: round(v, 3) for k, v in (seconds or {}).items()},
    }


def _weights_text(s: dict[str, Any]) -> str:
    """What the crossbars hold, and for int8 what the vector unit computes in."""
    if s["precision"] != "int8":
        return "f32"
    text = f"int8 codes in {s['cell_bits']}-bit cells, "
    if s["arithmetic"] == "integer":
        return text + "integer-only arithmetic"
    refusal = (f": {s['integer_refusal']} has no integer lowering" if s.get("integer_refusal") else
               f": {s['fixed_point_refusal']}" if s.get("fixed_point_refusal") else "")
    return text + f"float32 between the codecs{refusal}"


def format_summary(s: dict[str, Any], directory: str) -> str:
    """A few lines for the terminal."""
    if not s["pimsim_compatible"]:
        compatible = ("uses extensions " + ", ".join(f"{k} x{v}" for k, v in s["extensions"].items()) +
                      " (not pimsim-compatible: Raptor's compact form only)")
    elif s["pimsim_skipped"]:
        compatible = f"pimsim-compatible; pimsim-nn files skipped: {s['pimsim_skipped']}"
    else:
        compatible = f"pimsim-compatible ({s['pimsim_files']} pimsim-nn files)"
    lines = [
        f"{s['source']} -> {directory}: {s['cores_used']} cores, {s['instructions']:,} instructions "
        f"({s['unrolled_instructions']:,} unrolled for pimsim-nn), {compatible}",
        f"  crossbars {s['crossbars']:,}, weights {s['weight_storage_bytes'] / 2**20:.2f} MiB "
        f"({_weights_text(s)}), "
        f"local memory peak {s['local_bytes_peak'] / 2**20:.2f} MiB (core {s['local_bytes_peak_core']}), "
        f"{s['transfers']:,} transfers ({s['transfer_bytes'] / 2**20:.2f} MiB)",
    ]
    if s["schedule_mode"] == "pipeline" and s["predicted_interval_ns"] is not None:
        n = s["pipeline_stages"]
        if s.get("crossing") == "skewed":
            stages = f"skewed over {s['frames']} levels, "
        else:
            stages = f"{n} stage{'s' if n != 1 else ''}, " if n else ""
        latency = (f", first inference {s['predicted_latency_ns'] / 1e6:.3f} ms"
                   if s["predicted_latency_ns"] is not None else "")
        lines.append(f"  pipeline estimate: {stages}interval {s['predicted_interval_ns'] / 1e6:.3f} ms "
                     f"({1e9 / s['predicted_interval_ns']:,.0f} inferences/s){latency}")
        if s["challenged_interval_ns"] is not None and s["copies_weighed_by"] == "matrix and followers":
            lines.append("  copies weighed with the work that follows them (weighed by their MVMs alone: interval "
                         f"{s['challenged_interval_ns'] / 1e6:.3f} ms estimated)")
    elif s["latency_estimate_ns"] is not None:
        lines.append(f"  schedule estimate: {s['latency_estimate_ns'] / 1e6:.3f} ms "
                     f"(list schedule {s['schedule_makespan_ns'] / 1e6:.3f} ms, "
                     f"critical path {s['schedule_critical_path_ns'] / 1e6:.3f} ms)")
        form = f"rows streamed in blocks of {s['row_block']}" if s["row_block"] else "whole tensors per task"
        other = "whole tensors" if s["row_block"] else "streamed rows"
        if s["row_block_fallback"]:
            given_up = "other row blocks" if s["row_block"] else "streamed rows"
            form += f" ({given_up} estimated faster but not lowered: {s['row_block_fallback']})"
        elif s["alternative_latency_ns"] is not None:
            form += f" ({other}: {s['alternative_latency_ns'] / 1e6:.3f} ms estimated)"
        if s["lane_tiles"]:
            form += f"; lanes of at most {s['lane_tiles']} row tile{'s' if s['lane_tiles'] != 1 else ''}"
        if s["lane_tiles_fallback"]:
            form += f" (other lanes estimated faster but not lowered: {s['lane_tiles_fallback']})"
        if s["transfer_mode"] == "global":
            form += "; transfers through global memory"
        lines.append(f"  {form}")
    seconds = s["compile_seconds"]
    if seconds:
        lines.append(f"  compiled in {sum(seconds.values()):.2f} s")
    return "\n".join(lines)
