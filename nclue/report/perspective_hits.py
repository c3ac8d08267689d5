"""Figure kind ``perspective_hits``: the Multi³IR Figure 4 analogue as SVG (Multi³IR paper, sec. 4.1).

"Hit@20 is measured for each perspective and perspectives are ranked accordingly. (a) Naive
retrieval using the original query. (b) Multi-query retrieval using ground-truth perspective
descriptions, with results aggregated via Round Robin." The figure draws the numbers of the
table kind of the same name (:mod:`nclue.tables.perspective_hits`, computed once for both):
:func:`hit_rank_svg` draws one panel per row side by side, a bar per perspective rank (1 = the
query's best-covered perspective) whose height is the mean Hit@k at that rank, on a shared 0-100
axis, with each bar's value printed above it. Pure drawing: the same input gives byte-identical
text (fixed canvas, 2-decimal coordinates, 1-decimal labels). Bad input (no series, an empty
series, a value outside [0, 100], a non-finite number, a duplicate rank, an unusable string)
raises :class:`NclueError`.
"""

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ..context import ReleaseContext
from ..errors import NclueError
from ..figures import COLOURS, esc, fmt
from ..tables.multi3ir import MethodRow
from ..tables.perspective_hits import hit_rank_series, perspective_hit_table
from ..tables.spec import SpecKind, setting

WIDTH = 800
HEIGHT = 420
TOP = 80.0
BOTTOM = 350.0          # y of the 0 line
LEFT = 60.0
RIGHT = 780.0
GAP = 40.0              # between panels
BAR_FILL = 0.6          # share of a rank slot filled by its bar


def _check(series: Sequence[Tuple[str, Sequence[Tuple[int, float]]]]) -> None:
    if not series:
        raise NclueError("figure 4: no series")
    for label, points in series:
        if not isinstance(label, str) or not label or any(ord(ch) < 32 for ch in label):
            raise NclueError(f"figure 4: unusable series label {label!r}")
        if not points:
            raise NclueError(f"figure 4: series {label!r} is empty")
        ranks = [r for r, _ in points]
        if len(set(ranks)) != len(ranks) or any(isinstance(r, bool) or not isinstance(r, int)
                                                 or r < 1 for r in ranks):
            raise NclueError(f"figure 4: series {label!r} needs distinct positive integer ranks")
        for _, v in points:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or not 0.0 <= v <= 100.0:
                raise NclueError(f"figure 4: series {label!r} has a value outside [0, 100]: {v!r}")


def hit_rank_svg(series: Sequence[Tuple[str, Sequence[Tuple[int, float]]]], title: str,
                 y_label: str, figure_id: str = "fig4",
                 x_label: str = "perspective rank within the query") -> str:
    """One bar panel per ``(label, [(rank, value)])`` series (values in percentage points);
    ``y_label`` names the measure (``Hit@20 (%)``)."""
    _check(series)
    for text in (title, y_label, x_label):
        if not isinstance(text, str) or any(ord(ch) < 32 for ch in text):
            raise NclueError(f"figure 4: unusable text {text!r}")
    if not isinstance(figure_id, str) or not figure_id[:1].isalpha() or \
            not all(ch.isalnum() or ch in "-_" for ch in figure_id):
        raise NclueError(f"figure 4: bad figure_id {figure_id!r}")
    n = len(series)
    panel_w = (RIGHT - LEFT - GAP * (n - 1)) / n
    height = BOTTOM - TOP

    def y_of(v: float) -> float:
        return BOTTOM - height * v / 100.0

    desc = "; ".join(f"{label}: " + ", ".join(f"rank {r} {fmt(v, 1)}" for r, v in sorted(points))
                     for label, points in series)
    out: List[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{figure_id}-title {figure_id}-desc" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f'<title id="{figure_id}-title">{esc(title)}</title>',
        f'<desc id="{figure_id}-desc">{esc(desc)}</desc>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{fmt(LEFT)}" y="28.00" font-size="16" font-weight="bold">{esc(title)}</text>',
    ]
    # shared y axis: gridlines every 20 points
    out.append('<g class="grid" stroke="#dddddd" stroke-width="1">')
    for t in range(0, 101, 20):
        out.append(f'<line x1="{fmt(LEFT)}" y1="{fmt(y_of(t))}" x2="{fmt(RIGHT)}" '
                   f'y2="{fmt(y_of(t))}"/>')
    out.append("</g>")
    out.append('<g class="tick-labels" font-size="11" fill="#333333">')
    for t in range(0, 101, 20):
        out.append(f'<text x="{fmt(LEFT - 8)}" y="{fmt(y_of(t) + 4)}" text-anchor="end">{t}</text>')
    out.append("</g>")
    cy = (TOP + BOTTOM) / 2
    out.append(f'<text class="axis-label" x="18.00" y="{fmt(cy)}" font-size="13" '
               f'text-anchor="middle" transform="rotate(-90 18.00 {fmt(cy)})">{esc(y_label)}</text>')
    for i, (label, points) in enumerate(series):
        x0 = LEFT + i * (panel_w + GAP)
        colour = COLOURS[i % len(COLOURS)]
        ranks = sorted(points)
        slot = panel_w / max(r for r, _ in ranks)
        out.append(f'<g class="panel" data-series="{esc(label)}">')
        out.append(f'<text x="{fmt(x0 + panel_w / 2)}" y="{fmt(TOP - 30)}" font-size="13" '
                   f'text-anchor="middle" font-weight="bold">({chr(97 + i)}) {esc(label)}</text>')
        for r, v in ranks:
            bx = x0 + (r - 1) * slot + slot * (1 - BAR_FILL) / 2
            bw = slot * BAR_FILL
            out.append(f'<rect x="{fmt(bx)}" y="{fmt(y_of(v))}" width="{fmt(bw)}" '
                       f'height="{fmt(BOTTOM - y_of(v))}" fill="{colour}"/>')
            out.append(f'<text x="{fmt(bx + bw / 2)}" y="{fmt(y_of(v) - 5)}" font-size="11" '
                       f'text-anchor="middle">{fmt(v, 1)}</text>')
            out.append(f'<text x="{fmt(bx + bw / 2)}" y="{fmt(BOTTOM + 16)}" font-size="11" '
                       f'text-anchor="middle">{r}</text>')
        out.append(f'<line x1="{fmt(x0)}" y1="{fmt(BOTTOM)}" x2="{fmt(x0 + panel_w)}" '
                   f'y2="{fmt(BOTTOM)}" stroke="#333333" stroke-width="1"/>')
        out.append("</g>")
    out.append(f'<text class="axis-label" x="{fmt((LEFT + RIGHT) / 2)}" y="{fmt(BOTTOM + 40)}" '
               f'font-size="13" text-anchor="middle">{esc(x_label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class PerspectiveHitsFigureSpec:
    id: str = setting("text", "figure id (file `figures/<id>.svg`)")
    kind: str = setting("text", "`perspective_hits`")
    title: Optional[str] = setting("text", "title drawn in the figure (default: the table's)", None)
    caption: Optional[str] = setting("text", "caption in the report (default: the id)", None)
    rows: Tuple[MethodRow, ...] = setting(MethodRow, "the panels: one method each (as in the "
                                                     "`perspective_hits` table)")
    k: int = setting("count", "cutoff of the per-perspective Hit@k", 20)


def perspective_hits_figure(spec: PerspectiveHitsFigureSpec, ctx: ReleaseContext) -> str:
    """Multi³IR Figure 4 analogue: Hit@k per perspective rank within the query, one panel per
    method (naive vs multi-query retrieval in the paper)."""
    table = perspective_hit_table(ctx, spec.id, None, spec.rows, spec.k)
    header = ctx.registry.header(ctx.registry.measure("perspective_hit", spec.k))
    return hit_rank_svg(hit_rank_series(table), spec.title or table.title, f"{header} (%)",
                        figure_id=spec.id)


KIND = SpecKind("perspective_hits", PerspectiveHitsFigureSpec, perspective_hits_figure,
                "Multi³IR Figure 4 analogue: Hit@k by perspective rank, naive vs multi-query.")
