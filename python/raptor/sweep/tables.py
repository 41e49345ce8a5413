"""The results table: one row per point, as a pandas DataFrame, CSV and Parquet.

Columns: the model, the target grid's keys, the compile options, then what
the point measured (status, the first line of its error, latency and
interval in milliseconds, cores and crossbars used against the chip's,
local-memory peak, instructions, compile and timing seconds, the error
against the model where checked), whether it is on its model's Pareto
front, whether it came from the cache, and its content address.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from .._io import UserError, write_atomically
from .executor import Job
from .pareto import front
from .spec import OPTIONS

__all__ = ["COLUMNS", "frame", "import_pandas", "load_results", "write_tables"]

RESULTS = ("status", "error", "stage", "latency_ms", "interval_ms", "pareto", "interval_converged", "cores_used",
           "cores_chip", "crossbars_used", "crossbars_chip", "local_memory_peak_bytes", "instructions",
           "unrolled_instructions", "arithmetic_used", "pimsim_compatible", "schedule_estimate_ms", "max_error",
           "max_error_relative", "compile_seconds", "timing_seconds", "check_seconds", "seconds", "cached",
           "host", "computed_at", "point", "target")
OPTION_COLUMNS = ("precision", "mode", "pipeline") + tuple(k for k in OPTIONS if k not in ("precision", "mode"))
#: Every column after the model and the grid's keys.
COLUMNS = OPTION_COLUMNS + RESULTS
_INTEGERS = ("pipeline", "calibration_samples", "cores_used", "cores_chip", "crossbars_used", "crossbars_chip",
             "local_memory_peak_bytes", "instructions", "unrolled_instructions")
_BOOLEANS = ("follow_rows", "check", "pareto", "interval_converged", "pimsim_compatible", "cached")


def import_pandas() -> Any:
    """The pandas module, or a one-line UserError naming the extra."""
    try:
        import pandas
    except ImportError:
        raise UserError("raptor sweep needs pandas: pip install 'raptor[sweep]'") from None
    return pandas


def frame(jobs: list[Job], rows: dict[str, dict[str, Any]], cached: set[str]) -> Any:
    """The table of ``jobs`` (in their order) from their rows by key."""
    pd = import_pandas()
    grid = list(dict.fromkeys(k for job in jobs for k, _ in job.point.params))
    records = []
    for job in jobs:
        p, row = job.point, rows[job.key]
        cores = p.target.get("cores", {}).get("count")
        per_core = p.target.get("crossbar", {}).get("per_core")
        record: dict[str, Any] = {"model": p.model.name, **dict(p.params), **p.options, "pipeline": p.pipeline}
        record.update({k: row.get(k) for k in RESULTS})
        record.update(cores_chip=cores, cached=job.key in cached, point=job.key[:16],
                      crossbars_chip=cores * per_core if isinstance(cores, int) and isinstance(per_core, int)
                      else None, target=json.dumps(p.target, sort_keys=True))
        records.append(record)
    df = pd.DataFrame.from_records(records, columns=["model", *grid, *COLUMNS])
    for column in grid:  # a grid of numbers and strings: one type in Parquet
        kinds = {type(v) for v in df[column]}
        if len(kinds) > 1 and not kinds <= {int, float}:
            df[column] = df[column].astype(str)
    for column in _INTEGERS:
        df[column] = df[column].astype("Int64")
    for column in _BOOLEANS:
        df[column] = df[column].astype("boolean")
    df["pareto"] = front(df)
    return df


def write_tables(df: Any, directory: Path) -> tuple[Path, Path]:
    """``results.csv`` and ``results.parquet``, each written atomically."""
    csv, parquet = directory / "results.csv", directory / "results.parquet"
    write_atomically(csv, df.to_csv(index=False))
    buffer = io.BytesIO()
    df.to_parquet(buffer, index=False)
    write_atomically(parquet, buffer.getvalue())
    return csv, parquet


def load_results(directory: str | Path) -> Any:
    """The results table a sweep wrote into ``directory``."""
    pd = import_pandas()
    path = Path(directory) / "results.parquet"
    if not path.is_file():
        raise UserError(f"'{directory}' holds no sweep results (results.parquet)")
    return pd.read_parquet(path)
