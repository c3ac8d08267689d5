"""Distinct-page SDR: hand-worked assignments and a brute-force cross-check."""

import itertools
import math
import random
import unittest

from nclue.retrieval.bm25 import LexicalIndex
from nclue.retrieval.sdr import bm25_sdr, bottleneck_assignment, sdr_tables


def brute_force(rows):
    """max over injective assignments of min score, enumerating every page tuple."""
    pages = sorted({p for row in rows for p in row})
    best = None
    for combo in itertools.permutations(pages, len(rows)):
        if all(p in row for p, row in zip(combo, rows)):
            value = min(row[p] for p, row in zip(combo, rows))
            best = value if best is None else max(best, value)
    return best


class HandCasesTest(unittest.TestCase):
    def test_three_conditions(self):
        # c1: p1 5, p2 4, p3 1;  c2: p1 6, p2 1;  c3: p1 3, p3 2.
        # Injective assignments (c1, c2, c3) and their minima:
        #   (2,1,3): min(4,6,2) = 2;  (1,2,3): min(5,1,2) = 1;  (3,2,1): min(1,1,3) = 1;
        #   (3,1,?): c3 needs p1 or p3, both used;  (1,?,?): c2 must take p2 -> (1,2,3).
        # Optimum 2 with the unique assignment c1->p2, c2->p1, c3->p3.
        rows = [{1: 5, 2: 4, 3: 1}, {1: 6, 2: 1}, {1: 3, 3: 2}]
        self.assertEqual(bottleneck_assignment(rows), (2, (2, 1, 3)))

    def test_greedy_would_fail(self):
        # Giving c1 its best page p1 leaves c2 nothing; the optimum is c1->p2 (9), c2->p1 (8).
        self.assertEqual(bottleneck_assignment([{1: 10, 2: 9}, {1: 8}]), (8, (2, 1)))

    def test_no_injective_assignment(self):
        # both conditions only on page 1: the single-page case has no distinct-page reading
        self.assertIsNone(bottleneck_assignment([{1: 3}, {1: 5}]))
        self.assertIsNone(bottleneck_assignment([{1: 3}, {}]))

    def test_pruning_needs_n_pages(self):
        # The optimum uses c2's *third* best page, so keeping only n - 1 = 2 pages per condition
        # would be wrong; keeping n = 3 is exact. c1: p1 9, p2 8, p3 1; c2: p1 9, p2 8, p3 2;
        # c3: p1 7.
        # c3 must take p1 (7); c1 and c2 then split p2 (8) and p3 (1 or 2):
        # (c1 p2, c2 p3) -> min(8, 2, 7) = 2; (c1 p3, c2 p2) -> min(1, 8, 7) = 1. Optimum 2.
        rows = [{1: 9, 2: 8, 3: 1}, {1: 9, 2: 8, 3: 2}, {1: 7}]
        self.assertEqual(bottleneck_assignment(rows), (2, (2, 3, 1)))

    def test_tables(self):
        tables = [{"a": {1: 1.0, 2: 2.0}, "b": {1: 1.0}}, {"a": {1: 3.0}, "b": {1: 2.0}}]
        # a: c1->p2 (2), c2->p1 (3): 2.  b: both need p1: no score.
        self.assertEqual(sdr_tables(tables), {"a": (2.0, (2, 1))})


class BruteForceTest(unittest.TestCase):
    def test_random_cases(self):
        rng = random.Random(20261201)
        for case in range(3000):
            n = rng.randint(1, 4)
            n_pages = rng.randint(1, 7)
            rows = []
            for _ in range(n):
                pages = [p for p in range(1, n_pages + 1) if rng.random() < 0.6]
                # small integer scores create many ties
                rows.append({p: rng.randint(0, 5) for p in pages})
            expected = brute_force(rows)
            found = bottleneck_assignment(rows)
            if expected is None:
                self.assertIsNone(found, (case, rows))
                continue
            self.assertIsNotNone(found, (case, rows))
            value, assignment = found
            self.assertEqual(value, expected, (case, rows))
            self.assertEqual(len(set(assignment)), n)  # distinct pages
            self.assertEqual(min(row[p] for p, row in zip(assignment, rows)), value)


class BM25SDRTest(unittest.TestCase):
    def test_hand_corpus(self):
        # Same corpus as test_retrieval_bm25 (k1 1.2, b 0.75; page avgdl 2, N 5).
        index = LexicalIndex.from_pages({"d1": ["apple banana", "apple"],
                                         "d2": ["banana cherry cherry"],
                                         "d3": ["cherry", "date date date", ""]}, 1.2, 0.75)
        # apple: page df 2, idf ln 2.4: d1p1 ln2.4/2.2, d1p2 ln2.4/1.75.
        # banana: page df 2, idf ln 2.4: d1p1 ln2.4/2.2, d2p1 ln2.4 * 1/(1 + 1.65).
        # d1: banana must take p1 (its only page), apple takes p2:
        #     S = min(ln2.4/2.2, ln2.4/1.75) = ln2.4/2.2.   d2: no apple page -> unscored.
        hits = bm25_sdr(index, ["apple", "banana"])
        self.assertEqual([h.docid for h in hits], ["d1"])
        self.assertAlmostEqual(hits[0].score, math.log(2.4) / 2.2, places=12)
        self.assertEqual([p for p, _ in hits[0].pages], [2, 1])
        # both conditions only on d2's single page: no distinct-page assignment anywhere
        self.assertEqual([h.docid for h in bm25_sdr(index, ["banana", "cherry"])], [])


if __name__ == "__main__":
    unittest.main()
