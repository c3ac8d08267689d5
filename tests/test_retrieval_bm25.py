"""BM25 (Lucene form) on a corpus small enough to score by hand.

Corpus (pages; the analyzer lower-cases, splits on non-alphanumerics, drops Lucene stop words):

    d1: p1 "apple banana"          p2 "apple"
    d2: p1 "banana cherry cherry"
    d3: p1 "cherry"                p2 "date date date"     p3 ""   (an empty page)

k1 = 1.2, b = 0.75 throughout (Robertson's textbook values), idf = ln(1 + (N - n + 0.5)/(n + 0.5)),
term score = idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)).

Document level: d1 = apple x2, banana (dl 3); d2 = banana, cherry x2 (dl 3); d3 = cherry, date x3
(dl 4). N = 3, avgdl = 10/3.  K(dl=3) = 1.2 * (0.25 + 0.75 * 0.9) = 1.11;
K(dl=4) = 1.2 * (0.25 + 0.75 * 1.2) = 1.38.

Page level: the five non-empty pages have lengths 2, 1, 3, 1, 3: N = 5 (the empty page is not
counted, as Lucene's docCount), avgdl = 10/5 = 2.  K(1) = 1.2 * (0.25 + 0.375) = 0.75;
K(2) = 1.2; K(3) = 1.2 * (0.25 + 1.125) = 1.65.
"""

import math
import unittest

from nclue.retrieval.bm25 import LexicalIndex
from nclue.retrieval.index import lucene_idf
from nclue.retrieval.tokenize import tokenize

CORPUS = {"d1": ["apple banana", "apple"], "d2": ["banana cherry cherry"],
          "d3": ["cherry", "date date date", ""]}


def make():
    return LexicalIndex.from_pages(CORPUS, k1=1.2, b=0.75)


class TokenizerTest(unittest.TestCase):
    def test_rule(self):
        # COVID-19 splits at the hyphen; backslash and braces separate; '_' separates; 'The' and
        # 'of' are Lucene stop words; single letters and digits are kept; non-ASCII letters stay.
        self.assertEqual(tokenize(r"COVID-19 \begin{tabular} The_Quick x of Ångström"),
                         ["covid", "19", "begin", "tabular", "quick", "x", "ångström"])
        self.assertEqual(tokenize('"Executive Summary"; "TikZ"'), ["executive", "summary", "tikz"])
        self.assertEqual(tokenize("the and of"), [])


class DocumentLevelTest(unittest.TestCase):
    def test_idf_formula(self):
        self.assertAlmostEqual(lucene_idf(3, 1), math.log(1 + 2.5 / 1.5), places=15)
        self.assertAlmostEqual(lucene_idf(1000, 1000), math.log(1 + 0.5 / 1000.5), places=15)

    def test_single_term(self):
        index = make()
        # apple: df 1, idf = ln(8/3); d1 tf 2, K 1.11: ln(8/3) * 2 / 3.11
        hits = index.bm25_or("apple")
        self.assertEqual([h.docid for h in hits], ["d1"])
        self.assertAlmostEqual(hits[0].score, math.log(8 / 3) * 2 / 3.11, places=12)
        self.assertEqual(index.docs.n_units, 3)
        self.assertAlmostEqual(index.docs.avgdl, 10 / 3, places=12)

    def test_or_query(self):
        index = make()
        # banana, cherry: df 2 each, idf = ln(1 + 1.5/2.5) = ln 1.6
        # d2 = ln1.6 * (1/2.11 + 2/3.11); d1 = ln1.6 / 2.11; d3 = ln1.6 / 2.38
        hits = index.bm25_or('"banana"; "cherry"')
        self.assertEqual([h.docid for h in hits], ["d2", "d1", "d3"])
        expected = [math.log(1.6) * (1 / 2.11 + 2 / 3.11), math.log(1.6) / 2.11,
                    math.log(1.6) / 2.38]
        for hit, value in zip(hits, expected):
            self.assertAlmostEqual(hit.score, value, places=12)

    def test_and_query(self):
        index = make()
        # only d2 holds both banana and cherry; its score is the OR score
        hits = index.bm25_and("banana cherry", ["banana", "cherry"])
        self.assertEqual([h.docid for h in hits], ["d2"])
        self.assertAlmostEqual(hits[0].score, math.log(1.6) * (1 / 2.11 + 2 / 3.11), places=12)
        # a condition is matched only when all of its terms occur: "apple date" is in no document
        self.assertEqual(index.bm25_and("apple date", ["apple date", "cherry"]), [])
        # a condition made only of stop words matches nothing
        self.assertEqual(index.bm25_and("the banana", ["the", "banana"]), [])

    def test_repeated_query_term_counts_twice(self):
        index = make()
        # Lucene sums one clause per occurrence: "apple apple" = 2 * ln(8/3) * 2/3.11
        hits = index.bm25_or("apple apple")
        self.assertAlmostEqual(hits[0].score, 2 * math.log(8 / 3) * 2 / 3.11, places=12)

    def test_ties_by_docid_and_depth(self):
        index = LexicalIndex.from_pages({"b": ["x y"], "a": ["x y"], "c": ["x z"]}, 1.2, 0.75)
        # a and b are identical documents: equal scores, docid ascending breaks the tie
        self.assertEqual([h.docid for h in index.bm25_or("x y")], ["a", "b", "c"])
        self.assertEqual([h.docid for h in index.bm25_or("x y", depth=2)], ["a", "b"])


class PageLevelTest(unittest.TestCase):
    def test_page_max(self):
        index = make()
        self.assertEqual(index.pages.n_units, 5)
        self.assertAlmostEqual(index.pages.avgdl, 2.0, places=12)
        # apple: page df 2, idf = ln(1 + 3.5/2.5) = ln 2.4. d1p1 (len 2): ln2.4 / 2.2;
        # d1p2 (len 1): ln2.4 / 1.75 -- the best page is p2.
        hits = index.page_max("apple")
        self.assertEqual([h.docid for h in hits], ["d1"])
        self.assertAlmostEqual(hits[0].score, math.log(2.4) / 1.75, places=12)
        self.assertEqual([p for p, _ in hits[0].pages], [2, 1])
        self.assertAlmostEqual(hits[0].pages[1][1], math.log(2.4) / 2.2, places=12)

    def test_page_top3(self):
        index = make()
        # cherry: page df 2, idf ln 2.4; date: page df 1, idf = ln(1 + 4.5/1.5) = ln 4.
        # d3: p1 cherry (len 1) ln2.4/1.75; p2 date x3 (len 3) ln4 * 3/4.65; p3 empty: 0.
        #     top-3 mean over its 3 pages = (ln2.4/1.75 + 3 ln4/4.65 + 0) / 3
        # d2: p1 cherry x2 (len 3) = ln2.4 * 2/3.65; one page, so its mean is that score.
        d3 = (math.log(2.4) / 1.75 + 3 * math.log(4) / 4.65) / 3
        d2 = math.log(2.4) * 2 / 3.65
        hits = index.page_top3("cherry date")
        self.assertEqual([h.docid for h in hits], ["d2", "d3"])  # 0.4797 > 0.4649
        self.assertAlmostEqual(hits[0].score, d2, places=12)
        self.assertAlmostEqual(hits[1].score, d3, places=12)
        # page max on the same query: d3's best page is p2 (3 ln4/4.65 = 0.894)
        best = index.page_max("cherry date")
        self.assertEqual([h.docid for h in best], ["d3", "d2"])
        self.assertAlmostEqual(best[0].score, 3 * math.log(4) / 4.65, places=12)


class IndexInputTest(unittest.TestCase):
    def test_duplicate_page_is_an_input_error(self):
        from nclue.errors import InputError
        records = [("d", 1, "a", 1), ("d", 1, "b", 2)]
        with self.assertRaises(InputError) as caught:
            LexicalIndex.from_records(records, source="pages.jsonl")
        self.assertIn("pages.jsonl:2", str(caught.exception))

    def test_page_file_formats(self):
        import json
        import tempfile
        from pathlib import Path
        from nclue.errors import InputError
        from nclue.retrieval.index import iter_page_records
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pages.jsonl"
            # one page per line, and one document per line, may be mixed
            path.write_text(json.dumps({"docid": "a", "page": 2, "text": "x"}) + "\n"
                            + json.dumps({"docid": "b", "pages": ["y", "z"]}) + "\n")
            self.assertEqual([r[:3] for r in iter_page_records(path)],
                             [("a", 2, "x"), ("b", 1, "y"), ("b", 2, "z")])
            for bad, problem in (({"docid": "a", "page": 0, "text": "x"}, "page must be >= 1"),
                                 ({"docid": "a", "text": "x"}, "missing field 'page'"),
                                 ({"docid": "a", "pages": ["x", 3]}, "page 2 of 'a'"),
                                 ({"docid": "a"}, "expected a page")):
                path.write_text("\n" + json.dumps(bad) + "\n")
                with self.assertRaises(InputError) as caught:
                    list(iter_page_records(path))
                self.assertIn(f"{path}:2", str(caught.exception))
                self.assertIn(problem, str(caught.exception))

    def test_bad_parameters(self):
        with self.assertRaises(ValueError):
            LexicalIndex.from_pages({"a": ["x"]}, k1=1.0, b=1.5)


if __name__ == "__main__":
    unittest.main()
