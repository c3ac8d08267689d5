"""Tests for the pure text rules of the source producers (producers/textrules.py, issue 4).

Stdlib only; no poppler needed. Expected values are worked out by hand in the comments.
"""

import importlib.util
import sys
import unittest
from pathlib import Path

# producers/ is not part of nclue; load the stdlib-only rules module from its file so this test
# needs neither poppler nor an import of a non-stdlib package name.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_SPEC = importlib.util.spec_from_file_location("producers_textrules",
                                               ROOT / "producers" / "textrules.py")
t = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(t)
_SPEC_POOL = importlib.util.spec_from_file_location("producers_pool", ROOT / "producers" / "pool.py")
pool = importlib.util.module_from_spec(_SPEC_POOL)
_SPEC_POOL.loader.exec_module(pool)


class FormFeedSplit(unittest.TestCase):
    def test_trailing_empty_piece_dropped(self):
        # pdftotext ends every page with \f: "a\fb\f" -> pieces ["a", "b", ""] -> 2 pages.
        self.assertEqual(t.split_form_feeds("a\fb\f"), ["a", "b"])

    def test_empty_page_in_the_middle_kept(self):
        # Page 2 is empty: "a\f\fc\f" -> ["a", "", "c"]; page ids are list index + 1.
        self.assertEqual(t.split_form_feeds("a\f\fc\f"), ["a", "", "c"])

    def test_no_final_form_feed_keeps_last_piece(self):
        self.assertEqual(t.split_form_feeds("a\fb"), ["a", "b"])

    def test_empty_input_has_no_pages(self):
        self.assertEqual(t.split_form_feeds(""), [])
        # A single form feed is one empty page ("" then the dropped trailing piece).
        self.assertEqual(t.split_form_feeds("\f"), [""])


class Language(unittest.TestCase):
    def test_english_prose(self):
        # 10 words, of which "the", "is", "of", "the", "and", "can", "be" are English stopwords
        # (7/10 = 0.7 >= 0.08); no German/French word appears, so the 2x margin holds. Repeated
        # 30 times to pass the 200-word minimum (300 words).
        text = "The package is a collection of the macros and can be " * 30
        self.assertEqual(t.detect_language(text), "en")

    def test_german_prose(self):
        # German function words und/der/ist/nicht/mit/sich/auf make 7/10 of the words.
        text = "Das Paket und der Befehl ist nicht mit sich auf Seite " * 30
        self.assertEqual(t.detect_language(text), "de")

    def test_too_few_words_is_unknown(self):
        self.assertEqual(t.detect_language("the and of to " * 10), "unknown")  # 40 < 200 words

    def test_cjk_share(self):
        # 30 CJK characters and 10 Latin letters: 30/40 = 75% >= 20%.
        self.assertEqual(t.detect_language("日本語" * 10 + "abcdefghij"), "cjk")

    def test_code_without_prose_is_not_english(self):
        # Identifiers only: no stopword at all -> r[en] = 0 < 0.04 -> unknown.
        text = "foo bar baz qux quux corge grault garply waldo fred " * 30
        self.assertEqual(t.detect_language(text), "unknown")


class Shingles(unittest.TestCase):
    def test_jaccard_by_hand(self):
        # a b c d e f: 5-shingles {abcde, bcdef}; a b c d e g: {abcde, bcdeg}.
        # Intersection 1, union 3 -> J = 1/3.
        a = t.shingles(t.words_of("a b c d e f"))
        b = t.shingles(t.words_of("A b c d e g"))  # lower-cased before shingling
        self.assertEqual(len(a), 2)
        self.assertAlmostEqual(t.jaccard(a, b), 1 / 3)

    def test_identical_and_disjoint(self):
        a = t.shingles(t.words_of("one two three four five six seven"))
        self.assertEqual(t.jaccard(a, a), 1.0)
        c = t.shingles(t.words_of("eight nine ten eleven twelve"))
        self.assertEqual(t.jaccard(a, c), 0.0)
        self.assertEqual(t.jaccard(frozenset(), frozenset()), 0.0)

    def test_short_text_is_one_shingle(self):
        self.assertEqual(t.shingles(["x", "y"]), frozenset([("x", "y")]))

    def test_clusters_are_transitive_components(self):
        # a-b and b-c join {a, b, c}; d stays alone.
        self.assertEqual(t.duplicate_clusters([("b", "c"), ("a", "b")], ["a", "b", "c", "d"]),
                         [["a", "b", "c"], ["d"]])


class Outline(unittest.TestCase):
    XML = ('<?xml version="1.0"?>\n<pdf2xml>\n<page number="1"></page>\n<outline>\n'
           '<item page="1">Introduction</item>\n<outline>\n<item page="2">Options &amp; keys</item>\n'
           '<item page="3"><i>Usage</i></item>\n</outline>\n<item page="9">Index</item>\n'
           '<item>No page</item>\n<item page="99">Beyond</item>\n</outline>\n</pdf2xml>\n')

    def test_nested_items_levels_and_pages(self):
        items = t.parse_outline_xml(self.XML, n_pages=10)
        # Depth 1: Introduction, Index; depth 2: the two children. "No page" has no page
        # attribute and "Beyond" points past page 10: both dropped.
        self.assertEqual(items, [
            {"title": "Introduction", "page": 1, "level": 1},
            {"title": "Options & keys", "page": 2, "level": 2},
            {"title": "Usage", "page": 3, "level": 2},
            {"title": "Index", "page": 9, "level": 1},
        ])

    def test_no_outline(self):
        self.assertEqual(t.parse_outline_xml('<pdf2xml><page number="1"></page></pdf2xml>'), [])

    def test_heading_candidates(self):
        self.assertEqual(t.heading_candidate("2.3 Package options"), ("Package options", 2))
        self.assertEqual(t.heading_candidate("Acknowledgements"), ("Acknowledgements", 1))
        self.assertEqual(t.heading_candidate("Chapter 4 Tables"), ("Tables", 1))
        self.assertIsNone(t.heading_candidate("Introduction ........ 3"))  # dot leaders
        self.assertIsNone(t.heading_candidate("Introduction 3"))  # trailing page number
        self.assertIsNone(t.heading_candidate("\\usepackage{foo}"))  # code characters
        self.assertIsNone(t.heading_candidate("this is lower case"))
        self.assertIsNone(t.heading_candidate("Glyph     Command"))  # table row (3+ spaces)
        self.assertIsNone(t.heading_candidate("A sentence that is much too long to be a heading"))

    def test_text_rule_uses_blank_line_context_and_toc_limit(self):
        page1 = "1 Introduction\nThis package does things.\nIt is Fine\n\nUsage\nmore text\n"
        # "1 Introduction" is first on the page, "Usage" follows a blank line; "It is Fine"
        # follows a text line and is skipped.
        toc = "Contents\n\n" + "".join(f"Topic {c}\n\n" for c in "ABCDEFG")
        # On a toc page only the top 5 non-blank lines count: Contents, Topic A..D.
        items = t.text_rule_headings([page1, toc, "x"], [[], ["toc"], ["empty"]])
        self.assertEqual([(i["title"], i["page"]) for i in items],
                         [("Introduction", 1), ("Usage", 1), ("Contents", 2), ("Topic A", 2),
                          ("Topic B", 2), ("Topic C", 2), ("Topic D", 2)])


class PageFlags(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(t.page_flags("  12  \n"), ["empty"])  # 2 non-space chars < 20

    def test_normal_prose(self):
        self.assertEqual(t.page_flags("This is an ordinary page of prose text.\n" * 5), [])

    def test_garbage(self):
        # 40 non-space characters, 0 letters: 0% < 35%.
        self.assertEqual(t.page_flags("1234567890 !!!!!!!!!! 1234567890 ----------"), ["garbage"])

    def test_toc(self):
        # 6 non-blank lines; 5 end with a page number after dot leaders or 2+ spaces: 5/6 >= 40%.
        page = ("Contents\n1 Introduction ........ 3\n2 Usage ........ 5\n"
                "3 Options      7\n4 Examples    12\n5 Index   20\n")
        self.assertIn("toc", t.page_flags(page))

    def test_index(self):
        # 6 non-blank lines; the 5 entries "word, N" (some with ranges) are 5/6 >= 40%.
        page = ("Index\nalign, 3, 7\nbeamer, 12-14\ncolor, 5\ndraft, 9\nenumerate, 2, 4\n")
        self.assertIn("index", t.page_flags(page))


class HtmlToText(unittest.TestCase):
    def test_blocks_headings_lists_pre_and_skips(self):
        html = ('<html><head><title>T</title><style>p{}</style></head><body>'
                '<div class="related">nav stuff</div>'
                '<h1>Title<a class="headerlink" href="#">\u00b6</a></h1>'
                '<p>Some   <b>bold</b>\n text.</p>'
                '<ul><li>one</li><li>two</li></ul>'
                '<pre>x = 1\n    y = 2\n</pre>'
                '<h2>Sub</h2><script>var a;</script><p>End.</p></body></html>')
        lines, heads = t.html_to_text(html, 80, skip_classes=("related", "headerlink"))
        # Blocks: h1 "Title", p "Some bold text.", li "one", li "two", pre (2 lines), h2, p.
        # A blank line separates blocks.
        self.assertEqual(lines, ["Title", "", "Some bold text.", "", "* one", "", "* two", "",
                                 "x = 1", "    y = 2", "", "Sub", "", "End."])
        self.assertEqual(heads, [("Title", 1, 0), ("Sub", 2, 11)])

    def test_wrapping_width(self):
        # 30 words "word" (4 chars) joined by spaces at width 20: 4 words per line
        # (4*4 + 3 spaces = 19 <= 20; 5 words = 24 > 20) -> 8 lines (7 full, one with 2 words).
        lines, _ = t.html_to_text("<p>" + " ".join(["word"] * 30) + "</p>", 20)
        self.assertEqual(len(lines), 8)
        self.assertTrue(all(len(ln) <= 20 for ln in lines))

    def test_paginate(self):
        # 7 lines, 3 per page -> pages of 3, 3, 1 lines; line index 6 is on page 3.
        pages = t.paginate([str(i) for i in range(7)], 3)
        self.assertEqual(pages, ["0\n1\n2\n", "3\n4\n5\n", "6\n"])
        self.assertEqual(t.line_to_page(6, 3), 3)
        self.assertEqual(t.line_to_page(2, 3), 1)
        self.assertEqual(t.paginate([], 60), [])

    def test_pod_headings(self):
        lines = ["NAME", "    perlsec - Perl security", "", "SECURITY", "  Taint mode",
                 "    body", "        verbatim"]
        self.assertEqual(t.pod_headings(lines),
                         [("NAME", 1, 0), ("SECURITY", 1, 3), ("Taint mode", 2, 4)])


class PoolRules(unittest.TestCase):
    def test_budget_single_document_closed_form(self):
        # One 100-page document, budget 99: it is kept iff u < sqrt(c / 100), i.e. c > 100 u^2,
        # so the largest c that keeps nothing is c = 100 u^2 (to the 1e-6 bisection tolerance).
        u = pool.unit_hash(7, "a")
        kept, c = pool.budget_sample({"a": 100}, 99, 7)
        self.assertEqual(kept, [])
        self.assertAlmostEqual(c, 100 * u * u, delta=1e-5)

    def test_budget_fits_and_is_monotone(self):
        pages = {f"d{i}": 10 + 7 * i for i in range(40)}  # 10, 17, ..., 283 pages
        total = sum(pages.values())  # 40*10 + 7*(0+...+39) = 400 + 5460 = 5860
        self.assertEqual(pool.budget_sample(pages, total, 1)[0], sorted(pages))
        small, _ = pool.budget_sample(pages, 1000, 1)
        large, _ = pool.budget_sample(pages, 3000, 1)
        self.assertLessEqual(sum(pages[d] for d in small), 1000)
        self.assertLessEqual(sum(pages[d] for d in large), 3000)
        self.assertTrue(set(small) <= set(large))  # kept sets grow with c

    def test_keep_probability(self):
        self.assertEqual(pool.keep_probability(4, 16, 0.5), 1.0)  # (16/4)^.5 = 2 -> capped at 1
        self.assertAlmostEqual(pool.keep_probability(64, 16, 0.5), 0.5)  # (16/64)^.5

    def test_representative_prefers_released_then_longer(self):
        rows = [{"sha256": "x", "docid": "tl:latex-dev.base.a", "path": "latex-dev/base/a.pdf",
                 "pages": 30},
                {"sha256": "x", "docid": "tl:latex.base.a", "path": "latex/base/a.pdf", "pages": 30},
                {"sha256": "y", "docid": "tl:b2", "path": "b/b2.pdf", "pages": 12},
                {"sha256": "y", "docid": "tl:b1", "path": "b/b1.pdf", "pages": 12}]
        self.assertEqual(pool.exact_representatives(rows), {"x": "tl:latex.base.a", "y": "tl:b1"})

    def test_near_duplicate_pairs(self):
        # a and b: the same 2,000 distinct words -> J = 1. d shares the first 1,000 words and
        # then has 1,000 other words: 1,996 shingles each, 996 shared (those inside w0..w999),
        # J = 996 / (1996 + 1996 - 996) = 996 / 2996 = 0.33 < 0.5 -> not a pair.
        a = " ".join(f"w{i}" for i in range(2000))
        d = " ".join([f"w{i}" for i in range(1000)] + [f"x{i}" for i in range(1000)])
        # b holds a's words on two pages (pages are joined with a newline before tokenizing).
        b = [" ".join(f"w{i}" for i in range(1000)), " ".join(f"w{i}" for i in range(1000, 2000))]
        pairs = pool.near_duplicate_pairs({"a": [a], "b": b, "d": [d]})
        self.assertEqual([(x, y) for x, y, _ in pairs], [("a", "b")])
        self.assertEqual(pairs[0][2], 1.0)


class DocIds(unittest.TestCase):
    def test_docid(self):
        self.assertEqual(
            t.make_docid("tl", "usr/share/doc/texlive-doc/latex/beamer/beameruserguide.pdf",
                         strip_prefixes=("usr/share/doc/texlive-doc/",)),
            "tl:latex.beamer.beameruserguide")
        # Space and parentheses become one "_" per run.
        self.assertEqual(t.make_docid("x", "a/b c (d).PDF"), "x:a.b_c_d_")


if __name__ == "__main__":
    unittest.main()
