"""A per-core timeline of one simulated inference, as SVG.

    timing = pim.Program.load("out").time(timeline=True)
    open("timeline.svg", "w").write(timeline_svg(timing, "out"))

One row per core that runs, one pixel column a slice of time coloured by
what took most of it: matrix (MVM), vector or memory work, transfers (send,
recv, sync), or waiting for a peer or an event (red); white where the core
is idle. The spans are the timing simulator's (pimsim-nn's rules).
"""

from __future__ import annotations

import html
from collections import defaultdict

import numpy as np

from .timing import Timing

__all__ = ["timeline_svg"]

_COLOURS = {"matrix": "#4c72b0", "vector": "#55a868", "memory": "#8c8c8c", "transfer": "#dd8452",
            "wait": "#c44e52"}
_WIDTH, _ROW, _LEFT, _TOP = 1200, 7, 60, 46


def _dominant(spans: list[tuple[str, float, float]], columns: int, ns_per_column: float) -> list[str | None]:
    """Per pixel column, the kind that took most of its time (None: idle
    for most of it); a wait counts against the transfer it holds up."""
    kinds = list(_COLOURS)
    time = np.zeros((columns, len(kinds)))
    for kind, start, stop in spans:
        k = kinds.index(kind)
        first, last = int(start / ns_per_column), min(int(stop / ns_per_column), columns - 1)
        for col in range(first, last + 1):
            lo, hi = max(start, col * ns_per_column), min(stop, (col + 1) * ns_per_column)
            if hi > lo:
                time[col, k] += hi - lo
    time[:, kinds.index("transfer")] -= time[:, kinds.index("wait")]
    best = time.argmax(axis=1)
    return [kinds[b] if time[c, b] > ns_per_column / 2 else None for c, b in enumerate(best)]


def _ticks(span_ns: float) -> list[float]:
    """About six round times (ns) across the span."""
    step = 10 ** max(0, len(str(int(span_ns / 6))) - 1)
    for factor in (1, 2, 5, 10):
        if span_ns / (step * factor) <= 8:
            step *= factor
            break
    return [i * step for i in range(int(span_ns // step) + 1)]


def timeline_svg(timing: Timing, title: str = "") -> str:
    """The first pass of every core that runs, as an SVG document."""
    if not timing.timeline:
        raise ValueError("the timing has no timeline (time(timeline=True))")
    end = max(timing.latency_ns, max(e for _, _, _, e in timing.timeline))
    cores = sorted({c for c, _, _, _ in timing.timeline})
    row = {c: i for i, c in enumerate(cores)}
    scale = (_WIDTH - _LEFT - 20) / end  # pixels per ns
    by: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for core, kind, start, stop in timing.timeline:
        by[(core, kind)].append((start, stop))
    height = _TOP + _ROW * len(cores) + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<text x="{_LEFT}" y="16" font-size="13">{html.escape(title)} one inference: '
             f'{timing.latency_ns / 1e6:.3f} ms on {len(cores)} cores (timing simulator)</text>']
    x = _LEFT
    for kind, colour in _COLOURS.items():  # the legend
        parts.append(f'<rect x="{x}" y="24" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{x + 14}" y="33">{kind}</text>')
        x += 90
    for tick in _ticks(end):
        tx = _LEFT + tick * scale
        parts.append(f'<line x1="{tx:.1f}" y1="{_TOP - 4}" x2="{tx:.1f}" y2="{height - 36}" stroke="#ddd"/>'
                     f'<text x="{tx:.1f}" y="{height - 22}" text-anchor="middle">{tick / 1e6:g} ms</text>')
    columns = _WIDTH - _LEFT - 20
    for core in cores:
        y = _TOP + row[core] * _ROW
        if row[core] % 10 == 0:
            parts.append(f'<text x="{_LEFT - 6}" y="{y + _ROW - 1}" text-anchor="end">core {core}</text>')
        spans = [(kind, start, stop) for kind in _COLOURS for start, stop in by.get((core, kind), [])]
        kinds = _dominant(spans, columns, end / columns)
        col = 0
        while col < columns:  # runs of one kind, one rectangle each
            run = col
            while run + 1 < columns and kinds[run + 1] == kinds[col]:
                run += 1
            if kinds[col]:
                parts.append(f'<rect x="{_LEFT + col}" y="{y}" width="{run - col + 1}" height="{_ROW - 1}" '
                             f'fill="{_COLOURS[kinds[col]]}"/>')
            col = run + 1
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
