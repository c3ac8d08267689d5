"""Markdown subset -> HTML and the self-contained report page (nclue.html_report).

Expected HTML is written out by hand from the rules in the module docstring (GitHub-flavoured
Markdown where it applies: https://github.github.com/gfm/ sections 4.10 tables, 5.2 list items,
6.1 code spans).
"""

import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from nclue.errors import NclueError
from nclue.figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg
from nclue.html_report import check_svg, inline_html, markdown_to_html, render_report_html

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


class Blocks(unittest.TestCase):
    def test_headings_and_paragraphs(self):
        html = markdown_to_html("# Title\n\nOne line\nand two.\n\n## Part A\n### Part A\n#### Deep\n")
        self.assertEqual(html,
                         '<h1 id="sec-title">Title</h1>\n'
                         "<p>One line\nand two.</p>\n"
                         '<h2 id="sec-part-a">Part A</h2>\n'
                         '<h3 id="sec-part-a-2">Part A</h3>\n'
                         '<h4 id="sec-deep">Deep</h4>\n')

    def test_table_structure(self):
        md = ("| | n-Clue Score@10 | Gold Hit@10 |\n"
              "| --- | --- | ---: |\n"
              "| BM25 `k1=0.9` | 50.0 | 66.7 |\n"
              "| a \\| b | -3.9 | n/a |\n")
        root = tree(markdown_to_html(md))
        table = root.find("div/table")
        self.assertEqual(root.find("div").get("class"), "table-wrap")
        header = table.findall("thead/tr/th")
        self.assertEqual([h.text for h in header], [None, "n-Clue Score@10", "Gold Hit@10"])
        self.assertEqual([h.get("scope") for h in header], ["col", "col", "col"])
        self.assertEqual(header[2].get("style"), "text-align:right")
        rows = table.findall("tbody/tr")
        self.assertEqual(len(rows), 2)
        # Empty first header cell -> first body cells are row headers.
        first = list(rows[0])
        self.assertEqual([c.tag for c in first], ["th", "td", "td"])
        self.assertEqual(first[0].get("scope"), "row")
        self.assertEqual(first[0].find("code").text, "k1=0.9")
        self.assertEqual(first[1].text, "50.0")
        self.assertEqual(first[1].get("class"), "num")
        second = list(rows[1])
        self.assertEqual(second[0].text, "a | b")           # escaped pipe stays in the cell
        self.assertEqual(second[1].get("class"), "num")     # negative number
        self.assertIsNone(second[2].get("class"))           # "n/a" is not a number
        self.assertEqual(second[2].get("style"), "text-align:right")

    def test_table_with_named_first_column_has_no_row_headers(self):
        root = tree(markdown_to_html("| System | Score |\n| --- | --- |\n| x | 1 |\n"))
        self.assertEqual([c.tag for c in root.find("div/table/tbody/tr")], ["td", "td"])

    def test_table_width_mismatch_refused(self):
        # Lines: 1 intro, 2 blank, 3 header, 4 delimiter, 5 the three-cell row.
        with self.assertRaisesRegex(NclueError, "line 5: table row has 3 cells, the header has 2"):
            markdown_to_html("intro\n\n| a | b |\n| --- | --- |\n| x | y | z |\n")
        with self.assertRaisesRegex(NclueError, "line 2: table delimiter row has 1 cells, the header has 2"):
            markdown_to_html("| a | b |\n| --- |\n")

    def test_lists(self):
        md = "- one\n- **two**\n  - nested\n- three\ncontinued\n\n1. a\n2. b\n"
        self.assertEqual(markdown_to_html(md),
                         "<ul>\n<li>one</li>\n<li><strong>two</strong>\n<ul>\n<li>nested</li>\n</ul></li>\n"
                         "<li>three\ncontinued</li>\n</ul>\n<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n")

    def test_loose_list_items_are_paragraphs(self):
        self.assertEqual(markdown_to_html("- a\n\n- b\n"), "<ul>\n<li><p>a</p></li>\n<li><p>b</p></li>\n</ul>\n")

    def test_code_fence_and_rule(self):
        self.assertEqual(markdown_to_html("```sh\nx < y && z\n```\n\n---\n"),
                         '<pre><code class="language-sh">x &lt; y &amp;&amp; z\n</code></pre>\n<hr>\n')
        with self.assertRaisesRegex(NclueError, "line 2: code fence ``` is never closed"):
            markdown_to_html("text\n```\ncode\n")

    def test_raw_html_is_escaped(self):
        html = markdown_to_html('<script>alert("x")</script>\n\n<img src=x onerror=y>')
        self.assertNotIn("<script", html)
        self.assertNotIn("<img", html)
        self.assertIn("&lt;script&gt;", html)

    def test_bad_type(self):
        with self.assertRaisesRegex(NclueError, "must be a string"):
            markdown_to_html(None)


class Page(unittest.TestCase):
    MD = ("# Release report\n\nIntro with `code`.\n\n![Figure 2(a): the landscape](figures/landscape.svg)\n\n"
          "| | Score |\n| --- | --- |\n| run | 1.0 |\n")

    def test_deterministic_bytes(self):
        a = render_report_html("Report", self.MD, figures())
        b = render_report_html("Report", self.MD, dict(reversed(list(figures().items()))))
        self.assertEqual(a.encode("utf-8"), b.encode("utf-8"))

    def test_self_contained_structure(self):
        page = render_report_html('R <&> "x"', self.MD, figures())
        self.assertTrue(page.startswith("<!DOCTYPE html>\n"))
        self.assertIn("<title>R &lt;&amp;&gt; &quot;x&quot;</title>", page)
        parser = Tags()
        parser.feed(page)
        self.assertEqual(parser.tags.count("svg"), 2)
        self.assertEqual(parser.tags.count("style"), 1)
        self.assertEqual(parser.tags.count("h1"), 1)   # the Markdown's own h1; none added
        for forbidden in ("script", "link", "img", "iframe", "object"):
            self.assertNotIn(forbidden, parser.tags)
        names = {name for name, _ in parser.attrs}
        self.assertNotIn("src", names)
        self.assertFalse(any(name.startswith("on") for name in names))
        # Placed figure keeps its caption; the other follows under "Figures" with its SVG title.
        self.assertIn('<figure id="figure-landscape">', page)
        self.assertIn("<figcaption>Figure 2(a): the landscape</figcaption>", page)
        tail = page[page.index('<h2 id="sec-figures">Figures</h2>'):]
        self.assertIn('<figure id="figure-delta">', tail)
        self.assertIn("<figcaption>Paired effects: \u0394 Gold Hit@10 vs \u0394 n-Clue Score@10</figcaption>", tail)
        # Each inlined SVG is still well-formed XML.
        start = page.index("<svg")
        svg = page[start:page.index("</svg>", start) + len("</svg>")]
        self.assertEqual(ET.fromstring(svg).tag, "{%s}svg" % SVG)

    def test_title_heading_added_when_missing(self):
        page = render_report_html("My <report>", "Just text.\n", {})
        self.assertIn("<main>\n<h1>My &lt;report&gt;</h1>\n<p>Just text.</p>\n</main>", page)

    def test_refusals(self):
        with self.assertRaisesRegex(NclueError, "line 1: image 'other.svg' names no figure"):
            render_report_html("R", "![x](other.svg)\n", figures())
        with self.assertRaisesRegex(NclueError, "both use the id 'landscape-title'"):
            render_report_html("R", "", {"a": landscape_svg([LandscapePoint("a", "f", 1.0, 1.0)]),
                                         "b": landscape_svg([LandscapePoint("b", "f", 1.0, 1.0)])})
        with self.assertRaisesRegex(NclueError, "placed twice"):
            render_report_html("R", "![a](delta.svg)\n\n![b](delta.svg)\n", figures())
        with self.assertRaisesRegex(NclueError, "non-empty string"):
            render_report_html("", "x", {})
        with self.assertRaisesRegex(NclueError, "figure name"):
            render_report_html("R", "x", {"bad name": figures()["delta"]})

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
