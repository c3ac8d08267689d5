"""Figure label layout, read back from the SVG text: no two labels overlap, no label covers a
marker (of any point), is crossed by a whisker (caps included), crosses a zero axis of the delta plane or leaves the plot, a label away from its point has a leader line
reaching from the point to the label, and a label without a visible leader is nearer its own
marker than any other (issue 26: v1 Figure 2(a)'s bm25_and.clean beside a fusion marker, v2
Figure 2(b)'s whiskers across labels).

Boxes are rebuilt from the SVG alone: a marker's box from its own geometry (circle, rect, polygon,
plus-path), a label's from its x, y, text-anchor, font-size and text, with the font's advance widths
(nclue.figures.text_width: DejaVu Sans metrics; the rendered widths in headless Chromium were checked
against them, docs/figures/README.md). Checked on the figures the releases regenerate and on seeded
crowded synthetic figures.
"""

import math
import random
import re
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

from nclue.figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg, text_width
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"
PLOT = (70.0, 50.0, 570.0, 450.0)   # the fixed plot box of nclue/figures.py


def overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0


def distance(box, x, y):
    return math.hypot(max(box[0] - x, 0.0, x - box[2]), max(box[1] - y, 0.0, y - box[3]))


def text_box(el):
    x, y = float(el.get("x")), float(el.get("y"))
    size = float(el.get("font-size", "11"))
    width = text_width(el.text or "", size)
    x0 = {"start": x, "end": x - width, "middle": x - width / 2}[el.get("text-anchor", "start")]
    return (x0, y - 9.0 * size / 11, x0 + width, y + 3.0 * size / 11)


def marker_geometry(el):
    """(box, centre) of one marker element."""
    tag = el.tag[len(NS):]
    if tag == "circle":
        cx, cy, r = (float(el.get(k)) for k in ("cx", "cy", "r"))
        return (cx - r, cy - r, cx + r, cy + r), (cx, cy)
    if tag == "rect":
        x, y, w, h = (float(el.get(k)) for k in ("x", "y", "width", "height"))
        return (x, y, x + w, y + h), (x + w / 2, y + h / 2)
    if tag == "polygon":
        pts = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        box = (min(xs), min(ys), max(xs), max(ys))
    else:  # the plus: M x0 y H x1 M x y0 V y1
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", el.get("d"))]
        box = (nums[0], nums[4], nums[2], nums[5])
    return box, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def path_segments(d):
    """Axis-parallel segments (x1, y1, x2, y2) of a path made of M, H and V commands only."""
    segments, x, y = [], 0.0, 0.0
    for command, a, b in re.findall(r"([MHV])\s*(-?\d+(?:\.\d+)?)(?:[ ,](-?\d+(?:\.\d+)?))?", d):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "H":
            segments.append((x, y, float(a), y))
            x = float(a)
        else:
            segments.append((x, y, x, float(a)))
            y = float(a)
    return segments


def segment_box(x1, y1, x2, y2, half):
    return (min(x1, x2) - half, min(y1, y2) - half, max(x1, x2) + half, max(y1, y2) + half)


def read_whiskers(svg):
    root = ET.fromstring(svg)
    return [segment for el in root.iter(NS + "path") if el.get("class") in ("x-interval", "y-interval")
            for segment in path_segments(el.get("d"))]


def read_figure(svg):
    root = ET.fromstring(svg)
    markers = {}   # point title -> (box, centre)
    for group in root.iter(NS + "g"):
        if group.get("class") not in ("point", "effect"):
            continue
        title = group.find(NS + "title").text   # "<label> (<family or block>): ..."
        shapes = [el for el in group if el.tag != NS + "title" and el.get("class") not in ("x-interval", "y-interval")]
        markers[title] = marker_geometry(shapes[-1])
    labels = [el for el in root.iter(NS + "text") if el.get("class") in ("point-label", "diagonal-label")]
    leaders = [tuple(float(el.get(k)) for k in ("x1", "y1", "x2", "y2"))
               for el in root.iter(NS + "line") if el.get("class") == "leader"]
    zero = []
    for group in root.iter(NS + "g"):
        if group.get("class") == "zero-axes":
            zero += [tuple(float(el.get(k)) for k in ("x1", "y1", "x2", "y2")) for el in group]
    return markers, labels, leaders, zero


class LayoutChecks:
    def check(self, svg, where):
        markers, labels, leaders, zero = read_figure(svg)
        whiskers = read_whiskers(svg)
        boxes = [(el.text, text_box(el), el.get("class")) for el in labels]
        for i, (a, box_a, _) in enumerate(boxes):
            for b, box_b, _ in boxes[i + 1:]:
                self.assertFalse(overlap(box_a, box_b), f"{where}: labels {a!r} and {b!r} overlap")
        for text, box, kind in boxes:
            if kind != "point-label":
                continue
            self.assertTrue(PLOT[0] <= box[0] and box[2] <= PLOT[2] and PLOT[1] <= box[1]
                            and box[3] <= PLOT[3], f"{where}: label {text!r} leaves the plot")
            for name, (mbox, _) in markers.items():
                self.assertFalse(overlap(box, mbox), f"{where}: label {text!r} covers the marker of {name!r}")
            for x1, y1, x2, y2 in zero:
                line = (min(x1, x2) - 0.5, min(y1, y2) - 0.5, max(x1, x2) + 0.5, max(y1, y2) + 0.5)
                self.assertFalse(overlap(box, line), f"{where}: label {text!r} lies on a zero axis")
            for x1, y1, x2, y2 in whiskers:   # a whisker's 1.4 px stroke, caps included
                self.assertFalse(overlap(box, segment_box(x1, y1, x2, y2, 0.7)),
                                 f"{where}: a whisker crosses label {text!r}")
            own = [geometry for title, geometry in markers.items() if title.startswith(text + " (")]
            self.assertEqual(len(own), 1, f"{where}: label {text!r} names no single point")
            _, (cx, cy) = own[0]
            mine = distance(box, cx, cy)
            leader = [(x1, y1, x2, y2) for x1, y1, x2, y2 in leaders
                      if math.hypot(x1 - cx, y1 - cy) <= 8.0 and distance(box, x2, y2) <= 2.0]
            if mine > 12.0:
                self.assertTrue(leader, f"{where}: label {text!r} is away from its point "
                                        "without a leader line")
            # a label reads as its own point's: no other marker as near (4 px to spare), unless
            # a leader that one can see (>= 8 px) joins label and point
            visible = max((math.hypot(x2 - x1, y2 - y1) for x1, y1, x2, y2 in leader), default=0.0)
            if visible < 8.0:
                for name, (_, (mx, my)) in markers.items():
                    if (mx, my) != (cx, cy):
                        self.assertGreaterEqual(
                            distance(box, mx, my), mine + 4.0,
                            f"{where}: label {text!r} is as near the marker of {name!r} as its own")
        return len(boxes)


class GeneratedFigures(unittest.TestCase, LayoutChecks):
    def test_release_figures(self):
        files = sorted((ROOT / "reference_metrics").glob("*/figures/*.svg"))
        self.assertTrue(files, "no generated figure found")
        for path in files:
            text = path.read_text(encoding="utf-8")
            if 'class="point-labels"' not in text:
                continue  # a bar chart (Multi3IR Figure 4): no point labels to place
            labels = self.check(text, str(path.relative_to(ROOT)))
            self.assertGreater(labels, 1, path)


@slow
class CrowdedSynthetic(unittest.TestCase, LayoutChecks):
    """Seeded crowded figures: clusters near the origin and near the diagonal, long labels."""

    def test_crowded_delta_planes(self):
        rng = random.Random(7)
        for case in range(6):
            effects = []
            for i in range(10):
                x, y = rng.gauss(0, 2.5), rng.gauss(0, 2.5)
                if i % 3 == 0:
                    x, y = rng.uniform(-25, 25), rng.uniform(-25, 25)
                effects.append(PairedEffect(f"contrast {i}: variant {rng.randint(1, 99)} \u2192 base",
                                            f"block {i % 4}", x, y, (x - 3, x + 3), (y - 2, y + 2)))
            self.check(delta_plane_svg(effects, x_range=(-30, 30), y_range=(-30, 30)), f"delta case {case}")

    def test_long_label_between_zero_axis_and_edge(self):
        # A 31-character label (about 188 px) of a point at x = 24.89 on (-40, 40): px 475.6, so
        # 250 px lie between the zero axis (px 320) and the right edge (570). Centred right above
        # the point the box would end 1.5 px outside the plot (its clearance included); it must be
        # placed centred a little left of the point instead, not across the zero axis.
        effect = PairedEffect("page top-3 \u2192 RRF with BM25-AND", "fusion", 24.89, 30.22,
                              (18.78, 30.95), (23.85, 37.12))
        others = [PairedEffect("BM25-AND \u2192 SDR", "lexical", -3.56, -12.44),
                  PairedEffect("best page \u2192 top-3 pages", "pages", 6.67, -2.67)]
        self.check(delta_plane_svg([effect] + others, x_range=(-40, 40), y_range=(-40, 40)), "long label")

    def test_label_beside_another_marker(self):
        # v1 Figure 2(a) before issue 26: bm25_and.clean (79.1, 32.4) labelled up-left, its text
        # ending beside the fusion marker at (83.1, 33.6); a layout must leave no such doubt
        points = [LandscapePoint("bm25_and.clean", "lexical", 79.1, 32.4),
                  LandscapePoint("rrf_a.clean", "fusion", 83.1, 33.6),
                  LandscapePoint("rrf_b.clean", "fusion", 74.5, 32.0),
                  LandscapePoint("bm25_or.clean", "lexical", 79.5, 32.7),
                  LandscapePoint("bm25_sdr.clean", "lexical", 80.2, 32.1)]
        self.check(landscape_svg(points, labelled=["bm25_and.clean"], x_range=(0, 90),
                                 y_range=(0, 40)), "beside a fusion marker")

    def test_whiskers_never_cross_labels(self):
        # v2 Figure 2(b) before issue 26: long vertical and horizontal intervals of neighbours
        # ran through labels; whiskers are hard obstacles now
        effects = [PairedEffect("SPLADE top-3 \u2192 RRF with BM25-AND", "a", 47.0, 28.0,
                                (41.0, 53.0), (21.0, 35.0)),
                   PairedEffect("page top-3 \u2192 RRF with BM25-AND", "b", 25.0, 30.0,
                                (19.0, 31.0), (24.0, 37.0)),
                   PairedEffect("MiniLM joint \u2192 condition hmean", "c", 1.0, -1.0,
                                (-2.0, 4.0), (-6.0, 3.0)),
                   PairedEffect("BM25-OR \u2192 condition hmean", "d", 2.5, 5.0, (-1.0, 6.0),
                                (1.0, 9.0))]
        self.check(delta_plane_svg(effects, x_range=(-80, 80), y_range=(-50, 50)), "whiskers")

    def test_crowded_landscapes(self):
        rng = random.Random(8)
        for case in range(6):
            points = [LandscapePoint(f"run_{i}.clean", f"family {i % 5}", rng.uniform(10, 25),
                                     rng.uniform(2, 8)) for i in range(40)]
            points += [LandscapePoint(f"fusion_{i}+long_run_name.clean", "fusion", rng.uniform(70, 85),
                                      rng.uniform(25, 35)) for i in range(12)]
            labelled = [p.label for p in points[::5]]
            self.check(landscape_svg(points, labelled=labelled, x_range=(0, 100), y_range=(0, 40)),
                       f"landscape case {case}")


if __name__ == "__main__":
    unittest.main()
