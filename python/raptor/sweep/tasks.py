"""What runs on the workers: preparing a model once, measuring one point.

These are plain functions; :mod:`raptor.sweep.executor` makes them Ray
tasks. A model is prepared once per sweep (imported to ``nn`` IR, its
weights read, its reference output computed where a point checks) and the
result lives in Ray's object store, so every point of that model gets the
same IR and weights without importing the model again. A point runs in a
process of its own (:mod:`raptor.sweep.point`, forked by
:mod:`raptor.sweep.forkserver`), which its timeout can kill.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .forkserver import ForkServer
from .point import first_line
from .scratch import scratch_directory

__all__ = ["prepare_model", "run_point"]


def prepare_model(source: str, files: dict[str, bytes] | None, reference: bool) -> dict[str, Any]:
    """The model's nn IR (text), weights (the safetensors file's bytes as a
    uint8 array, read in place from the object store) and, if ``reference``,
    its own output on the check's seeded input. ``files`` holds the model's
    file (by suffix; an .mlir file's weights as '.safetensors'), None for a
    zoo name. A model that does not load is ``{"error": line}``."""
    import numpy as np

    from .. import sources
    from .._io import UserError

    try:
        with scratch_directory("model") as work:  # the .pt2's temporary weights go inside too
            argument = source
            if files is not None:
                for suffix, data in files.items():
                    Path(work, f"model{suffix}").write_bytes(data)
                argument = str(next(Path(work, f"model{s}") for s in files if s != ".safetensors"))
            model = sources.load(argument)
            try:
                # With its locations, so that errors name the places the model itself would.
                text = model.module.operation.get_asm(enable_debug_info=True)
                prepared: dict[str, Any] = {"mlir": text, "weights": None, "reference": None}
                if model.weights is not None:
                    prepared["weights"] = np.frombuffer(Path(model.weights).read_bytes(), dtype=np.uint8)
                if reference:
                    prepared["reference"] = _reference(model)
            finally:
                model.cleanup()
        return prepared
    except UserError as e:
        return {"error": first_line(str(e))}
    except Exception as e:  # noqa: BLE001 (torch and onnx raise anything: the model's points fail, the sweep goes on)
        return {"error": f"{type(e).__name__}: {first_line(str(e))}"}


def _reference(model: Any) -> dict[str, Any]:
    """The inputs ``raptor simulate --check`` draws (seed 0: standard-normal
    reals, token ids and masks inside their vocabularies), in the model's
    order, and the model's own outputs on them, or why there are none."""
    import numpy as np

    from .. import quant

    if model.reference is None:
        return {"error": "the check needs the model's own output (a zoo name, .pt2 or .onnx model)"}
    xs = list(quant.random_inputs(model.module, 1)[0].values())
    return {"x": xs, "y": [np.asarray(y, dtype=np.float32) for y in model.reference(*xs)]}


def save_reference(path: Path, reference: dict[str, Any]) -> None:
    """A prepared reference (:func:`_reference`) as the ``.npz`` the point's
    check reads: the inputs ``x0``, ``x1``, ... and the outputs ``y0``,
    ``y1``, ..., or ``error``."""
    import numpy as np

    if "error" in reference:
        np.savez(path, error=np.array(reference["error"]))
    else:
        np.savez(path, **{f"x{i}": x for i, x in enumerate(reference["x"])},
                 **{f"y{i}": y for i, y in enumerate(reference["y"])})


def run_point(prepared: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """Measures one point in a child process and returns its row (status
    ok, failed, timeout or crashed)."""
    from .identity import raptor_fingerprint

    start = time.perf_counter()
    where = {"host": socket.gethostname(),
             "computed_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if "error" in prepared:
        row: dict[str, Any] = {"status": "failed", "stage": "loading the model", "error": prepared["error"]}
    elif request["raptor"] != raptor_fingerprint():
        row = {"status": "crashed", "stage": None,
               "error": f"this worker runs Raptor {raptor_fingerprint()}, the driver {request['raptor']}"}
    else:
        with scratch_directory("point") as work:
            row = _run_child(prepared, request, work)
    return {**row, **where, "seconds": time.perf_counter() - start}


def _run_child(prepared: dict[str, Any], request: dict[str, Any], work: Path) -> dict[str, Any]:
    import numpy as np

    (work / "model.mlir").write_text(prepared["mlir"])
    weights = None
    if prepared["weights"] is not None:
        weights = work / "model.safetensors"
        weights.write_bytes(memoryview(prepared["weights"]))
    (work / "target.json").write_text(json.dumps(request["target"], indent=1))
    reference = None
    if request["options"]["check"]:
        reference = work / "reference.npz"
        save_reference(reference, prepared["reference"] or {"error": "no reference output was prepared"})
    output = Path(request["keep"]) if request.get("keep") else work / "program"
    output.parent.mkdir(parents=True, exist_ok=True)
    child = {"model": str(work / "model.mlir"), "weights": str(weights) if weights else None,
             "source": request["source"], "target": str(work / "target.json"), "options": request["options"],
             "pipeline": request["pipeline"], "output": str(output), "pimsim_files": request["pimsim_files"],
             "reference": str(reference) if reference else None, "result": str(work / "result.json")}
    (work / "request.json").write_text(json.dumps(child))
    timeout = request["timeout_seconds"]
    log = work / "point.log"
    code = _SERVER.run(str(work / "request.json"), str(log), timeout)
    if code is None:
        return {"status": "timeout", "stage": None, "error": f"no result after {timeout:g} s (the timeout)"}
    result = work / "result.json"
    if code == 0 and result.is_file():
        return json.loads(result.read_text())
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    last = [line for line in log.read_text(errors="replace").splitlines() if line.strip()] if log.is_file() else []
    return {"status": "crashed", "stage": None,
            "error": f"the point's process ended ({how})" + (f": {last[-1].strip()}" if last else "")}


#: This worker's fork server (started by its first point).
_SERVER = ForkServer()
