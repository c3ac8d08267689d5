"""Screenshots of the label-audit packet for docs/ (first pass and adjudication), on data/example/.

Builds the example's first-pass packet and, from FIXTURE judgments (tests/audit_fixtures.py, made
up by test code, never shipped), its expanded-page adjudication packet; opens each in headless
Chromium (tests/cdp_driver.py), fills a few answers through the page, and writes reduced-size PNGs:

    python tools/audit_screenshots.py            # -> docs/audit_first_pass.png, docs/audit_adjudication.png

Needs Debian's ``chromium`` (or NCLUE_CHROMIUM). The example's text is this project's own, so the
screenshots show no third-party content.
"""

import base64
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import audit_fixtures as fx  # noqa: E402
from tests import label_audit_setup as setup  # noqa: E402
from tests.cdp_driver import Browser, find_chromium  # noqa: E402

WIDTH = 1280
SCALE = 0.6


def _enter_evaluator(browser: Browser, evaluator: str) -> None:
    browser.evaluate("(() => { const e = document.getElementById('evaluator'); e.focus(); })()")
    browser.type_text(evaluator)
    browser.key("Enter", "Enter", 13)


def _fill_first(browser: Browser, packet, key) -> None:
    """Item 1: the request judged clear, condition 1 answered with a valid quote (marked in its
    page) and a second quote that is not on its page, condition 2 left open, then Accept (which
    lists why the item cannot be accepted)."""
    _enter_evaluator(browser, "reviewer-1")
    browser.evaluate("document.getElementById('clear-yes').click(), 1")
    item = packet.items[0]
    kitem = next(it for it in key.items if it.item == item.item)
    c0 = item.conditions[0]
    page = next(p for p in c0.pages if p in kitem.conditions[c0.index].construction_pages)
    other = next(p for p in c0.pages if p != page)
    browser.evaluate("document.getElementById('ans-0-yes').click(), 1")
    for n, text in ((page, fx.quote_line(packet.pages[item.document][page], c0.name)),
                    (other, "a heading that is not on this page")):
        browser.evaluate(f"document.getElementById('tick-0-{n}').click(), 1")
        browser.evaluate(f"document.getElementById('quote-0-{n}').focus(), 1")
        browser.type_text(text)
    browser.evaluate("document.getElementById('instructions-box').removeAttribute('open'), 1")
    browser.evaluate("document.getElementById('accept').click(), 1")


def _shot(browser: Browser, path: Path, height: int) -> None:
    """The top ``height`` pixels of the page, the viewport made that tall (so the fixed
    Previous / Accept / Next bar sits at the bottom of the picture), scaled by SCALE."""
    browser.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=height, deviceScaleFactor=1,
                 mobile=False)
    browser.evaluate("window.scrollTo(0, 0), 1")
    data = browser.call("Page.captureScreenshot", format="png",
                        clip={"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": SCALE})["data"]
    path.write_bytes(base64.b64decode(data))
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")


def main() -> int:
    chromium = find_chromium()
    if chromium is None:
        print("no chromium found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="nclue-shots-"))
    try:
        first, key, packet, html = setup.first_record(tmp)
        with Browser(chromium, str(tmp / "p1"), width=WIDTH, height=900) as browser:
            browser.navigate(html.as_uri())
            _fill_first(browser, packet, key)
            _shot(browser, ROOT / "docs" / "audit_first_pass.png", 1300)
        adj_key, _, adj_packet, adj_html = setup.adjudication_stage(tmp, first)
        with Browser(chromium, str(tmp / "p2"), width=WIDTH, height=900) as browser:
            browser.navigate(adj_html.as_uri())
            browser.evaluate("document.getElementById('instructions-box').removeAttribute('open'), 1")
            _enter_evaluator(browser, "reviewer-3")
            browser.evaluate("document.getElementById('clear-yes').click(), 1")
            _shot(browser, ROOT / "docs" / "audit_adjudication.png", 1500)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
