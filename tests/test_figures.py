"""Figure 2 analogues (nclue.figures): geometry worked out by hand, determinism, XML, escaping, refusals.

Geometry used by every hand computation below (fixed canvas, nclue/figures.py): the plot box spans
x pixels 70..570 (width 500) and y pixels 50..450 (height 400, y grows downwards), so a value v on
an axis range (lo, hi) lands at   px = 70 + (v - lo) / (hi - lo) * 500
                                  py = 450 - (v - lo) / (hi - lo) * 400.
"""

import math
import unittest
import xml.etree.ElementTree as ET

from nclue.errors import NclueError
from nclue.figures import (LandscapePoint, PairedEffect, auto_range_from_zero, auto_range_symmetric,
                           delta_plane_svg, fmt, landscape_svg, ticks)

NS = "{http://www.w3.org/2000/svg}"


def points():
    return [
        LandscapePoint("BM25-AND", "lexical", 57.2, 26.8),
        LandscapePoint("MiniLM joint", "dense", 50.0, 25.0),
        LandscapePoint("RRF lexical+dense", "fusion", 40.0, 10.0),
    ]


def effects():
    return [
        PairedEffect("Fusion", "fusion", 10.0, -5.0, (4.0, 16.0), (-8.0, -2.0)),
        PairedEffect("Decomposition", "composition", -10.0, 5.0),
    ]


def texts(root, cls):
    return [el for el in root.iter(NS + "text") if el.get("class") == cls]


class Helpers(unittest.TestCase):
    def test_fmt_fixed_decimals_and_no_negative_zero(self):
        self.assertEqual(fmt(1.0), "1.00")
        self.assertEqual(fmt(2.0 / 3.0), "0.67")
        self.assertEqual(fmt(-0.001), "0.00")   # would print "-0.00"
        self.assertEqual(fmt(-0.0, 0), "0")
        self.assertEqual(fmt(-5.0, 0), "-5")

    def test_auto_range_from_zero(self):
        # max 57.2 rounds up to the next multiple of 10 = 60; the minimum is 0.
        self.assertEqual(auto_range_from_zero([57.2, 10.0]), (0.0, 60.0))
        # all zero -> at least (0, 10); exactly 30 stays 30.
        self.assertEqual(auto_range_from_zero([0.0]), (0.0, 10.0))
        self.assertEqual(auto_range_from_zero([30.0]), (0.0, 30.0))

    def test_auto_range_symmetric(self):
        # largest |v| = 6.5: step 1 gives 6.5 > 5 steps, step 2 gives 3.25 <= 5 -> ceil(6.5/2)*2 = 8.
        self.assertEqual(auto_range_symmetric([6.5, -1.0]), (-8.0, 8.0))
        # largest 11.9: 11.9/2 = 5.95 > 5, 11.9/5 = 2.38 <= 5 -> step 5 -> 15.
        self.assertEqual(auto_range_symmetric([5.6, -11.9, 8.7]), (-15.0, 15.0))
        self.assertEqual(auto_range_symmetric([0.0]), (-1.0, 1.0))

    def test_ticks(self):
        # span 60: step 5 gives 12 intervals (> 10), step 10 gives 6 -> 0, 10, ..., 60.
        self.assertEqual(ticks(0.0, 60.0), ([0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0], 0))
        # span 2: step 0.2 gives exactly 10 intervals.
        values, decimals = ticks(-1.0, 1.0)
        self.assertEqual(len(values), 11)
        self.assertEqual(decimals, 1)
        self.assertAlmostEqual(values[0], -1.0)
        self.assertAlmostEqual(values[-1], 1.0)


class Landscape(unittest.TestCase):
    def test_deterministic_bytes(self):
        a = landscape_svg(points(), labelled=["BM25-AND"])
        b = landscape_svg(points(), labelled=["BM25-AND"])
        self.assertEqual(a.encode("utf-8"), b.encode("utf-8"))

    def test_well_formed_and_accessible(self):
        svg = landscape_svg(points(), title="Figure 2(a)", figure_id="fig2a")
        root = ET.fromstring(svg)
        self.assertEqual(root.tag, NS + "svg")
        self.assertEqual(root.get("role"), "img")
        self.assertEqual(root.get("aria-labelledby"), "fig2a-title fig2a-desc")
        self.assertEqual(root.find(NS + "title").text, "Figure 2(a)")
        self.assertEqual(root.find(NS + "title").get("id"), "fig2a-title")
        desc = root.find(NS + "desc").text
        self.assertIn("BM25-AND (lexical): 57.20, 26.80", desc)
        self.assertIn("3 runs in 3 families", desc)

    def test_point_position_by_hand(self):
        # Ranges (0, 100) on both axes; (50, 25): px = 70 + 0.5 * 500 = 320, py = 450 - 0.25 * 400 = 350.
        # Families sorted: dense, fusion, lexical -> dense gets the first shape (circle).
        svg = landscape_svg(points(), x_range=(0, 100), y_range=(0, 100))
        root = ET.fromstring(svg)
        circles = [c for c in root.iter(NS + "circle") if c.get("cx") == "320.00"]
        self.assertEqual(len(circles), 1)
        self.assertEqual(circles[0].get("cy"), "350.00")
        # (40, 10) is 'fusion', the second style: a 9x9 square centred on px 270, py 410
        # -> corner x = 270 - 4.5 = 265.5, y = 410 - 4.5 = 405.5.
        rects = [r for r in root.iter(NS + "rect") if r.get("x") == "265.50"]
        self.assertEqual(len(rects), 1)
        self.assertEqual(rects[0].get("y"), "405.50")

    def test_auto_range_position_by_hand(self):
        # Auto ranges: x (0, 60), y (0, 30). BM25-AND (57.2, 26.8), 'lexical' = third style
        # (triangle up, apex 6 px above the centre):
        # px = 70 + 57.2 / 60 * 500 = 70 + 476.667 = 546.67; py = 450 - 26.8 / 30 * 400 = 92.67;
        # apex (546.67, 86.67).
        svg = landscape_svg(points())
        self.assertIn('points="546.67,86.67 552.17,96.67 541.17,96.67"', svg)
        root = ET.fromstring(svg)
        x_tick_labels = [t.text for t in root.iter(NS + "text") if t.get("y") == "468.00"]
        self.assertEqual(x_tick_labels, ["0", "10", "20", "30", "40", "50", "60"])

    def test_diagonal_clipped_to_plot(self):
        # x (0, 100), y (0, 50): y = x runs from (0, 0) to (50, 50) -> pixels (70, 450) to (320, 50).
        svg = landscape_svg(points(), x_range=(0, 100), y_range=(0, 50))
        line = [el for el in ET.fromstring(svg).iter(NS + "line") if el.get("class") == "diagonal"][0]
        self.assertEqual((line.get("x1"), line.get("y1"), line.get("x2"), line.get("y2")),
                         ("70.00", "450.00", "320.00", "50.00"))

    def test_labels_only_for_named_points_and_escaped(self):
        weird = 'a<&>"b'
        pts = points() + [LandscapePoint(weird, "dense", 5.0, 1.0)]
        svg = landscape_svg(pts, labelled=[weird, "BM25-AND"])
        self.assertIn("a&lt;&amp;&gt;&quot;b", svg)
        self.assertNotIn('a<&>"b', svg)
        labels = sorted(t.text for t in texts(ET.fromstring(svg), "point-label"))
        self.assertEqual(labels, ["BM25-AND", weird])

    def test_styles_do_not_depend_on_point_order(self):
        a = ET.fromstring(landscape_svg(points()))
        b = ET.fromstring(landscape_svg(list(reversed(points()))))
        legend = lambda root: [t.text for t in root.iter(NS + "text") if t.get("x") == "610.00"]
        self.assertEqual(legend(a), ["dense", "fusion", "lexical"])
        self.assertEqual(legend(a), legend(b))

    def test_family_order(self):
        svg = landscape_svg(points(), family_order=["lexical", "dense", "fusion", "unused"])
        root = ET.fromstring(svg)
        legend = [t.text for t in root.iter(NS + "text") if t.get("x") == "610.00"]
        self.assertEqual(legend, ["lexical", "dense", "fusion"])
        with self.assertRaisesRegex(NclueError, "lacks 'fusion'"):
            landscape_svg(points(), family_order=["lexical", "dense"])

    def test_refusals(self):
        with self.assertRaisesRegex(NclueError, "non-empty"):
            landscape_svg([])
        with self.assertRaisesRegex(NclueError, "not finite"):
            landscape_svg([LandscapePoint("a", "f", math.nan, 1.0)])
        with self.assertRaisesRegex(NclueError, "not finite"):
            landscape_svg([LandscapePoint("a", "f", 1.0, math.inf)])
        with self.assertRaisesRegex(NclueError, "must be a number"):
            landscape_svg([LandscapePoint("a", "f", "1", 1.0)])
        with self.assertRaisesRegex(NclueError, "outside the axis ranges"):
            landscape_svg(points(), x_range=(0, 50))
        with self.assertRaisesRegex(NclueError, "low < high"):
            landscape_svg(points(), x_range=(10, 10))
        with self.assertRaisesRegex(NclueError, "no point is labelled 'nope'"):
            landscape_svg(points(), labelled=["nope"])
        with self.assertRaisesRegex(NclueError, "control character"):
            landscape_svg([LandscapePoint("a\x00", "f", 1.0, 1.0)])
        with self.assertRaisesRegex(NclueError, "figure_id"):
            landscape_svg(points(), figure_id="bad id")
        with self.assertRaisesRegex(NclueError, "two points share the label 'a'"):
            landscape_svg([LandscapePoint("a", "f", 1.0, 1.0), LandscapePoint("a", "g", 2.0, 2.0)])
        with self.assertRaisesRegex(NclueError, "expected LandscapePoint"):
            landscape_svg([(1.0, 2.0)])


class DeltaPlane(unittest.TestCase):
    def test_deterministic_bytes_and_well_formed(self):
        a = delta_plane_svg(effects())
        self.assertEqual(a.encode("utf-8"), delta_plane_svg(effects()).encode("utf-8"))
        root = ET.fromstring(a)
        self.assertEqual(root.get("aria-labelledby"), "delta-plane-title delta-plane-desc")
        self.assertIn("Fusion (fusion): \u0394 Gold Hit 10.00 [4.00, 16.00], \u0394 n-Clue Score -5.00 [-8.00, -2.00]",
                      root.find(NS + "desc").text)

    def test_positions_and_whiskers_by_hand(self):
        # x (-20, 20), y (-10, 10). Fusion (10, -5): px = 70 + 30/40 * 500 = 445,
        # py = 450 - 5/20 * 400 = 350. 'fusion' sorts after 'composition': second style (square).
        # x whisker 4..16: px 70 + 24/40*500 = 370 .. 70 + 36/40*500 = 520, caps 4 px up and down.
        # y whisker -8..-2: py 450 - 2/20*400 = 410 .. 450 - 8/20*400 = 290.
        svg = delta_plane_svg(effects(), x_range=(-20, 20), y_range=(-10, 10))
        root = ET.fromstring(svg)
        paths = {p.get("class"): p.get("d") for p in root.iter(NS + "path") if p.get("class")}
        self.assertEqual(paths["x-interval"], "M370.00 350.00H520.00M370.00 346.00V354.00M520.00 346.00V354.00")
        self.assertEqual(paths["y-interval"], "M445.00 410.00V290.00M441.00 410.00H449.00M441.00 290.00H449.00")
        squares = [r for r in root.iter(NS + "rect") if r.get("width") == "9.00" and r.get("x") == "440.50"]
        self.assertEqual(len(squares), 1)
        self.assertEqual(squares[0].get("y"), "345.50")
        # Decomposition (-10, 5): px = 70 + 10/40*500 = 195, py = 450 - 15/20*400 = 150 (circle).
        self.assertTrue(any(c.get("cx") == "195.00" and c.get("cy") == "150.00" for c in root.iter(NS + "circle")))
        # Zero axes: px(0) = 320, py(0) = 250.
        zero = [g for g in root.iter(NS + "g") if g.get("class") == "zero-axes"][0]
        coords = sorted((l.get("x1"), l.get("y1"), l.get("x2"), l.get("y2")) for l in zero)
        self.assertEqual(coords, [("320.00", "50.00", "320.00", "450.00"), ("70.00", "250.00", "570.00", "250.00")])
        # dy = dx clipped to t in [max(-20,-10), min(20,10)] = [-10, 10]: (195, 450) to (445, 50).
        diag = [l for l in root.iter(NS + "line") if l.get("class") == "diagonal"][0]
        self.assertEqual((diag.get("x1"), diag.get("y1"), diag.get("x2"), diag.get("y2")),
                         ("195.00", "450.00", "445.00", "50.00"))

    def test_label_placement_by_hand(self):
        # Ranges (-10, 10) on both axes: (0, 0) -> px 320, py 250; 25 px per unit across, 20 up,
        # so the dashed line dy = dx runs through x = 320 + 1.25 (250 - y). Label boxes: about 8 px
        # for one letter, 9 px above and 3 px below the baseline. The first choice, right-above,
        # anchor (320 + 8, 250 - 7) = (328, 243), box y 234..246, x 328..336, is crossed by the
        # dashed line (x 325..340 there), a soft obstacle. A takes the second, right-below
        # (328, 265), box y 256..268 (the line is at x 305..312 there); B, at the same point:
        # right-above crossed, right-below taken by A, left-above (320 - 8, 243) anchored at its
        # end, box x 304..312, free (the 12 x 12 markers span x 314..326, y 244..256).
        svg = delta_plane_svg([PairedEffect("A", "b", 0.0, 0.0), PairedEffect("B", "b", 0.0, 0.0)],
                              x_range=(-10, 10), y_range=(-10, 10))
        got = {t.text: (t.get("x"), t.get("y"), t.get("text-anchor"))
               for t in texts(ET.fromstring(svg), "point-label")}
        self.assertEqual(got, {"A": ("328.00", "265.00", "start"), "B": ("312.00", "243.00", "end")})
        # A point on the right edge (px 570): both right-hand boxes would leave the plot, so the
        # label goes left-above, anchored at its end: (570 - 8, 243).
        svg = delta_plane_svg([PairedEffect("Edge", "b", 10.0, 0.0)], x_range=(-10, 10), y_range=(-10, 10))
        label = texts(ET.fromstring(svg), "point-label")[0]
        self.assertEqual((label.get("x"), label.get("y"), label.get("text-anchor")), ("562.00", "243.00", "end"))

    def test_every_effect_labelled_by_default(self):
        root = ET.fromstring(delta_plane_svg(effects()))
        self.assertEqual(sorted(t.text for t in texts(root, "point-label")), ["Decomposition", "Fusion"])
        root = ET.fromstring(delta_plane_svg(effects(), labelled=[]))
        self.assertEqual(texts(root, "point-label"), [])

    def test_auto_range_covers_intervals(self):
        # |values and interval ends| max 16 (x): 16/5 = 3.2 <= 5 -> step 5 -> +-20; y max 8: 8/2 = 4 -> +-8.
        root = ET.fromstring(delta_plane_svg(effects()))
        x_labels = [t.text for t in root.iter(NS + "text") if t.get("y") == "468.00"]
        self.assertEqual(x_labels[0], "-20")
        self.assertEqual(x_labels[-1], "20")

    def test_no_diagonal(self):
        root = ET.fromstring(delta_plane_svg(effects(), diagonal=False))
        self.assertEqual([l for l in root.iter(NS + "line") if l.get("class") == "diagonal"], [])

    def test_escaping(self):
        svg = delta_plane_svg([PairedEffect('x<&>"y', 'b<&>"c', 1.0, 1.0)])
        self.assertNotIn('<&>"', svg)
        root = ET.fromstring(svg)
        self.assertEqual([t.text for t in texts(root, "point-label")], ['x<&>"y'])
        self.assertIn('b<&>"c', [t.text for t in root.iter(NS + "text")])

    def test_refusals(self):
        with self.assertRaisesRegex(NclueError, "non-empty"):
            delta_plane_svg([])
        with self.assertRaisesRegex(NclueError, "not finite"):
            delta_plane_svg([PairedEffect("a", "b", math.inf, 0.0)])
        with self.assertRaisesRegex(NclueError, "not finite"):
            delta_plane_svg([PairedEffect("a", "b", 0.0, 0.0, None, (math.nan, 1.0))])
        with self.assertRaisesRegex(NclueError, "inverted"):
            delta_plane_svg([PairedEffect("a", "b", 0.0, 0.0, (2.0, 1.0))])
        with self.assertRaisesRegex(NclueError, r"\(low, high\) pair"):
            delta_plane_svg([PairedEffect("a", "b", 0.0, 0.0, (1.0,))])
        with self.assertRaisesRegex(NclueError, "outside the axis ranges"):
            delta_plane_svg(effects(), x_range=(-20, 15))   # the interval end 16 falls outside


class ExampleReleaseLandscape(unittest.TestCase):
    """Glue check with the real scorer on data/example. Hand-derived scores
    (tests/test_example_release.py): lexical Score 3/6, Hit 4/6; dense 3/6, 6/6; pages 4/6, 5/6."""

    def test_points_from_the_scorer(self):
        from pathlib import Path
        from nclue.context import ReleaseContext
        ctx = ReleaseContext(Path(__file__).resolve().parent.parent / "data" / "example")
        pts = []
        for run_id in ("example_lexical", "example_dense", "example_pages"):
            scores = ctx.scores(run_id)
            pts.append(LandscapePoint(run_id, ctx.index[run_id].info["family"],
                                      scores["gold_hit@10"], scores["nclue_score@10"]))
        root = ET.fromstring(landscape_svg(pts, labelled=["example_pages"]))
        # Auto ranges: x max 100 -> (0, 100); y max 66.7 -> (0, 70).
        # dense (100, 50), first family -> circle at px 570, py 450 - 50/70*400 = 164.29.
        self.assertEqual([(c.get("cx"), c.get("cy")) for c in root.iter(NS + "circle")
                          if c.get("cx") != "598.00"], [("570.00", "164.29")])
        # lexical (66.67, 50), second family -> square centred at px 70 + 4/6*500 = 403.33, py 164.29.
        self.assertTrue(any(r.get("x") == "398.83" and r.get("y") == "159.79" for r in root.iter(NS + "rect")))
        # pages (83.33, 66.67), family 'visual' third -> triangle apex at px 70 + 5/6*500 = 486.67,
        # py 450 - (200/3)/70*400 - 6 = 69.05 - 6 = 63.05.
        self.assertTrue(any(p.get("points", "").startswith("486.67,63.05 ") for p in root.iter(NS + "polygon")))


if __name__ == "__main__":
    unittest.main()


class FairRuns(unittest.TestCase):
    """Figure 2(a) plots "fair method rows" only: controls and privileged (oracle) runs are out."""

    def test_controls_and_privileged_runs_are_left_out(self):
        import json
        import shutil
        import tempfile
        from pathlib import Path
        from nclue.context import ReleaseContext
        root = Path(__file__).resolve().parent.parent
        tmp = Path(tempfile.mkdtemp())
        try:
            release = tmp / "example"
            shutil.copytree(root / "data" / "example", release)
            index_path = release / "runs" / "index.json"
            index = json.loads(index_path.read_text())
            for entry in index["runs"]:
                if entry["id"] == "example_dense":
                    entry["family"] = "control"     # a control by family
                if entry["id"] == "example_pages":
                    entry["privileged"] = True      # an oracle reading privileged facts
            index_path.write_text(json.dumps(index))
            self.assertEqual(ReleaseContext(release).fair_runs(), ["example_lexical"])
            self.assertEqual(ReleaseContext(root / "data" / "example").fair_runs(),
                             ["example_dense", "example_lexical", "example_pages"])
        finally:
            shutil.rmtree(tmp)
