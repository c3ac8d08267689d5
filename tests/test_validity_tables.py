"""The issue-14 table kinds on the hand-made example release (expected values worked out by
hand from data/example/, see tests/test_example_release.py for the per-query outcomes)."""

import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.errors import InputError
from nclue.tables.kinds import table_from_dict

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def cells(table):
    return {row: values for row, _, values in table.rows}


class ExampleTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = ReleaseContext(EXAMPLE)

    def build(self, obj):
        return table_from_dict(obj, self.ctx)

    def test_tie_sensitivity(self):
        # n-Clue: lexical 3/6 (q1, q4, q5) under input ties, 2/6 under trec_eval (q1's 5.0 tie
        # puts subset d02 before gold d01), 2.5/6 in expectation (q1 succeeds with probability
        # 1/2: gold and subset tied at rank 1); dense 3/6 (q2, q3, q5) and has no tied scores.
        t = self.build({"id": "t", "kind": "tie_sensitivity", "contrasts": [
            {"id": "c", "base": "example_lexical", "variant": "example_dense"}]})
        c = cells(t)["c"]
        self.assertAlmostEqual(c["delta:input"], 0.0)
        self.assertAlmostEqual(c["delta:trec_eval"], 100 * 1 / 6)
        self.assertAlmostEqual(c["delta:expected"], 100 * 0.5 / 6)
        self.assertAlmostEqual(c["spread"], 100 * 1 / 6)
        self.assertEqual((c["tied_base"], c["tied_variant"], c["tied_either"]), (1, 0, 1))

    def test_tie_view_equals_the_scorer_under_each_rule(self):
        # the view re-scores only tied rankings; the scorer re-reads the files under the rule
        # (trec_eval's q1 result is worked by hand in test_example_release; the expected rule is
        # tested against brute-force enumeration of tie orders in test_ties)
        from nclue.tie_rules import TieView
        view = TieView(self.ctx)
        for rule in ("trec_eval", "expected"):
            other = ReleaseContext(EXAMPLE, ties=rule)
            for run_id in self.ctx.index:
                for name in ("nclue_score@10", "gold_hit@10", "gold_ndcg@10", "auc", "hc@10",
                             "condition_coverage@10", "gold_support@10"):
                    measure = self.ctx.registry.parse(name)
                    mine, theirs = view.vector(run_id, measure, rule), other.vector(run_id, measure)
                    if mine is None or theirs is None:
                        self.assertEqual(mine, theirs)
                        continue
                    self.assertEqual(mine.keys(), theirs.keys(), (rule, run_id, name))
                    for q in mine:
                        self.assertAlmostEqual(mine[q], theirs[q], 12, (rule, run_id, name, q))

    def test_unknown_tie_rule_is_refused(self):
        with self.assertRaises(InputError):
            self.build({"id": "t", "kind": "tie_sensitivity", "ties": ["input", "random"],
                        "contrasts": [{"id": "c", "base": "example_lexical",
                                       "variant": "example_dense"}]})

    def test_worked_example(self):
        # q1: gold d01 (2 clues, 12 pages; Acknowledgements on page 2, TikZ on 5 and 6);
        # subset d02 (1 clue, 8 pages; Acknowledgements on page 1, no TikZ page).
        # example_lexical ranks d01 first and d02 second (tied 5.0, input order).
        t = self.build({"id": "w", "kind": "worked_example", "qid": "q1",
                        "docs": ["d01", "d02"], "runs": ["example_lexical"]})
        c = cells(t)
        self.assertEqual(c["d01"], {"grade": 2, "pages": 12, "c1:first": 2, "c1:count": 1,
                                    "c2:first": 5, "c2:count": 2, "rank:example_lexical": 1})
        self.assertEqual(c["d02"], {"grade": 1, "pages": 8, "c1:first": 1, "c1:count": 1,
                                    "c2:count": 0, "rank:example_lexical": 2})
        with self.assertRaises(InputError):
            self.build({"id": "w", "kind": "worked_example", "qid": "q1", "docs": ["d09"]})

    def test_ranked_matrix(self):
        # pages 4/6, lexical 3/6, dense 3/6: ranks 1, 2, 2 (ties share the best rank)
        t = self.build({"id": "m", "kind": "ranked_matrix", "runs": "all", "replicates": 50})
        ranks = {row: values["rank"] for row, values in cells(t).items()}
        self.assertEqual(ranks, {"example_pages": 1, "example_dense": 2, "example_lexical": 2})
        self.assertEqual([row for row, _, _ in t.rows],
                         ["example_pages", "example_dense", "example_lexical"])
        t = self.build({"id": "m", "kind": "ranked_matrix", "runs": "all", "rank_from": 2,
                        "rank_to": 2, "replicates": 50})
        self.assertEqual(len(t.rows), 2)
        t = self.build({"id": "d", "kind": "ranked_matrix", "runs": ["example_dense"],
                        "ranked": 0, "replicates": 50})
        self.assertNotIn("rank", cells(t)["example_dense"])

    def test_ranked_matrix_intervals_are_the_family_bootstrap(self):
        from nclue import inference
        t = self.build({"id": "m", "kind": "ranked_matrix", "runs": "all", "replicates": 80})
        score = self.ctx.registry.measure("nclue_score", 10)
        for run_id, values in cells(t).items():
            alone = inference.family_bootstrap(self.ctx.vector(run_id, score), self.ctx.families,
                                               replicates=80, seed=11)
            self.assertEqual((values["lo"], values["hi"]), (100 * alone.lo, 100 * alone.hi))

    def test_page_coverage_by_n(self):
        # example_pages, queries with a top-10 gold: n=2: q1 (full), q3 (0 of 2 conditions),
        # q6 (full); n=3: q2 (full), q4 (full). q5 retrieves no gold.
        t = self.build({"id": "p", "kind": "page_coverage_by_n", "runs": ["example_pages"]})
        c = cells(t)["example_pages"]
        self.assertEqual((c["n2:queries"], c["n3:queries"]), (3, 2))
        self.assertAlmostEqual(c["n2:full"], 100 * 2 / 3)
        self.assertAlmostEqual(c["n2:cond"], 100 * 2 / 3)
        self.assertAlmostEqual(c["n3:full"], 100.0)

    def test_length_matched_auc(self):
        # ratio 1.25 keeps (d01 12 pp, d10 11), (d01, d11 14) in q1 and (d10 11, d01 12) in q4; no
        # other pair of q1-q6 is within 25% (e.g. q2's golds have 15-20 pages, its subsets 7-10).
        # dense: q1 ranks d10, d11 before d01 -> 0; q4 ranks d10 second, d01 unretrieved -> 1:
        # matched AUC 50. All pairs on q1, q4: q1 0 (d01 last), q4 4/5 (only d02 precedes d10): 40.
        # All queries with a gold and a subset: q1 0, q2 5/6 (d04 behind d08), q3 1, q4 0.8, q6 0.
        t = self.build({"id": "l", "kind": "length_matched_auc", "replicates": 50,
                        "runs": ["example_dense", "example_lexical"]})
        c = cells(t)["example_dense"]
        self.assertEqual(c["queries"], 2)
        self.assertAlmostEqual(c["auc_matched"], 50.0)
        self.assertAlmostEqual(c["auc_same"], 40.0)
        self.assertAlmostEqual(c["delta"], 10.0)
        self.assertAlmostEqual(c["auc_all"], 100 * (0 + 5 / 6 + 1 + 0.8 + 0) / 5)
        # lexical ranks both golds first: every pair won, matched or not
        self.assertAlmostEqual(cells(t)["example_lexical"]["auc_matched"], 100.0)
        self.assertIn("3 of 19 pairs", t.note)

    def test_density_matched(self):
        # judged pools: q1 5, q2 5, q3 3, q4 6, q5 2, q6 3; 3-condition queries q2, q4. At ratio
        # 1.1 q2 (5) takes q1 (5); q4 (6) finds no 2-condition pool in [5.45, 6.6]. Lexical n-Clue:
        # q1 1, q2 0 -> matched 3 - 2 difference -100 points.
        t = self.build({"id": "d", "kind": "density_matched", "runs": ["example_lexical"],
                        "replicates": 50})
        c = cells(t)
        self.assertEqual(c["group:m3"]["queries"], 1)
        self.assertEqual(c["group:m2"]["pool"], 5.0)
        self.assertAlmostEqual(c["example_lexical"]["m2"], 100.0)
        self.assertAlmostEqual(c["example_lexical"]["m3"], 0.0)
        self.assertAlmostEqual(c["example_lexical"]["delta"], -100.0)
        # all queries: n=2 (q1, q3, q5, q6) lexical successes q1, q5 -> 50; n=3 (q2, q4): q4 -> 50
        self.assertAlmostEqual(c["example_lexical"]["all2"], 50.0)
        self.assertAlmostEqual(c["example_lexical"]["all3"], 50.0)
        self.assertEqual((c["group:n2"]["queries"], c["group:n3"]["queries"]), (4, 2))

    def test_masking_c3_uses_three_condition_queries_only(self):
        # (a stand-in pairing: example_dense plays the "drop c3" run of example_lexical)
        # Gold-NDCG@10 on the 3-condition queries: q2 lexical golds at 2 and 4:
        # (1/log2 3 + 1/log2 5) / (1 + 1/log2 3); dense golds at 1 and 3: (1 + 1/log2 4) / (1 +
        # 1/log2 3). q4 (one gold, d10): lexical rank 1 -> 1; dense rank 2 -> 1/log2 3.
        import math
        ideal = 1 + 1 / math.log2(3)
        lex = [(1 / math.log2(3) + 1 / math.log2(5)) / ideal, 1.0]
        den = [(1 + 1 / math.log2(4)) / ideal, 1 / math.log2(3)]
        t = self.build({"id": "m", "kind": "masking", "replicates": 50, "systems": [
            {"id": "s", "base": "example_lexical", "drop_c3": "example_dense"}]})
        c = cells(t)["s"]
        self.assertEqual(c["c3:queries"], 2)
        self.assertAlmostEqual(c["c3:delta"], 100 * ((den[0] - lex[0]) + (den[1] - lex[1])) / 2)
        self.assertNotIn("c1:delta", c)

    def test_findings_not_testable_and_equivalence_margin_required(self):
        t = self.build({"id": "f", "kind": "findings", "findings": [
            {"id": "u", "statement": "Scale does not help", "untestable": "one size only"}]})
        self.assertEqual(cells(t)["u"], {"verdict": -3.0})
        with self.assertRaises(InputError):  # a no-effect finding without a margin
            self.build({"id": "f", "kind": "findings", "findings": [
                {"id": "z", "statement": "s", "base": "example_lexical",
                 "variant": "example_dense", "direction": "0"}]})
        t = self.build({"id": "f", "kind": "findings", "replicates": 200, "findings": [
            {"id": "z", "statement": "s", "base": "example_lexical", "variant": "example_dense",
             "direction": "0", "margin": 50}]})
        # lexical and dense both score 3/6: delta 0; six queries cannot show equivalence within
        # 50 points unless the 90% interval is inside (-50, 50): the verdict is 1 or 0, never -2
        self.assertAlmostEqual(cells(t)["z"]["delta"], 0.0)
        self.assertIn(cells(t)["z"]["verdict"], (0.0, 1.0))

    def test_metric_agreement(self):
        t = self.build({"id": "a", "kind": "metric_agreement", "runs": "all"})
        c = cells(t)
        self.assertIn("agreement", c)
        self.assertGreaterEqual(c["agreement"]["rho"], -1.0)
        self.assertLessEqual(c["agreement"]["rho"], 1.0)

    def test_source_shift_needs_a_sibling_release(self):
        with self.assertRaises(InputError):
            self.build({"id": "s", "kind": "source_shift", "other": "no_such_release",
                        "operations": [{"id": "o", "base": "example_lexical",
                                        "variant": "example_dense"}]})


if __name__ == "__main__":
    unittest.main()


class TiesTouchJudged(unittest.TestCase):
    """A tie among unjudged documents changes no measure, so the tie views skip it."""

    def test_rule(self):
        from nclue.runs import Ranking
        from nclue.tie_rules import ties_touch_judged
        judged = {"g": 2, "s": 1}
        self.assertFalse(ties_touch_judged(Ranking("q", ("g", "u1", "u2"), (3.0, 1.0, 1.0)), judged))
        self.assertTrue(ties_touch_judged(Ranking("q", ("u1", "g", "u2"), (2.0, 2.0, 1.0)), judged))
        self.assertTrue(ties_touch_judged(Ranking("q", ("s", "u1"), (1.0, 1.0)), judged))
        self.assertFalse(ties_touch_judged(Ranking("q", ("g", "s"), (2.0, 1.0)), judged))
