"""Statistics of the construct-validity and uncertainty analyses (issue 14), checked against
hand-worked values and closed forms (never against the code's own output)."""

import math
import random
import statistics
import unittest

from nclue import inference as inf
from nclue.errors import NclueError
from nclue.inference.equivalence import equivalence_verdict
from nclue.inference.groups import group_difference_distribution
from nclue.inference.logistic import fit_logistic, solve, standardize
from nclue.inference.matching import (greedy_match, matched_pairs, pair_win, pairs_auc,
                                      ratio_matched)
from nclue.inference.montecarlo import (bootstrap_distribution, directional_decision,
                                        equivalence_decision, holm_with_terms, interval_fragile,
                                        p_fragile, p_value_se, quantile_se)
from nclue.inference.simultaneous import block_analysis, block_intervals
from nclue.metrics import QueryFacts
from nclue.runs import Ranking
from nclue.tables.findings import verdict
from nclue.tables.metric_agreement import rank_desc
from nclue.tables.ranked_matrix import competition_ranks
from nclue.tables.source_shift import direction
from nclue.ties import tie_decides


class LogisticKnownAnswer(unittest.TestCase):
    # One binary covariate is a saturated model: the MLE reproduces the group rates exactly,
    # so b0 = logit(p0) and b1 = logit(p1) - logit(p0). Group x=0: 1 success of 4 (p0 = 1/4,
    # logit = ln(1/3)); group x=1: 3 of 4 (p1 = 3/4, logit = ln 3); b1 = 2 ln 3.
    ROWS = [(1.0, 0.0)] * 4 + [(1.0, 1.0)] * 4
    Y = [1, 0, 0, 0, 1, 1, 1, 0]

    def test_saturated_binary_covariate(self):
        fit = fit_logistic(self.ROWS, self.Y)
        self.assertAlmostEqual(fit.coefficients[0], math.log(1 / 3), places=9)
        self.assertAlmostEqual(fit.coefficients[1], 2 * math.log(3), places=9)
        # log-likelihood: 4 * [ln(1/4) + 3 ln(3/4)] / ... per group: 1 ln .25 + 3 ln .75; twice
        self.assertAlmostEqual(fit.log_likelihood, 2 * (math.log(0.25) + 3 * math.log(0.75)),
                               places=9)

    def test_weights_equal_duplicated_rows(self):
        # weight 2 on every row = the data twice: the same MLE
        fit = fit_logistic(self.ROWS, self.Y, weights=[2] * 8)
        self.assertAlmostEqual(fit.coefficients[1], 2 * math.log(3), places=9)
        # weight 0 removes a row: drop one failure of group 1 -> p1 = 3/3 separates
        with self.assertRaises(NclueError):
            fit_logistic(self.ROWS, self.Y, weights=[1, 1, 1, 1, 1, 1, 1, 0])

    def test_standardized_covariate(self):
        # x in {0, 1}, half each: mean 1/2, population sd 1/2, z = 2x - 1; beta_z = b1 / 2 = ln 3
        # and the intercept is the logit at z = 0, the mean of the two logits: 0.
        z, mean, sd = standardize([r[1] for r in self.ROWS])
        self.assertEqual((mean, sd), (0.5, 0.5))
        fit = fit_logistic([(1.0, v) for v in z], self.Y)
        self.assertAlmostEqual(fit.coefficients[0], 0.0, places=9)
        self.assertAlmostEqual(fit.coefficients[1], math.log(3), places=9)

    def test_separation_and_bad_input_refused(self):
        with self.assertRaises(NclueError):
            fit_logistic([(1.0, 0.0), (1.0, 1.0)] * 3, [0, 1] * 3)  # y = x: no MLE
        with self.assertRaises(NclueError):
            fit_logistic([(1.0, 0.0)], [2])
        with self.assertRaises(NclueError):
            standardize([3.0, 3.0, 3.0])

    def test_solve(self):
        # 2x + y = 5, x + 3y = 10 -> x = 1, y = 3
        self.assertEqual([round(v, 12) for v in solve([[2.0, 1.0], [1.0, 3.0]], [5.0, 10.0])],
                         [1.0, 3.0])


class Matching(unittest.TestCase):
    def test_ratio_rule(self):
        self.assertTrue(ratio_matched(10, 12, 1.25))   # 12 <= 12.5
        self.assertTrue(ratio_matched(8, 10, 1.25))    # 10 <= 10.0 (boundary kept)
        self.assertFalse(ratio_matched(10, 13, 1.25))  # 13 > 12.5
        with self.assertRaises(NclueError):
            ratio_matched(0, 3, 1.25)

    def test_matched_pairs_and_auc(self):
        pages = {"g": 10, "s1": 12, "s2": 20, "s3": 9}
        pairs = matched_pairs(["g"], ["s1", "s2", "s3"], pages, 1.25)
        self.assertEqual(pairs, [("g", "s1"), ("g", "s3")])      # s2 is twice as long
        # ranking s1, g, x: (g, s1) lost = 0; (g, s3) s3 unretrieved = 1 -> AUC 1/2
        self.assertEqual(pairs_auc(pairs, ["s1", "g", "x"]), 0.5)
        self.assertEqual(pair_win(None, None), 0.5)
        self.assertIsNone(pairs_auc([], ["g"]))

    def test_greedy_nearest_neighbour(self):
        # A (10): 11 is within 1.1 (11 <= 11), 9 is not (10 > 9.9) -> c1; B (20): 19 -> c4
        got = greedy_match({"A": 10, "B": 20}, {"c1": 11, "c2": 9, "c3": 30, "c4": 19}, 1.1)
        self.assertEqual(got, {"A": "c1", "B": "c4"})
        # equal distance: the smaller size wins
        self.assertEqual(greedy_match({"A": 10}, {"c1": 11, "c2": 9}, 1.2), {"A": "c2"})
        # without replacement: A (first by id) takes the only control, B stays unmatched
        self.assertEqual(greedy_match({"A": 10, "B": 10}, {"c": 10}, 1.1), {"A": "c"})


class Equivalence(unittest.TestCase):
    def test_tost_rule(self):
        self.assertEqual(equivalence_verdict(-1.0, 1.5, 2.0), 1)     # inside (-2, 2)
        self.assertEqual(equivalence_verdict(-1.0, 2.0, 2.0), 0)     # touches the margin
        self.assertEqual(equivalence_verdict(-3.0, 1.0, 2.0), 0)     # straddles -2
        self.assertEqual(equivalence_verdict(2.5, 4.0, 2.0), -2)     # entirely beyond +2
        self.assertEqual(equivalence_verdict(-5.0, -2.1, 2.0), -2)   # entirely beyond -2
        with self.assertRaises(NclueError):
            equivalence_verdict(-1.0, 1.0, 0.0)

    def test_no_effect_findings_use_the_margin(self):
        # "0" findings: equivalence decides, not "the 95% interval covers zero"
        self.assertEqual(verdict("0", 0.5, -1.5, 2.5, 2.0, -1.0, 1.8), 1)
        self.assertEqual(verdict("0", 0.5, -1.5, 2.5, 2.0, -1.2, 2.2), 0)
        self.assertEqual(verdict("0", 5.0, 3.0, 7.0, 2.0, 3.5, 6.5), -2)
        with self.assertRaises(ValueError):
            verdict("0", 0.5, -1.5, 2.5)
        self.assertEqual(verdict("+", 1.0, 0.2, 2.0), 1)           # directional rules unchanged


class MonteCarloError(unittest.TestCase):
    def test_p_value_se(self):
        self.assertAlmostEqual(p_value_se(0.05, 10000), math.sqrt(0.05 * 0.95 / 10000))
        self.assertEqual(p_value_se(1.0, 100), 0.0)
        # .0535 from 10,000 draws: SE .00225; .05 lies within two SE -> fragile
        self.assertTrue(p_fragile(0.0535, 10000))
        self.assertFalse(p_fragile(0.0005, 10000))

    def test_quantile_se(self):
        # 0..99: sample variance (n - 1) of 0..n-1 is n (n + 1) / 12 = 841.67, s = 29.0115;
        # q = .5: sqrt(.25 / 100) = .05, phi(0) = 1 / sqrt(2 pi) -> SE = 29.0115 * .05 * 2.5066
        s = math.sqrt(100 * 101 / 12)
        self.assertAlmostEqual(quantile_se([float(v) for v in range(100)], 0.5),
                               s * 0.05 * math.sqrt(2 * math.pi))
        # q = .025 at B = 1,000: z = -1.95996, phi(z) = .058445, sqrt(.025 .975 / 1000) = .0049371
        # -> .08447 s; q = .05: z = -1.64485, phi = .103136, sqrt(.0475 / 1000) = .0068920
        # -> .06682 s (the 90% bounds of a TOST row)
        grid = [float(v) for v in range(1000)]
        s = math.sqrt(1000 * 1001 / 12)
        self.assertAlmostEqual(quantile_se(grid, 0.025) / s, 0.08447, places=5)
        self.assertAlmostEqual(quantile_se(grid, 0.05) / s, 0.06682, places=5)
        self.assertAlmostEqual(quantile_se(grid, 0.975), quantile_se(grid, 0.025))
        self.assertEqual(quantile_se([2.0] * 10, 0.025), 0.0)   # every replicate equal
        # an atom: at B = 1,000 and q = .025, 3 binomial SDs are 3 sqrt(.025 .975 / 1000) =
        # .0148, so the quantiles at .0102 and .0398 (order statistics 10.2 and 39.8 of 0..999)
        # decide. 60 replicates at 0: both are 0 -> the bound is 0 at almost any seed, SE 0;
        # 35 at 0: the upper one is not -> the normal-scale SE
        atom = [0.0] * 60 + [float(v) for v in range(1, 941)]
        self.assertEqual(quantile_se(atom, 0.025), 0.0)
        short = [0.0] * 35 + [float(v) for v in range(1, 966)]
        self.assertAlmostEqual(quantile_se(short, 0.025),
                               statistics.stdev(short) * 0.0049371044 / 0.0584450698, places=6)
        with self.assertRaises(NclueError):
            quantile_se(grid, 0.0)

    def test_interval_fragile(self):
        self.assertTrue(interval_fragile(0.1, 1.0, 0.06, 0.1))    # 0.1 < 2 * 0.06
        self.assertFalse(interval_fragile(0.1, 1.0, 0.04, 0.1))
        self.assertTrue(interval_fragile(-2.0, -0.05, 0.1, 0.03))  # 0.05 < 0.06
        self.assertFalse(interval_fragile(-1.0, 1.0, 0.1, 0.1))    # far from flipping
        self.assertFalse(interval_fragile(0.0, 1.0, 0.0, 0.1))    # SE 0: the bound cannot move

    def test_deciding_bound(self):
        # directional: the bound nearest 0 in its own SEs: lo = -.5 is 5 SE from 0, hi = .3 is
        # 1.5 SE from 0 -> hi decides, and 1.5 < 2 makes the verdict fragile
        got = directional_decision(-0.5, 0.3, 0.1, 0.2)
        self.assertEqual((got.side, got.bound, got.se, got.fragile), ("hi", 0.3, 0.2, True))
        self.assertAlmostEqual(got.distance, 1.5)
        # equivalence, margin 2: lo90 = -1.5 is .5 from -2 (.5 / .1 = 5 SE); hi90 = 1.9 is .1
        # from +2 (.1 / .08 = 1.25 SE) -> hi90 decides and the row is fragile
        got = equivalence_decision(-1.5, 1.9, 0.1, 0.08, 2.0)
        self.assertEqual((got.side, got.se, got.fragile), ("hi90", 0.08, True))
        # an interval wholly beyond the margin: its inner bound lo90 = 2.5 is .5 from +2
        got = equivalence_decision(2.5, 4.0, 0.2, 0.2, 2.0)
        self.assertEqual((got.side, got.fragile), ("lo90", False))
        self.assertAlmostEqual(got.distance, 2.5)

    def test_distribution_gives_the_reported_interval(self):
        rng = random.Random(5)
        qids = [f"q{i}" for i in range(60)]
        families = {q: f"f{i % 23}" for i, q in enumerate(qids)}
        base = {q: rng.randint(0, 1) for q in qids}
        variant = {q: rng.randint(0, 1) for q in qids}
        resampler = inf.Resampler(qids, families, seed=11)
        diff = {q: variant[q] - base[q] for q in qids}
        stats = bootstrap_distribution(resampler, diff, 500)
        interval = resampler.paired_bootstrap(base, variant, replicates=500)
        self.assertEqual(inf.percentile(stats, 0.025), interval.lo)
        self.assertEqual(inf.percentile(stats, 0.975), interval.hi)

    def test_holm_terms(self):
        # Holm on .01, .04, .03 (m = 3): sorted .01 (x3 = .03), .03 (x2 = .06), .04 (x1 = .04)
        # -> .03, .06, .06; the last is set by the .03 term with multiplier 2
        got = holm_with_terms({"a": 0.01, "b": 0.04, "c": 0.03})
        self.assertAlmostEqual(got["a"][0], 0.03)
        self.assertAlmostEqual(got["c"][0], 0.06)
        self.assertEqual(got["b"][1:], ("c", 2))
        self.assertAlmostEqual(got["b"][0], 0.06)


class SimultaneousIntervals(unittest.TestCase):
    def test_one_endpoint_exact(self):
        # two families (one query each), differences 1 and 3: S = 4, s = sqrt(10), N = 2.
        # |T*| over the 4 sign vectors: 4, 2, 2, 4 (/ sqrt 10). Level .95: the 4th smallest,
        # c = 4/sqrt(10), half-width c s / N = 2 -> [0, 4]; level .5: 2nd, c = 2/sqrt(10) -> [1, 3]
        resampler = inf.Resampler(["a", "b"], {"a": "a", "b": "b"})
        pair = {"e": ({"a": 0, "b": 0}, {"a": 1, "b": 3})}
        got = block_intervals(resampler, pair, level=0.95, exact=True)["e"]
        self.assertAlmostEqual(got.lo, 0.0)
        self.assertAlmostEqual(got.hi, 4.0)
        got = block_intervals(resampler, pair, level=0.5, exact=True)["e"]
        self.assertAlmostEqual((got.lo, got.hi)[0], 1.0)
        self.assertAlmostEqual(got.hi, 3.0)

    def test_two_endpoints_exact(self):
        # A: D = (1, 3), s = sqrt 10; B: D = (2, 0), s = 2. max(|T_A*|, |T_B*|) per sign vector:
        # (+,+) 4/sqrt10 = 1.265; (+,-) max(.632, 1) = 1; (-,+) 1; (-,-) 1.265. Level .5 -> c = 1:
        # A: 2 -/+ sqrt(10)/2; B: 1 -/+ 1 -> [0, 2]
        resampler = inf.Resampler(["a", "b"], {"a": "a", "b": "b"})
        zero = {"a": 0, "b": 0}
        block = {"A": (zero, {"a": 1, "b": 3}), "B": (zero, {"a": 2, "b": 0})}
        got = block_intervals(resampler, block, level=0.5, exact=True)
        self.assertAlmostEqual(got["A"].critical, 1.0)
        self.assertAlmostEqual(got["A"].lo, 2 - math.sqrt(10) / 2)
        self.assertAlmostEqual(got["B"].lo, 0.0)
        self.assertAlmostEqual(got["B"].hi, 2.0)

    def test_one_pass_matches_max_t_block(self):
        rng = random.Random(3)
        qids = [f"q{i}" for i in range(80)]
        families = {q: f"f{i % 31}" for i, q in enumerate(qids)}
        base = {q: rng.randint(0, 1) for q in qids}
        block = {f"e{j}": (base, {q: rng.randint(0, 1) for q in qids}) for j in range(4)}
        resampler = inf.Resampler(qids, families, seed=11)
        reference = resampler.max_t_block(block, draws=2000)
        got = block_analysis(resampler, block, draws=2000)
        for name in block:
            self.assertEqual(got[name].p_raw, reference[name].p_raw)
            self.assertEqual(got[name].p_block, reference[name].p_adjusted)
        # the simultaneous interval is wider than the endpoint's own +/- z s / N
        e = got["e0"]
        self.assertLess(e.interval.lo, e.delta)
        self.assertGreater(e.interval.critical, 1.96)


class TieRules(unittest.TestCase):
    FACTS = QueryFacts("q", 2, frozenset({"g"}), frozenset({"s"}), {"g": 2, "s": 1}, {})

    def decided(self, docs, scores, k=10):
        return tie_decides(self.FACTS, Ranking("q", tuple(docs), tuple(scores)), k)

    def test_hand_cases(self):
        # (nclue.ties.tie_decides: n-Clue success or Gold Hit strictly between 0 and 1)
        # gold tied with a subset: success possible (gold first), never certain
        self.assertTrue(self.decided(["u", "g", "s"], [3, 2, 2]))
        # the gold alone in its group: certain success
        self.assertFalse(self.decided(["g", "s"], [2, 1]))
        # k = 2: group {u2, g, u3} starts at rank 2: possible (2 <= 2), not certain (2 + 3 - 1 > 2)
        self.assertTrue(self.decided(["u1", "u2", "g", "u3"], [5, 4, 4, 4], k=2))
        # ... with k = 4 the worst order puts the gold at rank 4: certain
        self.assertFalse(self.decided(["u1", "u2", "g", "u3"], [5, 4, 4, 4], k=4))
        # a subset strictly first: failure in every order
        self.assertFalse(self.decided(["s", "g"], [2, 1]))
        # nothing judged retrieved
        self.assertFalse(self.decided(["u"], [1]))

class SmallRules(unittest.TestCase):
    def test_competition_ranks(self):
        self.assertEqual(competition_ranks({"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}),
                         {"a": 1, "b": 2, "c": 2, "d": 4})

    def test_rank_desc_shares_ties(self):
        self.assertEqual(rank_desc({"a": 3.0, "b": 2.0, "c": 2.0}), {"a": 1.0, "b": 2.5, "c": 2.5})

    def test_direction(self):
        self.assertEqual(direction(1.2, 6.0), 1)
        self.assertEqual(direction(1.5, -20.0), -1)
        self.assertEqual(direction(0.0, 3.0), 0)

    def test_group_difference(self):
        # group A all 0, group B all 1: every replicate that draws both groups gives 1
        values = {"a1": 0, "a2": 0, "b1": 1, "b2": 1}
        families = {"a1": "x", "b1": "x", "a2": "y", "b2": "y"}  # each family holds both groups
        resampler = inf.Resampler(values, families, seed=2)
        stats = group_difference_distribution(resampler, values, ["a1", "a2"], ["b1", "b2"], 50)
        self.assertEqual(set(stats), {1.0})
        with self.assertRaises(NclueError):
            group_difference_distribution(resampler, values, ["a1"], ["a1"], 5)


if __name__ == "__main__":
    unittest.main()
