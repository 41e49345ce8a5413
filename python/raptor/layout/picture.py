"""Pictures: a layout as a grid of offsets, a morphism as the paper draws
it (domain boxes, codomain boxes, arrows; `*` entries unattached)."""

from __future__ import annotations

import html

from . import Layout, Morphism

PALETTE = ["#e3f2fd", "#e8f5e9", "#fff3e0", "#f3e5f5", "#e0f7fa", "#fbe9e7", "#f9fbe7", "#ede7f6"]

#: The most cells (layout) or boxes (morphism) a picture draws: beyond it
#: nobody reads one, and a 2^31-cell layout would take gigabytes.
MAX_CELLS = 4096


def render_svg(layout: Layout, cell: int = 34) -> str:
    """Cell (r, c) shows the offset of coordinate r + rows * c. Raises
    ValueError for layouts of more than MAX_CELLS cells."""
    if layout.size() > MAX_CELLS:
        raise ValueError(f"the layout has {layout.size()} cells; pictures draw at most {MAX_CELLS}")
    modes = layout.shape if isinstance(layout.shape, tuple) else (layout.shape,)
    rows = _product(modes[0]) if modes else 1
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


def render_morphism_svg(f: Morphism, box: int = 38, gap: int = 14) -> str:
    """Domain entries on top, codomain entries below, an arrow per mapped
    entry; entries mapped to `*` have no arrow. Raises ValueError beyond
    MAX_CELLS entries."""
    dom, cod = _flatten(f.domain), _flatten(f.codomain)
    n = max(len(dom), len(cod), 1)
    if n > MAX_CELLS:
        raise ValueError(f"the morphism has {n} entries; pictures draw at most {MAX_CELLS}")
    width = n * (box + gap) + 80
    height = 200
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/>'
           '</marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{html.escape(str(f))}</text>']

    def row(values: list[int], y: int, fill: str) -> list[float]:
        centers = []
        offset = 40 + (n - len(values)) * (box + gap) / 2
        for i, v in enumerate(values):
            x = offset + i * (box + gap)
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{box}" height="{box}" fill="{fill}" '
                       f'stroke="#1565c0"/><text x="{x + box / 2:.1f}" y="{y + box / 2 + 5}" '
                       f'font-size="14" text-anchor="middle">{v}</text>')
            centers.append(x + box / 2)
        return centers

    top = row(dom, 40, "#e3f2fd")
    bottom = row(cod, 130, "#e8f5e9")
    for i, target in enumerate(f.map):
        if target == 0:
            continue  # `*`: no arrow
        out.append(f'<line x1="{top[i]:.1f}" y1="{40 + box}" x2="{bottom[target - 1]:.1f}" '
                   f'y2="128" stroke="#333" stroke-width="1.6" marker-end="url(#arrow)"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _flatten(t) -> list[int]:
    if isinstance(t, int):
        return [t]
    return [x for c in t for x in _flatten(c)]


def _product(t) -> int:
    p = 1
    for x in _flatten(t):
        p *= x
    return p
