"""Verdict rule of the findings table (nclue/tables/findings.py), worked by hand."""

import math
import statistics
import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.inference.montecarlo import bootstrap_distribution
from nclue.report.assemble import build_release_report, open_release
from nclue.tables.findings import verdict
from nclue.tables.kinds import table_from_dict

ROOT = Path(__file__).resolve().parent.parent


class Verdicts(unittest.TestCase):
    def test_positive_direction(self):
        self.assertEqual(verdict("+", 5.0, 1.0, 9.0), 1)     # right sign, CI above zero
        self.assertEqual(verdict("+", 5.0, -1.0, 9.0), 0)    # right sign, CI spans zero
        self.assertEqual(verdict("+", -5.0, -9.0, -1.0), -2)  # opposite sign, CI below zero
        self.assertEqual(verdict("+", -5.0, -9.0, 1.0), -1)   # opposite sign, CI spans zero
        self.assertEqual(verdict("+", 0.0, -2.0, 2.0), 0)    # no difference: not contradicted

    def test_negative_and_null_direction(self):
        self.assertEqual(verdict("-", -3.0, -6.0, -0.5), 1)
        self.assertEqual(verdict("-", 3.0, -1.0, 6.0), -1)
        self.assertEqual(verdict("-", 3.0, 1.0, 6.0), -2)
        # null findings are judged by equivalence (TOST) of the 90% interval within the margin
        # (issue 14): "the 95% interval spans zero" alone is no longer a replication.
        self.assertEqual(verdict("0", 0.0, -1.0, 1.0, 2.0, -0.8, 0.8), 1)   # inside (-2, 2)
        self.assertEqual(verdict("0", 0.0, -3.0, 3.0, 2.0, -2.5, 2.5), 0)   # spans zero, not equivalent
        self.assertEqual(verdict("0", 4.0, 2.5, 5.5, 2.0, 2.8, 5.2), -2)    # beyond the margin
        self.assertEqual(verdict("0", 2.0, 0.5, 3.5, 5.0, 0.8, 3.2), 1)     # excludes 0 but equivalent


class ExampleFindings(unittest.TestCase):
    def test_example_findings(self):
        ctx, spec = open_release(ROOT / "data" / "example")
        table = [t for t in build_release_report(ctx, spec).tables if t.table_id == "findings"][0]
        rows = {key: cells for key, _, cells in table.rows}
        # pages - lexical n-Clue: 4/6 - 3/6 = +16.7 points (tests/test_example_release.py);
        # dense - lexical Gold Hit: 6/6 - 4/6 = +33.3 points.
        self.assertAlmostEqual(rows["pages_vs_lexical"]["delta"], 100 / 6)
        self.assertAlmostEqual(rows["dense_hit"]["delta"], 200 / 6)
        # With 5 families a bootstrap interval of +16.7 spans zero (q3 and q4 move in
        # opposite directions), so neither finding can be significant here.
        self.assertLessEqual(rows["pages_vs_lexical"]["ci_lo"], 0.0)
        self.assertEqual(rows["pages_vs_lexical"]["verdict"], 0.0)

    def test_tost_row_prints_the_se_of_its_deciding_90_percent_bound(self):
        # A no-effect row by hand: pages vs lexical on the example, margin 30 points. Its 90%
        # bounds are the type-7 5% and 95% quantiles of the 1,000 replicates; each bound's MC SE
        # is s sqrt(q (1 - q) / B) / phi(z_q) with s the replicates' SD (docs/inference.md). The
        # verdict changes where a 90% bound crosses -30 or +30, so the bound nearest one of them
        # in its own SEs decides; the row must print that bound's SE, not a 95% bound's.
        ctx = ReleaseContext(ROOT / "data" / "example")
        spec = {"id": "f", "kind": "findings", "seed": 11, "replicates": 1000, "findings": [
            {"id": "null", "statement": "no effect", "base": "example_lexical",
             "variant": "example_pages", "measure": "nclue_score", "direction": "0",
             "margin": 30.0}]}
        cells = table_from_dict(spec, ctx).rows[0][2]
        measure = ctx.registry.parse("nclue_score@10")
        base, variant = ctx.vector("example_lexical", measure), ctx.vector("example_pages", measure)
        stats = bootstrap_distribution(ctx.resampler(base, 11),
                                       {q: variant[q] - base[q] for q in base}, 1000)
        normal = statistics.NormalDist()

        def quantile(q):  # type 7
            h = (len(stats) - 1) * q
            j = math.floor(h)
            return stats[j] + (h - j) * (stats[j + 1] - stats[j])

        def se(q):
            return (statistics.stdev(stats) * math.sqrt(q * (1 - q) / len(stats))
                    / normal.pdf(normal.inv_cdf(q)))

        lo90, hi90 = 100 * quantile(0.05), 100 * quantile(0.95)
        self.assertAlmostEqual(cells["lo90"], lo90)
        self.assertAlmostEqual(cells["hi90"], hi90)
        # lo90 ~ -28.8 lies ~1.2 points from -30; hi90 ~ 66.7 lies ~37 points from +30
        distance_lo = abs(lo90 + 30) / (100 * se(0.05))
        distance_hi = abs(hi90 - 30) / (100 * se(0.95))
        self.assertLess(distance_lo, distance_hi)
        self.assertAlmostEqual(cells["se"], 100 * se(0.05), places=9)
        self.assertNotAlmostEqual(cells["se"], 100 * se(0.025), places=3)  # not a 95% bound's
        self.assertEqual(cells["fragile"], 1.0 if distance_lo < 2 else 0.0)
        self.assertLess(distance_lo, 2)  # the hand-made case is fragile: -28.8 is < 2 SE from -30
        self.assertEqual(cells["verdict"], 0.0)  # inside on the left, beyond +30 on the right

    def test_hard_coverage_finding(self):
        ctx = ReleaseContext(ROOT / "data" / "example")
        spec = {"id": "f", "kind": "findings", "findings": [
            {"id": "hc", "statement": "dense covers more conditions", "base": "example_lexical",
             "variant": "example_dense", "measure": "hc@10", "direction": "+"}]}
        cells = table_from_dict(spec, ctx).rows[0][2]
        # HC@10 by hand: lexical covers every condition of q1, q2, q4, q5, half of q3 (beamer via
        # d01/d10, Index only in d09) and nothing of q6 (unranked): 4.5 / 6 = 75.0.
        # The dense run covers every condition of every query (q3 via d09, q6 via d03/d11): 100.
        self.assertAlmostEqual(cells["base"], 75.0)
        self.assertAlmostEqual(cells["variant"], 100.0)
        self.assertAlmostEqual(cells["delta"], 25.0)

    def test_shared_draws_equal_separate_bootstraps(self):
        """Findings share one Resampler per query set; each interval must equal the interval of a
        separate paired_family_bootstrap with the same seed (same draws by construction)."""
        from nclue import inference
        from nclue.release import gold_families
        ctx = ReleaseContext(ROOT / "data" / "example")
        pairs = [("example_lexical", "example_dense", "nclue_score@10"),
                 ("example_lexical", "example_pages", "gold_hit@10"),
                 ("example_pages", "example_dense", "gold_ndcg@10")]
        spec = {"id": "f", "kind": "findings", "seed": 5, "replicates": 200, "findings": [
            {"id": f"f{i}", "statement": "s", "base": b, "variant": v, "measure": m}
            for i, (b, v, m) in enumerate(pairs)]}
        rows = table_from_dict(spec, ctx).rows
        for (b, v, m), (_, _, cells) in zip(pairs, rows):
            alone = inference.paired_family_bootstrap(ctx.vectors(b)[m], ctx.vectors(v)[m],
                                                      gold_families(ctx.release),
                                                      replicates=200, seed=5)
            self.assertEqual((cells["ci_lo"], cells["ci_hi"]), (100.0 * alone.lo, 100.0 * alone.hi))


class DispersionGapFinding(unittest.TestCase):
    """The Multi3IR Table 7 interaction: gain among the most dispersed quarter of the queries
    minus gain among the most clustered quarter."""

    # 8 queries; dispersions put a,b in the lowest quartile and g,h in the highest
    DISPERSIONS = {"a": 0.10, "b": 0.20, "c": 0.30, "d": 0.40, "e": 0.50, "f": 0.60,
                   "g": 0.70, "h": 0.80}
    DIFF = {"a": 0.0, "b": 0.5, "c": 1.0, "d": 1.0, "e": 0.0, "f": 0.0, "g": 1.0, "h": 0.5}

    def test_gap_by_hand(self):
        from nclue import inference
        from nclue.tables.findings import quartile_gap
        # one family: every replicate redraws all eight queries, so each replicate is the gap
        resampler = inference.Resampler(self.DIFF, {q: "all" for q in self.DIFF}, seed=3)
        gap, stats = quartile_gap(self.DIFF, self.DISPERSIONS, resampler, 20)
        # highest quartile {g, h}: (1 + 0.5) / 2 = 0.75; lowest {a, b}: (0 + 0.5) / 2 = 0.25
        self.assertAlmostEqual(gap, 0.5)
        self.assertEqual(len(stats), 20)
        for value in stats:
            self.assertAlmostEqual(value, 0.5)

    def test_replicates_recount_the_groups(self):
        from nclue import inference
        from nclue.tables.findings import quartile_gap
        # two families, {a, c, e, g} and {b, d, f, h}: a replicate draws (x, x), (x, y) or (y, y).
        families = {q: ("x" if q in "aceg" else "y") for q in self.DIFF}
        resampler = inference.Resampler(self.DIFF, families, seed=4)
        _, stats = quartile_gap(self.DIFF, self.DISPERSIONS, resampler, 200)
        # (x, x): g - a = 1 - 0 = 1; (y, y): h - b = 0.5 - 0.5 = 0; one of each: the full gap 0.5
        self.assertTrue(set(round(v, 12) for v in stats) <= {0.0, 0.5, 1.0})
        self.assertEqual(len(set(round(v, 12) for v in stats)), 3)

    def test_queries_outside_the_runs_are_refused(self):
        from nclue import inference
        from nclue.tables.findings import quartile_gap
        diff = {q: v for q, v in self.DIFF.items() if q != "h"}
        resampler = inference.Resampler(diff, {q: q for q in diff}, seed=1)
        with self.assertRaisesRegex(ValueError, "not scored by both runs"):
            quartile_gap(diff, self.DISPERSIONS, resampler, 5)

    def test_example_release_names_the_spec(self):
        import json
        import shutil
        import tempfile
        from nclue.errors import InputError
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "example"
            shutil.copytree(ROOT / "data" / "example", folder)
            (folder / "facts").mkdir()
            (folder / "facts" / "dispersion.jsonl").write_text("".join(
                json.dumps({"qid": q, "dispersion": d}) + "\n"
                for q, d in zip(["q1", "q2", "q3", "q4", "q5", "q6"],
                                [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])), encoding="utf-8")
            ctx = ReleaseContext(folder)
            spec = {"id": "f", "kind": "findings", "replicates": 50, "findings": [
                {"id": "gap", "statement": "s", "base": "example_lexical",
                 "variant": "example_dense", "measure": "hc@10", "direction": "+",
                 "dispersion_quartiles": "facts/dispersion.jsonl"}]}
            # quartiles of 6 queries: q1, q2 | q3 | q4, q5 | q6. HC@10 gains of dense over
            # lexical (test_hard_coverage_finding): q3 0.5, q6 1.0, the rest 0. The top quartile
            # {q6} shares its family with q5; a replicate that never draws that family has no
            # top-quartile query, so 50 replicates cannot all be computed: refused, naming the spec.
            with self.assertRaisesRegex(InputError, "drew no query of a group"):
                table_from_dict(spec, ctx)
            spec["findings"][0]["dispersion_quartiles"] = "facts/missing.jsonl"
            with self.assertRaises(InputError):
                table_from_dict(spec, ctx)


if __name__ == "__main__":
    unittest.main()
