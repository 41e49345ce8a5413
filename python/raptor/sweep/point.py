"""One point, measured in a process of its own: compile, time, optionally check.

:mod:`raptor.sweep.forkserver` forks the process (from a server that has
imported the compiler and torch once, so a point starts in milliseconds)
and hands it a request file naming the model's IR and weights, the target
file, the compile options, where the program goes and where the result row
is written. A process per point is what lets a task enforce its timeout
(the compiler's C++ cannot be interrupted from Python) and turns a crash of
the compiler into a row rather than a lost worker. The same request runs
by hand with ``python -m raptor.sweep.point REQUEST.json``.

Only Raptor's public API is used: :func:`raptor.sources.load`,
:func:`raptor.pim.compile`, :meth:`raptor.pim.Program.time` and
:meth:`~raptor.pim.Program.simulate`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["measure"]


def measure(request: dict[str, Any]) -> dict[str, Any]:
    """The result row of one point (status 'ok' or 'failed' with the stage
    and the first line of the error)."""
    from .. import pim, sources
    from .._io import UserError

    row: dict[str, Any] = {}
    stage = "loading the model"
    try:
        model = sources.load(request["model"], request.get("weights"))
        o = request["options"]
        stage = "compiling"
        start = time.perf_counter()
        result = pim.compile(
            model.module, request["output"], weights=model.weights, target=request["target"],
            algorithm=o["algorithm"], replicate=o["replicate"], replication_budget=o["replication_budget"],
            pipeline=request["pipeline"], follow_rows=o["follow_rows"], precision=o["precision"],
            policy=o["policy"] or "Y", placement=o["placement"] or "nonlocal-coalesced",
            calibration_samples=o["calibration_samples"] or 4, arithmetic=o["arithmetic"] or "auto",
            pimsim=request["pimsim_files"], source=request["source"])
        row["compile_seconds"] = time.perf_counter() - start
        summary = pim.summary(result.manifest)
        row.update(cores_used=summary["cores_used"], crossbars_used=summary["crossbars"],
                   local_memory_peak_bytes=summary["local_bytes_peak"], instructions=summary["instructions"],
                   unrolled_instructions=summary["unrolled_instructions"],
                   pimsim_compatible=summary["pimsim_compatible"],
                   arithmetic_used=summary["arithmetic"] if summary["precision"] == "int8" else None)
        makespan = summary["schedule_makespan_ns"]
        row["schedule_estimate_ms"] = makespan / 1e6 if makespan is not None else None
        program = pim.Program.load(request["output"])
        stage = "timing"
        start = time.perf_counter()
        once = program.time()
        stage = "timing (throughput)"
        steady = program.time(throughput=True)
        row["timing_seconds"] = time.perf_counter() - start
        row.update(latency_ms=once.latency_ns / 1e6, interval_ms=steady.interval_ns / 1e6,
                   interval_converged=steady.converged)
        if request.get("reference"):
            stage = "checking against the model"
            start = time.perf_counter()
            row.update(_check(program, Path(request["reference"])))
            row["check_seconds"] = time.perf_counter() - start
    except UserError as e:
        return {**row, "status": "failed", "stage": stage, "error": first_line(str(e))}
    return {**row, "status": "ok", "stage": None, "error": None}


def _check(program: Any, reference: Path) -> dict[str, Any]:
    """The functional simulation's error against the model's own outputs on
    the reference inputs (``raptor simulate --check``'s figures: the worst
    output's, each relative to its own largest value)."""
    import numpy as np

    from .._io import UserError
    from ..pim import check

    data = np.load(reference, allow_pickle=False)
    if "error" in data:
        raise UserError(str(data["error"]))

    def numbered(prefix: str) -> list[np.ndarray]:
        return [data[f"{prefix}{i}"] for i in range(sum(1 for key in data.files if key.startswith(prefix)))]

    xs, wants = numbered("x"), numbered("y")
    inputs = [name for name, *_ in program.inputs]
    if len(xs) != len(inputs):
        raise UserError(f"the reference holds {len(xs)} input(s); the program takes {len(inputs)}")
    run = program.simulate(dict(zip(inputs, xs)))
    names = [name for name, *_ in program.outputs]
    worst = check.worst(check.compare_outputs(names, [run.outputs[name] for name in names], wants))
    return {"max_error": worst["max_error"], "max_error_relative": worst["max_error_relative"]}


def first_line(text: str) -> str:
    """The first non-empty line of an error message."""
    return next((line.strip() for line in text.splitlines() if line.strip()), text.strip() or "unknown error")


def main(argv: list[str]) -> int:
    from .._io import write_atomically

    request = json.loads(Path(argv[0]).read_text())
    row = measure(request)
    write_atomically(request["result"], json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
