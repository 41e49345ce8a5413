#!/usr/bin/env python3
"""Prints a sweep's results.csv (written by ``raptor sweep``) as the
Markdown table of docs/sweep.md: one row per point, the grid's keys and the
varying options first, the Pareto front in bold.

    python bench/sweep_table.py build/sweep/resnet18/results.csv
"""

from __future__ import annotations

import argparse

import pandas as pd

FIGURES = (("latency_ms", "latency (ms)", "{:.1f}"), ("interval_ms", "interval (ms)", "{:.2f}"),
           ("cores_used", "cores", "{:.0f}"), ("crossbars_used", "crossbars", "{:,.0f}"),
           ("local_memory_peak_bytes", "local memory peak (KiB)", "{:,.0f}"),
           ("instructions", "instructions", "{:,.0f}"), ("max_error_relative", "error vs torch", "{:.4f}"),
           ("seconds", "point (s)", "{:.1f}"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="a results.csv written by raptor sweep")
    args = parser.parse_args()
    df = pd.read_csv(args.csv)
    first_option = list(df.columns).index("precision")
    grid = list(df.columns[1:first_option])
    # Keys tied to one axis (rows and columns of a square crossbar) print once.
    shown = [k for i, k in enumerate(grid) if not any((df[k] == df[j]).all() for j in grid[:i])]
    options = [c for c in ("precision", "mode", "replicate", "policy") if df[c].nunique(dropna=False) > 1]
    head = ["model"] * (df["model"].nunique() > 1) + shown + options + [name for _, name, _ in FIGURES]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if h in shown + options or h == "model" else "---:" for h in head) + "|")
    for _, r in df.iterrows():
        cells = [str(r["model"])] * (df["model"].nunique() > 1) + [str(r[k]) for k in shown + options]
        for column, _, form in FIGURES:
            v = r[column]
            if column == "local_memory_peak_bytes" and not pd.isna(v):
                v = v / 1024
            cells.append("" if pd.isna(v) else form.format(v))
        if r["status"] != "ok":
            cells[-len(FIGURES)] = f"{r['status']}: {r['error']}"
        if str(r["pareto"]) == "True":
            cells = [f"**{c}**" if c else c for c in cells]
        print("| " + " | ".join(cells) + " |")
    print(f"\n{len(df)} points, {int((df['status'] == 'ok').sum())} ok, "
          f"{int(df['pareto'].astype(str).eq('True').sum())} on the Pareto front (bold); the points took "
          f"{df['seconds'].sum() / 60:.1f} minutes of worker time.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
