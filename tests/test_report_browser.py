"""The committed release reports (reference_metrics/<release>/REPORT.html) in headless Chromium.

Issue 26, checked on the pages as a reader opens them, at a 1,400 px wide window:

- the formulas of the contrast and paired-test notes render verbatim: the page text holds
  ``p = (1 + #{|T*| >= |T|})`` (both asterisks) and ``max-|T*|``, and no ``<em>`` exists;
- no table needs sideways scrolling (v1's Table 5 analogue, 20 columns, included);
- no figure label's rendered box (``getBBox()``) covers a marker or is crossed by a whisker
  (caps included), with the geometry of markers and whiskers read from the SVG text
  (tests/test_figure_layout.py's readers);
- a screenshot of each page's Table 5 and figures is taken (a PNG of the window's width).

Where no Chromium exists the test is skipped with a message; under CI=true it fails instead
(.ci/run installs Chromium).
"""

import json
import os
import struct
import tempfile
import unittest
from pathlib import Path

from tests.cdp_driver import Browser, find_chromium, need_browser
from tests.slow import slow
from tests.test_figure_layout import overlap, read_figure, read_whiskers, segment_box

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = find_chromium()
WIDTH = 1400
FORMULAS = {"example": ("p = (1 + #{|T*| >= |T|})",),
            "v1": ("p = (1 + #{|T*| >= |T|})", "max-|T*|"),
            "v2": ("p = (1 + #{|T*| >= |T|})",)}

MEASURE = r"""JSON.stringify({
  width: window.innerWidth,
  em: document.querySelectorAll('em').length,
  text: document.body.textContent,
  overflowing: [...document.querySelectorAll('.table-wrap')]
      .filter(w => w.scrollWidth > w.clientWidth + 1)
      .map(w => [w.previousElementSibling.textContent, w.clientWidth, w.scrollWidth]),
  figures: [...document.querySelectorAll('figure')].map(f => ({
      id: f.id,
      labels: [...f.querySelectorAll('text.point-label')].map(t => {
          const b = t.getBBox(); return [t.textContent, b.x, b.y, b.x + b.width, b.y + b.height]; })}))
})"""


def png_size(path):
    with open(path, "rb") as handle:
        head = handle.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])



@slow
@need_browser
class ReportInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if CHROMIUM is None:
            raise AssertionError("CI=true but no Chromium found (.ci/run installs it)")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.pages = {}
        browser = Browser(CHROMIUM, os.path.join(cls.tmp.name, "profile"), width=WIDTH, height=900)
        try:
            for release in sorted(FORMULAS):
                page = ROOT / "reference_metrics" / release / "REPORT.html"
                browser.open_page(page.resolve().as_uri())
                measured = json.loads(browser.evaluate(MEASURE))
                shots = []
                for selector in ("figure", ".table-wrap"):
                    count = browser.evaluate(f"document.querySelectorAll('{selector}').length")
                    for i in range(min(count, 2)):
                        browser.evaluate(f"document.querySelectorAll('{selector}')[{i}]"
                                         ".scrollIntoView({block: 'start'}), 1")
                        shot = os.path.join(cls.tmp.name, f"{release}-{selector.strip('.')}-{i}.png")
                        browser.screenshot(shot)
                        shots.append(shot)
                cls.pages[release] = (page, measured, shots)
        finally:
            browser.close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_formulas_render_verbatim(self):
        for release, formulas in FORMULAS.items():
            _, measured, _ = self.pages[release]
            with self.subTest(release):
                for formula in formulas:
                    self.assertTrue(formula in measured["text"], f"{release}: {formula!r} not shown")
                self.assertEqual(measured["em"], 0)

    def test_every_table_fits_1400_px(self):
        for release, (_, measured, _) in self.pages.items():
            with self.subTest(release):
                self.assertEqual(measured["width"], WIDTH)
                self.assertEqual(measured["overflowing"], [])
        self.assertTrue("Table 5 analogue: controlled contrasts" in self.pages["v1"][1]["text"])

    def test_rendered_labels_clear_markers_and_whiskers(self):
        checked = 0
        for release, (page, measured, _) in self.pages.items():
            for figure in measured["figures"]:
                svg = (page.parent / "figures" / f"{figure['id'][len('figure-'):]}.svg").read_text(
                    encoding="utf-8")
                markers, _, _, _ = read_figure(svg)
                whiskers = read_whiskers(svg)
                for text, *box in figure["labels"]:
                    checked += 1
                    where = f"{release} {figure['id']}: label {text!r}"
                    for name, (mbox, _) in markers.items():
                        self.assertFalse(overlap(box, mbox), f"{where} covers the marker of {name!r}")
                    for segment in whiskers:
                        self.assertFalse(overlap(box, segment_box(*segment, 0.7)),
                                         f"{where} is crossed by a whisker")
        self.assertGreater(checked, 20)

    def test_screenshots(self):
        for release, (_, _, shots) in self.pages.items():
            with self.subTest(release):
                self.assertTrue(shots)
                for shot in shots:
                    self.assertEqual(png_size(shot)[0], WIDTH)


if __name__ == "__main__":
    unittest.main()
