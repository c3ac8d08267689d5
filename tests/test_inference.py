"""Inference engine checked against independent truths: exhaustive sign-flip enumeration,
brute-force promotion search, binomial closed forms and hand-worked examples."""

import itertools
import math
import random
import unittest

from nclue import inference as inf
from nclue.errors import NclueError


def brute_flip_p(diffs_by_family):
    """Exact two-sided p by enumerating every sign vector (independent of nclue code)."""
    d = list(diffs_by_family)
    t = abs(sum(d))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        if abs(sum(s * x for s, x in zip(signs, d))) >= t - 1e-12:
            hits += 1
    return hits / 2 ** len(d)


def binomial_quantile(n, p, q):
    """Smallest k with P(Bin(n, p) <= k) >= q (closed form via math.comb)."""
    acc = 0.0
    for k in range(n + 1):
        acc += math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        if acc >= q:
            return k
    return n


class HolmTest(unittest.TestCase):
    def test_hand_example(self):
        # m = 4; sorted .005, .01, .03, .04 -> x4, x3, x2, x1 = .02, .03, .06, .04;
        # running maximum gives .02, .03, .06, .06.
        got = inf.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005})
        expected = {"d": 0.02, "a": 0.03, "c": 0.06, "b": 0.06}
        for k, v in expected.items():
            self.assertAlmostEqual(got[k], v, places=12)

    def test_caps_at_one(self):
        got = inf.holm({"x": 0.6, "y": 0.9})
        self.assertEqual(got, {"x": 1.0, "y": 1.0})

    def test_refusals(self):
        with self.assertRaises(NclueError):
            inf.holm({})
        with self.assertRaises(NclueError):
            inf.holm({"a": 1.5})


class PercentileTest(unittest.TestCase):
    def test_type7(self):
        # Type 7: h = (n-1) q. For 1..5 at q = .25: h = 1 -> 2; q = .1: h = .4 -> 1.4.
        xs = [1, 2, 3, 4, 5]
        self.assertAlmostEqual(inf.percentile(xs, 0.25), 2.0)
        self.assertAlmostEqual(inf.percentile(xs, 0.1), 1.4)
        self.assertEqual(inf.percentile(xs, 1.0), 5)
        with self.assertRaises(NclueError):
            inf.percentile([], 0.5)


class FlipTestExhaustive(unittest.TestCase):
    def test_hand_worked_three_families(self):
        # Families f0={q0,q1}: D=+1 (1-0, 0-0); f1={q2}: D=+1; f2={q3}: D=+1. T = 3.
        # Of the 8 sign vectors only +++ and --- reach |T*| = 3: exact p = 2/8.
        base = {"q0": 0, "q1": 0, "q2": 0, "q3": 1}
        variant = {"q0": 1, "q1": 0, "q2": 1, "q3": 2}
        fam = {"q0": "f0", "q1": "f0", "q2": "f1", "q3": "f2"}
        got = inf.family_flip_test(base, variant, fam, exact=True)
        self.assertEqual(got.p, 0.25)
        self.assertEqual((got.units, got.queries, got.draws), (3, 4, 8))
        self.assertAlmostEqual(got.delta, 3 / 4)

    def test_query_permutation_hand_worked(self):
        # d = (+1, -1, +1, +1), T = 2. |T*| = |4 - 2 * #negatives|: #neg in {0,1,3,4} give
        # |T*| >= 2: 1 + 4 + 4 + 1 = 10 of 16 -> p = 0.625.
        got = inf.query_permutation_test([0, 1, 0, 0], [1, 0, 1, 1], exact=True)
        self.assertEqual(got.p, 10 / 16)

    def test_exact_matches_enumeration_integer_and_float(self):
        rng = random.Random(5)
        for trial in range(12):
            n = rng.randint(3, 14)
            fams = [rng.randrange(max(1, n // 2 + 1)) for _ in range(n)]
            if trial % 2:
                base = [rng.randint(0, 1) for _ in range(n)]
                variant = [rng.randint(0, 1) for _ in range(n)]
            else:
                base = [rng.random() for _ in range(n)]
                variant = [rng.random() + 0.1 for _ in range(n)]
            sums = {}
            for i, f in enumerate(fams):
                sums[f] = sums.get(f, 0) + variant[i] - base[i]
            got = inf.family_flip_test(base, variant, fams, exact=True)
            self.assertAlmostEqual(got.p, brute_flip_p(sums.values()), places=12)

    def test_monte_carlo_follows_documented_draws(self):
        # Documented procedure: families sorted by id; draw b = Random(seed).getrandbits(F);
        # family i flipped iff bit i set; p = (1 + #{|T*| >= |T|}) / (1 + B).
        rng = random.Random(9)
        n = 40
        fam = {f"q{i:02d}": f"F{rng.randrange(17):02d}" for i in range(n)}
        base = {q: rng.randint(0, 1) for q in fam}
        variant = {q: rng.randint(0, 1) for q in fam}
        fids = sorted(set(fam.values()))
        d = [sum(variant[q] - base[q] for q in fam if fam[q] == f) for f in fids]
        t = sum(d)
        draw = random.Random(123)
        hits = 0
        for _ in range(3000):
            bits = draw.getrandbits(len(fids))
            tstar = sum(-x if bits >> i & 1 else x for i, x in enumerate(d))
            hits += abs(tstar) >= abs(t)
        got = inf.family_flip_test(base, variant, fam, draws=3000, seed=123)
        self.assertEqual(got.p, (1 + hits) / 3001)
        self.assertEqual(got.statistic, t)

    def test_monte_carlo_close_to_exact(self):
        # 16 families: exact p by enumeration (65,536 vectors) vs 10,000 draws; Monte Carlo
        # standard error <= .005, so 4 SE = .02.
        rng = random.Random(2)
        fam = [i % 16 for i in range(48)]
        base = [rng.randint(0, 1) for _ in fam]
        variant = [min(1, b + (rng.random() < 0.15)) for b in base]
        sums = [0] * 16
        for i, f in enumerate(fam):
            sums[f] += variant[i] - base[i]
        exact = brute_flip_p(sums)
        mc = inf.family_flip_test(base, variant, fam)
        self.assertLess(abs(mc.p - exact), 0.02)
        self.assertGreaterEqual(mc.p, 1 / 10001)

    def test_identical_systems_give_p_one(self):
        v = {"a": 1, "b": 0, "c": 1}
        got = inf.family_flip_test(v, v, {"a": 1, "b": 2, "c": 2}, draws=50)
        self.assertEqual(got.p, 1.0)
        self.assertEqual(got.delta, 0.0)

    def test_exact_refused_for_many_units(self):
        n = inf.MAX_EXACT_UNITS + 1
        with self.assertRaises(NclueError):
            inf.query_permutation_test([0] * n, [1] * n, exact=True)


class MaxTTest(unittest.TestCase):
    def brute_block(self, endpoints, fams):
        """Exact single-step max-|T| adjusted p by enumeration (independent code)."""
        fids = sorted(set(fams))
        dsums = []
        for base, variant in endpoints:
            s = [0.0] * len(fids)
            for i, f in enumerate(fams):
                s[fids.index(f)] += variant[i] - base[i]
            dsums.append(s)
        sd = [math.sqrt(sum(x * x for x in s)) for s in dsums]
        tobs = [abs(sum(s)) / v if v else 0.0 for s, v in zip(dsums, sd)]
        hits = [0] * len(endpoints)
        for signs in itertools.product((1, -1), repeat=len(fids)):
            m = max(abs(sum(g * x for g, x in zip(signs, s))) / v if v else 0.0
                    for s, v in zip(dsums, sd))
            for j, t in enumerate(tobs):
                hits[j] += m >= t - 1e-12
        return [h / 2 ** len(fids) for h in hits]

    def test_exact_block_matches_enumeration(self):
        rng = random.Random(17)
        for trial in range(6):
            n = rng.randint(6, 24)
            fams = [rng.randrange(11) for _ in range(n)]
            endpoints = []
            for _ in range(rng.randint(1, 4)):
                if trial % 2:
                    endpoints.append(([rng.randint(0, 1) for _ in range(n)],
                                      [rng.randint(0, 1) for _ in range(n)]))
                else:
                    endpoints.append(([rng.random() for _ in range(n)],
                                      [rng.random() + 0.05 for _ in range(n)]))
            block = {f"e{j}": pair for j, pair in enumerate(endpoints)}
            got = inf.max_t_block(block, fams, exact=True)
            expected = self.brute_block(endpoints, fams)
            for j, p in enumerate(expected):
                self.assertAlmostEqual(got[f"e{j}"].p_adjusted, p, places=12)
                # Each endpoint's own p must be the single-contrast exact p.
                own = inf.family_flip_test(*endpoints[j], fams, exact=True).p
                self.assertAlmostEqual(got[f"e{j}"].p_raw, own, places=12)
                self.assertGreaterEqual(got[f"e{j}"].p_adjusted, got[f"e{j}"].p_raw - 1e-12)

    def test_single_endpoint_block_equals_flip_test(self):
        # With one endpoint max |T*| = |T*|: the adjusted p equals the family-flip p.
        rng = random.Random(4)
        fams = [rng.randrange(30) for _ in range(100)]
        b = [rng.randint(0, 1) for _ in fams]
        v = [rng.randint(0, 1) for _ in fams]
        block = inf.max_t_block({"only": (b, v)}, fams, draws=2000, seed=3)
        flip = inf.family_flip_test(b, v, fams, draws=2000, seed=3)
        self.assertEqual(block["only"].p_adjusted, flip.p)
        self.assertEqual(block["only"].p_raw, flip.p)

    def test_zero_endpoint(self):
        v = [1, 0, 1, 0]
        w = [1, 1, 1, 1]
        got = inf.max_t_block({"same": (v, v), "diff": (v, w)}, [0, 1, 2, 3], exact=True)
        self.assertEqual(got["same"].p_adjusted, 1.0)
        self.assertEqual(got["same"].t, 0.0)
        # "diff": D = (0, 1, 0, 1) -> T = 2 / sqrt(2); |T*| = sqrt(2) iff both flips agree:
        # 8 of 16 sign vectors.
        self.assertEqual(got["diff"].p_adjusted, 0.5)

    def test_selection_adjusted_holm(self):
        blocks = {"A": ("a1", {"a1": inf.BlockEndpoint(0.1, 3.0, 0.001, 0.004)}),
                  "B": ("b2", {"b1": inf.BlockEndpoint(0, 0, 0.5, 0.9),
                               "b2": inf.BlockEndpoint(0.2, 2.0, 0.02, 0.03)})}
        # Holm over {.004, .03}: .008, .03.
        got = inf.selection_adjusted(blocks)
        self.assertAlmostEqual(got["A"], 0.008)
        self.assertAlmostEqual(got["B"], 0.03)
        with self.assertRaises(NclueError):
            inf.selection_adjusted({"A": ("zz", {"a1": blocks["A"][1]["a1"]})})

    def test_mismatched_endpoints_refused(self):
        with self.assertRaises(NclueError):
            inf.max_t_block({"a": ([0, 1], [1, 1]), "b": ([0, 1, 1], [1, 1, 0])}, [0, 1, 2])


class UnstandardizedMaxTTest(unittest.TestCase):
    def test_raw_sum_block_matches_enumeration(self):
        # Raw-sum max-|T|: adjusted p = #{s : max_k |sum_f s_f D_fk| >= |T_j|} / 2^F.
        rng = random.Random(41)
        fams = [rng.randrange(9) for _ in range(20)]
        endpoints = [([rng.randint(0, 1) for _ in fams], [rng.randint(0, 1) for _ in fams])
                     for _ in range(3)]
        fids = sorted(set(fams))
        dsums = []
        for base, variant in endpoints:
            s = [0] * len(fids)
            for i, f in enumerate(fams):
                s[fids.index(f)] += variant[i] - base[i]
            dsums.append(s)
        tobs = [abs(sum(s)) for s in dsums]
        hits = [0, 0, 0]
        for signs in itertools.product((1, -1), repeat=len(fids)):
            m = max(abs(sum(g * x for g, x in zip(signs, s))) for s in dsums)
            for j in range(3):
                hits[j] += m >= tobs[j]
        got = inf.max_t_block({j: pair for j, pair in enumerate(endpoints)}, fams, exact=True,
                              standardize=False)
        for j in range(3):
            self.assertEqual(got[j].p_adjusted, hits[j] / 2 ** len(fids))
            self.assertEqual(got[j].t, sum(dsums[j]))


class SelectionTableTest(unittest.TestCase):
    def test_composes_block_tests_ci_and_holm(self):
        rng = random.Random(12)
        fams = {f"q{i:03d}": i % 37 for i in range(120)}
        runs = [{q: int(rng.random() < 0.2 + 0.05 * r) for q in fams} for r in range(6)]
        blocks = {"scale": ("big", {"big": (runs[0], runs[1])}),
                  "fusion": ("rrf", {"rrf": (runs[0], runs[5]), "alt": (runs[0], runs[3]),
                                     "alt2": (runs[2], runs[4])})}
        rows = inf.selection_table(blocks, fams, seed=7, replicates=300, draws=2000)
        self.assertEqual([r.block for r in rows], ["fusion", "scale"])
        rs = inf.Resampler(fams.keys(), fams, seed=7)
        p_block = {}
        for row in rows:
            shown, endpoints = blocks[row.block]
            tested = rs.max_t_block(endpoints, draws=2000)[shown]
            ci = rs.paired_bootstrap(*endpoints[shown], replicates=300)
            self.assertEqual((row.delta, row.p_raw, row.p_block), (tested.delta, tested.p_raw,
                                                                   tested.p_adjusted))
            self.assertEqual((row.ci_lo, row.ci_hi), (ci.lo, ci.hi))
            self.assertEqual(row.endpoints_tried, len(endpoints))
            p_block[row.block] = tested.p_adjusted
        # Holm with m = 2: the smaller p doubles, the larger is max(doubled smaller, itself).
        small, large = sorted(p_block, key=lambda b: (p_block[b], b))
        got = {r.block: r.p_holm for r in rows}
        self.assertAlmostEqual(got[small], min(1.0, 2 * p_block[small]))
        self.assertAlmostEqual(got[large], max(got[small], p_block[large]))

    def test_refusals(self):
        with self.assertRaises(NclueError):
            inf.selection_table({"b": ("missing", {"x": ([0, 1], [1, 1])})}, [0, 1])
        with self.assertRaises(NclueError):
            inf.selection_table({}, [0, 1])


class QueryBootstrapTest(unittest.TestCase):
    def test_binomial_closed_form(self):
        # 50 queries, difference 1 on 20 of them and 0 elsewhere: the bootstrap mean is
        # Bin(50, .4)/50; its 2.5%/97.5% quantiles (math.comb) within one step of 1/50.
        base = [0] * 50
        variant = [1] * 20 + [0] * 30
        ci = inf.query_bootstrap(base, variant, replicates=4000)
        self.assertLessEqual(abs(ci.lo - binomial_quantile(50, 0.4, 0.025) / 50), 1 / 50 + 1e-9)
        self.assertLessEqual(abs(ci.hi - binomial_quantile(50, 0.4, 0.975) / 50), 1 / 50 + 1e-9)


class BootstrapTest(unittest.TestCase):
    def test_constant_difference_is_degenerate(self):
        base = [0.1, 0.5, 0.2, 0.7]
        variant = [x + 0.25 for x in base]
        ci = inf.paired_family_bootstrap(base, variant, [0, 0, 1, 2], replicates=200)
        self.assertAlmostEqual(ci.lo, 0.25, places=12)
        self.assertAlmostEqual(ci.hi, 0.25, places=12)
        self.assertAlmostEqual(ci.estimate, 0.25, places=12)

    def test_follows_documented_draws(self):
        # Replicate r: idx = Random(seed).choices(range(F), k=F); statistic = mean over all
        # queries of the drawn families; type-7 2.5%/97.5% quantiles.
        rng = random.Random(8)
        fam = {f"q{i}": f"f{rng.randrange(7)}" for i in range(20)}
        vals = {q: rng.randint(0, 1) for q in fam}
        fids = sorted(set(fam.values()))
        members = [[q for q in sorted(fam) if fam[q] == f] for f in fids]
        draw = random.Random(77)
        stats = []
        for _ in range(500):
            idx = draw.choices(range(len(fids)), k=len(fids))
            num = sum(vals[q] for i in idx for q in members[i])
            den = sum(len(members[i]) for i in idx)
            stats.append(num / den)
        stats.sort()

        def q7(p):
            h = (len(stats) - 1) * p
            lo = int(h)
            return stats[lo] + (h - lo) * (stats[lo + 1] - stats[lo])

        got = inf.family_bootstrap(vals, fam, replicates=500, seed=77)
        self.assertAlmostEqual(got.lo, q7(0.025), places=12)
        self.assertAlmostEqual(got.hi, q7(0.975), places=12)
        self.assertEqual(got.units, len(fids))

    def test_families_are_resampled_as_units(self):
        # 25 families of 2 identical 0/1 queries, 10 families of ones: the bootstrap mean is
        # Bin(25, .4)/25, whose 2.5% and 97.5% quantiles are 6/25 and 15/25 (math.comb);
        # resampling queries instead would give the narrower Bin(50, .4)/50.
        lo_k = binomial_quantile(25, 0.4, 0.025)
        hi_k = binomial_quantile(25, 0.4, 0.975)
        vals, fam = {}, {}
        for f in range(25):
            for j in range(2):
                vals[f"q{f}_{j}"] = 1 if f < 10 else 0
                fam[f"q{f}_{j}"] = f
        ci = inf.family_bootstrap(vals, fam, replicates=4000, seed=11)
        self.assertAlmostEqual(ci.estimate, 0.4)
        self.assertLessEqual(abs(ci.lo - lo_k / 25), 1 / 25 + 1e-9)
        self.assertLessEqual(abs(ci.hi - hi_k / 25), 1 / 25 + 1e-9)
        query_ci = inf.family_bootstrap(vals, {q: q for q in vals}, replicates=4000, seed=11)
        self.assertLess(query_ci.hi - query_ci.lo, ci.hi - ci.lo)

    def test_replicate_means_by_definition(self):
        # every replicate's statistic, in draw order, exactly as the definition computes it
        # from the documented draws (the sum over the drawn families of their sums over the sum
        # of their sizes): integer vectors of every sign and size (the packed path, and the plain
        # one for sums too large for a packed field), and float vectors (exact fsums)
        rng = random.Random(21)
        vectors = {
            "0/1": lambda: rng.randint(0, 1),
            "paired difference": lambda: rng.randint(-1, 1),
            "large ints": lambda: rng.randint(-10 ** 6, 10 ** 6),
            "ints beyond a packed field": lambda: rng.randint(-10 ** 12, 10 ** 12),
            "floats": lambda: rng.random() - 0.5,
            "floats of mixed magnitudes": lambda: rng.choice([1e-9, 1.0, 3e7]) * (rng.random() - 0.5),
            "floats and signed zeros": lambda: rng.choice([-0.0, 0.0, 0.25, -1.5]),
        }
        for name, draw_value in vectors.items():
            for trial in range(12):
                fam = {f"q{i}": f"f{rng.randrange(1 + trial)}" for i in range(1 + 3 * trial)}
                vals = {q: draw_value() for q in fam}
                seed, replicates = rng.randrange(100), rng.choice([1, 9, 64])
                fids = sorted(set(fam.values()))
                members = [[q for q in sorted(fam) if fam[q] == f] for f in fids]
                draws = random.Random(seed)
                expected = []
                for _ in range(replicates):
                    idx = draws.choices(range(len(fids)), k=len(fids))
                    terms = [vals[q] for i in idx for q in members[i]]
                    num = sum(terms) if not name.startswith("floats") else math.fsum(
                        math.fsum(vals[q] for q in members[i]) for i in idx)
                    expected.append(num / sum(len(members[i]) for i in idx))
                got = inf.Resampler(fam.keys(), fam, seed=seed).replicate_means(vals, replicates)
                self.assertEqual([x.hex() for x in got], [x.hex() for x in expected], (name, trial))

    def test_replicate_means_of_a_design_too_large_for_packed_counts(self):
        # 70,000 one-query families: a count may exceed 16 bits, so the draws are added one by
        # one (and held as 4-byte indices); the statistic is still the definition's
        n = 70000
        fam = {i: i for i in range(n)}
        rng = random.Random(2)
        ints = {i: rng.randint(0, 1) for i in fam}
        floats = {i: rng.random() for i in fam}
        draws = random.Random(4)
        idx = [draws.choices(range(n), k=n) for _ in range(2)]
        resampler = inf.Resampler(fam.keys(), fam, seed=4)
        self.assertEqual(resampler.replicate_means(ints, 2), [sum(ints[i] for i in d) / n for d in idx])
        self.assertEqual(resampler.replicate_means(floats, 2), [math.fsum(floats[i] for i in d) / n for d in idx])

    def test_resampler_reuse_matches_single_calls(self):
        rng = random.Random(3)
        fam = {i: rng.randrange(9) for i in range(30)}
        a = {i: rng.randint(0, 1) for i in fam}
        b = {i: rng.randint(0, 1) for i in fam}
        c = {i: rng.randint(0, 1) for i in fam}
        rs = inf.Resampler(fam.keys(), fam, seed=5)
        self.assertEqual(rs.paired_bootstrap(a, c, replicates=300),
                         inf.paired_family_bootstrap(a, c, fam, replicates=300, seed=5))
        rs.flip_test(a, b, draws=500)
        self.assertEqual(rs.flip_test(a, c, draws=500),
                         inf.family_flip_test(a, c, fam, draws=500, seed=5))


class InputRefusalTest(unittest.TestCase):
    def test_refusals(self):
        fam = {"a": 1, "b": 2}
        cases = [
            lambda: inf.family_bootstrap({}, fam),
            lambda: inf.family_bootstrap([], []),
            lambda: inf.paired_family_bootstrap({"a": 1, "b": 0}, {"a": 1}, fam),
            lambda: inf.paired_family_bootstrap({"a": 1, "c": 0}, {"a": 1, "c": 1}, fam),
            lambda: inf.family_flip_test({"a": 1, "b": float("nan")}, {"a": 1, "b": 0}, fam),
            lambda: inf.family_flip_test({"a": 1, "b": "x"}, {"a": 1, "b": 0}, fam),
            lambda: inf.family_flip_test({"a": 1, "b": 0}, {"a": 1, "b": 0}, {"a": 1, "b": None}),
            lambda: inf.family_flip_test({"a": 1, "b": 0}, {"a": 0, "b": 0}, fam, draws=0),
            lambda: inf.family_bootstrap({"a": 1, "b": 0}, fam, level=1.0),
            lambda: inf.family_bootstrap({"a": 1, "b": 0}, fam, replicates=-5),
            lambda: inf.family_bootstrap("ab", fam),
            lambda: inf.query_permutation_test([1, 0], [1, 0, 1]),
        ]
        for i, case in enumerate(cases):
            with self.assertRaises(NclueError, msg=f"case {i}"):
                case()

    def test_missing_family_message_names_query(self):
        with self.assertRaisesRegex(NclueError, "missing 1 queries.*'b'"):
            inf.family_bootstrap({"a": 1, "b": 0}, {"a": 1})


class SharedDocumentTest(unittest.TestCase):
    # Hand example: q1 {a, b}, q2 {b}, q3 {c}, q4 {c, d}, q5 {e}.
    MEM = {"q1": ["a", "b"], "q2": ["b"], "q3": ["c"], "q4": ["c", "d"], "q5": ["e"]}
    BASE = {"q1": 0, "q2": 0, "q3": 1, "q4": 0, "q5": 1}
    VAR = {"q1": 1, "q2": 1, "q3": 1, "q4": 1, "q5": 0}   # diffs 1, 1, 0, 1, -1

    def test_components(self):
        comps = inf.membership_components(self.MEM)
        self.assertEqual(comps, [("q1", "q2"), ("q3", "q4"), ("q5",)])
        chain = {"x": ["1"], "y": ["1", "2"], "z": ["2"], "w": []}
        self.assertEqual(inf.membership_components(chain), [("x", "y", "z"), ("w",)])

    def test_leave_one_document_out(self):
        # Drop a -> q2..q5: (1+0+1-1)/4 = .25; b -> q3,q4,q5: 0/3 = 0; c -> q1,q2,q5: 1/3;
        # d -> q1,q2,q3,q5: 1/4; e -> q1..q4: 3/4.
        got = inf.leave_one_document_out(self.BASE, self.VAR, self.MEM)
        self.assertEqual(got.per_document, {"a": 0.25, "b": 0.0, "c": 1 / 3, "d": 0.25,
                                            "e": 0.75})
        self.assertEqual((got.lo, got.lo_document, got.hi, got.hi_document),
                         (0.0, "b", 0.75, "e"))
        self.assertAlmostEqual(got.observed, 2 / 5)

    def test_remove_top_degree(self):
        # Degrees: b 2, c 2, a 1, d 1, e 1. k=1 removes b (tie with c broken by id): q3,q4,q5
        # remain, mean diff (0+1-1)/3 = 0. k=2 removes b, c: only q5 remains: -1.
        got = inf.remove_top_degree_documents(self.BASE, self.VAR, self.MEM, k=1)
        self.assertEqual((got.delta, got.queries_left, got.removed), (0.0, 3, ("b",)))
        got = inf.remove_top_degree_documents(self.BASE, self.VAR, self.MEM, k=2)
        self.assertEqual((got.delta, got.queries_left, got.removed), (-1.0, 1, ("b", "c")))
        # k=3 adds a (first of the degree-1 ties a, d, e): q5 still remains.
        got = inf.remove_top_degree_documents(self.BASE, self.VAR, self.MEM, k=3)
        self.assertEqual((got.delta, got.queries_left, got.removed), (-1.0, 1, ("b", "c", "a")))
        with self.assertRaises(NclueError):
            inf.remove_top_degree_documents(self.BASE, self.VAR, self.MEM, k=5)  # none left
        with self.assertRaises(NclueError):
            inf.remove_top_degree_documents(self.BASE, self.VAR, self.MEM, k=6)

    def test_crossed_follows_documented_weights(self):
        # Independent re-derivation of the documented pigeonhole weights for 300 replicates.
        qids = sorted(self.MEM)
        docs = sorted({d for v in self.MEM.values() for d in v})
        diff = {q: self.VAR[q] - self.BASE[q] for q in qids}
        rng = random.Random(21)
        stats = []
        while len(stats) < 300:
            qc = [0] * len(qids)
            for i in rng.choices(range(len(qids)), k=len(qids)):
                qc[i] += 1
            dc = {d: 0 for d in docs}
            for i in rng.choices(range(len(docs)), k=len(docs)):
                dc[docs[i]] += 1
            w = {q: qc[i] * sum(dc[d] for d in self.MEM[q]) / len(self.MEM[q])
                 for i, q in enumerate(qids)}
            den = sum(w.values())
            if den > 0:
                stats.append(sum(w[q] * diff[q] for q in qids) / den)
        stats.sort()
        got = inf.crossed_bootstrap(self.BASE, self.VAR, self.MEM, replicates=300, seed=21)
        self.assertAlmostEqual(got.lo, inf.percentile(stats, 0.025), places=12)
        self.assertAlmostEqual(got.hi, inf.percentile(stats, 0.975), places=12)

    def test_crossed_constant_difference(self):
        base = {q: 0.0 for q in self.MEM}
        var = {q: 0.5 for q in self.MEM}
        got = inf.crossed_bootstrap(base, var, self.MEM, replicates=100)
        self.assertEqual((got.lo, got.hi), (0.5, 0.5))

    def test_refusals(self):
        with self.assertRaises(NclueError):
            inf.crossed_bootstrap(self.BASE, self.VAR, {**self.MEM, "q5": []})
        with self.assertRaises(NclueError):
            inf.crossed_bootstrap(self.BASE, self.VAR, {"q1": ["a"]})
        with self.assertRaises(NclueError):
            inf.leave_one_document_out(self.BASE, self.VAR, {**self.MEM, "q1": "ab"})
        with self.assertRaises(NclueError):
            inf.membership_components({})


class CommonSupportTest(unittest.TestCase):
    def test_hand_example(self):
        # (first gold rank, first subset rank), k = 10.
        base = {"q1": (1, None),   # gold-first
                "q2": (3, 2),      # subset-first
                "q3": (None, 1),   # miss
                "q4": (12, None),  # miss (gold beyond the cutoff)
                "q5": (2, 5)}      # gold-first
        var = {"q1": (4, 1),       # subset-first
               "q2": (1, 3),       # gold-first
               "q3": (2, None),    # gold-first
               "q4": (None, None),  # miss
               "q5": (7, 9)}       # gold-first
        got = inf.common_support_ordering(base, var)
        # Common support: both have a top-10 gold: q1, q2, q5 -> 3 queries.
        # D_base = 2/3 (q1, q5); D_variant = 2/3 (q2, q5); delta 0.
        self.assertEqual(got.support, 3)
        self.assertAlmostEqual(got.d_base, 2 / 3)
        self.assertAlmostEqual(got.d_variant, 2 / 3)
        self.assertEqual(got.delta_d, 0.0)
        self.assertEqual(got.base, inf.Outcomes(miss=0.4, subset_first=0.2, gold_first=0.4))
        self.assertEqual(got.variant, inf.Outcomes(miss=0.2, subset_first=0.2, gold_first=0.6))
        self.assertEqual(inf.outcome_class((3, 2)), "subset_first")
        self.assertEqual(inf.outcome_class((10, None)), "gold_first")
        self.assertEqual(inf.outcome_class((11, None)), "miss")

    def test_empty_support(self):
        got = inf.common_support_ordering({"a": (None, 1)}, {"a": (1, None)})
        self.assertEqual((got.support, got.d_base, got.delta_d), (0, None, None))

    def test_refusals(self):
        with self.assertRaises(NclueError):
            inf.common_support_ordering({"a": (2, 2)}, {"a": (1, None)})
        with self.assertRaises(NclueError):
            inf.common_support_ordering({"a": (0, None)}, {"a": (1, None)})
        with self.assertRaises(NclueError):
            inf.common_support_ordering({"a": (1, None)}, {"b": (1, None)})
        with self.assertRaises(NclueError):
            inf.common_support_ordering({}, {})


def _brute_success(top, promoted):
    for doc, label in top:
        if label == "gold" or (label == "subset" and doc in promoted):
            return 1
        if label == "subset":
            return 0
    return 0


class PromotionBoundTest(unittest.TestCase):
    def random_case(self, rng, nq):
        base, var = {}, {}
        for q in range(nq):
            pool = [f"d{j}" for j in range(7)]
            labels = {d: rng.choice(["gold", "subset", "subset", None, None]) for d in pool}
            base[q] = [(d, labels[d]) for d in rng.sample(pool, rng.randint(0, 5))]
            var[q] = [(d, labels[d]) for d in rng.sample(pool, rng.randint(0, 5))]
        return base, var

    def brute(self, base, var, k):
        """Minimum over every joint choice of per-query promotion sets (|P_q| <= k)."""
        options = []
        for q in sorted(base):
            cands = sorted({d for d, lab in base[q] + var[q] if lab == "subset"})
            sets = [frozenset(c) for r in range(min(k, len(cands)) + 1)
                    for c in itertools.combinations(cands, r)]
            options.append([(_brute_success(var[q], s) - _brute_success(base[q], s)) for s in sets])
        best = None
        for combo in itertools.product(*options):
            total = sum(combo)
            best = total if best is None else min(best, total)
        return 100 * best / len(base)

    def test_exact_against_exhaustive_search(self):
        rng = random.Random(31)
        for _ in range(40):
            base, var = self.random_case(rng, rng.randint(1, 3))
            for k in range(4):
                got = inf.promotion_bound(base, var, k)
                self.assertAlmostEqual(got.minimum, self.brute(base, var, k), places=9)
                self.assertAlmostEqual(got.observed, self.brute(base, var, 0), places=9)
                # The witness attains the minimum and respects the budget.
                total = 0
                for q in base:
                    p = set(got.promoted.get(q, ()))
                    self.assertLessEqual(len(p), k)
                    total += _brute_success(var[q], p) - _brute_success(base[q], p)
                self.assertAlmostEqual(100 * total / len(base), got.minimum, places=9)

    def test_hand_example(self):
        # q1: base [s1, g1] fails; variant [g1] succeeds -> +1; promoting s1 makes base succeed
        # and the variant's first judged (g1) is unaffected -> 0.
        # q2: base [x (unjudged), g2] succeeds; variant [s2] fails -> -1 regardless.
        # q3: both start with the same subset s3: promoting it helps both -> stays 0.
        base = {"q1": [("s1", "subset"), ("g1", "gold")], "q2": [("x", None), ("g2", "gold")],
                "q3": [("s3", "subset")]}
        var = {"q1": [("g1", "gold")], "q2": [("s2", "subset")],
               "q3": [("s3", "subset"), ("g3", "gold")]}
        got = inf.promotion_bound(base, var, 1)
        self.assertAlmostEqual(got.observed, 0.0)        # (+1 - 1 + 0)/3
        self.assertAlmostEqual(got.minimum, -100 / 3)    # (0 - 1 + 0)/3
        self.assertEqual(got.promoted, {"q1": ("s1",)})

    def test_depth_cut(self):
        # Only the first `depth` entries count: a gold at rank 3 with depth 2 is not a success.
        got = inf.promotion_bound({"q": [("a", None), ("b", None), ("g", "gold")]},
                                  {"q": [("g", "gold")]}, 0, depth=2)
        self.assertAlmostEqual(got.observed, 100.0)

    def test_refusals(self):
        with self.assertRaises(NclueError):
            inf.promotion_bound({"q": [("a", "gold")]}, {"q": [("a", "subset")]}, 1)
        with self.assertRaises(NclueError):
            inf.promotion_bound({"q": [("a", "partial")]}, {"q": []}, 1)
        with self.assertRaises(NclueError):
            inf.promotion_bound({"q": [("a", None), ("a", None)]}, {"q": []}, 1)
        with self.assertRaises(NclueError):
            inf.promotion_bound({"q": []}, {"r": []}, 1)
        with self.assertRaises(NclueError):
            inf.promotion_bound({"q": []}, {"q": []}, -1)


class ExampleReleaseTest(unittest.TestCase):
    """The adapters and sensitivity analyses on data/example (hand-derived from its qrels/runs)."""

    @classmethod
    def setUpClass(cls):
        from pathlib import Path

        from nclue.metrics import outcomes
        from nclue.release import load_release
        from nclue.runs import load_run
        example = Path(__file__).resolve().parent.parent / "data" / "example"
        cls.release = load_release(example)
        cls.lexical = load_run(example / "runs" / "example_lexical.jsonl.gz", cls.release)
        cls.pages = load_run(example / "runs" / "example_pages.jsonl.gz", cls.release)
        cls.outcomes = staticmethod(outcomes)

    def test_membership_graphs(self):
        # Golds: q1 {d01}, q2 {d04,d05}, q3 {d09}, q4 {d10}, q5 = q6 = {d11,d12}:
        # components {q5,q6} then singletons.
        gold = inf.gold_memberships(self.release)
        self.assertEqual(gold["q2"], ("d04", "d05"))
        self.assertEqual(inf.membership_components(gold),
                         [("q5", "q6"), ("q1",), ("q2",), ("q3",), ("q4",)])
        # All judged: q1 {d01,d02,d03,d10,d11}, q3 {d01,d09,d10}, q4 {d01,d02,d03,d10,d11,d12},
        # q5 {d11,d12}, q6 {d03,d11,d12} are linked by d01/d10/d11; q2 {d04..d08} is alone.
        judged = inf.judged_memberships(self.release)
        self.assertEqual(inf.membership_components(judged),
                         [("q1", "q3", "q4", "q5", "q6"), ("q2",)])

    def test_promotion_bound_lexical_to_pages(self):
        # Base lexical: q1 gold first (1); q2 subset d06 first (0); q3 subset d01 first (0);
        # q4 gold (1); q5 unjudged d03 then gold (1); q6 no ranking (0).
        # Variant pages: q1 1; q2 gold d04 (1); q3 gold d09 (1); q4 subset d11 first (0);
        # q5 only unjudged d07 (0); q6 gold d12 (1). Observed (0+1+1-1-1+1)/6 = +16.67 points.
        # k = 1: promote d06 (q2) and d01 (q3) so the base succeeds there too: 0, 0;
        # q1 0, q4 -1, q5 -1, q6 +1 cannot change -> (0+0+0-1-1+1)/6 = -16.67 points.
        base = inf.top_labels(self.release, self.lexical)
        variant = inf.top_labels(self.release, self.pages)
        self.assertEqual(base["q6"], [])
        self.assertEqual(base["q5"][0], ("d03", None))
        got = inf.promotion_bound(base, variant, 1)
        self.assertAlmostEqual(got.observed, 100 / 6)
        self.assertAlmostEqual(got.minimum, -100 / 6)
        self.assertEqual(got.promoted, {"q2": ("d06",), "q3": ("d01",)})
        self.assertEqual(inf.promotion_bound(base, variant, 3).minimum, got.minimum)

    def test_common_support_lexical_to_pages(self):
        # (first gold, first subset): lexical q1 (1,2) q2 (2,1) q3 (-,1) q4 (1,2) q5 (2,-) q6 (-,-)
        # pages q1 (1,2) q2 (1,3) q3 (1,-) q4 (2,1) q5 (-,-) q6 (1,-).
        # Support (both find a gold): q1, q2, q4. D_base = 2/3 (q1, q4), D_var = 2/3 (q1, q2).
        # Base M/P/G = 2/6, 1/6, 3/6; variant 1/6, 1/6, 4/6.
        def ranks(run):
            return {q: (o.first_gold, o.first_subset)
                    for q, o in self.outcomes(self.release, run).items()}
        got = inf.common_support_ordering(ranks(self.lexical), ranks(self.pages))
        self.assertEqual((got.support, got.delta_d), (3, 0.0))
        self.assertAlmostEqual(got.d_base, 2 / 3)
        self.assertAlmostEqual(got.base.miss, 2 / 6)
        self.assertAlmostEqual(got.base.subset_first, 1 / 6)
        self.assertAlmostEqual(got.base.gold_first, 3 / 6)
        self.assertAlmostEqual(got.variant.miss, 1 / 6)
        self.assertAlmostEqual(got.variant.gold_first, 4 / 6)


if __name__ == "__main__":
    unittest.main()


class CrossedWeightsBitmaskPath(unittest.TestCase):
    """Long membership lists (judged pools) are summed through bitmask popcounts; the weights
    must equal the documented definition, re-derived here with plain sums."""

    DOCS = ["a", "b", "c", "d"]
    MEM = {f"q{i:02d}": [d for j, d in enumerate(["a", "b", "c", "d"]) if (i >> j) & 1 or j == i % 4]
           for i in range(1, 16)}  # every non-empty subset of the four documents, q15 = all four

    def test_the_bitmask_path_is_taken(self):
        from nclue.inference.sensitivity import BITMASK_FACTOR
        self.assertGreater(sum(map(len, self.MEM.values())), BITMASK_FACTOR * len(self.DOCS))

    def test_weights_follow_the_definition(self):
        qids = sorted(self.MEM)
        rng = random.Random(8)
        expected = []
        while len(expected) < 200:
            qc = [0] * len(qids)
            for i in rng.choices(range(len(qids)), k=len(qids)):
                qc[i] += 1
            dc = [0] * len(self.DOCS)
            for i in rng.choices(range(len(self.DOCS)), k=len(self.DOCS)):
                dc[i] += 1
            indices, weights = [], []
            for i, q in enumerate(qids):
                w = qc[i] * sum(dc[self.DOCS.index(d)] for d in self.MEM[q]) / len(set(self.MEM[q]))
                if w:
                    indices.append(i)
                    weights.append(w)
            if weights:
                expected.append((tuple(indices), tuple(weights)))
        got = inf.crossed_weights(qids, self.MEM, replicates=200, seed=8)
        self.assertEqual(got.replicates, tuple(expected))

    def test_level_masks_and_popcount(self):
        from nclue.inference.sensitivity import _level_masks, _popcount_py39
        # counts per index 0..3: index 1 drawn twice, 2 once, 3 three times
        self.assertEqual(sorted(_level_masks([0, 2, 1, 3])), [0b1000, 0b1010, 0b1110])
        self.assertEqual(_level_masks([0, 0]), [])
        self.assertEqual([_popcount_py39(x) for x in (0, 1, 0b1011, 2 ** 200 - 1)], [0, 1, 3, 200])


class CrossedWeightsReuse(unittest.TestCase):
    """Precomputed crossed-bootstrap weights give exactly the interval drawn per call."""

    def test_reuse_is_identical(self):
        base = {"q1": 0, "q2": 1, "q3": 0, "q4": 1, "q5": 0}
        var = {"q1": 1, "q2": 1, "q3": 1, "q4": 0, "q5": 1}
        mem = {"q1": ["a"], "q2": ["a", "b"], "q3": ["c"], "q4": ["b", "c"], "q5": ["d"]}
        direct = inf.crossed_bootstrap(base, var, mem, replicates=200, seed=5)
        weights = inf.crossed_weights(base.keys(), mem, replicates=200, seed=5)
        reused = inf.crossed_bootstrap(base, var, {}, replicates=200, seed=5, weights=weights)
        self.assertEqual(direct, reused)
        with self.assertRaises(inf.NclueError):
            inf.crossed_bootstrap(base, var, {}, replicates=100, seed=5, weights=weights)
