"""Writing what a person looks at: the tables, one Pareto picture per model
and the HTML report, each file atomically, all from the results table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._io import write_atomically
from .directory import SweepDirectory
from .plot import pareto_svg
from .report import html_report
from .tables import write_tables

__all__ = ["write_outputs"]


def write_outputs(directory: SweepDirectory, title: str, df: Any, grid: list[str], summary: str) -> list[Path]:
    """Writes results.csv, results.parquet, pareto-MODEL.svg and report.html;
    removes pictures of models no longer swept. Returns the files written."""
    written = list(write_tables(df, directory.path))
    pictures: dict[str, str] = {}
    for model in dict.fromkeys(df["model"]):
        svg = pareto_svg(df, model, grid)
        path = directory.pareto_svg(model)
        write_atomically(path, svg)
        pictures[model] = svg
        written.append(path)
    for stale in directory.stale_plots(set(written)):
        stale.unlink(missing_ok=True)
    report = directory.path / "report.html"
    write_atomically(report, html_report(title, df, grid, pictures, summary))
    written.append(report)
    return written
