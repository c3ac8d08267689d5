"""The report document rendered to HTML and Markdown (nclue.report.html, nclue.report.markdown).

Expected output is written out by hand from the rules in the module docstrings (inline spans
follow GitHub-flavoured Markdown where it applies: https://github.github.com/gfm/ section 6.1
code spans).
"""

import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from nclue.errors import NclueError
from nclue.figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg
from nclue.report.document import BulletList, Document, Figure, Heading, Paragraph, TableBlock
from nclue.report.html import check_svg, inline_html, render_html
from nclue.report.markdown import render_markdown
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


class Inline(unittest.TestCase):
    def test_escaping(self):
        self.assertEqual(inline_html('a < b & c > "d" \'e\''),
                         "a &lt; b &amp; c &gt; &quot;d&quot; &#x27;e&#x27;")
        self.assertEqual(inline_html("<script>alert(1)</script>"),
                         "&lt;script&gt;alert(1)&lt;/script&gt;")

    def test_code_bold_em_links(self):
        self.assertEqual(inline_html("run `python reproduce.py`"), "run <code>python reproduce.py</code>")
        # Code content is literal: no bold inside, markup characters escaped.
        self.assertEqual(inline_html("`**x** <y>`"), "<code>**x** &lt;y&gt;</code>")
        # Double-backtick span holding a backtick, one padding space stripped each side (GFM 6.1).
        self.assertEqual(inline_html("`` a`b ``"), "<code>a`b</code>")
        self.assertEqual(inline_html("**bold** and *em*"), "<strong>bold</strong> and <em>em</em>")
        self.assertEqual(inline_html("2 * 3 * 4"), "2 * 3 * 4")
        self.assertEqual(inline_html("[the paper](https://x.org/?a=1&b=2)"),
                         '<a href="https://x.org/?a=1&amp;b=2">the paper</a>')
        self.assertEqual(inline_html("[**b**](docs/x.md#s)"), '<a href="docs/x.md#s"><strong>b</strong></a>')
        self.assertEqual(inline_html(r"\*not em\* and nclue_score@10"), "*not em* and nclue_score@10")

    def test_refused_links(self):
        with self.assertRaisesRegex(NclueError, "line 7: link target 'JavaScript:alert' uses the scheme 'JavaScript'"):
            inline_html("[x](JavaScript:alert)", 7)
        with self.assertRaisesRegex(NclueError, "scheme 'data'"):
            inline_html("[x](data:text/html,hi)", 7)
        # A target with parentheses is not link syntax here: it stays escaped text, no <a>.
        self.assertNotIn("<a", inline_html("[x](javascript:alert(1))"))
        with self.assertRaisesRegex(NclueError, "line 3: an image inside running text"):
            inline_html("see ![x](y.png) here", 3)


def document(title="Report", figs=None):
    table = Table("t", "Scores", (Column("s", "n-Clue Score@10", 1), Column("h", "Gold Hit@10", 1)),
                  (("bm25", "BM25 `k1=0.9`", {"s": 50.0, "h": -3.94}), ("x", "a | b", {"s": 1.0})),
                  "Points.")
    blocks = [Paragraph("Intro with `code`."), Heading(2, "Part A"), Heading(3, "Part A"),
              BulletList(("one", "**two**")), TableBlock(table)]
    blocks += [Figure(name, f"Figure {name}", svg) for name, svg in (figs or {}).items()]
    return Document(title, tuple(blocks))


class Blocks(unittest.TestCase):
    """Each block rendered to HTML, written out by hand from the rules in the module docstring."""

    def body(self, doc):
        page = render_html(doc)
        return page[page.index("<main>\n") + 7:page.index("</main>")]

    def test_headings_paragraphs_lists(self):
        body = self.body(Document("Title", (Paragraph("One `x` & two."), Heading(2, "Part A"),
                                            Heading(3, "Part A"), BulletList(("a", "**b**")))))
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
        self.assertEqual([h.text for h in header], [None, "n-Clue Score@10", "Gold Hit@10"])
        self.assertEqual([h.get("scope") for h in header], ["col", "col", "col"])
        first, second = (list(r) for r in table.findall("tbody/tr"))
        self.assertEqual([c.tag for c in first], ["th", "td", "td"])
        self.assertEqual(first[0].get("scope"), "row")
        self.assertEqual(first[0].find("code").text, "k1=0.9")
        self.assertEqual((first[1].text, first[1].get("class")), ("50.0", "num"))
        self.assertEqual((first[2].text, first[2].get("class")), ("-3.9", "num"))  # printed decimals
        self.assertEqual(second[0].text, "a | b")          # a pipe in a label is just text
        self.assertEqual((second[2].text, second[2].get("class")), (None, None))  # no value
        self.assertIn('<h3 id="sec-scores">Scores</h3>', body)
        self.assertTrue(body.rstrip().endswith("<p>Points.</p>"))

    def test_markdown_of_the_same_document(self):
        self.assertEqual(render_markdown(document()),
                         "# Report\n\nIntro with `code`.\n\n## Part A\n\n### Part A\n\n- one\n- **two**\n\n"
                         "### Scores\n\n| | n-Clue Score@10 | Gold Hit@10 |\n| --- | --- | --- |\n"
                         "| BM25 `k1=0.9` | 50.0 | -3.9 |\n| a \\| b | 1.0 |  |\n\nPoints.\n")

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
