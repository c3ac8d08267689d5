"""The tie rule ``expected`` and tie-decided outcomes (nclue.ties).

Oracle: exhaustive enumeration of every order within every tie group (the product of the groups'
permutations), scoring each order with the deterministic definitions of nclue.metrics and
averaging. A few cases are also worked out by hand (arithmetic in comments).
"""

import io
import math
import random
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from itertools import permutations, product
from pathlib import Path

from nclue.cli import main
from nclue.metrics import QueryFacts, evaluate, per_query, query_outcome
from nclue.release import load_release
from nclue.runs import Ranking, load_run
from nclue.ties import (expected_auc, expected_gold_hit, expected_nclue, expected_outcome,
                        tie_decided_queries, tie_decides, tie_groups)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def facts_of(golds, subsets, clues=None, n_conditions=2, support=None):
    clues = clues or {**{d: n_conditions for d in golds}, **{d: 1 for d in subsets}}
    return QueryFacts("q", n_conditions, frozenset(golds), frozenset(subsets), clues,
                      support or {})


def all_orders(ranking):
    """Every ranking obtained by permuting documents within tie groups."""
    groups = tie_groups(ranking.docs, ranking.scores)
    for choice in product(*(permutations(g.docs) for g in groups)):
        docs = tuple(d for part in choice for d in part)
        yield Ranking(ranking.qid, docs, ranking.scores, ranking.pages)


def brute_force(facts, ranking, k, page_scored):
    """Averages over all tie orders (exact Fractions for the 0/1 measures; AUC and coverage sum
    the per-order floats, so they are compared to 1e-15)."""
    outs = [query_outcome(facts, r, k, page_scored) for r in all_orders(ranking)]
    n = len(outs)
    result = {
        "nclue": Fraction(sum(o.nclue for o in outs), n),
        "gold_hit": Fraction(sum(o.gold_hit for o in outs), n),
        "subset_first": Fraction(sum(o.subset_first for o in outs), n),
        "gold_ndcg": math.fsum(o.gold_ndcg for o in outs) / n,
        "graded_ndcg": math.fsum(o.graded_ndcg for o in outs) / n,
        "auc": None if outs[0].auc is None else sum(Fraction(o.auc) for o in outs) / n,
    }
    if page_scored:
        result["gold_support"] = Fraction(sum(o.gold_support for o in outs), n)
        hits = [o for o in outs if o.gold_hit]
        if hits:
            result["condition_coverage"] = sum(Fraction(o.condition_coverage) for o in hits) / len(hits)
            result["full_coverage"] = Fraction(sum(o.full_coverage for o in hits), len(hits))
        else:
            result["condition_coverage"] = result["full_coverage"] = None
    return result


class HandWorked(unittest.TestCase):
    def test_gold_and_subset_tied_at_the_top(self):
        # [g, s] share one score: the gold is first in 1 of 2 orders.
        facts = facts_of({"g"}, {"s"})
        groups = tie_groups(("g", "s"), (1.0, 1.0))
        self.assertEqual(expected_nclue(facts.golds, facts.subsets, groups, 10), Fraction(1, 2))
        self.assertEqual(expected_gold_hit(facts.golds, groups, 10), 1)
        self.assertEqual(expected_auc(facts.golds, facts.subsets, groups), Fraction(1, 2))

    def test_group_straddling_the_cut(self):
        # x (unjudged) at rank 1, then g, u1, u2 tied at ranks 2..4; k = 2: one slot of three.
        # P(hit) = P(success) = 1/3; E[Gold-NDCG@2] = (1/3) * (1/log2 3) / 1 (one gold: IDCG 1).
        facts = facts_of({"g"}, set())
        ranking = Ranking("q", ("x", "g", "u1", "u2"), (2.0, 1.0, 1.0, 1.0))
        out = expected_outcome(facts, ranking, 2)
        self.assertEqual(out.gold_hit, 1 / 3)
        self.assertEqual(out.nclue, 1 / 3)
        self.assertAlmostEqual(out.gold_ndcg, (1 / 3) / math.log2(3), places=15)

    def test_gold_subset_and_two_unjudged_tied_k2(self):
        # g, s, u, u tied at ranks 1..4, k = 2. Of the 24 orders, success needs g before s and g
        # in rank 1 or 2: g at 1 (s anywhere, 3 places x 2 orders of the u's = 6) or g at 2 with
        # s at 3 or 4 (2 x 2 = 4): 10/24 = 5/12 (the closed form: 1/2 * (1 - C(2,2)/C(4,2))).
        facts = facts_of({"g"}, {"s"})
        groups = tie_groups(("g", "s", "u1", "u2"), (1.0,) * 4)
        self.assertEqual(expected_nclue(facts.golds, facts.subsets, groups, 2), Fraction(5, 12))
        # P(hit@2) = 1 - C(3,2)/C(4,2) = 1 - 3/6 = 1/2
        self.assertEqual(expected_gold_hit(facts.golds, groups, 2), Fraction(1, 2))

    def test_tie_groups(self):
        groups = tie_groups(("a", "b", "c", "d"), (3.0, 2.0, 2.0, 1.0))
        self.assertEqual([(g.start, g.docs) for g in groups],
                         [(1, ("a",)), (2, ("b", "c")), (4, ("d",))])
        with self.assertRaises(ValueError):
            tie_groups(("a", "b"), (1.0, 2.0))

    def test_tie_decides(self):
        facts = facts_of({"g"}, {"s"})
        self.assertTrue(tie_decides(facts, Ranking("q", ("g", "s"), (1.0, 1.0)), 10))
        self.assertFalse(tie_decides(facts, Ranking("q", ("g", "s"), (2.0, 1.0)), 10))
        # two golds tied with nothing else judged: success is certain whatever the order
        self.assertFalse(tie_decides(facts_of({"g", "h"}, {"s"}),
                                     Ranking("q", ("g", "h", "s"), (1.0, 1.0, 0.5)), 10))
        # tied beyond the cut: the outcome is a certain miss
        self.assertFalse(tie_decides(facts, Ranking("q", ("x", "g", "s"), (2.0, 1.0, 1.0)), 1))
        self.assertFalse(tie_decides(facts, None, 10))


class BruteForce(unittest.TestCase):
    """Random small queries: the closed forms equal the average over all tie orders."""

    def test_random_cases(self):
        rng = random.Random(20261202)
        checked = 0
        while checked < 400:
            n = rng.randint(1, 7)
            docs = [f"d{i}" for i in range(n)]
            scores = sorted((float(rng.randint(1, 3)) for _ in docs), reverse=True)
            if math.prod(math.factorial(g.size) for g in tie_groups(docs, scores)) > 720:
                continue
            n_cond = rng.choice((2, 3))
            roles = {d: rng.choice(("gold", "subset", "none")) for d in docs + ["x1", "x2"]}
            golds = {d for d, r in roles.items() if r == "gold"}
            subsets = {d for d, r in roles.items() if r == "subset"}
            clues = {**{d: n_cond for d in golds}, **{d: rng.randint(1, n_cond) for d in subsets}}
            support = {d: tuple(frozenset(rng.sample(range(1, 5), rng.randint(1, 2)))
                                for _ in range(n_cond))
                       for d in golds if rng.random() < 0.8}
            page_scored = rng.random() < 0.5
            pages = None
            if page_scored:
                pages = {d: tuple((rng.randint(1, 4), float(rng.randint(1, 3)))
                                  for _ in range(rng.randint(0, 4)))
                         for d in docs if rng.random() < 0.8}
            facts = QueryFacts("q", n_cond, frozenset(golds), frozenset(subsets), clues, support)
            ranking = Ranking("q", tuple(docs), tuple(scores), pages)
            for k in sorted({1, 2, 3, n, n + 1}):
                want = brute_force(facts, ranking, k, page_scored)
                got = expected_outcome(facts, ranking, k, page_scored)
                where = f"{docs} {scores} golds={sorted(golds)} subsets={sorted(subsets)} k={k}"
                self.assertEqual(got.nclue, float(want["nclue"]), where)
                self.assertEqual(got.gold_hit, float(want["gold_hit"]), where)
                self.assertAlmostEqual(got.subset_first, float(want["subset_first"]), 15, where)
                self.assertAlmostEqual(got.gold_ndcg, want["gold_ndcg"], 12, where)
                self.assertAlmostEqual(got.graded_ndcg, want["graded_ndcg"], 12, where)
                if want["auc"] is None:
                    self.assertIsNone(got.auc, where)
                else:
                    self.assertAlmostEqual(got.auc, float(want["auc"]), 15, where)
                if page_scored:
                    self.assertEqual(got.gold_support, float(want["gold_support"]), where)
                    for name in ("condition_coverage", "full_coverage"):
                        value = getattr(got, name)
                        if want[name] is None:
                            self.assertIsNone(value, where)
                        else:
                            self.assertAlmostEqual(value, float(want[name]), 15, where)
                decided = 0 < want["nclue"] < 1 or 0 < want["gold_hit"] < 1
                self.assertEqual(tie_decides(facts, ranking, k), decided, where)
            checked += 1


class HardCoverage(unittest.TestCase):
    """E[HC@k] (Multi3IR eq. 5) against the average of nclue.coverage.hard_coverage over all tie
    orders, on random small cases and on the example release."""

    def test_random_cases(self):
        from nclue.coverage import hard_coverage
        from nclue.ties import expected_hard_coverage
        rng = random.Random(5)
        for _ in range(300):
            n = rng.randint(1, 7)
            docs = [f"d{i}" for i in range(n)]
            scores = sorted((float(rng.randint(1, 3)) for _ in docs), reverse=True)
            if math.prod(math.factorial(g.size) for g in tie_groups(docs, scores)) > 720:
                continue
            supports = [frozenset(rng.sample(docs + ["x"], rng.randint(1, min(3, n + 1))))
                        for _ in range(rng.randint(1, 3))]
            ranking = Ranking("q", tuple(docs), tuple(scores))
            for k in sorted({1, 2, n}):
                orders = [r.docs for r in all_orders(ranking)]
                want = math.fsum(hard_coverage(supports, d, k) for d in orders) / len(orders)
                got = expected_hard_coverage(supports, tie_groups(docs, scores), k)
                self.assertAlmostEqual(float(got), want, places=12)

    def test_example_q1_through_score(self):
        # example_lexical q1: d01 (gold) and d02 tie at rank 1-2. HC@1 of the two orders, from
        # nclue.coverage.hard_coverage on the release's perspectives, averaged = the expectation.
        from nclue.api import score
        from nclue.coverage import hard_coverage, perspectives_from_release
        release = load_release(EXAMPLE)
        supports = [p.docs for p in perspectives_from_release(release)["q1"].perspectives]
        want = (hard_coverage(supports, ("d01", "d02"), 1) + hard_coverage(supports, ("d02", "d01"), 1)) / 2
        run = load_run(EXAMPLE / "runs" / "example_lexical.jsonl.gz", release, ties="expected")
        got = score(release, run, ["hc@1"]).per_query["hc@1"]["q1"]
        self.assertAlmostEqual(got, want, places=15)
        self.assertNotEqual(want, hard_coverage(supports, ("d01", "d02"), 1))  # the tie matters


class ExampleRelease(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = load_release(EXAMPLE)

    def run_(self, name, ties):
        return load_run(EXAMPLE / "runs" / f"{name}.jsonl.gz", self.release, ties=ties)

    def test_no_tie_means_expected_equals_input(self):
        # example_dense and example_pages have no equal document scores within a query.
        for name in ("example_dense", "example_pages"):
            self.assertEqual(per_query(self.release, self.run_(name, "expected")),
                             per_query(self.release, self.run_(name, "input")))

    def test_expected_on_the_lexical_run(self):
        # example_lexical q1: d01 (gold) and d02 (subset) tie at 5.0 at ranks 1-2, d03 (subset) at
        # 4.0. Input order: success; trec_eval (d02 > d01): subset first. Expected: 1/2 each.
        # The other five queries have no ties: n-Clue = (1/2 + 2 successes of input on q2..q6)/6
        # = (3 - 1/2)/6 -> 41.67 (input: 3/6 = 50.00; trec_eval: 2/6 = 33.33).
        expected = evaluate(self.release, self.run_("example_lexical", "expected"))
        self.assertAlmostEqual(expected["nclue_score@10"], 100 * 2.5 / 6, places=12)
        self.assertAlmostEqual(expected["subset_first@10"], 100 * 1.5 / 6, places=12)
        # AUC q1: d01 vs d02 tied (1/2), d01 before d03 (1), vs d10 and d11 unretrieved (1, 1):
        # 3.5/4; input gives 4/4, so the mean over 5 AUC queries drops by (1/8)/5 = 2.5 points.
        inp = evaluate(self.release, self.run_("example_lexical", "input"))
        self.assertAlmostEqual(inp["auc"] - expected["auc"], 2.5, places=12)
        run = self.run_("example_lexical", "input")
        from nclue.metrics import query_facts
        self.assertEqual(tie_decided_queries(query_facts(self.release), run, 10), ("q1",))


class ScoreCommand(unittest.TestCase):
    def score(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["score", *argv])
        return code, out.getvalue(), err.getvalue()

    def test_tie_count_and_warning(self):
        lexical = str(EXAMPLE / "runs" / "example_lexical.jsonl.gz")
        code, out, err = self.score(lexical, "--release", str(EXAMPLE), "--json")
        self.assertEqual(code, 0)
        self.assertIn('"tie_decided_queries": 1', out)
        self.assertIn('"ties": "input"', out)
        # a JSONL run's list order decides q1 as a TREC file's line order would: announced too
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn("1 query (first: q1)", err)
        with tempfile.TemporaryDirectory() as tmp:
            trec = Path(tmp) / "lexical.trec"
            self.assertEqual(main(["export-trec", "--release", str(EXAMPLE), "--run", lexical,
                                   "--out", str(trec)]), 0)
            code, out, err = self.score(str(trec), "--release", str(EXAMPLE))
            self.assertEqual(code, 0)
            self.assertEqual(len(err.strip().splitlines()), 1)
            self.assertIn("warning", err)
            self.assertIn("1 query (first: q1)", err)
            self.assertIn("a score tie decides: 1", out)
            for rule in ("expected", "trec_eval"):
                code, out, err = self.score(str(trec), "--release", str(EXAMPLE), "--ties", rule)
                self.assertEqual((code, err), (0, ""))


if __name__ == "__main__":
    unittest.main()
