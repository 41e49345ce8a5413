"""A sweep from spec to tables: validate, look up the cache, run the rest on
Ray, write the outputs.

Everything that can be refused is checked before the output directory is
touched (the spec, every target of its grid, the directory itself), so a
bad spec leaves nothing behind. Each point is stored in the cache as it
finishes; an interrupted sweep therefore keeps all finished points, and
running it again (or with ``resume``) computes only the others.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from .._io import UserError, signals_held
from .cache import PointCache
from .directory import SweepDirectory
from .executor import Cluster, Job, check_local, execute, import_ray
from .identity import model_digest, point_key, raptor_fingerprint
from .outputs import write_outputs
from .points import expand
from .progress import Progress, format_duration
from .spec import Spec, parse_spec
from .specfile import read_spec_file
from .tables import import_pandas, frame
from .targets import check_targets

__all__ = ["run_sweep"]


def run_sweep(spec: str | os.PathLike[str] | dict[str, Any] | Spec | None, output: str | os.PathLike[str], *,
              resume: bool = False, cluster: Cluster | None = None, cache: str | os.PathLike[str] | None = None,
              progress: TextIO | None = None) -> tuple[Any, str]:
    """Runs the sweep; returns the results table and a one-line summary."""
    import_pandas()
    ray = import_ray()
    directory = SweepDirectory(output, cache)
    directory.check_writable()
    spec, source = _resolve(spec, directory, resume)
    cluster = cluster or Cluster()
    if not cluster.address and not ray.is_initialized():
        check_local(cluster, spec.run)
    points = expand(spec)
    check_targets(points, source)
    fingerprint = raptor_fingerprint()
    digests = {m.name: model_digest(m) for m in spec.models}
    jobs = [Job(p, point_key(p, digests[p.model.name], fingerprint)) for p in points]
    grid = list(dict.fromkeys(k for p in points for k, _ in p.params))
    store = PointCache(directory.cache)
    started = time.monotonic()
    with directory.locked():
        record = {"spec": spec.to_mapping(), "state": "running", "raptor": fingerprint, "points": len(jobs),
                  "started": _now(), "finished": None}
        directory.write_record(record)
        rows: dict[str, dict[str, Any]] = {}
        for job in jobs:
            row = store.get(job.key)
            if row is not None:
                rows[job.key] = row
        cached = set(rows)
        # Two models of the same file are one computation: count keys, not jobs.
        todo = list({j.key: j for j in jobs if j.key not in rows}.values())
        meter = Progress(len(cached) + len(todo), progress)
        meter.cached([rows[key] for key in cached])

        def finished(job: Job, row: dict[str, Any]) -> None:
            row = {**row, "point": {"model": job.point.model.source, "model_digest": digests[job.point.model.name],
                                    "target": job.point.target, "options": job.point.options}}
            with signals_held():  # a point cached is a point counted (an interrupted sweep's record)
                store.put(job.key, row)
                rows[job.key] = row
            meter.finished(job.point.label(), row)

        def stopped(e: BaseException) -> None:
            state = {"state": "failed", "error": str(e)} if isinstance(e, Exception) else {"state": "interrupted"}
            directory.write_record({**record, **state, "finished": _now(), "computed": len(rows) - len(cached),
                                    "cached": len(cached)})

        try:
            if todo:
                execute(todo, spec.run, cluster, fingerprint, directory.programs if spec.run.keep_programs else None,
                        finished, meter.tick, stopped)
        except BaseException as e:
            meter.close()
            stopped(e)
            raise
        meter.close()
        df = frame(jobs, rows, cached)
        counts = df["status"].value_counts().to_dict()
        failed = len(df) - counts.get("ok", 0)
        summary = (f"{len(df)} points: {counts.get('ok', 0)} ok, {failed} failed "
                   f"({len(todo)} computed, {len(df) - len(todo)} from the cache) in "
                   f"{format_duration(time.monotonic() - started)}")
        write_outputs(directory, spec.name, df, grid, summary)
        directory.write_record({**record, "state": "complete", "finished": _now(), "computed": len(todo),
                                "cached": len(df) - len(todo), "statuses": counts})
    return df, summary


def _resolve(spec: str | os.PathLike[str] | dict[str, Any] | Spec | None, directory: SweepDirectory,
             resume: bool) -> tuple[Spec, str]:
    """The spec to run: the given one, or with ``resume`` the one recorded
    in the directory (a given one must then be the same); and where it was
    read from, for messages."""
    recorded = directory.recorded() if resume else None
    if resume and recorded is None:
        raise UserError(f"'{directory.path}' holds no sweep to resume")
    if spec is None:
        if recorded is None:
            raise UserError("give a spec file (or --resume to continue the sweep in the output directory)")
        source = str(directory.record_path)
        return parse_spec(recorded["spec"], source, Path("/")), source
    if isinstance(spec, Spec):
        parsed, source = spec, "<spec>"
    elif isinstance(spec, dict):
        parsed, source = parse_spec(spec, "<spec>", Path.cwd()), "<spec>"
    else:
        source = str(spec)
        parsed = parse_spec(read_spec_file(spec), source, Path(spec).parent)
    if recorded is not None and parsed.to_mapping() != recorded["spec"]:
        raise UserError(f"this spec differs from the sweep recorded in '{directory.path}': --resume continues "
                        "that sweep (run without --resume to sweep this spec there, reusing finished points)")
    return parsed, source


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
