"""Dev check: render every generated figure in headless Chromium, measure every label's and
marker's box with the browser's own getBBox(), and report overlaps and the estimate error.

Not a test (needs Chromium: ``apt-get install -y chromium``); run as root:
``python3 bench/figure_render_check.py > bench/results/figure_render_check.txt``.
Screenshots for docs/figures/ are taken with the same flags plus
``--screenshot --force-device-scale-factor=0.75``.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nclue.figures import text_width  # noqa: E402

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking"]
SCRIPT = r"""
const svg = document.querySelector('svg');
const labels = [...svg.querySelectorAll('text.point-label, text.diagonal-label')];
const marks = [...svg.querySelectorAll('g.point > :not(title), g.effect > circle, g.effect > rect, g.effect > polygon, g.effect > path:not(.x-interval):not(.y-interval)')];
const box = e => { const b = e.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
const ov = (a, b) => Math.min(a[2], b[2]) > Math.max(a[0], b[0]) && Math.min(a[3], b[3]) > Math.max(a[1], b[1]);
const L = labels.map(box), M = marks.map(box), out = [];
for (let i = 0; i < L.length; i++) {
  for (let j = i + 1; j < L.length; j++) if (ov(L[i], L[j])) out.push('OVERLAP label/label: ' + labels[i].textContent + ' | ' + labels[j].textContent);
  for (let j = 0; j < M.length; j++) if (ov(L[i], M[j])) out.push('OVERLAP label/marker: ' + labels[i].textContent);
}
const widths = labels.map((e, i) => e.textContent + '\t' + (L[i][2] - L[i][0]).toFixed(1));
document.getElementById('out').textContent = ['labels ' + L.length + ', markers ' + M.length, ...out, ...widths].join('\n');
"""


def main():
    worst = float("-inf")
    for path in sorted(glob.glob(os.path.join(ROOT, "reference_metrics", "*", "figures", "*.svg"))):
        svg = open(path, encoding="utf-8").read()
        with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False, encoding="utf-8") as page:
            page.write(f'<!doctype html><html><body>{svg}<pre id="out"></pre><script>{SCRIPT}</script></body></html>')
        dom = subprocess.run(CHROMIUM + ["--dump-dom", "file://" + page.name], capture_output=True,
                             text=True, timeout=120).stdout
        os.unlink(page.name)
        report = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S).group(1)
        lines = report.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&").split("\n")
        print(f"== {os.path.relpath(path, ROOT)}: {lines[0]}")
        overlaps = [l for l in lines[1:] if l.startswith("OVERLAP")]
        print("\n".join(overlaps) if overlaps else "no overlaps in the rendered figure")
        for line in lines[1:]:
            if "\t" in line:
                text, rendered = line.rsplit("\t", 1)
                size = 11.0
                worst = max(worst, float(rendered) - text_width(text, size))
    print(f"largest (rendered - estimated) label width: {worst:+.1f} px (negative: the estimate is wider)")
    print(subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
