"""The report document rendered to HTML and Markdown (nclue.report.html, nclue.report.markdown).

Expected output is written out by hand from the rules in the module docstrings (the Markdown
escapes follow GitHub-flavoured Markdown: https://github.github.com/gfm/ sections 2.4 backslash
escapes, 6.1 code spans, 6.2 emphasis).
"""

import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from nclue.errors import NclueError
from nclue.figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg
from nclue.report.document import (BulletList, Code, Document, Figure, Heading, Link, Paragraph,
                                   Strong, TableBlock, plain)
from nclue.report.html import WIDE_COLUMNS, breakable_html, check_svg, inline_html, render_html
from nclue.report.latex import inline_latex
from nclue.report.markdown import escape_markdown, inline_markdown, render_markdown
from nclue.table import Column, Table

SVG = "http://www.w3.org/2000/svg"


def tree(fragment):
    """Parse an HTML fragment that happens to be well-formed XML (no void elements used)."""
    return ET.fromstring("<root>" + fragment + "</root>")


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.attrs = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def figures():
    return {
        "landscape": landscape_svg([LandscapePoint("a", "f", 10.0, 5.0)], figure_id="fig2a"),
        "delta": delta_plane_svg([PairedEffect("e", "b", 1.0, 2.0)], figure_id="fig2b"),
    }


FORMULA = "p = (1 + #{|T*| >= |T|})/(1 + draws)); block p = max-|T*| over every endpoint"


class Inline(unittest.TestCase):
    """Text is escaped from the document model, never re-read as Markdown (issue 26)."""

    def test_escaping(self):
        self.assertEqual(inline_html('a < b & c > "d" \'e\''),
                         "a &lt; b &amp; c &gt; &quot;d&quot; &#x27;e&#x27;")
        self.assertEqual(inline_html("<script>alert(1)</script>"),
                         "&lt;script&gt;alert(1)&lt;/script&gt;")

    def test_strings_are_verbatim(self):
        # the formulas of the contrast and paired-test notes: both asterisks kept, no <em>
        self.assertEqual(inline_html(FORMULA), FORMULA.replace(">", "&gt;"))
        for text in ("**not bold**", "*not em*", "`not code`", "[not](a.md)", r"\*", "2 * 3 * 4"):
            self.assertEqual(inline_html(text), text)

    def test_spans(self):
        self.assertEqual(inline_html(("run ", Code("python reproduce.py"))),
                         "run <code>python reproduce.py</code>")
        self.assertEqual(inline_html((Code("**x** <y>"),)), "<code>**x** &lt;y&gt;</code>")
        self.assertEqual(inline_html((Strong("replicates"), ": a *b* c")),
                         "<strong>replicates</strong>: a *b* c")
        self.assertEqual(inline_html((Link("the paper", "https://x.org/?a=1&b=2"),)),
                         '<a href="https://x.org/?a=1&amp;b=2">the paper</a>')
        self.assertEqual(plain(("a ", Code("b"), Strong(" c"), Link(" d", "#x"))), "a b c d")
        with self.assertRaisesRegex(TypeError, "not an inline span"):
            inline_html(("a", 1))

    def test_markdown_escapes_what_github_would_read(self):
        # by hand from GFM: \ before * ` [ ] < and a word-boundary _; intraword _ stays
        self.assertEqual(escape_markdown(FORMULA),
                         r"p = (1 + #{|T\*| >= |T|})/(1 + draws)); block p = max-|T\*| over every endpoint")
        self.assertEqual(escape_markdown("nclue_score@10 <system>_drop_c1 m3t_* [lo, hi]"),
                         r"nclue_score@10 \<system>\_drop_c1 m3t\_\* \[lo, hi\]")
        self.assertEqual(escape_markdown("# 1 &amp; 2"), r"\# 1 \&amp; 2")
        self.assertEqual(escape_markdown("1. one"), r"1\. one")
        self.assertEqual(inline_markdown(("a ", Code("x`y"), " ", Strong("b*"), " ", Link("[c]", "d.md"))),
                         r"a ``x`y`` **b\*** [\[c\]](d.md)")

    def test_latex_escapes_strings(self):
        self.assertEqual(inline_latex("*em* `c` #{|T*|}"),
                         r"*em* `c` \#\{\textbar{}T*\textbar{}\}")
        self.assertEqual(inline_latex(("run ", Code("k1=0.9"), " ", Strong("b"), " ", Link("x", "y.md"))),
                         r"run \texttt{k1=0.9} \textbf{b} x")

    def test_refused_links(self):
        with self.assertRaisesRegex(NclueError, "link target 'JavaScript:alert' uses the scheme 'JavaScript'"):
            inline_html((Link("x", "JavaScript:alert"),))
        with self.assertRaisesRegex(NclueError, "scheme 'data'"):
            inline_html((Link("x", "data:text/html,hi"),))


def document(title="Report", figs=None):
    table = Table("t", "Scores", (Column("s", "n-Clue Score@10", 1), Column("h", "Gold Hit@10", 1)),
                  (("bm25", "BM25 k1=0.9 *", {"s": 50.0, "h": -3.94}), ("x", "a | b", {"s": 1.0})),
                  "Points.")
    blocks = [Paragraph(("Intro with ", Code("code"), ".")), Heading(2, "Part A"), Heading(3, "Part A"),
              BulletList(("one", (Strong("two"),))), TableBlock(table)]
    blocks += [Figure(name, f"Figure {name}", svg) for name, svg in (figs or {}).items()]
    return Document(title, tuple(blocks))


class Blocks(unittest.TestCase):
    """Each block rendered to HTML, written out by hand from the rules in the module docstring."""

    def body(self, doc):
        page = render_html(doc)
        return page[page.index("<main>\n") + 7:page.index("</main>")]

    def test_headings_paragraphs_lists(self):
        body = self.body(Document("Title", (Paragraph(("One ", Code("x"), " & two.")),
                                            Heading(2, "Part A"), Heading(3, "Part A"),
                                            BulletList(("a", (Strong("b"),))))))
        self.assertEqual(body, '<h1 id="sec-title">Title</h1>\n'
                               "<p>One <code>x</code> &amp; two.</p>\n"
                               '<h2 id="sec-part-a">Part A</h2>\n'
                               '<h3 id="sec-part-a-2">Part A</h3>\n'
                               "<ul>\n<li>a</li>\n<li><strong>b</strong></li>\n</ul>\n")

    def test_table_structure(self):
        body = self.body(document())
        root = tree(body[body.index('<div class="table-wrap">'):body.index("<p>Points.")])
        table = root.find("div/table")
        header = table.findall("thead/tr/th")
        # header text unchanged; a line-break opportunity after '@' before the cutoff
        self.assertEqual(["".join(h.itertext()) for h in header], ["", "n-Clue Score@10", "Gold Hit@10"])
        self.assertEqual([len(h.findall("wbr")) for h in header], [0, 1, 1])
        self.assertEqual([h.get("scope") for h in header], ["col", "col", "col"])
        first, second = (list(r) for r in table.findall("tbody/tr"))
        self.assertEqual([c.tag for c in first], ["th", "td", "td"])
        self.assertEqual(first[0].get("scope"), "row")
        self.assertEqual(first[0].text, "BM25 k1=0.9 *")   # a label is text, verbatim
        self.assertEqual((first[1].text, first[1].get("class")), ("50.0", "num"))
        self.assertEqual((first[2].text, first[2].get("class")), ("-3.9", "num"))  # printed decimals
        self.assertEqual(second[0].text, "a | b")          # a pipe in a label is just text
        self.assertEqual((second[2].text, second[2].get("class")), (None, None))  # no value
        self.assertIn('<h3 id="sec-scores">Scores</h3>', body)
        self.assertTrue(body.rstrip().endswith("<p>Points.</p>"))

    def test_breakable_headers_and_wide_tables(self):
        self.assertEqual(breakable_html("Base nclue_score@10 & bm25_page_max.clean k1=0.9"),
                         "Base nclue_<wbr/>score@<wbr/>10 &amp; bm25_<wbr/>page_<wbr/>max.<wbr/>clean k1=0.9")
        columns = tuple(Column(f"c{i}", f"C{i}", 1) for i in range(WIDE_COLUMNS))
        wide = Table("w", "W", columns, (("r", "R", {"c0": 1.0}),))
        narrow = Table("n", "N", columns[:-1], (("r", "R", {"c0": 1.0}),))
        self.assertIn('<div class="table-wrap wide">', self.body(Document("D", (TableBlock(wide),))))
        self.assertIn('<div class="table-wrap">', self.body(Document("D", (TableBlock(narrow),))))

    def test_markdown_of_the_same_document(self):
        self.assertEqual(render_markdown(document()),
                         "# Report\n\nIntro with `code`.\n\n## Part A\n\n### Part A\n\n- one\n- **two**\n\n"
                         "### Scores\n\n| | n-Clue Score@10 | Gold Hit@10 |\n| --- | --- | --- |\n"
                         "| BM25 k1=0.9 \\* | 50.0 | -3.9 |\n| a \\| b | 1.0 |  |\n\nPoints.\n")

    def test_table_of_contents(self):
        body = self.body(document(figs=figures()))
        # Entries: the two headings (h2, h3), the table (h3) and both figures (h2 level).
        self.assertIn('<nav class="toc" aria-label="Contents">\n<p class="toc-title">Contents</p>\n<ol>\n'
                      '<li><a href="#sec-part-a">Part A</a>\n<ol>\n'
                      '<li><a href="#sec-part-a-2">Part A</a></li>\n'
                      '<li><a href="#sec-scores">Scores</a></li>\n</ol></li>\n'
                      '<li><a href="#figure-landscape">Figure landscape</a></li>\n'
                      '<li><a href="#figure-delta">Figure delta</a></li>\n</ol>\n</nav>', body)
        short = self.body(Document("T", (Paragraph("x"),)))
        self.assertNotIn("<nav", short)   # fewer than three entries: no contents list

    def test_cell_marks(self):
        table = Table("t", "T", (Column("s", "S", 1),), (("a", "A", {"s": 2.0}),))
        doc = Document("D", (TableBlock(table, (("a", "s", "bc"),)),))
        self.assertIn('<td class="num">2.0<sup>bc</sup></td>', render_html(doc))
        self.assertIn("| A | 2.0<sup>bc</sup> |", render_markdown(doc))

    def test_raw_html_is_escaped(self):
        body = self.body(Document("R", (Paragraph('<script>alert("x")</script> <img src=x>'),)))
        self.assertNotIn("<script", body)
        self.assertNotIn("<img", body)
        self.assertIn("&lt;script&gt;", body)


class Page(unittest.TestCase):
    def test_deterministic_bytes(self):
        a = render_html(document(figs=figures()))
        b = render_html(document(figs=figures()))
        self.assertEqual(a.encode("utf-8"), b.encode("utf-8"))

    def test_self_contained_structure(self):
        page = render_html(document('R <&> "x"', figures()))
        self.assertTrue(page.startswith("<!DOCTYPE html>\n"))
        self.assertIn("<title>R &lt;&amp;&gt; &quot;x&quot;</title>", page)
        parser = Tags()
        parser.feed(page)
        self.assertEqual(parser.tags.count("svg"), 2)
        self.assertEqual(parser.tags.count("style"), 1)
        self.assertEqual(parser.tags.count("h1"), 1)
        for forbidden in ("script", "link", "img", "iframe", "object"):
            self.assertNotIn(forbidden, parser.tags)
        names = {name for name, _ in parser.attrs}
        self.assertNotIn("src", names)
        self.assertFalse(any(name.startswith("on") for name in names))
        self.assertIn('<figure id="figure-landscape">', page)
        self.assertIn("<figcaption>Figure landscape</figcaption>", page)
        start = page.index("<svg")
        svg = page[start:page.index("</svg>", start) + len("</svg>")]
        self.assertEqual(ET.fromstring(svg).tag, "{%s}svg" % SVG)

    def test_refusals(self):
        with self.assertRaisesRegex(NclueError, "both use the id 'landscape-title'"):
            render_html(document(figs={"a": landscape_svg([LandscapePoint("a", "f", 1.0, 1.0)]),
                                       "b": landscape_svg([LandscapePoint("b", "f", 1.0, 1.0)])}))
        with self.assertRaisesRegex(NclueError, "non-empty string"):
            render_html(Document("", ()))
        with self.assertRaisesRegex(NclueError, "figure name"):
            render_html(document(figs={"bad name": figures()["delta"]}))

    def test_svg_checks(self):
        head = '<svg xmlns="http://www.w3.org/2000/svg">'
        with self.assertRaisesRegex(NclueError, "not well-formed"):
            check_svg("f", head + "<g></svg>")
        with self.assertRaisesRegex(NclueError, "<script> elements are not allowed"):
            check_svg("f", head + "<script>alert(1)</script></svg>")
        with self.assertRaisesRegex(NclueError, "event attribute 'onload'"):
            check_svg("f", '<svg xmlns="http://www.w3.org/2000/svg" onload="x()"></svg>')
        with self.assertRaisesRegex(NclueError, "points outside the figure"):
            check_svg("f", head + '<use href="http://evil/x.svg#a"/></svg>')
        with self.assertRaisesRegex(NclueError, "DOCTYPE"):
            check_svg("f", '<!DOCTYPE svg [<!ENTITY a "b">]>' + head + "</svg>")
        with self.assertRaisesRegex(NclueError, "expected an SVG"):
            check_svg("f", "<html></html>")
        # An XML declaration is dropped so that the SVG can be inlined.
        ok = check_svg("f", '<?xml version="1.0"?>\n' + head + '<title>T</title><use href="#x"/></svg>')
        self.assertTrue(ok.text.startswith("<svg"))
        self.assertEqual(ok.title, "T")


if __name__ == "__main__":
    unittest.main()
