"""The audit packet driven in a real browser (Debian's headless Chromium, over the DevTools pipe).

The packet is built from data/example/ into a temporary folder and opened from file:// with a
fresh profile; every interaction is a real DOM event (clicks, inserted text, key presses, a file
input, a download). Checked: Accept needs an evaluator id; a bad quote, a too-short quote, a quote
on an unticked page, an unanswered condition and a negative answer with a page block acceptance;
"Use selection" takes the selected page text; a found quote is marked where it occurs; every
page box shows its whole page; the instructions collapse after the first item; an edit withdraws
an acceptance; Previous/Next stay live (buttons and keys); autosave survives a reload, keyed by
evaluator, with a warning when another evaluator's work is restored and an explicit New evaluator
action; the export downloads and imports cleanly (nclue.label_audit.exports); resume from that
export restores the work; an export of another packet is refused; the page's normalization and
sha256 agree with the Python side. Two tabs of one browser context never overwrite each other's
answers. The adjudication packet shows nine pages per condition.

Where no Chromium exists the test is skipped with a message; under CI=true it fails instead
(.ci/run installs Chromium first).
"""

import json
import shutil
import tempfile
import time
import unittest
from pathlib import Path

from nclue.label_audit.exports import read_export
from nclue.label_audit.packet import build_packet, read_packet_html
from nclue.label_audit.packet_html import render_html
from nclue.label_audit.pagetext import PageText
from nclue.label_audit.spec import read_spec
from nclue.label_audit.textnorm import locate, normalize, text_sha256
from tests import audit_fixtures as fx
from tests import label_audit_setup as setup
from tests.cdp_driver import Browser, find_chromium, need_browser
from tests.slow import slow

CHROMIUM = find_chromium()
ENTER, LEFT, RIGHT = ("Enter", "Enter", 13), ("ArrowLeft", "ArrowLeft", 37), ("ArrowRight", "ArrowRight", 39)
CTRL = 2
LONG_PAGE_LINES = 67  # the longest v1 pages of the issue (40-67 lines)



def _require_browser():
    if CHROMIUM is None:
        raise AssertionError("CI=true but no Chromium found: the packet's browser test must run in CI "
                             "(.ci/run installs it with apt-get install -y chromium)")


def long_packet_html(folder, spec_path):
    """The same spec rendered with every page padded to LONG_PAGE_LINES lines (the page's own text
    first), to check the page boxes on pages as long as v1's."""
    release, rubrics, cids, pages = setup.example_inputs()
    padded = {}
    for docid, doc_pages in pages.items():
        padded[docid] = {}
        for n, page in doc_pages.items():
            lines = page.text.split("\n")
            lines += [f"line {i} of a long page" for i in range(len(lines) + 1, LONG_PAGE_LINES + 1)]
            padded[docid][n] = PageText("\n".join(lines), page.flags)
    packet = build_packet(read_spec(spec_path), padded)
    html = folder / "long.html"
    html.write_text(render_html(packet), encoding="utf-8")
    return packet, html


class BrowserHelpers:
    """DOM helpers shared by the browser tests (``self.browser`` is the driven Browser)."""

    def js(self, expression):
        return self.browser.evaluate(expression)

    def click(self, selector):
        self.assertTrue(self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                                f" if (!e) return false; e.click(); return true; }})()"), selector)

    def type_into(self, selector, text, clear=True):
        if clear:
            self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = '';"
                    " e.dispatchEvent(new Event('input', {bubbles: true})); })()")
        self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        self.browser.type_text(text)

    def enter_evaluator(self, evaluator):
        """Type the id and press Enter (the id is entered, the field locks)."""
        self.js("document.getElementById('evaluator').focus()")
        self.browser.type_text(evaluator)
        self.browser.key(*ENTER)

    def blur(self):
        self.js("document.activeElement && document.activeElement.blur(), document.body.focus()")

    def text_of(self, element_id):
        return self.js(f"document.getElementById({json.dumps(element_id)}).textContent")

    def position(self):
        return self.text_of("position")

    def accepted(self):
        return self.js("Object.values(window.nclueAudit.state().items).filter(i => i.accepted).length")

    def stored(self, evaluator):
        return json.loads(self.js(f"localStorage.getItem(window.nclueAudit.storeKey({json.dumps(evaluator)}))"))

    def qstate(self, k, page):
        return self.js(f"document.querySelector('#quote-{k}-{page}').closest('.page').querySelector('.qstate')"
                       ".textContent")

    def mark(self, k, page):
        return self.js(f"(() => {{ const m = document.querySelector('#text-{k}-{page} mark');"
                       " return m ? m.textContent : null; })()")

    def current_item(self):
        index = self.js("window.nclueAudit.state().current")
        return self.packet.items[index]

    def answer_current(self, key_item):
        """Answer the displayed item as the construction says, through the DOM."""
        self.click("#clear-yes")
        for k, c in enumerate(self.current_item().conditions):
            kc = next(x for x in key_item.conditions if x.index == c.index)
            hits = [p for p in c.pages if p in kc.construction_pages]
            if hits:
                page = hits[0]
                self.click(f"#ans-{k}-yes")
                self.click(f"#tick-{k}-{page}")
                text = self.packet.pages[self.current_item().document][page]
                self.type_into(f"#quote-{k}-{page}", fx.quote_line(text, c.name))
            else:
                self.click(f"#ans-{k}-no")

    def errors(self):
        return self.text_of("errors")

    def load_until(self, condition, url=None, timeout=10.0):
        """Reload (or open ``url``) until ``condition`` holds: localStorage writes of one page reach
        a page loaded right after them with a small delay in Chromium, and a page shows what it
        read when it loaded."""
        deadline = time.monotonic() + timeout
        while True:
            if url:
                self.browser.navigate(url)
            else:
                self.browser.reload()
            if self.js(condition):
                return
            if time.monotonic() > deadline:
                self.fail(f"after loading, still not: {condition}")
            time.sleep(0.2)


@need_browser
@slow
class PacketInBrowser(BrowserHelpers, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        _require_browser()
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-browser-"))
        cls.key, _, cls.packet, cls.html = setup.first_stage(cls.tmp)
        cls.long_packet, cls.long_html = long_packet_html(cls.tmp, cls.tmp / "first" / "spec.json")
        cls.browser = Browser(CHROMIUM, str(cls.tmp / "profile"))
        cls.url = cls.html.as_uri()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def wait_file(self, folder, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done = [p for p in Path(folder).iterdir() if p.suffix == ".json"]
            if done:
                return done[0]
            time.sleep(0.1)
        self.fail("the export did not download")

    # -- the test ---------------------------------------------------------------------------

    def test_packet_workflow(self):
        b = self.browser
        b.navigate(self.url)
        self.assertEqual(self.js("window.nclueAudit.packetSha256"), self.packet.sha256)
        self.assertEqual(self.position(), f"Item 1 of {len(self.packet.items)} ({self.packet.items[0].item})")
        key_items = {it.item: it for it in self.key.items}
        self.assertTrue(self.js("document.getElementById('instructions-box').open"))

        # the page's normalization and sha256 are those of nclue.label_audit.textnorm
        tricky = "  \ufb01ne\u00a0 \u201cquote\u201d \u2014 x\u00adx\n\tend  \U0001d400 "
        self.assertEqual(self.js(f"window.nclueAudit.normalize({json.dumps(tricky)})"), normalize(tricky))
        self.assertEqual(self.js(f"window.nclueAudit.sha256hex({json.dumps(tricky)})"), text_sha256(tricky))
        self.assertEqual(self.js("window.nclueAudit.sha256hex('')"), text_sha256(""))

        first = self.packet.items[0]
        kfirst = key_items[first.item]
        c0, c1 = first.conditions[0], first.conditions[1]
        page = next(p for p in c0.pages if p in kfirst.conditions[c0.index].construction_pages)
        other = next(p for p in c0.pages if p != page)
        text = self.packet.pages[first.document][page]
        line = fx.quote_line(text, c0.name)

        # an untouched item lists every missing answer: the request's clarity and each condition
        self.click("#accept")
        for problem in ("The request: say whether it is clear",
                        f"Condition 1 (\u201c{c0.name}\u201d): no answer yet.",
                        f"Condition 2 (\u201c{c1.name}\u201d): no answer yet."):
            self.assertIn(problem, self.errors())
        self.assertEqual(self.accepted(), 0)

        # a complete, valid item is still refused without an evaluator id
        self.answer_current(kfirst)
        self.assertEqual(self.js("window.nclueAudit.validate(0)"), [])
        self.click("#accept")
        self.assertIn("Enter your evaluator id", self.errors())
        self.assertEqual(self.accepted(), 0)
        self.assertIn("Item 1 of", self.position())
        self.enter_evaluator("FIXTURE-BROWSER")
        self.assertTrue(self.js("document.getElementById('evaluator').readOnly"))
        self.assertFalse(self.js("document.getElementById('new-evaluator').hidden"))
        for n in c1.pages:  # back to a draft: condition 2 answered Yes, without any page or quote
            if self.js(f"document.getElementById('tick-1-{n}').checked"):
                self.click(f"#tick-1-{n}")
            self.type_into(f"#quote-1-{n}", "")
        self.click("#ans-1-yes")

        # "Use selection" takes the text selected inside the page, ticks the page, and the quote is
        # marked where it occurs
        self.type_into(f"#quote-0-{page}", "")
        self.click(f"#tick-0-{page}")  # untick, so that "Use selection" must tick it again
        start, end = locate(text, line)
        self.js(f"""(() => {{ const pre = document.getElementById('text-0-{page}');
            const node = pre.firstChild; const r = document.createRange();
            r.setStart(node, {len(text[:start].encode('utf-16-le')) // 2});
            r.setEnd(node, {len(text[:end].encode('utf-16-le')) // 2});
            const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); return 1; }})()""")
        self.click(f"#use-0-{page}")
        self.assertEqual(self.js(f"document.getElementById('quote-0-{page}').value"), text[start:end])
        self.assertTrue(self.js(f"document.getElementById('tick-0-{page}').checked"))
        self.assertIn("found on page", self.qstate(0, page))
        self.assertEqual(self.mark(0, page), text[start:end])
        # without a selection in that page, "Use selection" changes nothing
        self.js("window.getSelection().removeAllRanges(), 1")
        self.click(f"#use-0-{page}")
        self.assertIn("Select text inside page", self.text_of("message"))
        self.assertEqual(self.js(f"document.getElementById('quote-0-{page}').value"), text[start:end])

        # a bad quote is refused, live and at acceptance, and nothing is marked
        self.type_into(f"#quote-0-{page}", "words that are nowhere on this page")
        self.assertIn("not found", self.qstate(0, page))
        self.assertIsNone(self.mark(0, page))
        self.click("#accept")
        self.assertIn(f"page {page}: quote not found on page {page}", self.errors())
        self.assertEqual(self.accepted(), 0)

        # a quote found on the page but too short is refused
        short = next(line[i:i + 3] for i in range(len(line)) if line[i:i + 3].strip() == line[i:i + 3]
                     and any(ch.isalnum() for ch in line[i:i + 3]))
        self.type_into(f"#quote-0-{page}", short)
        self.assertIn("too short", self.qstate(0, page))
        self.click("#accept")
        self.assertIn(f"page {page}: quote too short", self.errors())
        self.assertEqual(self.accepted(), 0)

        # a good quote (with different spacing) passes; a quote on an unticked page blocks
        self.type_into(f"#quote-0-{page}", "  " + line.replace(" ", "   ") + "\n")
        self.assertIn("found on page", self.qstate(0, page))
        self.assertEqual(self.mark(0, page), text[start:end])
        other_text = self.packet.pages[first.document][other]
        self.type_into(f"#quote-0-{other}", fx.quote_line(other_text, c0.name))
        self.assertIn("found on page", self.qstate(0, other))
        self.click("#accept")
        self.assertIn(f"page {other}: has a quote but is not ticked", self.errors())
        self.assertEqual(self.accepted(), 0)
        self.type_into(f"#quote-0-{other}", "")

        # condition 2 answered Yes without any page blocks acceptance
        self.click("#accept")
        self.assertIn(f"Condition 2 (\u201c{c1.name}\u201d): a Yes needs at least one ticked page", self.errors())
        self.assertNotIn("quote not found", self.errors())
        self.assertEqual(self.accepted(), 0)
        self.assertIn("Item 1 of", self.position())  # acceptance failed: still on item 1

        # Previous/Next stay live on an unaccepted item: button, then keys
        self.click("#next")
        self.assertIn("Item 2 of", self.position())
        self.blur()
        b.key(*LEFT)
        self.assertIn("Item 1 of", self.position())
        b.key(*RIGHT)
        self.assertIn("Item 2 of", self.position())
        self.click("#prev")
        self.assertIn("Item 1 of", self.position())
        self.assertEqual(self.js("document.querySelector('#quote-0-%d').value" % page),
                         "  " + line.replace(" ", "   ") + "\n")  # the draft survived navigation
        self.assertTrue(self.js("document.getElementById('instructions-box').open"))

        # a negative answer with a ticked page is refused
        self.click("#ans-1-no")
        self.click(f"#tick-1-{c1.pages[0]}")
        self.click("#accept")
        self.assertIn("a No has no page and no quote", self.errors())
        self.assertEqual(self.accepted(), 0)
        self.click(f"#tick-1-{c1.pages[0]}")  # untick, then answer condition 2 as the construction says
        hits = [p for p in c1.pages if p in kfirst.conditions[c1.index].construction_pages]
        if hits:
            self.click("#ans-1-yes")
            self.click(f"#tick-1-{hits[0]}")
            self.type_into(f"#quote-1-{hits[0]}", fx.quote_line(self.packet.pages[first.document][hits[0]], c1.name))
        # Ctrl+Enter accepts and moves on; the instructions are collapsed from now on
        b.key(*ENTER, modifiers=CTRL)
        self.assertEqual(self.accepted(), 1)
        self.assertIn("Item 2 of", self.position())
        self.assertFalse(self.js("document.getElementById('instructions-box').open"))

        # an edit withdraws the acceptance (even one that keeps the item valid)
        self.click("#prev")
        self.assertFalse(self.js("document.getElementById('instructions-box').open"))
        self.assertIn("Accepted", self.text_of("item-status"))
        self.type_into(f"#quote-0-{page}", line)
        self.assertEqual(self.js("window.nclueAudit.validate(0)"), [])
        self.assertEqual(self.accepted(), 0)
        self.assertIn("Not accepted yet", self.text_of("item-status"))
        self.assertIn("changed after it was accepted", self.text_of("message"))
        self.assertFalse(self.js(f"window.nclueAudit.state().items[{json.dumps(first.item)}].accepted"))
        self.click("#accept")
        self.assertEqual(self.accepted(), 1)

        # every other item, through the DOM
        for _ in range(len(self.packet.items) - 1):
            self.answer_current(key_items[self.current_item().item])
            self.click("#accept")
        self.assertEqual(self.accepted(), len(self.packet.items))

        # autosave survives a reload, and says whose work it restored
        self.load_until("document.getElementById('evaluator').value === 'FIXTURE-BROWSER'")
        self.assertEqual(self.accepted(), len(self.packet.items))
        self.assertEqual(self.js("document.getElementById('evaluator').value"), "FIXTURE-BROWSER")
        restored = self.text_of("message")
        self.assertIn("Restored the work of evaluator \u201cFIXTURE-BROWSER\u201d", restored)
        self.assertIn("If you are not FIXTURE-BROWSER, press \u201cNew evaluator\u201d", restored)
        self.assertIn("bad", self.js("document.getElementById('message').className"))
        self.assertFalse(self.js("document.getElementById('who').hidden"))

        # a second evaluator in the same browser starts empty; the first one's work stays
        self.click("#new-evaluator")
        self.assertEqual(self.accepted(), 0)
        self.assertEqual(self.js("document.getElementById('evaluator').value"), "")
        self.assertFalse(self.js("document.getElementById('evaluator').readOnly"))
        self.enter_evaluator("FIXTURE-SECOND")
        self.click("#clear-no")
        self.assertEqual(self.stored("FIXTURE-SECOND")["items"][first.item]["clear"], False)
        self.load_until("document.getElementById('evaluator').value === 'FIXTURE-SECOND'")
        self.assertIn("evaluator \u201cFIXTURE-SECOND\u201d", self.text_of("message"))
        self.assertEqual(self.accepted(), 0)
        self.click("#new-evaluator")
        self.enter_evaluator("FIXTURE-BROWSER")
        self.assertEqual(self.accepted(), len(self.packet.items))
        self.assertIn("Restored the work of evaluator \u201cFIXTURE-BROWSER\u201d", self.text_of("message"))

        # export: a real download, which the Python import accepts
        downloads = self.tmp / "downloads"
        downloads.mkdir()
        b.allow_downloads(str(downloads))
        self.click("#export")
        exported = self.wait_file(downloads)
        self.assertEqual(exported.name, f"nclue-audit-{self.packet.packet_id}-FIXTURE-BROWSER.json")
        export = read_export(exported, self.packet)
        self.assertEqual(export.evaluator, "FIXTURE-BROWSER")
        self.assertEqual(len(export.answers), len(self.packet.items))
        self.assertEqual(set(export.request_clear.values()), {True})
        expected = fx.construction_answers(self.key)
        for item_id, conditions in export.answers.items():
            for index, answer in conditions.items():
                self.assertEqual(list(answer.pages), expected[item_id][index], (item_id, index))
        self.assertEqual(export.quotes_checked, sum(1 for c in expected.values() for p in c.values() if p))

        # resume from the export into an empty browser store
        self.js("localStorage.clear(), 1")
        self.load_until("document.getElementById('message').textContent.startsWith('New session')")
        self.assertEqual(self.accepted(), 0)
        self.assertEqual(self.js("document.getElementById('evaluator').value"), "")
        b.set_file_input("#resume", str(exported))
        b.wait_for("document.getElementById('message').textContent.startsWith('Resumed')")
        self.assertEqual(self.accepted(), len(self.packet.items))
        self.assertEqual(self.js("document.getElementById('evaluator').value"), "FIXTURE-BROWSER")

        # an export of another packet is refused and changes nothing
        other_export = json.loads(exported.read_text(encoding="utf-8"))
        other_export["packet_sha256"] = "0" * 64
        alien = self.tmp / "alien.json"
        alien.write_text(json.dumps(other_export), encoding="utf-8")
        b.set_file_input("#resume", str(alien))
        b.wait_for("document.getElementById('message').textContent.includes('another packet')")
        self.assertEqual(self.accepted(), len(self.packet.items))

        problems = [e for e in b.events if e.get("method") == "Runtime.exceptionThrown"]
        self.assertEqual(problems, [])

    def test_whole_pages_on_long_pages(self):
        # every page box shows its whole page (67 lines here): nothing hidden inside the box
        self.browser.navigate(self.long_html.as_uri())
        boxes = self.js("Array.from(document.querySelectorAll('pre.text')).map(p => "
                        "[p.id, p.scrollHeight, p.clientHeight, p.textContent.split('\\n').length])")
        self.assertTrue(boxes)
        for box_id, scroll_height, client_height, lines in boxes:
            self.assertEqual(lines, LONG_PAGE_LINES, box_id)
            self.assertLessEqual(scroll_height, client_height + 1, box_id)


@need_browser
@slow
class TwoTabsOfOnePacket(BrowserHelpers, unittest.TestCase):
    """Two pages of one browser context (one localStorage) on the same packet and evaluator."""

    def test_no_tab_overwrites_the_other(self):
        _require_browser()
        tmp = Path(tempfile.mkdtemp(prefix="nclue-browser-tabs-"))
        try:
            self.key, _, self.packet, html = setup.first_stage(tmp)
            with Browser(CHROMIUM, str(tmp / "profile")) as b:
                self.browser = b
                first_tab = b.session
                b.navigate(html.as_uri())
                self.enter_evaluator("FIXTURE-TABS")
                second_tab = b.new_tab()
                b.switch(second_tab)
                self.load_until("document.getElementById('evaluator').value === 'FIXTURE-TABS'", url=html.as_uri())
                self.assertIn("evaluator \u201cFIXTURE-TABS\u201d", self.text_of("message"))
                item = self.packet.items[0].item
                # tab 1 answers condition 1 No; tab 2 (opened before) then answers condition 2 No
                b.switch(first_tab)
                self.click("#ans-0-no")
                b.switch(second_tab)
                b.wait_for(f"window.nclueAudit.state().items[{json.dumps(item)}].conditions[0].answer === 'no'")
                self.assertIn("Updated from another tab", self.text_of("message"))
                self.click("#ans-1-no")
                saved = self.stored("FIXTURE-TABS")["items"][item]["conditions"]
                self.assertEqual((saved["0"]["answer"], saved["1"]["answer"]), ("no", "no"))
                b.switch(first_tab)
                b.wait_for(f"window.nclueAudit.state().items[{json.dumps(item)}].conditions[1].answer === 'no'")
                # a write this tab has not seen (made without a storage event reaching it) is never
                # overwritten: the edit is refused, the newer work shown
                newer = self.stored("FIXTURE-TABS")
                newer["rev"] += 5
                newer["items"][item]["clear"] = False
                self.js(f"localStorage.setItem(window.nclueAudit.storeKey('FIXTURE-TABS'), {json.dumps(json.dumps(newer))}), 1")
                self.click("#clear-yes")
                self.assertIn("Another tab of this packet saved newer work", self.text_of("message"))
                self.assertEqual(self.stored("FIXTURE-TABS")["items"][item]["clear"], False)
                self.assertEqual(self.js(f"window.nclueAudit.state().items[{json.dumps(item)}].clear"), False)
                self.assertFalse(self.js("document.getElementById('clear-yes').checked"))
                problems = [e for e in b.events if e.get("method") == "Runtime.exceptionThrown"]
                self.assertEqual(problems, [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@need_browser
@slow
class AdjudicationPacketInBrowser(unittest.TestCase):
    def test_expanded_pages(self):
        _require_browser()
        tmp = Path(tempfile.mkdtemp(prefix="nclue-browser-adj-"))
        try:
            first, _, _, _ = setup.first_record(tmp)
            key, _, packet, html = setup.adjudication_stage(tmp, first)
            with Browser(CHROMIUM, str(tmp / "profile")) as b:
                b.navigate(html.as_uri())
                self.assertEqual(b.evaluate("document.getElementById('title').textContent"),
                                 "Expanded-page adjudication poll")
                self.assertEqual(b.evaluate("document.querySelectorAll('.page').length"), 9)
                self.assertIn("not asked in this poll", b.evaluate("document.getElementById('asked').textContent"))
                self.assertEqual(b.evaluate("document.querySelectorAll('.condition').length"), 1)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
