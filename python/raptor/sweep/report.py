"""The one-page HTML report: counts, each model's Pareto picture and front,
then every row of the table (failed points with their error)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["html_report"]

#: The table's columns in the report (the CSV and Parquet files have all).
SHOWN = ("status", "latency_ms", "interval_ms", "pareto", "cores_used", "crossbars_used", "crossbars_chip",
         "local_memory_peak_bytes", "instructions", "compile_seconds", "max_error_relative", "cached", "error")

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 12px; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.text { text-align: left; }
tr.failed, tr.timeout, tr.crashed { background: #fdecea; }
tr.front { font-weight: bold; }
.figure { display: inline-block; vertical-align: top; margin: 0 1em 1em 0; }
"""


def _cell(value: Any) -> tuple[str, bool]:
    """The cell's text and whether it is text (left-aligned)."""
    import numpy as np
    import pandas as pd

    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "", False
    if isinstance(value, (bool, np.bool_)):
        return ("yes" if value else ""), False
    if isinstance(value, (float, np.floating)):
        return (f"{value:.4g}" if abs(value) < 1e6 else f"{value:,.0f}"), False
    if isinstance(value, (int, np.integer)):
        return f"{value:,}", False
    return str(value), True


def _true(value: Any) -> bool:
    """A nullable boolean cell is true (NA is not)."""
    import pandas as pd

    return value is not None and value is not pd.NA and bool(value)


def _table(df: Any, columns: list[str]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = []
    for _, r in df.iterrows():
        classes = [str(r["status"])] + (["front"] if _true(r["pareto"]) else [])
        cells = []
        for c in columns:
            text, is_text = _cell(r[c])
            cells.append(f'<td{" class=text" if is_text else ""}>{escape(text)}</td>')
        body.append(f'<tr class="{" ".join(classes)}">{"".join(cells)}</tr>')
    return f"<table><tr>{head}</tr>\n" + "\n".join(body) + "</table>"


def html_report(title: str, df: Any, grid: list[str], pictures: dict[str, str], summary: str) -> str:
    """The page: ``pictures`` are the models' SVGs (inline), ``summary`` one
    line of counts."""
    varying = [c for c in ("precision", "mode", "replicate", "replication_budget", "policy")
               if df[c].nunique(dropna=False) > 1]
    columns = ["model", *grid, *varying, *SHOWN]
    parts = [f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{escape(title)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>{escape(title)}</h1>", f"<p>{escape(summary)}</p>"]
    for model, svg in pictures.items():
        rows = df[(df["model"] == model) & df["pareto"].fillna(False)].sort_values("latency_ms")
        parts.append(f"<h2>{escape(model)}</h2><div class='figure'>{svg}</div>")
        parts.append("<div class='figure'><h3>Pareto front</h3>" + _table(rows, columns) + "</div>")
    parts.append("<h2>All points</h2>" + _table(df, columns))
    parts.append("<p>Columns in results.csv and results.parquet beside this page: every option, timing and "
                 "count, and each point's content address.</p></body></html>")
    return "\n".join(parts) + "\n"
