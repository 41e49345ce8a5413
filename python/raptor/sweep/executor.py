"""Running points on Ray: a local cluster by default, an existing one by address.

Per model, the driver puts its file in the object store once and one task
prepares it (imports it to nn IR, reads its weights); every point of the
model is a task that receives the prepared model through the object store,
with the CPUs the spec gives a point. A task that fails in any way (its
process crashed, its worker was lost) is a row like any other: the sweep
goes on. Interrupted, the driver cancels what is still queued or running.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._io import UserError
from . import tasks
from .points import Point
from .spec import RunSettings

__all__ = ["Cluster", "Job", "check_local", "execute", "import_ray"]

#: The local cluster's object store, at least (Ray's own minimum is 75 MiB).
MIN_OBJECT_STORE = 256 << 20


@dataclass(frozen=True)
class Cluster:
    """Where points run: ``address`` of a running Ray cluster (``HOST:PORT``
    of its head, or ``auto``), else a local cluster started for the sweep
    with ``cpus`` CPUs (default: all) and ``object_store_bytes`` of object
    store (default: three times the models' files, at least 256 MiB). If Ray
    is already initialized in this process, that cluster is used."""

    address: str | None = None
    cpus: int | None = None
    object_store_bytes: int | None = None


@dataclass(frozen=True)
class Job:
    """A point to compute and its content address."""

    point: Point
    key: str


def import_ray() -> Any:
    """The ray module, or a one-line UserError naming the extra."""
    try:
        import ray
    except ImportError:
        raise UserError("raptor sweep needs Ray: pip install 'raptor[sweep]'") from None
    return ray


def execute(jobs: list[Job], settings: RunSettings, cluster: Cluster, fingerprint: str, programs: Path | None,
            finished: Callable[[Job, dict[str, Any]], None], tick: Callable[[], None],
            stopping: Callable[[BaseException], None] | None = None) -> None:
    """Runs every job, calling ``finished(job, row)`` as each ends (in the
    order they end) and ``tick()`` about every second; on an error or an
    interrupt, ``stopping(e)`` before the cluster is touched again (Ray's
    core worker can abort the process while its tasks are cancelled)."""
    ray = import_ray()
    owned = _connect(ray, cluster, jobs, settings)
    pending: dict[Any, Job] = {}
    try:
        prepare = ray.remote(tasks.prepare_model).options(num_cpus=1, max_retries=0)
        measure = ray.remote(tasks.run_point).options(num_cpus=settings.cpus_per_point, max_retries=0)
        prepared: dict[str, Any] = {}
        for job in jobs:
            model = job.point.model
            if model.name not in prepared:
                files = _model_files(model.source)
                check = any(j.point.options["check"] for j in jobs if j.point.model.name == model.name)
                prepared[model.name] = prepare.remote(model.source, ray.put(files) if files else None, check)
            request = {"raptor": fingerprint, "source": model.source, "target": job.point.target,
                       "options": job.point.options, "pipeline": job.point.pipeline,
                       "timeout_seconds": settings.timeout_seconds, "pimsim_files": settings.pimsim_files,
                       "keep": str(programs / job.key) if programs is not None else None}
            pending[measure.remote(prepared[model.name], request)] = job
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                job = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except ray.exceptions.RayError as e:
                    row = {"status": "crashed", "stage": None, "error": f"{type(e).__name__}: {_ray_line(e)}"}
                finished(job, row)
            tick()
    except BaseException as e:
        if stopping is not None:
            stopping(e)
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if owned:
            ray.shutdown()


def check_local(cluster: Cluster, settings: RunSettings) -> int:
    """The CPUs of the local cluster the sweep would start; refuses points
    that ask for more (checked before anything is written)."""
    cpus = cluster.cpus or os.cpu_count() or 1
    if settings.cpus_per_point > cpus:
        raise UserError(f"a point asks for {settings.cpus_per_point} CPUs (run.cpus_per_point) but the local "
                        f"cluster has {cpus}")
    return cpus


def _connect(ray: Any, cluster: Cluster, jobs: list[Job], settings: RunSettings) -> bool:
    """Initializes Ray unless it already is; True when this call did."""
    owned = not ray.is_initialized()
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if owned and cluster.address:
        try:
            ray.init(address=cluster.address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise UserError(f"cannot connect to the Ray cluster at '{cluster.address}': {_ray_line(e)}") from None
    elif owned:
        cpus = check_local(cluster, settings)
        store = cluster.object_store_bytes
        if store is None:
            store = max(MIN_OBJECT_STORE, 3 * sum(_model_bytes(s) for s in {j.point.model.source for j in jobs}))
        ray.init(num_cpus=cpus, object_store_memory=store, include_dashboard=False, **quiet)
    available = ray.cluster_resources().get("CPU", 0)
    if settings.cpus_per_point > available:  # no task could ever be scheduled: it would wait forever
        if owned:
            ray.shutdown()
        raise UserError(f"a point asks for {settings.cpus_per_point} CPUs (run.cpus_per_point) but the Ray "
                        f"cluster has {available:g}")
    return owned


def _model_files(source: str) -> dict[str, bytes] | None:
    """What a worker needs of the model: its file (and an .mlir file's
    weights beside it) by suffix; None for a zoo model (workers have the zoo)."""
    from .. import weights, zoo

    if source in zoo.NAMES:
        return None
    path = Path(source)
    files = {path.suffix: path.read_bytes()}
    if path.suffix == ".mlir" and weights.beside(path).is_file():
        files[".safetensors"] = weights.beside(path).read_bytes()
    return files


def _model_bytes(source: str) -> int:
    """The size of the model's files (what the object store holds is
    about twice that: the file, and the weights of the prepared model)."""
    from .. import weights, zoo

    if source in zoo.NAMES:
        return zoo.weights_file(source).stat().st_size
    path = Path(source)
    beside = weights.beside(path)
    return path.stat().st_size + (beside.stat().st_size if path.suffix == ".mlir" and beside.is_file() else 0)


def _ray_line(error: BaseException) -> str:
    """Ray's errors run over many lines (tracebacks, advice): the first
    line that says something."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
