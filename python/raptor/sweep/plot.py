"""The Pareto picture of one model: interval against latency, as plain SVG.

Each 'ok' point is a marker (its shape the mode: a circle for latency
schedules, a square, diamond or triangle per pipeline depth) filled by the
crossbars it uses on a viridis scale; the points on the Pareto front are
outlined and joined by their staircase. Hovering a marker shows its
parameters (SVG titles). An axis spanning a factor of 4 or more is
logarithmic.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

__all__ = ["pareto_svg"]

WIDTH, HEIGHT = 760, 500
LEFT, RIGHT, TOP, BOTTOM = 78, 190, 52, 58
#: viridis at 0, 1/4, 1/2, 3/4 and 1.
VIRIDIS = ((0x44, 0x01, 0x54), (0x3b, 0x52, 0x8b), (0x21, 0x91, 0x8c), (0x5e, 0xc9, 0x62), (0xfd, 0xe7, 0x25))
SHAPES = ("square", "diamond", "triangle")


class _Scale:
    """Data to pixels along one axis, linear or logarithmic."""

    def __init__(self, values: list[float], start: float, end: float) -> None:
        lo, hi = min(values), max(values)
        self.log = lo > 0 and hi / lo >= 4
        f = math.log10 if self.log else (lambda v: v)
        a, b = f(lo), f(hi)
        pad = (b - a) * 0.06 or (abs(a) * 0.05 if a else 1.0)
        self.lo, self.hi = a - pad, b + pad
        self.start, self.end = start, end

    def __call__(self, v: float) -> float:
        t = math.log10(v) if self.log else v
        return self.start + (t - self.lo) / (self.hi - self.lo) * (self.end - self.start)

    def ticks(self) -> list[float]:
        if self.log:
            lo, hi = 10 ** self.lo, 10 ** self.hi
            for mantissas in ((1,), (1, 2, 5), tuple(range(1, 10))):
                found = [m * 10 ** e for e in range(math.floor(self.lo) - 1, math.ceil(self.hi) + 1)
                         for m in mantissas if lo <= m * 10 ** e <= hi]
                if len(found) >= 3:
                    return found
            return found
        span = self.hi - self.lo
        step = 10 ** math.floor(math.log10(span / 5))
        for m in (1, 2, 5, 10):
            if span / (m * step) <= 6:
                step *= m
                break
        first = math.ceil(self.lo / step)
        return [k * step for k in range(first, math.floor(self.hi / step) + 1)]


def _colour(t: float) -> str:
    t = min(max(t, 0.0), 1.0) * (len(VIRIDIS) - 1)
    i = min(int(t), len(VIRIDIS) - 2)
    f = t - i
    r, g, b = (round(a + (c - a) * f) for a, c in zip(VIRIDIS[i], VIRIDIS[i + 1]))
    return f"#{r:02x}{g:02x}{b:02x}"


def _marker(shape: str, x: float, y: float, fill: str, outline: bool, title: str) -> str:
    stroke = 'stroke="#000" stroke-width="2"' if outline else 'stroke="#fff" stroke-width="0.8"'
    r = 6.5
    if shape == "circle":
        body = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" {stroke}>'
        end = "</circle>"
    else:
        if shape == "square":
            pts = [(x - r * .85, y - r * .85), (x + r * .85, y - r * .85), (x + r * .85, y + r * .85),
                   (x - r * .85, y + r * .85)]
        elif shape == "diamond":
            pts = [(x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y)]
        else:
            pts = [(x, y - r * 1.2), (x + r * 1.1, y + r * .8), (x - r * 1.1, y + r * .8)]
        body = f'<polygon points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}" fill="{fill}" {stroke}>'
        end = "</polygon>"
    return f"{body}<title>{escape(title)}</title>{end}"


def _tick_label(v: float) -> str:
    return f"{v:g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"


def pareto_svg(df: Any, model: str, grid: list[str]) -> str:
    """The picture of ``model``'s rows of the results table ``df``
    (``grid``: the target keys to show in the markers' titles)."""
    rows = df[(df["model"] == model)]
    ok = rows[(rows["status"] == "ok") & rows["latency_ms"].notna() & rows["interval_ms"].notna()]
    failed = len(rows) - len(ok)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
           f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{escape(model)}: interval against '
           f'latency</text>',
           f'<text x="{LEFT}" y="40" fill="#555">{len(ok)} points, {int(ok["pareto"].sum()) if len(ok) else 0} on '
           f'the Pareto front (outlined){f", {failed} failed not shown" if failed else ""}</text>']
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP
    out.append(f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" fill="none" stroke="#888"/>')
    if len(ok) == 0:
        out.append(f'<text x="{(x0 + x1) / 2}" y="{(y0 + y1) / 2}" text-anchor="middle" fill="#555">no point '
                   "succeeded</text></svg>")
        return "\n".join(out) + "\n"
    lat = [float(v) for v in ok["latency_ms"]]
    itv = [float(v) for v in ok["interval_ms"]]
    sx, sy = _Scale(lat, x0, x1), _Scale(itv, y0, y1)
    for t in sx.ticks():
        x = sx(t)
        out.append(f'<line x1="{x:.1f}" y1="{y1}" x2="{x:.1f}" y2="{y0}" stroke="#eee"/>'
                   f'<text x="{x:.1f}" y="{y0 + 16}" text-anchor="middle">{_tick_label(t)}</text>')
    for t in sy.ticks():
        y = sy(t)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{_tick_label(t)}</text>')
    out.append(f'<text x="{(x0 + x1) / 2}" y="{HEIGHT - 16}" text-anchor="middle">latency of one inference, ms'
               f'{" (log)" if sx.log else ""}</text>')
    out.append(f'<text transform="translate(20 {(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">interval '
               f'between inferences, ms{" (log)" if sy.log else ""}</text>')
    crossbars = [float(v) for v in ok["crossbars_used"]]
    cmin, cmax = min(crossbars), max(crossbars)
    modes = list(dict.fromkeys(ok["mode"]))
    shape = {m: "circle" if m == "latency" else SHAPES[i % len(SHAPES)]
             for i, m in enumerate(m for m in modes if m != "latency")}
    shape.setdefault("latency", "circle")
    on_front = sorted((x, y) for x, y, f in zip(lat, itv, ok["pareto"]) if f)
    if len(on_front) > 1:
        path = [f"M{sx(on_front[0][0]):.1f},{sy(on_front[0][1]):.1f}"]
        for (_, ya), (xb, yb) in zip(on_front, on_front[1:]):
            path.append(f"H{sx(xb):.1f}V{sy(yb):.1f}")
        out.append(f'<path d="{"".join(path)}" fill="none" stroke="#000" stroke-dasharray="4 3" '
                   'stroke-width="1"/>')
    order = sorted(range(len(ok)), key=lambda i: bool(ok["pareto"].iloc[i]))  # the front drawn last, on top
    for i in order:
        r = ok.iloc[i]
        title = "; ".join([f"{k}={r[k]}" for k in grid] + [f"{r['precision']} {r['mode']}",
                           f"latency {lat[i]:.4g} ms", f"interval {itv[i]:.4g} ms",
                           f"{int(r['crossbars_used'])} crossbars", f"{int(r['cores_used'])} cores"])
        t = (crossbars[i] - cmin) / (cmax - cmin) if cmax > cmin else 0.5
        out.append(_marker(shape[r["mode"]], sx(lat[i]), sy(itv[i]), _colour(t), bool(r["pareto"]), title))
    # Colour bar and the shapes' legend.
    bx, by, bh = WIDTH - RIGHT + 30, TOP + 10, 180
    out.append(f'<text x="{bx}" y="{by - 8}">crossbars used</text>')
    for k in range(40):
        out.append(f'<rect x="{bx}" y="{by + bh - (k + 1) * bh / 40:.1f}" width="16" height="{bh / 40 + .5:.1f}" '
                   f'fill="{_colour(k / 39)}"/>')
    for frac, value in ((0.0, cmin), (0.5, (cmin + cmax) / 2), (1.0, cmax)):
        out.append(f'<text x="{bx + 22}" y="{by + bh - frac * bh + 4:.1f}">{value:,.0f}</text>')
    ly = by + bh + 34
    for m in ["latency"] * ("latency" in modes) + [m for m in modes if m != "latency"]:
        out.append(_marker(shape[m], bx + 8, ly, "#bbb", False, m) + f'<text x="{bx + 22}" y="{ly + 4}">'
                   f'{escape(m)}</text>')
        ly += 22
    out.append("</svg>")
    return "\n".join(out) + "\n"
