"""Design-space sweeps: models x target grids x compile options, each point
compiled and timed, in parallel on Ray (docs/sweep.md).

    raptor sweep sweep.yaml -o out/sweep                   # a local Ray cluster
    raptor sweep sweep.yaml -o out/sweep --address HOST:6379
    raptor sweep --resume -o out/sweep                     # after an interruption

    from raptor import sweep
    df = sweep.run("sweep.yaml", "out/sweep")    # a pandas DataFrame, one row per point
    df[df.pareto][["model", "latency_ms", "interval_ms", "crossbars_used"]]
    sweep.load("out/sweep")                      # the table a sweep wrote

Needs the ``sweep`` extra (``pip install 'raptor[sweep]'``: Ray, pandas,
pyarrow); importing this package does not.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import pandas

    from .spec import Spec

__all__ = ["load", "load_spec", "run"]


def run(spec: str | os.PathLike[str] | dict[str, Any] | Spec | None, output: str | os.PathLike[str], *,
        address: str | None = None, cpus: int | None = None, object_store_bytes: int | None = None,
        resume: bool = False, cache: str | os.PathLike[str] | None = None,
        progress: TextIO | None = None) -> pandas.DataFrame:
    """Runs the sweep ``spec`` (a .yaml or .json file, its mapping, or a
    :class:`~raptor.sweep.spec.Spec`) into the directory ``output`` and
    returns its table, one row per point.

    Points already in the cache (``output/cache``, or ``cache``) are not
    computed again; ``resume`` continues the sweep recorded in ``output``
    (``spec`` None: the recorded one). Points run on the Ray cluster at
    ``address``, else on a local cluster of ``cpus`` CPUs with
    ``object_store_bytes`` of object store started for the sweep, or on the
    cluster this process already initialized. ``progress`` receives the
    progress line (e.g. ``sys.stderr``). Raises UserError with one line for
    a bad spec or directory; a point that fails is a row, not an error."""
    from .driver import run_sweep
    from .executor import Cluster

    df, _ = run_sweep(spec, output, resume=resume, cache=cache, progress=progress,
                      cluster=Cluster(address, cpus, object_store_bytes))
    return df


def load(output: str | os.PathLike[str]) -> pandas.DataFrame:
    """The results table of the sweep in ``output`` (results.parquet)."""
    from .tables import load_results

    return load_results(output)


def load_spec(path: str | os.PathLike[str]) -> Spec:
    """Reads and validates a spec file (UserError with one line otherwise)."""
    from pathlib import Path

    from .spec import parse_spec
    from .specfile import read_spec_file

    return parse_spec(read_spec_file(path), str(path), Path(path).parent)
