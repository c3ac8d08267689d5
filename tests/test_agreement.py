"""Agreement statistics against textbook worked examples and the n-Clue paper's audit tables."""

import math
import unittest

from nclue.agreement import (average_ranks, cohen_kappa, confusion_matrix, fleiss_kappa,
                             kappa_from_matrix, percent_agreement, spearman_rho,
                             transition_matrix, wilson_interval)
from nclue.errors import NclueError


class WilsonTest(unittest.TestCase):
    def test_newcombe_1998_table_1(self):
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison
        # of seven methods", Stat. Med. 17:857-872, Table I, method 3 (Wilson score, no
        # continuity correction), published to 4 decimals.
        cases = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)),
                 ((0, 20), (0.0000, 0.1611)), ((1, 29), (0.0061, 0.1718))]
        for (s, n), (lo, hi) in cases:
            got = wilson_interval(s, n)
            self.assertAlmostEqual(got[0], lo, places=4, msg=(s, n))
            self.assertAlmostEqual(got[1], hi, places=4, msg=(s, n))

    def test_paper_table_s8_intervals(self):
        # n-Clue supplement sec. 10.2: 254/300 -> [80.2, 88.3]%, 661/710 -> [91.0, 94.7]%.
        lo, hi = wilson_interval(254, 300)
        self.assertEqual((round(100 * lo, 1), round(100 * hi, 1)), (80.2, 88.3))
        lo, hi = wilson_interval(661, 710)
        self.assertEqual((round(100 * lo, 1), round(100 * hi, 1)), (91.0, 94.7))

    def test_closed_form_all_successes(self):
        # s = n: upper bound 1, lower bound n / (n + z^2) (closed form of the score interval).
        z = 1.959963984540054
        lo, hi = wilson_interval(29, 29)
        self.assertAlmostEqual(lo, 29 / (29 + z * z), places=12)
        self.assertEqual(hi, 1.0)

    def test_refusals(self):
        for args in [(1, 0), (5, 4), (-1, 3), (1.0, 3), (1, 3, 1.5)]:
            with self.assertRaises(NclueError):
                wilson_interval(*args)

    def test_percent_agreement(self):
        # 3 of 4 labels equal -> 0.75; interval is the Wilson interval of 3/4.
        got = percent_agreement({"a": 1, "b": 2, "c": 2, "d": 0}, {"a": 1, "b": 2, "c": 1, "d": 0})
        self.assertEqual((got.agree, got.n, got.proportion), (3, 4, 0.75))
        self.assertEqual((got.lo, got.hi), wilson_interval(3, 4))
        with self.assertRaises(NclueError):
            percent_agreement({"a": 1}, {"b": 1})
        with self.assertRaises(NclueError):
            percent_agreement([], [])
        with self.assertRaises(NclueError):
            percent_agreement([1, 2], [1])


class KappaTest(unittest.TestCase):
    def test_cohen_wikipedia_worked_example(self):
        # Wikipedia "Cohen's kappa", Simple example: 50 proposals, both yes 20, A yes/B no 5,
        # A no/B yes 10, both no 15: p_o = 35/50 = .7; p_yes = .5*.6 = .3, p_no = .5*.4 = .2,
        # p_e = .5; kappa = (.7 - .5) / (1 - .5) = 0.4.
        a = ["yes"] * 25 + ["no"] * 25
        b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
        self.assertAlmostEqual(cohen_kappa(a, b), 0.4, places=12)
        self.assertAlmostEqual(kappa_from_matrix([[20, 5], [10, 15]]), 0.4, places=12)

    def test_paper_binary_condition_kappa(self):
        # Supplement sec. 10.2: 710 conditions, A positive 560, E positive 555, 661 agree.
        # Both positive a: a + b = 560, a + c = 555, b + c = 49 -> a = 533, b = 27, c = 22,
        # d = 128. p_o = 661/710; p_e = (560*555 + 150*155)/710^2 = 334050/504100;
        # kappa = (661*710 - 334050) / (504100 - 334050) = 135260/170050 = .7954 ("kappa=.795").
        self.assertAlmostEqual(kappa_from_matrix([[533, 27], [22, 128]]), 135260 / 170050,
                               places=12)

    def test_paper_table_s9_linear_weighted_kappa(self):
        # Table S9 (rows A, columns E, grades 0..3); the paper reports linear weighted kappa .801.
        # Agreement weights w = 1 - |i-j|/3. Diagonal 254 items (w 1); one apart: 6+2+14+11+1+11
        # = 45 items (w 2/3); two apart: the single A=3/E=1 item (w 1/3).
        # p_o = (254 + 45*2/3 + 1/3)/300 = 284.333/300 = .947778.
        # Row totals 8, 88, 140, 64; column totals 4, 90, 153, 53; p_e = sum w r_i c_j / 300^2:
        #   r0: 8*(4 + 2/3*90 + 1/3*153 + 0)        = 8*115      = 920
        #   r1: 88*(2/3*4 + 90 + 2/3*153 + 1/3*53)   = 88*212.333 = 18685.33
        #   r2: 140*(1/3*4 + 2/3*90 + 153 + 2/3*53)  = 140*249.667 = 34953.33
        #   r3: 64*(0 + 1/3*90 + 2/3*153 + 53)      = 64*185     = 11840
        # p_e = 66398.67/90000 = .737763; kappa = (.947778 - .737763)/(1 - .737763) = .80086.
        table_s9 = [[2, 6, 0, 0], [2, 72, 14, 0], [0, 11, 128, 1], [0, 1, 11, 52]]
        p_o = (254 + 2 / 3 * 45 + 1 / 3 * 1) / 300
        p_e = (920 + 88 * (8 / 3 + 90 + 102 + 53 / 3) + 140 * (4 / 3 + 60 + 153 + 106 / 3)
               + 11840) / 90000
        expected = (p_o - p_e) / (1 - p_e)
        self.assertAlmostEqual(kappa_from_matrix(table_s9, "linear"), expected, places=12)
        self.assertEqual(round(kappa_from_matrix(table_s9, "linear"), 3), 0.801)

    def test_linear_weighted_hand_example(self):
        # 3 ordered grades, 5 items: matrix [[1,1,0],[0,1,0],[0,1,1]]; weights 1, .5, 0.
        # p_o = (3 + .5*2)/5 = .8; rows (2,1,2), cols (1,3,1):
        # p_e = (2*(1+1.5+0) + 1*(.5+3+.5) + 2*(0+1.5+1))/25 = 14/25 = .56;
        # kappa = .24/.44 = 6/11.
        self.assertAlmostEqual(kappa_from_matrix([[1, 1, 0], [0, 1, 0], [0, 1, 1]], "linear"),
                               6 / 11, places=12)
        a = [0, 0, 1, 2, 2]
        b = [0, 1, 1, 1, 2]
        self.assertAlmostEqual(cohen_kappa(a, b, weights="linear"), 6 / 11, places=12)

    def test_two_categories_weighting_is_irrelevant(self):
        # With K = 2 both weight schemes are 1 on the diagonal and 0 off it.
        m = [[20, 5], [10, 15]]
        self.assertAlmostEqual(kappa_from_matrix(m, "linear"), 0.4, places=12)
        self.assertAlmostEqual(kappa_from_matrix(m, "quadratic"), 0.4, places=12)

    def test_fleiss_wikipedia_worked_example(self):
        # Wikipedia "Fleiss' kappa", Worked example: 10 subjects, 14 raters, 5 categories.
        # Column totals 20, 28, 39, 21, 32 of 140 -> P_e = (20^2+28^2+39^2+21^2+32^2)/140^2
        # = 4170/19600 = .212755; P_i = (sum n_ij^2 - 14)/182:
        # 182/182, 46/182, 56/182, 80/182, 60/182, 84/182, 44/182, 32/182, 52/182, 52/182
        # -> P_bar = 688/1820 = .378022; kappa = (P_bar - P_e)/(1 - P_e) = .209930 (".210").
        table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                 [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                 [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
        p_bar = 688 / 1820
        p_e = 4170 / 19600
        self.assertAlmostEqual(fleiss_kappa(table), (p_bar - p_e) / (1 - p_e), places=12)
        self.assertEqual(round(fleiss_kappa(table), 3), 0.210)

    def test_fleiss_paper_adjudication(self):
        # Supplement sec. 10.3.2: 3 responses, 94 binary decisions, 80 unanimous, 236 positive
        # ratings of 282 (Table S11); the paper reports Fleiss kappa .636. Fleiss' kappa depends
        # only on per-item counts: 70 unanimous positive, 10 unanimous negative, 12 items 2+/1-,
        # 2 items 1+/2- reproduce those margins (3*70 + 2*12 + 2 = 236).
        # P_bar = (80*1 + 14*(1/3))/94; p = 236/282; P_e = p^2 + (1-p)^2.
        table = [[3, 0]] * 70 + [[0, 3]] * 10 + [[2, 1]] * 12 + [[1, 2]] * 2
        p_bar = (80 + 14 / 3) / 94
        p = 236 / 282
        p_e = p * p + (1 - p) ** 2
        self.assertAlmostEqual(fleiss_kappa(table), (p_bar - p_e) / (1 - p_e), places=12)
        self.assertEqual(round(fleiss_kappa(table), 3), 0.636)

    def test_refusals(self):
        with self.assertRaises(NclueError):
            kappa_from_matrix([[3, 0], [0, 0]])  # one category only: p_e = 1
        with self.assertRaises(NclueError):
            kappa_from_matrix([[1, 2], [3]])
        with self.assertRaises(NclueError):
            kappa_from_matrix([[1, 2], [3, 4]], "cubic")
        with self.assertRaises(NclueError):
            fleiss_kappa([[1, 2], [2, 2]])  # unequal raters
        with self.assertRaises(NclueError):
            fleiss_kappa([[1, 0], [0, 1]])  # one rater
        with self.assertRaises(NclueError):
            fleiss_kappa([[3, 0], [3, 0]])  # all ratings in one category
        with self.assertRaises(NclueError):
            cohen_kappa([1, 2], [1, 3], categories=[1, 2])  # label outside categories


class MatrixTest(unittest.TestCase):
    def test_confusion_and_transitions(self):
        before = {"p1": 1, "p2": 1, "p3": 2, "p4": 2, "p5": 2, "p6": 1}
        after = {"p1": 2, "p2": 1, "p3": 3, "p4": 1, "p5": 2, "p6": 2}
        cats, m = confusion_matrix(before, after, categories=[1, 2, 3])
        self.assertEqual(cats, [1, 2, 3])
        self.assertEqual(m, [[1, 2, 0], [1, 1, 1], [0, 0, 0]])
        t = transition_matrix(before, after, states=[1, 2, 3])
        self.assertEqual(t.counts, {(1, 2): 2, (1, 1): 1, (2, 3): 1, (2, 1): 1, (2, 2): 1})
        self.assertEqual((t.changed, t.total), (4, 6))
        self.assertEqual(t.row(2), {1: 1, 2: 1, 3: 1})


class SpearmanTest(unittest.TestCase):
    def test_wikipedia_example_without_ties(self):
        # Wikipedia "Spearman's rank correlation coefficient", Example (IQ vs hours of TV):
        # sum d^2 = 194, rho = 1 - 6*194/(10*99) = -29/165.
        iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
        tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
        self.assertAlmostEqual(spearman_rho(iq, tv), -29 / 165, places=12)

    def test_ties_use_average_ranks(self):
        # x ranks (1, 2.5, 2.5, 4), y ranks (1, 2, 3, 4): Sxy = 4.5, Sxx = 4.5, Syy = 5,
        # rho = 4.5 / sqrt(22.5) = sqrt(0.9).
        self.assertEqual(average_ranks([1, 2, 2, 3]), [1, 2.5, 2.5, 4])
        self.assertAlmostEqual(spearman_rho([1, 2, 2, 3], [1, 2, 3, 4]), math.sqrt(0.9),
                               places=12)
        pre = {"s1": 0.30, "s2": 0.25, "s3": 0.25, "s4": 0.10}
        post = {"s1": 0.10, "s2": 0.25, "s3": 0.25, "s4": 0.30}
        self.assertAlmostEqual(spearman_rho(pre, post), -1.0, places=12)

    def test_no_ties_closed_form(self):
        # Without ties rho = 1 - 6 sum d^2 / (n (n^2 - 1)).
        x = [3, 1, 4, 15, 9, 2, 6, 5]
        y = [2, 7, 1, 8, 28, 18, 4, 5]
        rx, ry = average_ranks(x), average_ranks(y)
        d2 = sum((a - b) ** 2 for a, b in zip(rx, ry))
        self.assertAlmostEqual(spearman_rho(x, y), 1 - 6 * d2 / (8 * 63), places=12)

    def test_refusals(self):
        with self.assertRaises(NclueError):
            spearman_rho([1], [2])
        with self.assertRaises(NclueError):
            spearman_rho([1, 1, 1], [1, 2, 3])
        with self.assertRaises(NclueError):
            spearman_rho([1, 2], [1, 2, 3])
        with self.assertRaises(NclueError):
            spearman_rho({"a": 1, "b": 2}, {"a": 1, "c": 2})
        with self.assertRaises(NclueError):
            spearman_rho([1, float("nan")], [1, 2])


if __name__ == "__main__":
    unittest.main()
