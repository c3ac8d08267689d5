"""Multi3IR analyses: per-perspective Hit@k and its rank profile (Figure 4), the dispersion facts
reader, and the Table 2 / 4 / 5 / 6 / 7 builders of nclue.multi3ir_tables.

Every expected value is worked out by hand in the comments next to it.
"""

import os
import tempfile
import unittest

from nclue import coverage
from nclue.errors import InputError, NclueError
from nclue.multi3ir_figure import hit_rank_svg
from nclue.multi3ir_tables import (Contrast, MethodRow, adaptation_table, coverage_contrast_table,
                                   dispersion_quartile_table, hit_rank_series, hit_rank_table,
                                   layer_grid_table, multi3ir_tables, perspective_coverage_table,
                                   source_coverage_table, spec_from_dict, groupings_from_spec)


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


def vec(*values):
    return dict(zip(QIDS, values))


PER_QUERY = {
    # hc@10 / hc@100 per query
    "naive": {"hc@10": vec(0.5, 0.0, 1.0, 0.5), "hc@100": vec(1.0, 0.5, 1.0, 0.5)},
    "spin": {"hc@10": vec(1.0, 0.5, 1.0, 0.5), "hc@100": vec(1.0, 1.0, 1.0, 1.0)},
    "rand": {"hc@10": vec(0.5, 0.0, 1.0, 0.5), "hc@100": vec(1.0, 0.5, 0.5, 0.5)},
}


class Table2Test(unittest.TestCase):
    def test_cells_and_blocked_rows(self):
        rows = [MethodRow("naive", "Naive", "naive", m=1),
                MethodRow("spin", "SPIN", "spin", m=5),
                MethodRow("are", "ARE", None, m=5, blocked="needs a causal decoder")]
        t = perspective_coverage_table("t2", "Table 2", rows, PER_QUERY, FAMILIES, ks=(10, 100),
                                       replicates=200, seed=3, sc_reason="no judge")
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
        # blocked row and SC@k columns: no values, hence no claims
        self.assertTrue(all(v is None for k, v in cells["are"].items() if k != "m"))
        self.assertTrue(all(cells[r][f"sc@{k}"] is None for r in cells for k in (5, 10, 15, 20)))
        self.assertFalse(any(key[1] == "are" and key[2] != "m" for key in t.cells()))
        self.assertIn("ARE: needs a causal decoder", t.note)
        self.assertIn("no judge", t.note)

    def test_mismatched_queries_refused(self):
        bad = {"a": {"hc@10": {"q1": 1.0}}, "b": {"hc@10": {"q2": 1.0}}}
        rows = [MethodRow("a", "A", "a"), MethodRow("b", "B", "b")]
        with self.assertRaises(ValueError):
            perspective_coverage_table("t", "t", rows, bad, {"q1": "f", "q2": "g"}, ks=(10,))


class ContrastTest(unittest.TestCase):
    def test_identical_runs(self):
        # naive vs rand at HC@10 are identical per query: delta 0, interval [0, 0], and every
        # sign vector gives |T*| = 0 >= |T_obs| = 0, so p = (1 + B) / (1 + B) = 1
        t = coverage_contrast_table("c", "c", [Contrast("x", "rand - naive", "naive", "rand")],
                                    PER_QUERY, FAMILIES, ks=(10,), replicates=100, draws=50)
        cells = t.rows[0][2]
        self.assertEqual((cells["delta@10"], cells["lo@10"], cells["hi@10"], cells["p@10"]),
                         (0.0, 0.0, 0.0, 1.0))

    def test_delta(self):
        # spin - naive at HC@10: per query (0.5, 0.5, 0, 0), mean 0.25 -> 25.0 points;
        # at HC@100: (0, 0.5, 0, 0.5) -> mean 0.25 -> 25.0
        t = coverage_contrast_table("c", "c", [Contrast("s", "SPIN - naive", "naive", "spin")],
                                    PER_QUERY, FAMILIES, ks=(10, 100), replicates=100, draws=50)
        cells = t.rows[0][2]
        self.assertAlmostEqual(cells["delta@10"], 25.0)
        self.assertAlmostEqual(cells["delta@100"], 25.0)
        self.assertTrue(0 < cells["p@10"] <= 1)


class Table4And5Test(unittest.TestCase):
    def test_grid(self):
        t = layer_grid_table("t4", "Table 4", [("mid", "Mid (l=3)")], [1, 5],
                             {("mid", 5): "spin"}, {("mid", 5): "rand"}, PER_QUERY, k=100)
        rows = {key: c for key, _, c in t.rows}
        # learned m=5: HC@100 mean of (1,1,1,1) = 100; random: (1+.5+.5+.5)/4 = 62.5; diff 37.5
        self.assertAlmostEqual(rows["mid"]["m5"], 100.0)
        self.assertAlmostEqual(rows["mid_random"]["m5"], 62.5)
        self.assertAlmostEqual(rows["mid_learned_minus_random"]["m5"], 37.5)
        self.assertIsNone(rows["mid"]["m1"])                     # no cell given
        self.assertIsNone(rows["mid_learned_minus_random"]["m1"])

    def test_adaptation(self):
        rows = [MethodRow("spin_l3", "SPIN (m=5)", "spin", parameters=1920, layer="L3"),
                MethodRow("lora_l0", "LoRA (r=16)", None, parameters=3317760, layer="L0",
                          blocked="not trained")]
        t = adaptation_table("t5", "Table 5", rows, PER_QUERY, ks=(10, 100))
        cells = {key: (label, c) for key, label, c in t.rows}
        self.assertEqual(cells["spin_l3"][0], "SPIN (m=5) (L3)")
        self.assertEqual(cells["spin_l3"][1]["parameters"], 1920.0)
        # spin HC@10 = (1 + .5 + 1 + .5) / 4 = 75
        self.assertAlmostEqual(cells["spin_l3"][1]["hc@10"], 75.0)
        self.assertIsNone(cells["lora_l0"][1]["hc@100"])
        self.assertEqual(t.decimals()[("t5", "spin_l3", "parameters")], 0)


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
                                  ks=(1, 2, 3))
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


class Table7Test(unittest.TestCase):
    def test_quartiles_and_gains(self):
        # dispersions put q1 < q2 < q3 < q4, one query per quartile
        dispersions = {"q1": 0.1, "q2": 0.2, "q3": 0.3, "q4": 0.4}
        rows = [MethodRow("naive", "Naive", "naive"), MethodRow("spin", "SPIN", "spin")]
        t = dispersion_quartile_table("t7", "Table 7", rows, "naive", PER_QUERY, dispersions,
                                      k=100)
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


class Figure4Test(unittest.TestCase):
    QUERIES = {"q1": pq("q1", {"a"}, {"b"}, {"c"}), "q2": pq("q2", {"d"}, {"e"})}
    RANKINGS = {"naive": {"q1": ["a", "x"], "q2": ["x", "y"]},
                "multi": {"q1": ["a", "b"], "q2": ["d", "e"]}}

    def table(self):
        rows = [MethodRow("naive", "Naive", "naive"), MethodRow("multi", "Multi-query", "multi")]
        return hit_rank_table("f4", "Figure 4", rows, self.QUERIES, self.RANKINGS, k=2)

    def test_profile_numbers(self):
        cells = {key: c for key, _, c in self.table().rows}
        # naive k=2: q1 hits (1,0,0), q2 (0,0) -> rank1 (1+0)/2 = 50, rank2 0, rank3 0 (q1 only)
        self.assertEqual([cells["naive"][f"rank{r}"] for r in (1, 2, 3)], [50.0, 0.0, 0.0])
        # multi k=2: q1 (1,1,0), q2 (1,1) -> 100, 100, 0
        self.assertEqual([cells["multi"][f"rank{r}"] for r in (1, 2, 3)], [100.0, 100.0, 0.0])
        self.assertEqual([cells["multi"][f"n_rank{r}"] for r in (1, 2, 3)], [2.0, 2.0, 1.0])

    def test_svg(self):
        series = hit_rank_series(self.table())
        self.assertEqual(series[0], ("Naive", [(1, 50.0), (2, 0.0), (3, 0.0)]))
        svg = hit_rank_svg(series, "Figure 4 analogue")
        self.assertEqual(svg, hit_rank_svg(series, "Figure 4 analogue"))   # deterministic
        self.assertTrue(svg.startswith("<svg ") and svg.endswith("</svg>\n"))
        self.assertEqual(svg.count("<rect "), 1 + 6)      # background + 3 bars per panel
        self.assertIn("(a) Naive", svg)
        self.assertIn("(b) Multi-query", svg)
        self.assertIn(">100.0</text>", svg)

    def test_svg_bad_input(self):
        for bad in ([], [("A", [])], [("A", [(1, 101.0)])], [("A", [(1, 5.0), (1, 6.0)])],
                    [("A\x01", [(1, 5.0)])]):
            with self.assertRaises(NclueError):
                hit_rank_svg(bad, "t")


class GroupingSpecTest(unittest.TestCase):
    class Doc:
        def __init__(self, source, **extra):
            self.source, self.extra = source, extra

    CORPUS = {"d2": Doc("pkg:b", area="latex"), "d1": Doc("pkg:a", area="generic")}

    def test_field_and_constant(self):
        got = groupings_from_spec([{"key": "p", "label": "Package", "field": "source"},
                                   {"key": "a", "label": "Area", "field": "area"},
                                   {"key": "m", "label": "Modality", "constant": "text"}],
                                  self.CORPUS)
        self.assertEqual(got, [("p", "Package", {"d1": "pkg:a", "d2": "pkg:b"}),
                               ("a", "Area", {"d1": "generic", "d2": "latex"}),
                               ("m", "Modality", {"d1": "text", "d2": "text"})])

    def test_bad(self):
        for items in ([], [{"key": "p", "label": "P"}], [{"key": "p", "label": "P", "field": "x"}],
                      [{"key": "p", "label": "P", "constant": ""}]):
            with self.assertRaises(ValueError):
                groupings_from_spec(items, self.CORPUS)


class SpecTest(unittest.TestCase):
    # two queries, one perspective pair each; run "a" finds c1 of q1 only, "b" both of both
    QUERIES = {"q1": pq("q1", {"d1"}, {"d2"}), "q2": pq("q2", {"d3"}, {"d4"})}
    RANKINGS = {"a": {"q1": ["d1", "x"], "q2": ["x", "y"]},
                "b": {"q1": ["d1", "d2"], "q2": ["d3", "d4"]}}
    SPEC = {"table2": [{"key": "naive", "label": "Naive", "run": "a", "m": 1},
                       {"key": "are", "label": "ARE", "run": None, "m": 5, "blocked": "encoder"},
                       {"key": "spin", "label": "SPIN", "run": "b", "m": 5}],
            "contrasts": [{"key": "s", "label": "SPIN - naive", "base": "a", "variant": "b"}],
            "grid_layers": [["mid", "Mid"]], "grid_ms": [1],
            "grid_learned": [{"layer": "mid", "m": 1, "run": "b"}],
            "grid_random": [{"layer": "mid", "m": 1, "run": "a"}],
            "table5": [{"key": "spin", "label": "SPIN", "run": "b", "parameters": 1920,
                        "layer": "L3"}],
            "table6": [{"key": "naive", "label": "Naive", "run": "a"}],
            "table7": [{"key": "naive", "label": "Naive", "run": "a"},
                       {"key": "spin", "label": "SPIN", "run": "b"}],
            "table7_naive": "naive", "figure4": [{"key": "naive", "label": "Naive", "run": "a"}],
            "grid_ks": [2], "table7_ks": [2], "figure4_k": 2}

    def test_all_tables(self):
        spec = spec_from_dict(self.SPEC)
        self.assertEqual(spec.runs(), ["a", "b"])
        tables = multi3ir_tables(spec, self.QUERIES, self.RANKINGS, {"q1": "f1", "q2": "f2"},
                                 [("src", "Source", {d: "s" for d in ("d1", "d2", "d3", "d4")})],
                                 {"q1": 0.1, "q2": 0.2}, replicates=50, draws=20)
        ids = [t.table_id for t in tables]
        self.assertEqual(ids, ["m3_table2", "m3_contrasts", "m3_table4_hc2", "m3_table5",
                               "m3_table6", "m3_table7_hc2", "m3_figure4"])
        by = {t.table_id: {k: c for k, _, c in t.rows} for t in tables}
        # run a: q1 covers 1 of 2 at k=2, q2 0 of 2 -> HC@2 = 25; b covers all -> 100
        self.assertAlmostEqual(by["m3_table4_hc2"]["mid"]["m1"], 100.0)
        self.assertAlmostEqual(by["m3_table4_hc2"]["mid_random"]["m1"], 25.0)   # run a, HC@2
        self.assertAlmostEqual(by["m3_contrasts"]["s"]["delta@10"], 100.0 - 25.0)
        # one query per quartile needs 4 queries; with 2, quartiles 0 and 2 hold one each
        self.assertAlmostEqual(by["m3_table7_hc2"]["spin"]["gain_q1"], 50.0)

    def test_bad_specs(self):
        for field, value in (("table2", []), ("grid_ms", ["1"]), ("table7_naive", None),
                             ("grid_learned", [{"layer": "mid", "m": 1}])):
            bad = dict(self.SPEC, **{field: value})
            with self.assertRaises(ValueError):
                spec_from_dict(bad)
        bad = dict(self.SPEC, table2=[{"key": "x", "label": "X", "run": None}])
        with self.assertRaises(ValueError):               # a row without a run needs a reason
            spec_from_dict(bad)


if __name__ == "__main__":
    unittest.main()
