"""Multi3IR analyses: per-perspective Hit@k and its rank profile (Figure 4), the dispersion facts
reader, and the pure table functions of the Multi3IR kinds (Tables 2, 2 contrasts, 4, 5, 6, 7 and
Figure 4; nclue/tables/multi3ir.py lists them) with the figure's drawing.

Every expected value is worked out by hand in the comments next to it.
"""

import os
import tempfile
import unittest

from nclue import coverage
from nclue.errors import InputError, NclueError
from nclue.measures import REGISTRY, cutoff_key, interval_keys
from nclue.report.perspective_hits import hit_rank_svg
from nclue.tables.adaptation import AdaptationRow, ParameterCount, adaptation_table
from nclue.tables.dispersion_quartiles import dispersion_quartile_table
from nclue.tables.knowledge_sources import Grouping, grouping_values, source_coverage_table
from nclue.tables.layer_grid import GridCell, GridLayer, layer_grid_table
from nclue.tables.multi3ir import CoverageRow, MethodRow
from nclue.tables.perspective_contrasts import Contrast, contrast_table
from nclue.tables.perspective_coverage import coverage_table, mean_perspectives
from nclue.tables.perspective_hits import hit_rank_series, hit_rank_table


def pq(qid, *supports):
    return coverage.PerspectiveQuery(qid, qid, tuple(
        coverage.Perspective(f"c{i}", frozenset(docs)) for i, docs in enumerate(supports)))


class PerspectiveHitTest(unittest.TestCase):
    SUPPORTS = [{"a", "b"}, {"c"}, {"d"}]
    RANKING = ["x", "c", "a", "y"]

    def test_hits_by_cutoff(self):
        # top 1 = {x}: nothing; top 2 = {x, c}: only c2's "c"; top 3 adds "a" (c1); "d" never
        self.assertEqual(coverage.perspective_hits(self.SUPPORTS, self.RANKING, 1), (0, 0, 0))
        self.assertEqual(coverage.perspective_hits(self.SUPPORTS, self.RANKING, 2), (0, 1, 0))
        self.assertEqual(coverage.perspective_hits(self.SUPPORTS, self.RANKING, 3), (1, 1, 0))
        self.assertEqual(coverage.perspective_hits(self.SUPPORTS, self.RANKING, 100), (1, 1, 0))

    def test_mean_of_hits_is_hard_coverage(self):
        for k in (1, 2, 3, 4):
            hits = coverage.perspective_hits(self.SUPPORTS, self.RANKING, k)
            self.assertAlmostEqual(sum(hits) / 3, coverage.hard_coverage(self.SUPPORTS,
                                                                         self.RANKING, k))

    def test_empty_supports_refused(self):
        with self.assertRaises(ValueError):
            coverage.perspective_hits([], self.RANKING, 1)

    def test_rank_profile(self):
        # sorted descending: q1 (1,0,0), q2 (1,1), q3 (1,0,0), q4 (0,0)
        # rank 1: (1+1+1+0)/4 = 75; rank 2: (0+1+0+0)/4 = 25; rank 3: q1, q3 only: 0/2 = 0
        hits = {"q1": (0, 1, 0), "q2": (1, 1), "q3": (0, 0, 1), "q4": (0, 0)}
        rows = coverage.hit_rank_profile(hits)
        self.assertEqual([(r["rank"], r["queries"]) for r in rows], [(1, 4), (2, 4), (3, 2)])
        self.assertAlmostEqual(rows[0]["value"], 75.0)
        self.assertAlmostEqual(rows[1]["value"], 25.0)
        self.assertAlmostEqual(rows[2]["value"], 0.0)

    def test_rank_profile_refuses_empty(self):
        with self.assertRaises(ValueError):
            coverage.hit_rank_profile({})
        with self.assertRaises(ValueError):
            coverage.hit_rank_profile({"q": ()})

    def test_unranked_query_hits_nothing(self):
        queries = {"q1": pq("q1", {"a"}, {"b"})}
        self.assertEqual(coverage.per_query_perspective_hits(queries, {}, 20), {"q1": (0, 0)})


class DispersionFileTest(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp(suffix=".jsonl")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_reads(self):
        path = self.write('{"qid": "q1", "dispersion": 0.25, "positives": 3}\n'
                          '{"qid": "q2", "dispersion": 1}\n')
        self.assertEqual(coverage.load_dispersions(path), {"q1": 0.25, "q2": 1.0})

    def test_bad_lines(self):
        cases = {'{"qid": "q1", "dispersion": 0.2}\n{"qid": "q1", "dispersion": 0.3}\n': 2,
                 '{"qid": "q1", "dispersion": 2.5}\n': 1,
                 '{"qid": "q1", "dispersion": "0.2"}\n': 1,
                 '{"qid": "q1"}\n': 1,
                 '{"dispersion": 0.2}\n': 1}
        for text, line in cases.items():
            with self.assertRaises(InputError) as ctx:
                coverage.load_dispersions(self.write(text))
            self.assertIn(f":{line}", str(ctx.exception))


# Four queries; families: q1 and q2 share family F1, q3 -> F2, q4 -> F3.
QIDS = ("q1", "q2", "q3", "q4")
FAMILIES = {"q1": "F1", "q2": "F1", "q3": "F2", "q4": "F3"}
HC10, HC100 = REGISTRY.measure("hc", 10), REGISTRY.measure("hc", 100)
SC = [REGISTRY.measure("sc", k) for k in (5, 10, 15, 20)]


def vec(*values):
    return dict(zip(QIDS, values))


PER_QUERY = {
    # hc@10 / hc@100 per query
    "naive": {"hc@10": vec(0.5, 0.0, 1.0, 0.5), "hc@100": vec(1.0, 0.5, 1.0, 0.5)},
    "spin": {"hc@10": vec(1.0, 0.5, 1.0, 0.5), "hc@100": vec(1.0, 1.0, 1.0, 1.0)},
    "rand": {"hc@10": vec(0.5, 0.0, 1.0, 0.5), "hc@100": vec(1.0, 0.5, 0.5, 0.5)},
    "rand2": {"hc@10": vec(0.5, 0.5, 1.0, 0.5), "hc@100": vec(1.0, 1.0, 0.5, 0.5)},
}


class NameProducersTest(unittest.TestCase):
    def test_keys_and_headers(self):
        self.assertEqual(interval_keys(HC10), ("hc@10_lo", "hc@10_hi"))
        self.assertEqual(cutoff_key("delta", HC100), "delta@100")
        self.assertEqual(cutoff_key("", REGISTRY.measure("source_coverage", 5)), "@5")
        self.assertEqual(REGISTRY.header(REGISTRY.measure("perspective_hit", 20)), "Hit@20")
        with self.assertRaises(ValueError):
            cutoff_key("p", REGISTRY.measure("auc"))


class Table2Test(unittest.TestCase):
    def table(self, **kw):
        rows = [CoverageRow("naive", "Naive", "naive", None, 1),
                CoverageRow("spin", "SPIN", "spin", None, 5),
                CoverageRow("are", "ARE", None, "needs a causal decoder", 5),
                CoverageRow("oracle", "Oracle", "rand", None, "perspectives")]
        return coverage_table("t2", "Table 2", rows, PER_QUERY, FAMILIES, [HC10, HC100], SC,
                              REGISTRY, seed=3, replicates=200, oracle_m=2.25, **kw)

    def test_cells_and_blocked_rows(self):
        t = self.table(sc_reason="no judge")
        cells = {key: c for key, _, c in t.rows}
        # naive HC@10 = (0.5 + 0 + 1 + 0.5) / 4 = 0.5 -> 50.0; HC@100 = 3 / 4 -> 75.0
        self.assertAlmostEqual(cells["naive"]["hc@10"], 50.0)
        self.assertAlmostEqual(cells["naive"]["hc@100"], 75.0)
        # SPIN HC@100 is 1 on every query: every bootstrap replicate is 100, so lo = hi = 100
        self.assertEqual((cells["spin"]["hc@100_lo"], cells["spin"]["hc@100_hi"]), (100.0, 100.0))
        # a percentile interval lies within the range of the per-query values (0..100)
        self.assertLessEqual(cells["naive"]["hc@10_lo"], 50.0)
        self.assertGreaterEqual(cells["naive"]["hc@10_hi"], 50.0)
        self.assertEqual(cells["spin"]["m"], 5.0)
        self.assertEqual(cells["oracle"]["m"], 2.25)      # "perspectives": the given mean
        # blocked row and SC@k columns: no values, hence no claims
        self.assertTrue(all(v is None for k, v in cells["are"].items() if k != "m"))
        self.assertTrue(all(cells[r][f"sc@{k}"] is None for r in cells for k in (5, 10, 15, 20)))
        self.assertFalse(any(key[1] == "are" and key[2] != "m" for key in t.cells()))
        self.assertEqual([c.header for c in t.columns[:4]], ["m", "HC@10", "HC@10 lo", "HC@10 hi"])
        self.assertIn("ARE: needs a causal decoder", t.note)
        self.assertIn("no judge", t.note)
        self.assertIn("200 replicates, seed 3", t.note)

    def test_mean_perspectives(self):
        # queries with 2, 3 and 2 perspectives: 7 / 3
        self.assertAlmostEqual(mean_perspectives({"a": 2, "b": 3, "c": 2}), 7 / 3)

    def test_mismatched_queries_refused(self):
        bad = {"a": {"hc@10": {"q1": 1.0}}, "b": {"hc@10": {"q2": 1.0}}}
        rows = [CoverageRow("a", "A", "a", None, None), CoverageRow("b", "B", "b", None, None)]
        with self.assertRaises(ValueError):
            coverage_table("t", "t", rows, bad, {"q1": "f", "q2": "g"}, [HC10], [], REGISTRY,
                           seed=1, replicates=10)


class ContrastTest(unittest.TestCase):
    def test_identical_runs(self):
        # naive vs rand at HC@10 are identical per query: delta 0, interval [0, 0], and every
        # sign vector gives |T*| = 0 >= |T_obs| = 0, so p = (1 + B) / (1 + B) = 1
        t = contrast_table("c", "c", [Contrast("x", "rand - naive", "naive", "rand")],
                           PER_QUERY, FAMILIES, [HC10], REGISTRY, seed=11, replicates=100,
                           draws=50)
        cells = t.rows[0][2]
        # every replicate is 0, so their SD and the bounds' Monte Carlo SE are 0 as well
        self.assertEqual((cells["delta@10"], cells["lo@10"], cells["hi@10"], cells["se@10"],
                          cells["p@10"]), (0.0, 0.0, 0.0, 0.0, 1.0))
        self.assertEqual([c.header for c in t.columns],
                         ["dHC@10", "dHC@10 lo", "dHC@10 hi", "dHC@10 MC SE", "p@10"])

    def test_delta(self):
        # spin - naive at HC@10: per query (0.5, 0.5, 0, 0), mean 0.25 -> 25.0 points;
        # at HC@100: (0, 0.5, 0, 0.5) -> mean 0.25 -> 25.0
        t = contrast_table("c", "c", [Contrast("s", "SPIN - naive", "naive", "spin")],
                           PER_QUERY, FAMILIES, [HC10, HC100], REGISTRY, seed=11,
                           replicates=100, draws=50)
        cells = t.rows[0][2]
        self.assertAlmostEqual(cells["delta@10"], 25.0)
        self.assertAlmostEqual(cells["delta@100"], 25.0)
        self.assertTrue(0 < cells["p@10"] <= 1)


class Table4Test(unittest.TestCase):
    def test_grid(self):
        t = layer_grid_table("t4", "Table 4", [GridLayer("mid", "Mid (l=3)")], [1, 5],
                             [GridCell("mid", 5, "spin", ("rand",))], PER_QUERY, HC100, REGISTRY)
        rows = {key: c for key, _, c in t.rows}
        # learned m=5: HC@100 mean of (1,1,1,1) = 100; random: (1+.5+.5+.5)/4 = 62.5; diff 37.5
        self.assertAlmostEqual(rows["mid"]["m5"], 100.0)
        self.assertAlmostEqual(rows["mid_random"]["m5"], 62.5)
        self.assertAlmostEqual(rows["mid_learned_minus_random"]["m5"], 37.5)
        self.assertIsNone(rows["mid"]["m1"])                     # no cell given
        self.assertIsNone(rows["mid_learned_minus_random"]["m1"])
        self.assertTrue(t.note.startswith("HC@100 (percentage points)"))

    def test_random_draws_are_averaged(self):
        # rand HC@100 = 62.5, rand2 = (1 + 1 + .5 + .5) / 4 = 75: the random row shows 68.75
        t = layer_grid_table("t4", "t", [GridLayer("mid", "Mid")], [5],
                             [GridCell("mid", 5, "spin", ("rand", "rand2"))], PER_QUERY, HC100,
                             REGISTRY)
        rows = {key: c for key, _, c in t.rows}
        self.assertAlmostEqual(rows["mid_random"]["m5"], 68.75)
        self.assertAlmostEqual(rows["mid_learned_minus_random"]["m5"], 31.25)

    def test_bad_cells(self):
        for cells in ([GridCell("late", 5, "spin", None)], [GridCell("mid", 3, "spin", None)],
                      [GridCell("mid", 5, "spin", None), GridCell("mid", 5, "rand", None)]):
            with self.assertRaises(ValueError):
                layer_grid_table("t", "t", [GridLayer("mid", "Mid")], [5], cells, PER_QUERY,
                                 HC100, REGISTRY)


class Table5Test(unittest.TestCase):
    ROWS = [AdaptationRow("spin_l3", "SPIN (m=5)", "L3", "spin", "p/spin.json", "spin", None),
            AdaptationRow("lora_l0", "LoRA (r=16)", "L0-6", "naive", "p/lora.json", "lora", 16)]

    def test_counted_and_recorded_counts(self):
        counts = {"spin_l3": ParameterCount(1920, None, "p/spin.json"),
                  "lora_l0": ParameterCount(None, 3317760, "p/lora.json")}
        t = adaptation_table("t5", "Table 5", self.ROWS, PER_QUERY, counts, [HC10, HC100],
                             REGISTRY)
        cells = {key: (label, c) for key, label, c in t.rows}
        self.assertEqual(cells["spin_l3"][0], "SPIN (m=5) (L3)")
        self.assertEqual(cells["spin_l3"][1]["parameters"], 1920.0)
        self.assertIsNone(cells["spin_l3"][1]["recorded_parameters"])
        # weights not committed: no computed count; the recorded one in its own column
        self.assertIsNone(cells["lora_l0"][1]["parameters"])
        self.assertEqual(cells["lora_l0"][1]["recorded_parameters"], 3317760.0)
        # spin HC@10 = (1 + .5 + 1 + .5) / 4 = 75
        self.assertAlmostEqual(cells["spin_l3"][1]["hc@10"], 75.0)
        self.assertEqual(t.decimals()[("t5", "spin_l3", "parameters")], 0)
        self.assertEqual([c.header for c in t.columns],
                         ["# Params", "# Params (recorded)", "HC@10", "HC@100"])
        self.assertIn("not counted here: LoRA (r=16) (L0-6) (p/lora.json)", t.note)

    def test_all_counted_has_no_recorded_column(self):
        counts = {"spin_l3": ParameterCount(1920, None, "p/spin.json"),
                  "lora_l0": ParameterCount(3317760, None, "p/lora.json")}
        t = adaptation_table("t5", "Table 5", self.ROWS, PER_QUERY, counts, [HC10], REGISTRY)
        self.assertEqual([c.key for c in t.columns], ["parameters", "hc@10"])
        self.assertNotIn("not counted", t.note)


class Table6Test(unittest.TestCase):
    def test_source_coverage(self):
        # q1 positives a (X), b (Y), c (Y); q2 positives d (X)
        queries = {"q1": pq("q1", {"a"}, {"b", "c"}), "q2": pq("q2", {"d"})}
        sources = {"a": "X", "b": "Y", "c": "Y", "d": "X", "z": "Y"}
        rankings = {"r": {"q1": ["z", "b", "a"], "q2": ["z", "d"]}}
        rows = [MethodRow("r", "Run", "r")]
        t = source_coverage_table("t6", "Table 6", rows, queries, rankings,
                                  [("pkg", "Package", sources), ("mod", "Modality",
                                                                 dict.fromkeys(sources, "text"))],
                                  (1, 2, 3), REGISTRY)
        cells = {key: c for key, _, c in t.rows}
        # k=1: top {z}: z is not a positive -> q1 0/2, q2 0/1 -> 0
        # k=2: q1 top {z, b}: b (Y) -> 1/2; q2 top {z, d}: d (X) -> 1/1; mean 0.75 -> 75
        # k=3: q1 adds a (X) -> 2/2; q2 1 -> 100
        self.assertAlmostEqual(cells["pkg:r"]["@1"], 0.0)
        self.assertAlmostEqual(cells["pkg:r"]["@2"], 75.0)
        self.assertAlmostEqual(cells["pkg:r"]["@3"], 100.0)
        # single-valued modality: covered iff some positive is in the top k: k=2 -> q1 1, q2 1
        self.assertAlmostEqual(cells["mod:r"]["@2"], 100.0)
        self.assertIn("Modality: 1 distinct value (single-valued", t.note)
        self.assertIn("Package: 2 distinct values", t.note)


class GroupingTest(unittest.TestCase):
    class Doc:
        def __init__(self, source, **extra):
            self.source, self.extra = source, extra

    CORPUS = {"d2": Doc("pkg:b", area="latex"), "d1": Doc("pkg:a", area="generic")}

    def test_field_and_constant(self):
        self.assertEqual(grouping_values(Grouping("p", "Package", "source", None), self.CORPUS),
                         {"d1": "pkg:a", "d2": "pkg:b"})
        self.assertEqual(grouping_values(Grouping("a", "Area", "area", None), self.CORPUS),
                         {"d1": "generic", "d2": "latex"})
        self.assertEqual(grouping_values(Grouping("m", "Modality", None, "text"), self.CORPUS),
                         {"d1": "text", "d2": "text"})

    def test_bad(self):
        for grouping in (Grouping("p", "P", None, None), Grouping("p", "P", "x", None),
                         Grouping("p", "P", "source", "text")):
            with self.assertRaises(ValueError):
                grouping_values(grouping, self.CORPUS)


class Table7Test(unittest.TestCase):
    def test_quartiles_and_gains(self):
        # dispersions put q1 < q2 < q3 < q4, one query per quartile
        dispersions = {"q1": 0.1, "q2": 0.2, "q3": 0.3, "q4": 0.4}
        rows = [MethodRow("naive", "Naive", "naive"), MethodRow("spin", "SPIN", "spin")]
        t = dispersion_quartile_table("t7", "Table 7", rows, "naive", PER_QUERY, dispersions,
                                      HC100, REGISTRY)
        cells = {key: c for key, _, c in t.rows}
        # naive HC@100 per quartile = (1, .5, 1, .5) -> 100, 50, 100, 50; spin all 100
        self.assertEqual([cells["naive"][f"q{i}"] for i in range(1, 5)], [100.0, 50.0, 100.0, 50.0])
        self.assertEqual([cells["spin"][f"gain_q{i}"] for i in range(1, 5)], [0.0, 50.0, 0.0, 50.0])
        self.assertIsNone(cells["naive"]["gain_q1"])
        self.assertEqual([cells["queries"][f"q{i}"] for i in range(1, 5)], [1.0] * 4)
        self.assertEqual(cells["max_dispersion"]["q4"], 0.4)
        self.assertEqual(t.decimals()[("t7", "queries", "q1")], 0)
        self.assertEqual(t.decimals()[("t7", "max_dispersion", "q1")], 3)
        self.assertEqual(t.decimals()[("t7", "spin", "q1")], 1)

    def test_unknown_naive_and_duplicate_rows(self):
        rows = [MethodRow("naive", "Naive", "naive")]
        with self.assertRaises(ValueError):
            dispersion_quartile_table("t", "t", rows, "base", PER_QUERY, {"q1": 0.1}, HC100,
                                      REGISTRY)
        with self.assertRaises(ValueError):
            dispersion_quartile_table("t", "t", rows * 2, "naive", PER_QUERY, {"q1": 0.1}, HC100,
                                      REGISTRY)


class Figure4Test(unittest.TestCase):
    QUERIES = {"q1": pq("q1", {"a"}, {"b"}, {"c"}), "q2": pq("q2", {"d"}, {"e"})}
    RANKINGS = {"naive": {"q1": ["a", "x"], "q2": ["x", "y"]},
                "multi": {"q1": ["a", "b"], "q2": ["d", "e"]}}

    def table(self):
        rows = [MethodRow("naive", "Naive", "naive"), MethodRow("multi", "Multi-query", "multi")]
        return hit_rank_table("f4", "Figure 4", rows, self.QUERIES, self.RANKINGS,
                              REGISTRY.measure("perspective_hit", 2), REGISTRY)

    def test_profile_numbers(self):
        table = self.table()
        cells = {key: c for key, _, c in table.rows}
        # naive k=2: q1 hits (1,0,0), q2 (0,0) -> rank1 (1+0)/2 = 50, rank2 0, rank3 0 (q1 only)
        self.assertEqual([cells["naive"][f"rank{r}"] for r in (1, 2, 3)], [50.0, 0.0, 0.0])
        # multi k=2: q1 (1,1,0), q2 (1,1) -> 100, 100, 0
        self.assertEqual([cells["multi"][f"rank{r}"] for r in (1, 2, 3)], [100.0, 100.0, 0.0])
        self.assertEqual([cells["multi"][f"n_rank{r}"] for r in (1, 2, 3)], [2.0, 2.0, 1.0])
        self.assertTrue(table.note.startswith("Hit@2 of each perspective (a supporting document "
                                              "in the top 2)"))

    def test_svg(self):
        series = hit_rank_series(self.table())
        self.assertEqual(series[0], ("Naive", [(1, 50.0), (2, 0.0), (3, 0.0)]))
        svg = hit_rank_svg(series, "Figure 4 analogue", "Hit@2 (%)")
        self.assertEqual(svg, hit_rank_svg(series, "Figure 4 analogue", "Hit@2 (%)"))
        self.assertTrue(svg.startswith("<svg ") and svg.endswith("</svg>\n"))
        self.assertEqual(svg.count("<rect "), 1 + 6)      # background + 3 bars per panel
        self.assertIn("(a) Naive", svg)
        self.assertIn("(b) Multi-query", svg)
        self.assertIn(">100.0</text>", svg)
        self.assertIn(">Hit@2 (%)</text>", svg)

    def test_svg_bad_input(self):
        for bad in ([], [("A", [])], [("A", [(1, 101.0)])], [("A", [(1, 5.0), (1, 6.0)])],
                    [("A\x01", [(1, 5.0)])]):
            with self.assertRaises(NclueError):
                hit_rank_svg(bad, "t", "Hit@20 (%)")


if __name__ == "__main__":
    unittest.main()
