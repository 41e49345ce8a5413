"""Pictures of reduced dependency graphs, drawn as shared seed 003 describes:
variable nodes, solid uniform arcs labelled with their translation vector,
dashed affine arcs labelled with their map, self-loops on an open side of
their node (away from the others), and a SURE/SARE badge."""

from __future__ import annotations

import html
import math
from collections import defaultdict
from typing import Any

NODE_R = 26
LOOP_R = 22


def _map_label(arc: dict[str, Any], indices: list[str]) -> str:
    """`(i,j,k) -> (k,k,k-1)`: the producer point as a function of p."""
    out = []
    for row, b in zip(arc["map"]["A"], arc["map"]["b"]):
        terms = []
        for coeff, name in zip(row, indices):
            if coeff == 0:
                continue
            terms.append(name if coeff == 1 else f"-{name}" if coeff == -1 else f"{coeff}{name}")
        expr = "+".join(terms).replace("+-", "-") if terms else ""
        if b or not expr:
            expr = f"{expr}{b:+d}" if expr else str(b)
        out.append(expr)
    return f"({','.join(indices)}) \u21a6 ({','.join(out)})"


def _label(arc: dict[str, Any], indices: list[str]) -> str:
    if arc["kind"] == "uniform" and "theta" in arc:
        return "[" + ",".join(str(t) for t in arc["theta"]) + "]\u1d40"
    return _map_label(arc, indices)


def render_svg(graph: dict[str, Any], title: str | None = None) -> str:
    """An SVG picture of an RDG (dfactl or extended form)."""
    names: list[str] = list(graph["variables"])
    n = len(names)
    radius = 0 if n == 1 else max(150, 70 * n / math.pi)
    margin = 190
    size = 2 * (radius + margin)
    cx = cy = size / 2
    pos = {}
    for k, name in enumerate(names):
        angle = -math.pi / 2 + 2 * math.pi * k / n
        pos[name] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
    header = 34
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size:.0f}" height="{size + header:.0f}" '
        f'viewBox="0 {-header} {size:.0f} {size + header:.0f}" font-family="Helvetica, Arial, sans-serif">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/>'
        "</marker></defs>",
        '<rect x="0" y="-34" width="100%" height="100%" fill="white"/>',
    ]
    kind = graph["kind"]
    badge = "#2e7d32" if kind == "SURE" else "#c62828"
    parts.append(f'<rect x="10" y="-26" width="58" height="24" rx="5" fill="{badge}"/>'
                 f'<text x="39" y="-9" fill="white" font-size="14" font-weight="bold" '
                 f'text-anchor="middle">{kind}</text>')
    parts.append(f'<text x="80" y="-9" font-size="15">{html.escape(title or graph["operator"])}'
                 f" \u2014 {len(graph['arcs'])} arcs</text>")
    indices = graph["indexNames"]
    pairs: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for arc in graph["arcs"]:
        pairs[(arc["from"], arc["to"])].append(arc)
    for (src, dst), arcs in pairs.items():
        (x1, y1), (x2, y2) = pos[src], pos[dst]
        for k, arc in enumerate(arcs):
            dash = ' stroke-dasharray="6,4"' if arc["kind"] == "affine" else ""
            label = html.escape(_label(arc, indices))
            if src == dst:
                # Self-loops open away from the centre (the free side of the node).
                if n > 1:
                    out = math.atan2(y1 - cy, x1 - cx)
                    angle = out + (k - (len(arcs) - 1) / 2) * 0.8
                else:  # a lone node: spread its loops all around
                    angle = -math.pi / 2 + 2 * math.pi * k / len(arcs)
                lx, ly = x1 + (NODE_R + LOOP_R) * math.cos(angle), y1 + (NODE_R + LOOP_R) * math.sin(angle)
                a1, a2 = angle - 0.5, angle + 0.5
                sx, sy = x1 + NODE_R * math.cos(a1), y1 + NODE_R * math.sin(a1)
                ex, ey = x1 + NODE_R * math.cos(a2), y1 + NODE_R * math.sin(a2)
                c1x, c1y = lx + LOOP_R * 1.6 * math.cos(a1), ly + LOOP_R * 1.6 * math.sin(a1)
                c2x, c2y = lx + LOOP_R * 1.6 * math.cos(a2), ly + LOOP_R * 1.6 * math.sin(a2)
                parts.append(f'<path d="M{sx:.1f},{sy:.1f} C{c1x:.1f},{c1y:.1f} {c2x:.1f},{c2y:.1f} '
                             f'{ex:.1f},{ey:.1f}" fill="none" stroke="#333" stroke-width="1.6"{dash} '
                             'marker-end="url(#arrow)"/>')
                tx, ty = x1 + (NODE_R + 2.6 * LOOP_R) * math.cos(angle), y1 + (NODE_R + 2.6 * LOOP_R) * math.sin(angle)
                anchor = "start" if math.cos(angle) > 0.3 else "end" if math.cos(angle) < -0.3 else "middle"
                parts.append(f'<text x="{tx:.1f}" y="{ty + 4:.1f}" font-size="11" text-anchor="{anchor}" '
                             f'fill="#1a237e">{label}</text>')
                continue
            dx, dy = x2 - x1, y2 - y1
            dist = math.hypot(dx, dy)
            ux, uy = dx / dist, dy / dist
            # Parallel arcs (and the reverse direction) bend to the left.
            bend = 18 + 22 * k
            mx, my = (x1 + x2) / 2 - uy * bend, (y1 + y2) / 2 + ux * bend
            sx, sy = x1 + ux * NODE_R, y1 + uy * NODE_R
            ex, ey = x2 - ux * (NODE_R + 2), y2 - uy * (NODE_R + 2)
            parts.append(f'<path d="M{sx:.1f},{sy:.1f} Q{mx:.1f},{my:.1f} {ex:.1f},{ey:.1f}" fill="none" '
                         f'stroke="#333" stroke-width="1.6"{dash} marker-end="url(#arrow)"/>')
            parts.append(f'<text x="{mx:.1f}" y="{my:.1f}" font-size="11" text-anchor="middle" '
                         f'fill="#1a237e" stroke="white" stroke-width="3" paint-order="stroke">{label}</text>')
    for name, (x, y) in pos.items():
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{NODE_R}" fill="#e3f2fd" stroke="#1565c0" '
                     'stroke-width="2"/>')
        parts.append(f'<text x="{x:.1f}" y="{y + 5:.1f}" font-size="14" text-anchor="middle">'
                     f"{html.escape(name)}</text>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def render_page(graphs: list[tuple[str, dict[str, Any]]]) -> str:
    """A static HTML page showing several RDGs."""
    cards = "\n".join(
        f'<section><h2>{html.escape(name)}</h2>{render_svg(g)}</section>' for name, g in graphs)
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Reduced dependency graphs"
            "</title><style>body{font-family:Helvetica,Arial,sans-serif;margin:2em}"
            "section{display:inline-block;vertical-align:top;margin:1em;border:1px solid #ddd;"
            "padding:.5em}h2{font-size:1.1em;margin:.2em}</style></head><body>"
            "<h1>Reduced dependency graphs</h1><p>Solid arcs: uniform (translation vector); "
            "dashed arcs: affine (map). Badge: SURE when every arc is uniform.</p>\n"
            f"{cards}\n</body></html>\n")
