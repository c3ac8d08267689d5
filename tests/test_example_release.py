"""The worked example release (data/example/), scored by hand.

The inventory lives in tools/make_example.py. Every expected number below is derived by hand from
the definitions in the n-Clue paper (sec. 3.1, Table 4, Table S5b); the arithmetic is in comments.
"""

import math
import unittest
from pathlib import Path

from nclue.metrics import evaluate, per_query
from nclue.release import gold_families, load_release
from nclue.runs import load_run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def lg(rank):
    """The log2(rank + 1) discount, written out for the hand computations."""
    return 1.0 / math.log2(rank + 1)


class ExampleQrels(unittest.TestCase):
    """The qrels follow from the inventory by the construction rules (sec. 3.2)."""

    @classmethod
    def setUpClass(cls):
        cls.release = load_release(EXAMPLE)

    def test_counts(self):
        self.assertEqual(len(self.release.queries), 6)
        self.assertEqual(len(self.release.corpus), 12)
        rows = sum(len(j) for j in self.release.judgments.values())
        # q1 5 + q2 5 + q3 3 + q4 6 + q5 2 + q6 3 = 24 judged pairs
        self.assertEqual(rows, 24)

    def test_same_page_all_condition_document_is_a_subset(self):
        # d03 has Acknowledgements and TikZ both only on page 3: no distinct pages -> subset.
        j = self.release.judgments["q1"]["d03"]
        self.assertEqual((j.clues, j.label, j.gate), (2, "subset", "single_page"))

    def test_distinct_page_failure_is_a_subset(self):
        # d08: Bibliography {5}, PGF {5}, hyperref {6}; no page holds all three, but
        # Bibliography and PGF compete for page 5, so no injective assignment exists.
        j = self.release.judgments["q2"]["d08"]
        self.assertEqual((j.clues, j.label, j.gate), (3, "subset", "distinct_page"))

    def test_golds(self):
        golds = {q: self.release.golds(q) for q in sorted(self.release.queries)}
        self.assertEqual(golds, {"q1": ("d01",), "q2": ("d04", "d05"), "q3": ("d09",),
                                 "q4": ("d10",), "q5": ("d11", "d12"), "q6": ("d11", "d12")})

    def test_families(self):
        families = gold_families(self.release)
        # q5 and q6 share the gold set {d11, d12}: 5 families for 6 queries.
        self.assertEqual(len(set(families.values())), 5)
        self.assertEqual(families["q5"], families["q6"])


class ExampleScores(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = load_release(EXAMPLE)

    def run_(self, name, ties="input"):
        return load_run(EXAMPLE / "runs" / f"{name}.jsonl.gz", self.release, ties=ties)

    def test_lexical_run(self):
        # q1: d01(gold) ties d02(subset) at 5.0; input order keeps d01 first -> success.
        # q2: d06 subset at 1, golds at 2 and 4 -> subset first.  q3: no gold retrieved.
        # q4: gold at 1 -> success.  q5: unjudged d03 first, gold at 2, no subset -> success.
        # q6: absent from the run -> empty ranking, no gold.
        scores = evaluate(self.release, self.run_("example_lexical"))
        self.assertAlmostEqual(scores["nclue_score@10"], 100 * 3 / 6)
        self.assertAlmostEqual(scores["gold_hit@10"], 100 * 4 / 6)
        self.assertAlmostEqual(scores["complete_first@10"], 100 * 3 / 6)
        self.assertAlmostEqual(scores["subset_first@10"], 100 * 1 / 6)
        self.assertAlmostEqual(scores["no_gold@10"], 100 * 2 / 6)
        # Gold-NDCG: q1 1; q2 golds at 2,4 over ideal ranks 1,2; q3 0; q4 1;
        # q5 golds at 2,3 over ideal 1,2; q6 0.
        q2 = (lg(2) + lg(4)) / (lg(1) + lg(2))
        q5 = (lg(2) + lg(3)) / (lg(1) + lg(2))
        self.assertAlmostEqual(scores["gold_ndcg@10"], 100 * (1 + q2 + 0 + 1 + q5 + 0) / 6)
        # AUC: q1 gold first beats all 4 subsets = 1; q2 d04 beats d07,d08 and d05 beats d08:
        # 3 of 6 pairs = .5; q3 gold unretrieved, both subsets retrieved = 0; q4 = 1;
        # q5 no subset (undefined); q6 nothing retrieved: 2 tied pairs = .5. Mean over 5 = .6.
        self.assertAlmostEqual(scores["auc"], 60.0)
        self.assertEqual(scores["auc_queries"], 5)
        # Graded NDCG, gains = clue counts. q1 judged gains 2,2,1,1,1; ranking d01(2) d02(1) d03(2).
        q1 = (2 * lg(1) + 1 * lg(2) + 2 * lg(3)) / (2 * lg(1) + 2 * lg(2) + lg(3) + lg(4) + lg(5))
        # q2 gains 3,3,3,2,1; ranking d06(2) d04(3) d07(1) d05(3).
        q2g = (2 * lg(1) + 3 * lg(2) + 1 * lg(3) + 3 * lg(4)) / (
            3 * lg(1) + 3 * lg(2) + 3 * lg(3) + 2 * lg(4) + 1 * lg(5))
        # q3 gains 2,1,1; ranking d01(1) d10(1).
        q3 = (lg(1) + lg(2)) / (2 * lg(1) + lg(2) + lg(3))
        # q4 gains 3,2,1,1,1,1; ranking d10(3) d11(2) d12(1).
        q4 = (3 * lg(1) + 2 * lg(2) + 1 * lg(3)) / (
            3 * lg(1) + 2 * lg(2) + lg(3) + lg(4) + lg(5) + lg(6))
        # q5 gains 2,2; ranking d03(0) d12(2) d11(2).
        q5g = (2 * lg(2) + 2 * lg(3)) / (2 * lg(1) + 2 * lg(2))
        self.assertAlmostEqual(scores["graded_ndcg@10"], 100 * (q1 + q2g + q3 + q4 + q5g + 0) / 6)
        self.assertEqual(scores["queries"], 6)
        self.assertNotIn("gold_support@10", scores)  # not a page-scored run

    def test_trec_eval_tie_rule_changes_q1(self):
        # Under trec_eval's rule the 5.0 tie is broken by docid descending: d02 before d01,
        # so q1 becomes subset-first: 2 successes of 6.
        scores = evaluate(self.release, self.run_("example_lexical", ties="trec_eval"))
        self.assertAlmostEqual(scores["nclue_score@10"], 100 * 2 / 6)
        self.assertAlmostEqual(scores["subset_first@10"], 100 * 2 / 6)

    def test_dense_run(self):
        # q1 gold at 5 after subset at 1; q2 gold at 1; q3 gold at 1; q4 subset d02 at 1, gold at 2;
        # q5 gold at 1; q6 subset d03 at 1.
        scores = evaluate(self.release, self.run_("example_dense"))
        self.assertAlmostEqual(scores["nclue_score@10"], 50.0)
        self.assertAlmostEqual(scores["gold_hit@10"], 100.0)
        self.assertAlmostEqual(scores["subset_first@10"], 50.0)
        self.assertAlmostEqual(scores["no_gold@10"], 0.0)

    def test_cutoff(self):
        # At k = 1 the dense run succeeds on q2, q3, q5 only (gold at rank 1, nothing before it).
        vectors = per_query(self.release, self.run_("example_dense"), k=1)
        self.assertEqual(vectors["nclue_score@1"],
                         {"q1": 0, "q2": 1, "q3": 1, "q4": 0, "q5": 1, "q6": 0})

    def test_page_run(self):
        # Top-3 distinct pages per top-10 gold (stable order on ties):
        # q1 d01 {2,5,9}: Ack{2} yes, TikZ{5,6} yes -> full.
        # q2 d04 {1,4,3}: hyperref{9} missed; d05 {7,2,3} (7 and 2 tie at .5, 7 first) -> full.
        # q3 d09 by score {1,2,5}: Index{28} and beamer{3,4} missed -> 0 of 2 conditions.
        # q4 d10 pages 1(.9) 1(.8, repeat) 7(.8) 9(.7) -> distinct {1,7,9} -> full, though the
        #    subset d11 precedes the gold (n-Clue fails, Gold+Support succeeds).
        # q5 no gold retrieved.  q6 d12 {4,21} -> full; d11 has no page scores.
        scores = evaluate(self.release, self.run_("example_pages"))
        self.assertAlmostEqual(scores["nclue_score@10"], 100 * 4 / 6)
        self.assertAlmostEqual(scores["gold_hit@10"], 100 * 5 / 6)
        self.assertAlmostEqual(scores["gold_support@10"], 100 * 4 / 6)
        self.assertEqual(scores["gold_support@10_queries"], 6)
        # Conditional on a top-10 gold (q1,q2,q3,q4,q6): condition fractions 1,1,0,1,1.
        self.assertAlmostEqual(scores["condition_coverage@10"], 80.0)
        self.assertAlmostEqual(scores["full_coverage@10"], 80.0)
        self.assertEqual(scores["condition_coverage@10_queries"], 5)

    def test_outcomes_sum_to_100(self):
        for name in ("example_lexical", "example_dense", "example_pages"):
            s = evaluate(self.release, self.run_(name))
            self.assertAlmostEqual(s["complete_first@10"] + s["subset_first@10"] + s["no_gold@10"],
                                   100.0)


if __name__ == "__main__":
    unittest.main()
