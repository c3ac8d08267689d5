"""RRF and round robin on hand cases; decomposition combiners on hand-normalized lists."""

import math
import unittest

from nclue.retrieval.decomposition import (bm25_condition_wise, combine, doc_table_from_pages,
                                           normalize, rank_items)
from nclue.retrieval.fusion import round_robin, rrf


class RRFTest(unittest.TestCase):
    def test_scores_and_order(self):
        # A = [x, y, z], B = [y, w], k = 60:
        # y = 1/62 + 1/61, x = 1/61, w = 1/62, z = 1/63  ->  y, x, w, z
        fused = rrf([["x", "y", "z"], ["y", "w"]])
        self.assertEqual([d for d, _ in fused], ["y", "x", "w", "z"])
        self.assertAlmostEqual(fused[0][1], 1 / 61 + 1 / 62, places=15)
        self.assertAlmostEqual(fused[3][1], 1 / 63, places=15)

    def test_ties_keep_input_order(self):
        # p and q both get 1/61 + 1/62; p is met first (list 1, rank 1)
        self.assertEqual([d for d, _ in rrf([["p", "q"], ["q", "p"]])], ["p", "q"])
        self.assertEqual([d for d, _ in rrf([["q", "p"], ["p", "q"]])], ["q", "p"])
        # three lists: same multiset of ranks in different orders must tie exactly
        fused = dict(rrf([["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]))
        self.assertEqual(fused["a"], fused["b"])
        self.assertEqual(fused["b"], fused["c"])

    def test_depth(self):
        # depth 2: only ranks 1-2 of each input count; z (rank 3) is never seen
        fused = rrf([["x", "y", "z"], ["z", "y"]], depth=2)
        # y = 1/62 + 1/62, x = 1/61, z = 1/61 -> y first; x and z tie, x met first
        self.assertEqual([d for d, _ in fused], ["y", "x"])

    def test_duplicate_in_input(self):
        with self.assertRaises(ValueError):
            rrf([["x", "x"]])


class RoundRobinTest(unittest.TestCase):
    def test_eq4(self):
        # round 1: a (A), b (B), e (C); round 2: b dup, d; round 3: c
        fused = round_robin([["a", "b", "c"], ["b", "d"], ["e"]])
        self.assertEqual([d for d, _ in fused], ["a", "b", "e", "d", "c"])
        self.assertEqual([s for _, s in fused], [1.0, 0.5, 1 / 3, 0.25, 0.2])
        self.assertEqual([d for d, _ in round_robin([["a", "b", "c"], ["b", "d"], ["e"]], 3)],
                         ["a", "b", "e"])
        self.assertEqual(round_robin([[], []]), [])


class DecompositionTest(unittest.TestCase):
    def test_combiners(self):
        # L1 = {a 2, b 1, c 4} -> /4: a .5, b .25, c 1;  L2 = {a 3, b 6} -> /6: a .5, b 1, c 0
        lists = [{"a": 2.0, "b": 1.0, "c": 4.0}, {"a": 3.0, "b": 6.0}]
        self.assertEqual(combine(lists, "min"), {"a": 0.5, "b": 0.25, "c": 0.0})
        self.assertEqual(combine(lists, "product"), {"a": 0.25, "b": 0.25, "c": 0.0})
        # hmean a = 2 / (2 + 2) = .5; b = 2 / (4 + 1) = .4; c has a zero -> 0
        hmean = combine(lists, "hmean")
        self.assertAlmostEqual(hmean["a"], 0.5, places=15)
        self.assertAlmostEqual(hmean["b"], 0.4, places=15)
        self.assertEqual(hmean["c"], 0.0)

    def test_normalizations(self):
        self.assertEqual(normalize({"a": 0.0, "b": 0.0}), {"a": 0.0, "b": 0.0})
        with self.assertRaises(ValueError):
            normalize({"a": -1.0, "b": 1.0})
        # minmax: (s - (-1)) / (3 - (-1)): a 0, b .5, c 1
        self.assertEqual(normalize({"a": -1.0, "b": 1.0, "c": 3.0}, "minmax"),
                         {"a": 0.0, "b": 0.5, "c": 1.0})
        with self.assertRaises(ValueError):
            combine([{"a": 1.0}], "mean")

    def test_rank_items(self):
        # score descending; b and c tie at 0.5 and keep docid order; depth 2 cuts d
        ranked = rank_items({"c": 0.5, "a": 0.9, "b": 0.5, "d": 0.1}, 2)
        self.assertEqual(ranked, [("a", 0.9), ("b", 0.5)])

    def test_page_tables(self):
        table = {"d": {1: 0.2, 2: 0.9, 3: 0.4, 4: 0.1}, "e": {7: 0.3}}
        self.assertEqual(doc_table_from_pages(table, "max"), {"d": 0.9, "e": 0.3})
        top3 = doc_table_from_pages(table, "top3")
        self.assertAlmostEqual(top3["d"], (0.9 + 0.4 + 0.2) / 3, places=15)
        self.assertEqual(top3["e"], 0.3)

    def test_bm25_condition_wise(self):
        from nclue.retrieval.bm25 import LexicalIndex
        # Same corpus and parameters as test_retrieval_bm25 (doc level, N 3, avgdl 10/3).
        index = LexicalIndex.from_pages({"d1": ["apple banana", "apple"],
                                         "d2": ["banana cherry cherry"],
                                         "d3": ["cherry", "date date date", ""]}, 1.2, 0.75)
        # banana list: d1 ln1.6/2.11, d2 ln1.6/2.11 (both normalize to 1);
        # cherry list: d2 ln1.6*2/3.11 (-> 1), d3 ln1.6/2.38 (-> 3.11/4.76).
        # min: d2 = 1; d1 and d3 miss a condition -> not ranked.
        hits = bm25_condition_wise(index, ["banana", "cherry"], "min")
        self.assertEqual([(h.docid, h.score) for h in hits], [("d2", 1.0)])
        # date and cherry: d3 holds both; date list {d3}; cherry list d2 1, d3 3.11/4.76
        hits = bm25_condition_wise(index, ["date", "cherry"], "product")
        self.assertEqual([h.docid for h in hits], ["d3"])
        self.assertAlmostEqual(hits[0].score, 3.11 / 4.76, places=12)
        # page level (N 5, avgdl 2), apple and banana: apple's best d1 page is p2
        # (ln2.4/1.75, len 1) and banana's is p1 (ln2.4/2.2 > d2's ln2.4/2.65); d2 has no apple
        # -> unranked. d1 is the maximum of both lists (normalized 1 and 1): hmean 1, pages
        # [p2, p1].
        hits = bm25_condition_wise(index, ["apple", "banana"], "hmean", level="page")
        self.assertEqual([(h.docid, h.score) for h in hits], [("d1", 1.0)])
        self.assertEqual([p for p, _ in hits[0].pages], [2, 1])
        self.assertAlmostEqual(hits[0].pages[0][1], math.log(2.4) / 1.75, places=12)


if __name__ == "__main__":
    unittest.main()
