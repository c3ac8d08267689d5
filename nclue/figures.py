"""Figure 2 analogues as SVG text, written by our own code (standard library only).

n-Clue paper, sec. 4.2 and supplement: "Figure 2(a) retains all 54 fair method rows, and Figure 2(b)
places paired effects in the Gold-Hit-n-Clue-Score delta plane."

* :func:`landscape_svg` -- Figure 2(a): one marker per fair run at (Gold Hit@10, n-Clue Score@10),
  marker shape and colour per family, the ``y = x`` reference line, gridlines, axis labels, a legend
  and labels for named points. A run can never lie above the line: n-Clue Score@10 counts queries
  with a top-10 gold ranked before every judged subset, Gold Hit@10 those with any top-10 gold, so
  the vertical distance to the line is the subset-first share of the outcome decomposition (Table 4).
* :func:`delta_plane_svg` -- Figure 2(b): paired effects (variant minus base) in the
  (Delta Gold Hit@10, Delta n-Clue Score@10) plane with optional 95% interval whiskers on each
  axis, the zero axes and the ``Delta y = Delta x`` reference line, and point labels.

Point labels (:func:`place_labels`): each label's box is estimated from DejaVu Sans advance widths
(:func:`text_width`) and placed greedily, most crowded points first, at the cheapest *legal* position
among six close positions and rings of 16 directions (each with the three text anchors) up to
156 px away: legal means inside the plot,
clear of every other label, of every marker (any point's, any family's), of the ``y = x`` label and,
in the delta plane, of both zero axes. A close position touching another point's marker is avoided
(it would read as that point's label); a label placed away from its point gets a leader line.
Legend names wrap onto further lines and the canvas grows to fit them.

Both functions are pure: the same input gives byte-identical text. Canvas size is fixed; every
number is printed with a fixed number of decimals (coordinates with 2); families/blocks are styled
in sorted name order (or the caller's ``family_order``) so styling does not depend on point order;
points are drawn in input order. Labels are XML-escaped, control characters are refused. The
output is a standalone ``<svg>`` element (no XML declaration) that can be written to a ``.svg`` file
or inlined into HTML; pass a distinct ``figure_id`` to each figure of one page (ids of the
``<title>``/``<desc>`` elements referenced by ``aria-labelledby`` derive from it).

Bad input (no points, a non-finite number, an inverted interval, a point outside a caller-given
axis range, an unknown label to annotate, an unusable string) raises :class:`NclueError`.
"""

import html
import math
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .errors import NclueError

# ---------------------------------------------------------------------------------------------
# Canvas geometry (pixels). Fixed so that output does not depend on anything but the input.
WIDTH = 800
HEIGHT = 520
PLOT_LEFT = 70.0
PLOT_TOP = 50.0
PLOT_WIDTH = 500.0
PLOT_HEIGHT = 400.0
PLOT_RIGHT = PLOT_LEFT + PLOT_WIDTH      # 570
PLOT_BOTTOM = PLOT_TOP + PLOT_HEIGHT     # 450
LEGEND_X = 590.0
LEGEND_TOP = 60.0
LEGEND_STEP = 20.0
MAX_STYLES = 20                          # legend rows that fit beside the plot

# Okabe-Ito colour-blind-safe palette (yellow dropped: too little contrast on white), then black.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
SHAPES = ("circle", "square", "triangle-up", "diamond", "triangle-down", "plus")

Box = Tuple[float, float, float, float]  # x0, y0, x1, y1 (pixels)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass(frozen=True)
class LandscapePoint:
    """One fair run in Figure 2(a): ``x`` = Gold Hit@10, ``y`` = n-Clue Score@10 (percentage points)."""

    label: str
    family: str
    x: float
    y: float


@dataclass(frozen=True)
class PairedEffect:
    """One controlled contrast in Figure 2(b): variant minus base, in percentage points.

    ``x`` = Delta Gold Hit@10, ``y`` = Delta n-Clue Score@10; ``x_interval``/``y_interval`` are
    optional (low, high) paired 95% intervals drawn as whiskers; ``x_se``/``y_se`` the optional
    Monte Carlo SE of each interval's bounds (the larger of the two), printed with the interval
    in the figure's description.
    """

    label: str
    block: str
    x: float
    y: float
    x_interval: Optional[Tuple[float, float]] = None
    y_interval: Optional[Tuple[float, float]] = None
    x_se: Optional[float] = None
    y_se: Optional[float] = None


# ---------------------------------------------------------------------------------------------
# Small helpers


def fmt(value: float, decimals: int = 2) -> str:
    """Fixed-decimal text for a number; ``-0.00`` is printed as ``0.00``."""
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and set(text[1:]) <= {"0", "."}:
        text = text[1:]
    return text


def esc(text: str) -> str:
    """Escape ``& < > " '`` for XML text and attribute values."""
    return html.escape(text, quote=True)


def _check_text(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise NclueError(f"{what} must be a string, got {type(text).__name__}")
    if _CONTROL.search(text):
        raise NclueError(f"{what} {text!r} contains a control character (not allowed in XML)")
    return text


def _check_number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NclueError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise NclueError(f"{what} is not finite ({value!r})")
    return float(value)


def _check_interval(interval: object, what: str) -> Optional[Tuple[float, float]]:
    if interval is None:
        return None
    if not isinstance(interval, (tuple, list)) or len(interval) != 2:
        raise NclueError(f"{what} must be a (low, high) pair, got {interval!r}")
    low = _check_number(interval[0], f"{what} low end")
    high = _check_number(interval[1], f"{what} high end")
    if low > high:
        raise NclueError(f"{what} is inverted: low {low!r} > high {high!r}")
    return (low, high)


def _check_range(rng: object, what: str) -> Optional[Tuple[float, float]]:
    if rng is None:
        return None
    if not isinstance(rng, (tuple, list)) or len(rng) != 2:
        raise NclueError(f"{what} must be a (low, high) pair, got {rng!r}")
    low = _check_number(rng[0], f"{what} low end")
    high = _check_number(rng[1], f"{what} high end")
    if not low < high:
        raise NclueError(f"{what} must have low < high, got ({low!r}, {high!r})")
    return (low, high)


# Tick steps 1, 2, 5 x 10^e for e in -3..6, each with the decimals its labels need.
_STEPS: Tuple[Tuple[float, int], ...] = tuple(
    (m * 10.0 ** e if e >= 0 else m / 10.0 ** (-e), max(0, -e))
    for e in range(-3, 7) for m in (1, 2, 5))


def nice_step(span: float, max_intervals: int = 10) -> Tuple[float, int]:
    """Smallest step in {1, 2, 5} x 10^e with ``span / step <= max_intervals``; (step, decimals)."""
    for step, decimals in _STEPS:
        if span / step <= max_intervals + 1e-9:
            return step, decimals
    raise NclueError(f"axis span {span!r} is too large to draw")


def _ceil_to(value: float, step: float) -> float:
    return math.ceil(value / step - 1e-9) * step


def _floor_to(value: float, step: float) -> float:
    return math.floor(value / step + 1e-9) * step


def auto_range_from_zero(values: Iterable[float]) -> Tuple[float, float]:
    """Axis range for non-negative scores: 0 (or a floor below a negative minimum) up to the
    maximum rounded up to a multiple of 10; at least (0, 10)."""
    vals = list(values)
    high = max(10.0, _ceil_to(max(vals), 10.0))
    low = min(0.0, _floor_to(min(vals), 10.0))
    return (low, high)


def auto_range_symmetric(values: Iterable[float]) -> Tuple[float, float]:
    """Axis range centred on zero: +-(largest |value| rounded up to a multiple of a 1/2/5 step
    chosen so the half-range spans at most 5 steps); at least (-1, 1)."""
    largest = max(abs(v) for v in values)
    if largest == 0.0:
        return (-1.0, 1.0)
    step, _ = nice_step(largest, max_intervals=5)
    half = _ceil_to(largest, step)
    return (-half, half)


def ticks(low: float, high: float) -> Tuple[List[float], int]:
    """Tick values (multiples of a 1/2/5 step, at most ~10 intervals) inside [low, high] and the
    decimals to print them with."""
    step, decimals = nice_step(high - low)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [i * step for i in range(first, last + 1)], decimals


class _Axes:
    """Linear map from data (x, y) to pixels inside the fixed plot box."""

    def __init__(self, x_range: Tuple[float, float], y_range: Tuple[float, float]) -> None:
        self.x0, self.x1 = x_range
        self.y0, self.y1 = y_range

    def px(self, x: float) -> float:
        return PLOT_LEFT + (x - self.x0) / (self.x1 - self.x0) * PLOT_WIDTH

    def py(self, y: float) -> float:
        return PLOT_BOTTOM - (y - self.y0) / (self.y1 - self.y0) * PLOT_HEIGHT

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


def marker(shape: str, colour: str, cx: float, cy: float) -> str:
    """One marker of the given shape centred at pixel (cx, cy)."""
    common = f'fill="{colour}" fill-opacity="0.85" stroke="#222222" stroke-width="0.6"'
    if shape == "circle":
        return f'<circle cx="{fmt(cx)}" cy="{fmt(cy)}" r="5.00" {common}/>'
    if shape == "square":
        return (f'<rect x="{fmt(cx - 4.5)}" y="{fmt(cy - 4.5)}" width="9.00" height="9.00" '
                f'{common}/>')
    if shape == "plus":
        d = (f"M{fmt(cx - 6)} {fmt(cy)}H{fmt(cx + 6)}M{fmt(cx)} {fmt(cy - 6)}V{fmt(cy + 6)}")
        return f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2.50"/>'
    offsets = {
        "triangle-up": ((0, -6), (5.5, 4), (-5.5, 4)),
        "triangle-down": ((0, 6), (5.5, -4), (-5.5, -4)),
        "diamond": ((0, -6), (6, 0), (0, 6), (-6, 0)),
    }[shape]
    points = " ".join(f"{fmt(cx + dx)},{fmt(cy + dy)}" for dx, dy in offsets)
    return f'<polygon points="{points}" {common}/>'


def _styles(groups: Sequence[str], order: Optional[Sequence[str]], what: str) -> Dict[str, Tuple[str, str]]:
    present = sorted(set(groups))
    if order is None:
        ordered = present
    else:
        ordered = [_check_text(g, f"{what} in the order") for g in order]
        if len(set(ordered)) != len(ordered):
            raise NclueError(f"{what} order lists a name twice")
        missing = [g for g in present if g not in ordered]
        if missing:
            raise NclueError(f"{what} order lacks {', '.join(repr(m) for m in missing)}")
        ordered = [g for g in ordered if g in set(present)]
    if len(ordered) > MAX_STYLES:
        raise NclueError(f"{len(ordered)} {what}s do not fit the legend (at most {MAX_STYLES})")
    return {g: (SHAPES[i % len(SHAPES)], COLOURS[i % len(COLOURS)]) for i, g in enumerate(ordered)}


def _labelled(all_labels: Sequence[str], wanted: Optional[Sequence[str]]) -> List[bool]:
    seen: set = set()
    for label in all_labels:
        if label in seen:
            raise NclueError(f"two points share the label {label!r}; labels must be unique")
        seen.add(label)
    if wanted is None:
        return [True] * len(all_labels)
    wanted = [_check_text(w, "label to annotate") for w in wanted]
    known = set(all_labels)
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise NclueError(f"no point is labelled {', '.join(repr(u) for u in unknown)}")
    chosen = set(wanted)
    return [label in chosen for label in all_labels]


def _frame_and_grid(axes: _Axes, out: List[str]) -> None:
    out.append(f'<rect x="{fmt(PLOT_LEFT)}" y="{fmt(PLOT_TOP)}" width="{fmt(PLOT_WIDTH)}" '
               f'height="{fmt(PLOT_HEIGHT)}" fill="#ffffff" stroke="none"/>')
    out.append('<g class="grid" stroke="#dddddd" stroke-width="1">')
    x_ticks, x_dec = ticks(axes.x0, axes.x1)
    y_ticks, y_dec = ticks(axes.y0, axes.y1)
    for t in x_ticks:
        x = axes.px(t)
        out.append(f'<line x1="{fmt(x)}" y1="{fmt(PLOT_TOP)}" x2="{fmt(x)}" y2="{fmt(PLOT_BOTTOM)}"/>')
    for t in y_ticks:
        y = axes.py(t)
        out.append(f'<line x1="{fmt(PLOT_LEFT)}" y1="{fmt(y)}" x2="{fmt(PLOT_RIGHT)}" y2="{fmt(y)}"/>')
    out.append("</g>")
    out.append('<g class="tick-labels" font-size="11" fill="#333333">')
    for t in x_ticks:
        out.append(f'<text x="{fmt(axes.px(t))}" y="{fmt(PLOT_BOTTOM + 18)}" '
                   f'text-anchor="middle">{fmt(t, x_dec)}</text>')
    for t in y_ticks:
        out.append(f'<text x="{fmt(PLOT_LEFT - 8)}" y="{fmt(axes.py(t) + 4)}" '
                   f'text-anchor="end">{fmt(t, y_dec)}</text>')
    out.append("</g>")


def _line_boxes(x1: float, y1: float, x2: float, y2: float, step: float = 2.0) -> List[Box]:
    """A sloped line as small boxes every ``step`` px (obstacles for the point labels)."""
    n = max(1, int(math.ceil(math.hypot(x2 - x1, y2 - y1) / step)))
    half = step / 2 + 0.6
    return [(x1 + (x2 - x1) * i / n - half, y1 + (y2 - y1) * i / n - half,
             x1 + (x2 - x1) * i / n + half, y1 + (y2 - y1) * i / n + half) for i in range(n + 1)]


def _diagonal(axes: _Axes, text: str, out: List[str]) -> Tuple[List[Box], List[Box]]:
    """The line y = x clipped to the plot box (omitted when it misses the box); returns the box
    of its text label (a hard obstacle for the point labels) and the line itself as small boxes
    (a soft one: a label crosses the line only where no other place is legal)."""
    low = max(axes.x0, axes.y0)
    high = min(axes.x1, axes.y1)
    if not low < high:
        return [], []
    x1, y1, x2, y2 = axes.px(low), axes.py(low), axes.px(high), axes.py(high)
    out.append(f'<line class="diagonal" x1="{fmt(x1)}" y1="{fmt(y1)}" x2="{fmt(x2)}" y2="{fmt(y2)}" '
               f'stroke="#888888" stroke-width="1.2" stroke-dasharray="6 4"/>')
    # Label beside the upper end: right of the line when it leaves through the top edge with room
    # to spare, else above-left of the end point (where the line is not drawn).
    if y2 <= PLOT_TOP + 0.5 and x2 < PLOT_RIGHT - 60:
        lx, ly, anchor = x2 + 6, y2 + 14, "start"
    else:
        lx, ly, anchor = x2 - 6, y2 - 6, "end"
    out.append(f'<text class="diagonal-label" x="{fmt(lx)}" y="{fmt(ly)}" font-size="11" '
               f'fill="#666666" text-anchor="{anchor}">{esc(text)}</text>')
    return [_grow(label_box(text, lx, ly, anchor), LABEL_GAP)], _line_boxes(x1, y1, x2, y2)


def _axis_labels(x_label: str, y_label: str, out: List[str]) -> None:
    cx = PLOT_LEFT + PLOT_WIDTH / 2
    cy = PLOT_TOP + PLOT_HEIGHT / 2
    out.append(f'<text class="axis-label" x="{fmt(cx)}" y="{fmt(PLOT_BOTTOM + 44)}" font-size="13" '
               f'text-anchor="middle">{esc(x_label)}</text>')
    out.append(f'<text class="axis-label" x="20.00" y="{fmt(cy)}" font-size="13" text-anchor="middle" '
               f'transform="rotate(-90 20.00 {fmt(cy)})">{esc(y_label)}</text>')


LEGEND_FONT = 12
LEGEND_TEXT_WIDTH = WIDTH - (LEGEND_X + 20) - 14  # px available to a legend line (8 px to spare)
LEGEND_LINE = 14.0


def wrap_words(text: str, width: float = LEGEND_TEXT_WIDTH, font_size: float = LEGEND_FONT) -> List[str]:
    """Greedy word wrap into lines no wider than ``width`` px (:func:`text_width`); a single
    longer word keeps a line of its own."""
    lines: List[str] = []
    for word in text.split():
        if lines and text_width(lines[-1] + " " + word, font_size) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _legend_rows(styles: Dict[str, Tuple[str, str]]) -> List[Tuple[str, List[str], float]]:
    """(name, wrapped lines, marker y) per legend entry; long names wrap onto further lines."""
    rows = []
    y = LEGEND_TOP
    for name in styles:
        lines = wrap_words(name)
        rows.append((name, lines, y))
        y += LEGEND_STEP + LEGEND_LINE * (len(lines) - 1)
    return rows


def _canvas_height(styles: Dict[str, Tuple[str, str]]) -> int:
    """HEIGHT, or taller when the wrapped legend needs it."""
    rows = _legend_rows(styles)
    if not rows:
        return HEIGHT
    _, lines, y = rows[-1]
    bottom = y + LEGEND_LINE * (len(lines) - 1) + 12.0
    return max(HEIGHT, int(math.ceil(bottom + 12.0)))


def _legend(title: str, styles: Dict[str, Tuple[str, str]], out: List[str]) -> None:
    out.append(f'<g class="legend" font-size="{LEGEND_FONT}">')
    out.append(f'<text x="{fmt(LEGEND_X)}" y="{fmt(LEGEND_TOP - 14)}" font-weight="bold">{esc(title)}</text>')
    for name, lines, y in _legend_rows(styles):
        shape, colour = styles[name]
        out.append(marker(shape, colour, LEGEND_X + 8, y))
        for i, line in enumerate(lines):
            out.append(f'<text class="legend-label" x="{fmt(LEGEND_X + 20)}" '
                       f'y="{fmt(y + 4 + i * LEGEND_LINE)}">{esc(line)}</text>')
    out.append("</g>")


# Label placement. A label's box is estimated from its text (:func:`text_width`; 11 px font,
# 9 px above and 3 px below the baseline) and tried at positions around its marker: the six close
# positions first, then rings of 16 directions at growing distances. A position is *legal* when
# its box stays inside the plot and overlaps no label already placed, no marker (another point's
# kept MARKER_CLEAR px further away), no line named as a hard obstacle (the zero axes and every whisker of
# the delta plane, with its end caps) and lies nearer its own marker than any other (by
# AMBIGUITY_MARGIN px: a label beside another point's marker reads as that point's) unless a
# leader of at least MIN_LEADER px joins them; among legal positions the cheapest wins
# (distance from the marker, plus overlap with soft obstacles). A label placed away from its
# marker gets a leader line from the marker to the box.
LABEL_FONT = 11
LABEL_ASCENT = 9.0
LABEL_DESCENT = 3.0
LABEL_GAP = 1.5         # clearance kept around every box
MARKER_HALF = 6.0       # markers are treated as 12 x 12 px boxes
LEADER_FROM = 12.0      # a leader is drawn when the box is farther than this from the marker centre
_NEAR = (  # (dx, dy of the text anchor from the marker centre, text-anchor)
    (8.0, -7.0, "start"), (8.0, 15.0, "start"), (-8.0, -7.0, "end"), (-8.0, 15.0, "end"),
    (0.0, -10.0, "middle"), (0.0, 19.0, "middle"))
_RINGS = (24.0, 36.0, 50.0, 66.0, 84.0, 104.0, 128.0, 156.0)
_DIRECTIONS = 16
_HARD = 1000.0          # weight of an illegal overlap (so that an impossible layout still draws)
MARKER_CLEAR = 2.5      # extra clearance between a label box and any marker box
AMBIGUITY_MARGIN = 8.0  # a label is this much nearer its marker than any other, unless...
MIN_LEADER = 10.0       # ... a leader of at least this visible length joins them
WHISKER_HALF = 0.7      # half the stroke of a whisker (1.4 px)
SOFT = 5.0              # cost per px² of a label box over a soft obstacle (the dashed diagonal)


def _candidates() -> List[Tuple[float, float, str]]:
    out = list(_NEAR)
    for radius in _RINGS:
        for i in range(_DIRECTIONS):
            angle = 2.0 * math.pi * i / _DIRECTIONS
            ux, uy = math.cos(angle), math.sin(angle)
            natural = "start" if ux > 0.3 else "end" if ux < -0.3 else "middle"
            # the ring point is the text anchor at mid-height; the direction's natural anchor
            # first, then the other two (a long label beside a line or an edge may need them)
            for anchor in (natural,) + tuple(a for a in ("middle", "start", "end") if a != natural):
                out.append((round(radius * ux, 2),
                            round(radius * uy + (LABEL_ASCENT - LABEL_DESCENT) / 2, 2), anchor))
    return out


_CANDIDATES = tuple(_candidates())


# Advance widths of DejaVu Sans (the first font the SVGs ask for; units per em 2048), ASCII and the
# few other characters the figures print. Other fonts of the font-family list (Helvetica, Arial)
# are narrower, so boxes from these widths are not too small. Checked in headless Chromium:
# getBBox widths of the v1/v2 figure labels agree with text_width to within 0.6 px.
_ADVANCE = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690)
    + (1303,) * 10
    + (690, 690, 1716, 1716, 1716, 1087, 2048,
       1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,
       1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403,
       799, 690, 799, 1716, 1024, 1024,
       1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,
       1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075,
       1303, 690, 1303, 1716)))
_ADVANCE.update({"\u2192": 1716, "\u2212": 1716, "\u0394": 1401, "\u00d7": 1716, "\u00b3": 821})
_ADVANCE_DEFAULT = 2048  # anything else: a full em


def text_width(text: str, font_size: float = LABEL_FONT) -> float:
    """Estimated rendered width in px of ``text`` (DejaVu Sans advances, plus 1 px)."""
    units = sum(_ADVANCE.get(ch, _ADVANCE_DEFAULT) for ch in text)
    return units / 2048.0 * font_size + 1.0


def label_box(text: str, x: float, y: float, anchor: str, font_size: float = LABEL_FONT) -> Box:
    """Estimated box of a text label anchored at (x, y) (the baseline) with ``text-anchor``."""
    width = text_width(text, font_size)
    x0 = {"start": x, "end": x - width, "middle": x - width / 2}[anchor]
    scale = font_size / LABEL_FONT
    return (x0, y - LABEL_ASCENT * scale, x0 + width, y + LABEL_DESCENT * scale)


_label_box = label_box


def _grow(box: Box, by: float) -> Box:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _total_overlap(box: Box, others: Sequence[Box]) -> float:
    """``fsum`` of :func:`_overlap` of ``box`` with each of ``others``: the same sum, with the
    boxes that do not meet it (overlap 0.0) skipped before any arithmetic."""
    x0, y0, x1, y1 = box
    return math.fsum([_overlap(box, other) for other in others
                      if other[0] < x1 and other[2] > x0 and other[1] < y1 and other[3] > y0])


def _box_distance(box: Box, x: float, y: float) -> float:
    dx = max(box[0] - x, 0.0, x - box[2])
    dy = max(box[1] - y, 0.0, y - box[3])
    return math.hypot(dx, dy)


def marker_box(cx: float, cy: float) -> Box:
    return (cx - MARKER_HALF, cy - MARKER_HALF, cx + MARKER_HALF, cy + MARKER_HALF)


def place_labels(items: Sequence[Tuple[str, float, float]],
                 markers: Sequence[Tuple[float, float]],
                 obstacles: Sequence[Box] = (),
                 hard_obstacles: Sequence[Box] = ()) -> List[Tuple[float, float, str]]:
    """Deterministic greedy placement (see the comment above): labels are placed in order of
    crowding (most markers within 40 px first, then input order); each takes the cheapest legal
    candidate. Returns (x, y, anchor) per item, in input order."""
    plot = (PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM)
    marker_boxes = [marker_box(mx, my) for mx, my in markers]
    cleared = [_grow(box, MARKER_CLEAR) for box in marker_boxes]
    crowd = [sum(1 for mx, my in markers if math.hypot(mx - cx, my - cy) < 40.0)
             for _, cx, cy in items]
    order = sorted(range(len(items)), key=lambda i: (-crowd[i], i))
    placed: List[Box] = list(hard_obstacles)
    result: Dict[int, Tuple[float, float, str]] = {}
    for i in order:
        text, cx, cy = items[i]
        # its own marker (and any drawn at the same spot) keeps the plain gap; others more
        obstacles_here = [box if math.hypot(mx - cx, my - cy) <= 0.01 else wide
                          for (mx, my), box, wide in zip(markers, marker_boxes, cleared)]
        best = None
        for number, (dx, dy, anchor) in enumerate(_CANDIDATES):
            box = label_box(text, cx + dx, cy + dy, anchor)
            padded = _grow(box, LABEL_GAP)
            area = (padded[2] - padded[0]) * (padded[3] - padded[1])
            illegal = (_total_overlap(padded, placed) + _total_overlap(padded, obstacles_here)
                       + (area - _overlap(padded, plot)))
            # a label must read as its own marker's: nearer to it than to any other marker, or
            # joined to it by a leader long enough to be seen
            own = _box_distance(box, cx, cy)
            if own - MARKER_HALF - LABEL_GAP < MIN_LEADER:
                illegal += sum(100.0 for mx, my in markers
                               if math.hypot(mx - cx, my - cy) > 0.01
                               and _box_distance(box, mx, my) < own + AMBIGUITY_MARGIN)
            # the six close positions keep their order of preference; a ring costs more
            away = 0.0 if number < len(_NEAR) else 20.0 + 2.0 * own
            cost = _HARD * illegal + SOFT * _total_overlap(box, obstacles) + away
            if best is None or cost < best[0] - 1e-9:
                best = (cost, cx + dx, cy + dy, anchor, padded)
        placed.append(best[4])
        result[i] = (best[1], best[2], best[3])
    return [result[i] for i in range(len(items))]


def _leader(text: str, cx: float, cy: float, x: float, y: float, anchor: str) -> Optional[str]:
    """A leader line from the marker's edge to the nearest point of a displaced label's box."""
    box = label_box(text, x, y, anchor)
    if _box_distance(box, cx, cy) <= LEADER_FROM:
        return None
    tx = min(max(cx, box[0]), box[2])
    ty = min(max(cy, box[1]), box[3])
    length = math.hypot(tx - cx, ty - cy)
    sx, sy = cx + (tx - cx) / length * MARKER_HALF, cy + (ty - cy) / length * MARKER_HALF
    ex, ey = tx - (tx - cx) / length * LABEL_GAP, ty - (ty - cy) / length * LABEL_GAP
    return f'<line class="leader" x1="{fmt(sx)}" y1="{fmt(sy)}" x2="{fmt(ex)}" y2="{fmt(ey)}"/>'


def _point_labels(items: Sequence[Tuple[str, float, float]], markers: Sequence[Tuple[float, float]],
                  out: List[str], obstacles: Sequence[Box] = (),
                  hard_obstacles: Sequence[Box] = ()) -> None:
    positions = place_labels(items, markers, obstacles, hard_obstacles)
    leaders = [_leader(text, cx, cy, x, y, anchor)
               for (text, cx, cy), (x, y, anchor) in zip(items, positions)]
    if any(leaders):
        out.append('<g class="leaders" stroke="#555555" stroke-width="0.9">')
        out.extend(line for line in leaders if line)
        out.append("</g>")
    out.append('<g class="point-labels" fill="#111111" stroke="#ffffff" stroke-width="3" '
               'stroke-linejoin="round" paint-order="stroke">')
    for (text, _, _), (x, y, anchor) in zip(items, positions):
        out.append(f'<text class="point-label" x="{fmt(x)}" y="{fmt(y)}" font-size="{LABEL_FONT}" '
                   f'text-anchor="{anchor}">{esc(text)}</text>')
    out.append("</g>")


def _open_svg(figure_id: str, title: str, desc: str, out: List[str], height: int = HEIGHT) -> None:
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
               f'viewBox="0 0 {WIDTH} {height}" role="img" '
               f'aria-labelledby="{figure_id}-title {figure_id}-desc" '
               f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">')
    out.append(f'<title id="{figure_id}-title">{esc(title)}</title>')
    out.append(f'<desc id="{figure_id}-desc">{esc(desc)}</desc>')
    out.append(f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>')
    out.append(f'<text class="figure-title" x="{fmt(PLOT_LEFT)}" y="28.00" font-size="16" '
               f'font-weight="bold">{esc(title)}</text>')


def _check_common(title: object, figure_id: object, x_label: object, y_label: object,
                  desc: object) -> None:
    _check_text(title, "title")
    _check_text(x_label, "x-axis label")
    _check_text(y_label, "y-axis label")
    if desc is not None:
        _check_text(desc, "description")
    if not isinstance(figure_id, str) or not _ID.match(figure_id):
        raise NclueError(f"figure_id must be a letter followed by letters, digits, '-' or '_', "
                         f"got {figure_id!r}")


# ---------------------------------------------------------------------------------------------
# Figure 2(a)


def landscape_svg(points: Sequence[LandscapePoint],
                  title: str = "Gold Hit@10 vs n-Clue Score@10 (fair runs)",
                  labelled: Sequence[str] = (),
                  *,
                  figure_id: str = "landscape",
                  x_label: str = "Gold Hit@10 (pp)",
                  y_label: str = "n-Clue Score@10 (pp)",
                  x_range: Optional[Tuple[float, float]] = None,
                  y_range: Optional[Tuple[float, float]] = None,
                  family_order: Optional[Sequence[str]] = None,
                  desc: Optional[str] = None) -> str:
    """Figure 2(a) analogue: every fair run at (Gold Hit@10, n-Clue Score@10), n-Clue paper sec. 4.2.

    ``labelled`` names the points (by label) that get a text label. Axis ranges default to
    :func:`auto_range_from_zero` of each axis; a caller-given range must contain every point.
    Markers: shape and colour by family, families styled in sorted order unless ``family_order``.
    The ``<desc>`` lists every point so the data are readable without the picture.
    """
    _check_common(title, figure_id, x_label, y_label, desc)
    if not isinstance(points, (list, tuple)) or not points:
        raise NclueError("landscape_svg needs a non-empty list of LandscapePoint")
    rows = []
    for i, p in enumerate(points):
        if not isinstance(p, LandscapePoint):
            raise NclueError(f"point {i}: expected LandscapePoint, got {type(p).__name__}")
        name = _check_text(p.label, f"point {i} label")
        rows.append((name, _check_text(p.family, f"point {name!r} family"),
                     _check_number(p.x, f"point {name!r} x (Gold Hit)"),
                     _check_number(p.y, f"point {name!r} y (n-Clue Score)")))
    xr = _check_range(x_range, "x_range") or auto_range_from_zero(r[2] for r in rows)
    yr = _check_range(y_range, "y_range") or auto_range_from_zero(r[3] for r in rows)
    axes = _Axes(xr, yr)
    for name, _, x, y in rows:
        if not axes.contains(x, y):
            raise NclueError(f"point {name!r} ({x!r}, {y!r}) lies outside the axis ranges {xr!r} x {yr!r}")
    styles = _styles([r[1] for r in rows], family_order, "family")
    show = _labelled([r[0] for r in rows], labelled)

    summary = (f"Scatter plot of {len(rows)} runs in {len(styles)} families; x: {x_label}, "
               f"y: {y_label}; dashed line: y = x. Points: "
               + "; ".join(f"{name} ({fam}): {fmt(x)}, {fmt(y)}" for name, fam, x, y in rows) + ".")
    out: List[str] = []
    _open_svg(figure_id, title, summary if desc is None else desc + " " + summary, out,
              _canvas_height(styles))
    _frame_and_grid(axes, out)
    diagonal_label, diagonal_line = _diagonal(axes, "y = x", out)
    out.append(f'<rect class="frame" x="{fmt(PLOT_LEFT)}" y="{fmt(PLOT_TOP)}" width="{fmt(PLOT_WIDTH)}" '
               f'height="{fmt(PLOT_HEIGHT)}" fill="none" stroke="#333333" stroke-width="1"/>')
    _axis_labels(x_label, y_label, out)
    out.append('<g class="points">')
    for name, fam, x, y in rows:
        shape, colour = styles[fam]
        cx, cy = axes.px(x), axes.py(y)
        out.append(f'<g class="point"><title>{esc(name)} ({esc(fam)}): {esc(x_label)} {fmt(x)}, '
                   f'{esc(y_label)} {fmt(y)}</title>{marker(shape, colour, cx, cy)}</g>')
    out.append("</g>")
    _point_labels([(name, axes.px(x), axes.py(y)) for (name, _, x, y), on in zip(rows, show) if on],
                  [(axes.px(x), axes.py(y)) for _, _, x, y in rows], out,
                  obstacles=diagonal_line, hard_obstacles=diagonal_label)
    _legend("Family", styles, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Figure 2(b)


def delta_plane_svg(effects: Sequence[PairedEffect],
                    title: str = "Paired effects: \u0394 Gold Hit@10 vs \u0394 n-Clue Score@10",
                    labelled: Optional[Sequence[str]] = None,
                    *,
                    figure_id: str = "delta-plane",
                    x_label: str = "\u0394 Gold Hit@10 (pp, variant \u2212 base)",
                    y_label: str = "\u0394 n-Clue Score@10 (pp, variant \u2212 base)",
                    x_range: Optional[Tuple[float, float]] = None,
                    y_range: Optional[Tuple[float, float]] = None,
                    block_order: Optional[Sequence[str]] = None,
                    diagonal: bool = True,
                    desc: Optional[str] = None) -> str:
    """Figure 2(b) analogue: paired effects in the Gold-Hit / n-Clue-Score delta plane, n-Clue
    paper sec. 4.2 and Table 5.

    Every effect is a marker at (x, y) with optional horizontal (``x_interval``) and vertical
    (``y_interval``) whiskers with end caps. The zero axes are drawn solid; the dashed line
    ``dy = dx`` (``diagonal``) separates contrasts whose score gain keeps up with their hit gain.
    ``labelled`` = None labels every effect. Axis ranges default to :func:`auto_range_symmetric`
    over the values and interval ends; a caller-given range must contain them all.
    """
    _check_common(title, figure_id, x_label, y_label, desc)
    if not isinstance(effects, (list, tuple)) or not effects:
        raise NclueError("delta_plane_svg needs a non-empty list of PairedEffect")
    rows = []
    ses: List[Tuple[Optional[float], Optional[float]]] = []
    for i, e in enumerate(effects):
        if not isinstance(e, PairedEffect):
            raise NclueError(f"effect {i}: expected PairedEffect, got {type(e).__name__}")
        name = _check_text(e.label, f"effect {i} label")
        rows.append((name, _check_text(e.block, f"effect {name!r} block"),
                     _check_number(e.x, f"effect {name!r} x (Delta Gold Hit)"),
                     _check_number(e.y, f"effect {name!r} y (Delta n-Clue Score)"),
                     _check_interval(e.x_interval, f"effect {name!r} x_interval"),
                     _check_interval(e.y_interval, f"effect {name!r} y_interval")))
        for what, se, iv in (("x_se", e.x_se, e.x_interval), ("y_se", e.y_se, e.y_interval)):
            if se is not None and (iv is None or _check_number(se, f"effect {name!r} {what}") < 0):
                raise NclueError(f"effect {name!r} {what}: a Monte Carlo SE needs its interval "
                                 "and must be >= 0")
        ses.append((e.x_se, e.y_se))
    xs = [v for r in rows for v in ((r[2],) + (r[4] or ()))]
    ys = [v for r in rows for v in ((r[3],) + (r[5] or ()))]
    xr = _check_range(x_range, "x_range") or auto_range_symmetric(xs)
    yr = _check_range(y_range, "y_range") or auto_range_symmetric(ys)
    axes = _Axes(xr, yr)
    for name, _, dx, dy, xi, yi in rows:
        corners = [(dx, dy)] + [(v, dy) for v in (xi or ())] + [(dx, v) for v in (yi or ())]
        if not all(axes.contains(a, b) for a, b in corners):
            raise NclueError(f"effect {name!r} (with its intervals) lies outside the axis ranges "
                             f"{xr!r} x {yr!r}")
    styles = _styles([r[1] for r in rows], block_order, "block")
    show = _labelled([r[0] for r in rows], labelled)

    def interval_text(iv: Optional[Tuple[float, float]], se: Optional[float] = None) -> str:
        if iv is None:
            return ""
        return f" [{fmt(iv[0])}, {fmt(iv[1])}]" + ("" if se is None else f" (MC SE {fmt(se)})")

    summary = (f"Delta plane of {len(rows)} paired effects in {len(styles)} blocks; x: {x_label}, "
               f"y: {y_label}; solid lines: zero; "
               + ("dashed line: equal change on both axes; " if diagonal else "")
               + "whiskers: 95% intervals"
               + ("; MC SE: the larger Monte Carlo SE of an interval's two bounds"
                  if any(se is not None for pair in ses for se in pair) else "")
               + ". Effects: "
               + "; ".join(f"{name} ({blk}): \u0394 Gold Hit {fmt(dx)}{interval_text(xi, xse)}, "
                           f"\u0394 n-Clue Score {fmt(dy)}{interval_text(yi, yse)}"
                           for (name, blk, dx, dy, xi, yi), (xse, yse) in zip(rows, ses)) + ".")
    out: List[str] = []
    _open_svg(figure_id, title, summary if desc is None else desc + " " + summary, out,
              _canvas_height(styles))
    _frame_and_grid(axes, out)
    zero = []
    lines: List[Box] = []   # the zero axes: no label may sit on them
    diagonal_line: List[Box] = []
    if axes.x0 <= 0.0 <= axes.x1:
        x = axes.px(0.0)
        zero.append(f'<line x1="{fmt(x)}" y1="{fmt(PLOT_TOP)}" x2="{fmt(x)}" y2="{fmt(PLOT_BOTTOM)}"/>')
        lines.append((x - 0.6, PLOT_TOP, x + 0.6, PLOT_BOTTOM))
    if axes.y0 <= 0.0 <= axes.y1:
        y = axes.py(0.0)
        zero.append(f'<line x1="{fmt(PLOT_LEFT)}" y1="{fmt(y)}" x2="{fmt(PLOT_RIGHT)}" y2="{fmt(y)}"/>')
        lines.append((PLOT_LEFT, y - 0.6, PLOT_RIGHT, y + 0.6))
    if zero:
        out.append('<g class="zero-axes" stroke="#444444" stroke-width="1.2">')
        out.extend(zero)
        out.append("</g>")
    if diagonal:
        diagonal_label, diagonal_line = _diagonal(axes, "\u0394y = \u0394x", out)
        lines += diagonal_label
    out.append(f'<rect class="frame" x="{fmt(PLOT_LEFT)}" y="{fmt(PLOT_TOP)}" width="{fmt(PLOT_WIDTH)}" '
               f'height="{fmt(PLOT_HEIGHT)}" fill="none" stroke="#333333" stroke-width="1"/>')
    _axis_labels(x_label, y_label, out)
    out.append('<g class="effects">')
    whiskers: List[Box] = []
    for name, blk, dx, dy, xi, yi in rows:
        shape, colour = styles[blk]
        cx, cy = axes.px(dx), axes.py(dy)
        parts = [f'<g class="effect"><title>{esc(name)} ({esc(blk)}): \u0394 Gold Hit {fmt(dx)}'
                 f'{interval_text(xi)}, \u0394 n-Clue Score {fmt(dy)}{interval_text(yi)}</title>']
        whisk = f'stroke="{colour}" stroke-width="1.4"'
        if xi is not None:
            a, b = axes.px(xi[0]), axes.px(xi[1])
            whiskers += [(a, cy - WHISKER_HALF, b, cy + WHISKER_HALF),
                         (a - WHISKER_HALF, cy - 4.0, a + WHISKER_HALF, cy + 4.0),
                         (b - WHISKER_HALF, cy - 4.0, b + WHISKER_HALF, cy + 4.0)]
            parts.append(f'<path class="x-interval" d="M{fmt(a)} {fmt(cy)}H{fmt(b)}'
                         f'M{fmt(a)} {fmt(cy - 4)}V{fmt(cy + 4)}M{fmt(b)} {fmt(cy - 4)}V{fmt(cy + 4)}" '
                         f'fill="none" {whisk}/>')
        if yi is not None:
            a, b = axes.py(yi[0]), axes.py(yi[1])
            whiskers += [(cx - WHISKER_HALF, b, cx + WHISKER_HALF, a),
                         (cx - 4.0, a - WHISKER_HALF, cx + 4.0, a + WHISKER_HALF),
                         (cx - 4.0, b - WHISKER_HALF, cx + 4.0, b + WHISKER_HALF)]
            parts.append(f'<path class="y-interval" d="M{fmt(cx)} {fmt(a)}V{fmt(b)}'
                         f'M{fmt(cx - 4)} {fmt(a)}H{fmt(cx + 4)}M{fmt(cx - 4)} {fmt(b)}H{fmt(cx + 4)}" '
                         f'fill="none" {whisk}/>')
        parts.append(marker(shape, colour, cx, cy))
        parts.append("</g>")
        out.append("".join(parts))
    out.append("</g>")
    _point_labels([(name, axes.px(dx), axes.py(dy)) for (name, _, dx, dy, _, _), on in zip(rows, show) if on],
                  [(axes.px(dx), axes.py(dy)) for _, _, dx, dy, _, _ in rows], out,
                  obstacles=diagonal_line, hard_obstacles=lines + whiskers)
    _legend("Block", styles, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"
