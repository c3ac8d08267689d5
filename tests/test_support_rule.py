"""Support rule P1 (audit/label_audit/support_rule_P1.md) on hand-made pages.

Every expected decision below is read off the rule's text for a page written here, not taken
from the code's output: the running head of a WEB listing, a passing mention against a second
mention, a heading, a definition entry, an index section, a bibliography page, a bookmark whose
page does not print its heading.
"""

import json
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.instrument.inputs import BuildInput, OutlineItem, Page, SourceDocument
from nclue.instrument.support_rule import (ConditionDef, Establisher, load_rule, running_flags,
                                           margin_skeletons, skeleton)
from tests.slow import slow

ROOT = Path(__file__).resolve().parents[1]
RULE = ROOT / "audit" / "label_audit" / "support_rule_P1.json"


def page(*lines, flags=()):
    return Page("\n".join(lines), frozenset(flags))


def build(docs, outlines=None):
    documents = {d: SourceDocument(d, len(p), "test", "0" * 64, {}) for d, p in docs.items()}
    return BuildInput(documents, {d: tuple(p) for d, p in docs.items()},
                      {d: tuple((outlines or {}).get(d, ())) for d in docs}, {}, {}, 0)


CONDITIONS = {
    "entity:XeTeX": ConditionDef("entity:XeTeX", "entity", "XeTeX", frozenset({"XeTeX", "XETEX"})),
    "entity:OpenType": ConditionDef("entity:OpenType", "entity", "OpenType", frozenset({"OpenType"})),
    "section:names of the sections": ConditionDef("section:names of the sections", "section",
                                                  "names of the sections", frozenset()),
    "section:options": ConditionDef("section:options", "section", "options", frozenset()),
}

# A WEB listing: the running head alternates sides between even and odd pages.
WEB = [
    page("XETEX                       PART 1: INTRODUCTION          3",
         "1. This is XeTeX, a document compiler intended to produce typesetting.",
         "More text about the program follows here."),
    page("4       PART 1: INTRODUCTION                       XETEX",
         "2. The program is written in WEB.",
         "It has many sections."),
    page("XETEX                       NAMES OF THE SECTIONS          5",
         "< Attach subscript OpenType math kerning 806 > Used in sections 801 and 803.",
         "< Attach superscript OpenType math kerning 807 > Used in sections 802 and 803."),
    page("6       NAMES OF THE SECTIONS                     XETEX",
         "< Back up an outer control sequence 367 > Used in section 366.",
         "< Basic printing procedures 57 > Used in section 55."),
]

MANUAL = [
    page("A manual", "", "This package works with XeTeX and others.", "The end of page one."),
    page("3     Options", "", "The options of the package: XeTeX support is automatic.",
         "With XeTeX the fonts are OpenType."),
    page("XeTeX", "", "A heading that names the engine, then body text."),
    page("\\XeTeX  prints the logo.", "Nothing else here."),
    page("Index", "XeTeX, 2, 3", "OpenType, 2"),
    page("References",
         "[1] A. Author. The XeTeX companion.", "[2] B. Author. Another book.",
         "[3] C. Author. A third.", "[Knu84] D. Knuth. The TeXbook.", "[5] E. Author. Fonts."),
    page("Some body text that mentions Options once in a sentence.", "More text."),
]


class RuleFile(unittest.TestCase):
    def test_the_committed_rule_loads(self):
        rule = load_rule(RULE)
        self.assertEqual((rule.id, rule.date, rule.entity_min_occurrences), ("P1", "2026-12-03", 2))

    def test_unknown_and_missing_keys_are_refused(self):
        obj = json.loads(RULE.read_text())
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "rule.json"
            path.write_text(json.dumps(dict(obj, titel="x")))
            with self.assertRaisesRegex(InputError, "unknown key 'titel'"):
                load_rule(path)
            del obj["segment_gap"]
            path.write_text(json.dumps(obj))
            with self.assertRaisesRegex(InputError, "missing key 'segment_gap'"):
                load_rule(path)


class RunningLines(unittest.TestCase):
    def test_skeleton_ignores_digits_and_sides(self):
        self.assertEqual(skeleton("XETEX   NAMES OF THE SECTIONS   241"),
                         skeleton("242   NAMES OF THE SECTIONS   XETEX"))

    def test_running_heads_repeat_within_two_pages(self):
        margins = margin_skeletons(WEB)
        # page 3's head equals page 4's (distance 1): running; its last line is not repeated.
        self.assertEqual(running_flags(margins, 2, 2), (True, False))
        # page 1's head "XETEX PART 1: INTRODUCTION" equals page 2's: running.
        self.assertEqual(running_flags(margins, 0, 2)[0], True)


class Decisions(unittest.TestCase):
    def setUp(self):
        self.rule = load_rule(RULE)
        outlines = {"web": [OutlineItem("Introduction", 1, 0), OutlineItem("Names of the sections", 3, 0)],
                    "man": [OutlineItem("Options", 2, 0), OutlineItem("Index", 5, 0),
                            OutlineItem("References", 6, 0), OutlineItem("Options", 7, 1)]}
        self.est = Establisher(build({"web": WEB, "man": MANUAL}, outlines), CONDITIONS, self.rule)

    def why(self, doc, cid, p):
        return self.est.reason_against(doc, cid, p)

    def test_running_head_establishes_neither_entity_nor_section(self):
        # A004: the phrase and the engine name occur only in the running head of page 3.
        self.assertEqual(self.why("web", "section:names of the sections", 3), "heading not printed in the page body")
        self.assertEqual(self.why("web", "entity:XeTeX", 2), "only in running lines")

    def test_index_like_section_is_apparatus(self):
        # page 3 is inside the outline section "Names of the sections": two OpenType mentions do not count.
        self.assertEqual(self.why("web", "entity:OpenType", 3), "apparatus page (contents, index, bibliography)")

    def test_body_mentions(self):
        self.assertEqual(self.why("web", "entity:XeTeX", 1), "single passing mention")   # one, in a sentence
        self.assertIsNone(self.why("man", "entity:XeTeX", 2))                           # two mentions
        self.assertEqual(self.why("man", "entity:XeTeX", 1), "single passing mention")
        self.assertIsNone(self.why("man", "entity:XeTeX", 3))                           # heading-like line
        self.assertIsNone(self.why("man", "entity:XeTeX", 4))                           # definition entry
        self.assertEqual(self.why("man", "entity:OpenType", 2), "single passing mention")

    def test_index_and_bibliography_pages(self):
        self.assertEqual(self.why("man", "entity:XeTeX", 5), "apparatus page (contents, index, bibliography)")
        self.assertEqual(self.why("man", "entity:XeTeX", 6), "apparatus page (contents, index, bibliography)")

    def test_sections_need_their_printed_heading(self):
        self.assertIsNone(self.why("man", "section:options", 2))                        # "3     Options"
        self.assertEqual(self.why("man", "section:options", 7), "heading not printed in the page body")

    def test_filter_keeps_only_established_pages(self):
        kept, removed = self.est.filter("man", "entity:XeTeX", (1, 2, 3, 4, 5, 6))
        self.assertEqual(kept, (2, 3, 4))
        self.assertEqual(removed, {"single passing mention": 1, "apparatus page (contents, index, bibliography)": 2})


if __name__ == "__main__":
    unittest.main()


@slow
class ShippedLabelVersionP1(unittest.TestCase):
    """The shipped repair P1 of v1 against the rule, on the pages the air-gapped sample ships."""

    def test_no_running_head_support_survives_on_shown_pages(self):
        import gzip
        from nclue.label_audit.sample_pages import offline_inputs
        from nclue.instrument.support_rule import condition_defs
        sample = ROOT / "audit" / "label_audit" / "samples" / "v1-first"
        inputs = offline_inputs(sample / "pages.jsonl.gz", sample / "documents.json")
        shown = {}
        with gzip.open(sample / "pages.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if "text" in row:
                    shown.setdefault(row["docid"], set()).add(row["page"])
        record = json.loads((ROOT / "provenance" / "construction_v1.json").read_text())
        est = Establisher(inputs, condition_defs(record), load_rule(RULE))
        queries = {json.loads(line)["qid"]: json.loads(line)["condition_ids"]
                   for line in (ROOT / "data" / "v1" / "queries.jsonl").read_text().splitlines()}
        checked = 0
        with gzip.open(ROOT / "data" / "v1" / "repairs" / "P1.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if row["after"] is None or row["docid"] not in shown:
                    continue
                for cid, pages in zip(queries[row["qid"]], row["after"]["pages"]):
                    if row["docid"] == "tl:generic.knuth-hint.xetex.xetex-changes" and \
                            cid == "section:names of the sections":
                        self.assertEqual(pages, [])   # audit trial item A004
                    for p in set(pages) & shown[row["docid"]]:
                        self.assertIsNone(est.reason_against(row["docid"], cid, p), (row["qid"], cid, p))
                        checked += 1
        self.assertGreater(checked, 100)


class IndependentVerifierAgrees(unittest.TestCase):
    """nclue/instrument/verify_rule.py (no regular expressions, written apart) decides every page
    of the hand-made documents as the hand-worked expectations above do."""

    def test_every_page_and_condition(self):
        from nclue.instrument.sections import ALIASES
        from nclue.instrument.verify_rule import RuleCheck
        rule = load_rule(RULE)
        raw = json.loads(RULE.read_text())
        outlines = {"web": [OutlineItem("Introduction", 1, 0), OutlineItem("Names of the sections", 3, 0)],
                    "man": [OutlineItem("Options", 2, 0), OutlineItem("Index", 5, 0),
                            OutlineItem("References", 6, 0), OutlineItem("Options", 7, 1)]}
        docs = {"web": WEB, "man": MANUAL}
        est = Establisher(build(docs, outlines), CONDITIONS, rule)
        check = RuleCheck({d: [(p.text, set(p.flags)) for p in pages] for d, pages in docs.items()},
                          {d: [(i.title, i.page) for i in items] for d, items in outlines.items()}, raw)
        compared = 0
        for docid, pages in docs.items():
            for cid, cond in CONDITIONS.items():
                for page in range(1, len(pages) + 1):
                    mine = check.establishes(docid, cond.kind, cond.key, set(cond.variants), page, dict(ALIASES), 6)
                    self.assertEqual(mine, est.reason_against(docid, cid, page) is None, (docid, cid, page))
                    compared += 1
        self.assertEqual(compared, 44)
