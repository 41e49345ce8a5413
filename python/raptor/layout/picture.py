"""A layout drawn as a grid of offsets (rows = first mode, columns = the rest)."""

from __future__ import annotations

import html

from . import Layout

PALETTE = ["#e3f2fd", "#e8f5e9", "#fff3e0", "#f3e5f5", "#e0f7fa", "#fbe9e7", "#f9fbe7", "#ede7f6"]


def render_svg(layout: Layout, cell: int = 34) -> str:
    """Cell (r, c) shows the offset of coordinate r + rows * c."""
    modes = layout.shape if isinstance(layout.shape, tuple) else (layout.shape,)
    rows = _product(modes[0])
    cols = max(1, layout.size() // rows)
    width, height = cols * cell + 60, rows * cell + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="Helvetica, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{html.escape(str(layout))}</text>']
    for c in range(cols):
        for r in range(rows):
            offset = layout(r + rows * c)
            x, y = 40 + c * cell, 40 + r * cell
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" '
                       f'fill="{PALETTE[offset % len(PALETTE)]}" stroke="#555"/>'
                       f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" font-size="12" '
                       f'text-anchor="middle">{offset}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _product(t) -> int:
    if isinstance(t, int):
        return t
    p = 1
    for x in t:
        p *= _product(x)
    return p
