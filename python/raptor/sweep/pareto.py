"""Pareto fronts: the points no other point of the same model beats on both
latency and interval (lower is better for each)."""

from __future__ import annotations

from typing import Any

__all__ = ["front", "non_dominated"]


def non_dominated(pairs: list[tuple[float, float]]) -> list[bool]:
    """For each (latency, interval), whether no other pair is at most as
    large in both and smaller in one (equal pairs are all on the front)."""
    return [not any(a <= x and b <= y and (a < x or b < y) for a, b in pairs) for x, y in pairs]


def front(df: Any) -> Any:
    """A boolean Series: the rows on their model's front (among 'ok' rows)."""
    import pandas as pd

    mask = pd.Series(False, index=df.index, dtype="boolean")
    ok = df[(df["status"] == "ok") & df["latency_ms"].notna() & df["interval_ms"].notna()]
    for _, group in ok.groupby("model", sort=False):
        pairs = list(zip(group["latency_ms"].astype(float), group["interval_ms"].astype(float)))
        mask.loc[group.index] = non_dominated(pairs)
    return mask
