"""Report tables built on nclue.inference, on the worked example release (hand-derived values).

Per-query n-Clue Score@10 (tests/test_example_release.py): lexical 1,0,0,1,1,0;
pages 1,1,1,0,0,1; dense 0,1,1,0,1,0 (q1..q6). Gold sets: q1 {d01}, q2 {d04,d05}, q3 {d09},
q4 {d10}, q5 = q6 = {d11,d12}.
"""

import unittest
from pathlib import Path

from nclue import inference
from nclue.errors import InputError
from nclue.context import ReleaseContext
from nclue.tables.kinds import table_from_dict

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example"


def cells(table):
    return {key: values for key, _, values in table.rows}


class ContrastsTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = ReleaseContext(EXAMPLE)

    def test_block_with_two_endpoints(self):
        spec = {"id": "t5", "kind": "contrasts", "draws": 2000, "replicates": 500,
                "blocks": [{"id": "modality", "shown": "pages",
                            "endpoints": [{"id": "pages", "base": "example_lexical",
                                           "variant": "example_pages"},
                                          {"id": "dense", "base": "example_lexical",
                                           "variant": "example_dense"}]}]}
        row = cells(table_from_dict(spec, self.ctx))["modality"]
        # Scores 3/6 -> 4/6: delta +16.67 points; Gold Hit 4/6 -> 5/6: +16.67.
        self.assertAlmostEqual(row["base"], 50.0)
        self.assertAlmostEqual(row["variant"], 100 * 4 / 6)
        self.assertAlmostEqual(row["delta"], 100 / 6)
        self.assertAlmostEqual(row["delta_hit"], 100 / 6)
        self.assertEqual(row["endpoints"], 2)
        # Family sums (families sorted d01, d04|d05, d09, d10, d11|d12): pages 0,1,1,-1,0 -> T = 1,
        # odd, so |T*| >= 1 always: p_raw = 1. Its standardized |T| = 1/sqrt(3) is the smallest
        # nonzero value the pages endpoint can take, so max |T*| >= it on every draw: p_block = 1,
        # and Holm over one block leaves 1.
        self.assertEqual((row["p_raw"], row["p_block"], row["p_holm"]), (1.0, 1.0, 1.0))
        # The interval is the family bootstrap of the same vectors (seed 11, 500 replicates).
        ci = inference.paired_family_bootstrap(
            self.ctx.vectors("example_lexical")["nclue_score@10"],
            self.ctx.vectors("example_pages")["nclue_score@10"],
            {"q1": "a", "q2": "b", "q3": "c", "q4": "d", "q5": "e", "q6": "e"},
            replicates=500, seed=11)
        self.assertAlmostEqual(row["ci_lo"], 100 * ci.lo)
        self.assertAlmostEqual(row["ci_hi"], 100 * ci.hi)

    def test_bad_spec(self):
        bad = [{"id": "x", "blocks": []},
               {"id": "x", "sytems": [], "blocks": [{"id": "b", "shown": "e", "endpoints": [
                   {"id": "e", "base": "example_lexical", "variant": "example_pages"}]}]},
               {"id": "x", "blocks": [{"id": "b", "shown": "zz", "endpoints": [
                   {"id": "e", "base": "example_lexical", "variant": "example_pages"}]}]},
               {"id": "x", "blocks": [{"id": "b", "shown": "e", "endpoints": [
                   {"id": "e", "base": "nope", "variant": "example_pages"}]}]},
               {"id": "x", "seed": -1, "blocks": [{"id": "b", "shown": "e", "endpoints": [
                   {"id": "e", "base": "example_lexical", "variant": "example_pages"}]}]}]
        for spec in bad:
            with self.assertRaises(InputError):
                table_from_dict(dict(spec, kind="contrasts"), self.ctx)


class SensitivityTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = ReleaseContext(EXAMPLE)

    def test_lexical_to_pages(self):
        spec = {"id": "s1", "kind": "contrast_sensitivity", "replicates": 200, "remove": 1,
                "promotions": [0, 1, 2],
                "contrasts": [{"id": "c", "base": "example_lexical", "variant": "example_pages"}]}
        row = cells(table_from_dict(spec, self.ctx))["c"]
        self.assertAlmostEqual(row["delta"], 100 / 6)
        # Common support q1, q2, q4; D 2/3 for both -> 0. Miss 2/6 -> 1/6, subset-first 1/6 ->
        # 1/6, gold-first 3/6 -> 4/6.
        self.assertEqual((row["delta_d"], row["support"]), (0.0, 3))
        self.assertAlmostEqual(row["delta_miss"], -100 / 6)
        self.assertAlmostEqual(row["delta_subset_first"], 0.0)
        self.assertAlmostEqual(row["delta_gold_first"], 100 / 6)
        # Differences q1..q6: 0, +1, +1, -1, -1, +1. Leaving out d01 -> 1/5, d04/d05/d09 -> 0/5,
        # d10 -> 2/5, d11/d12 (q5, q6) -> 1/4: range [0, 40] points.
        self.assertAlmostEqual(row["loo_lo"], 0.0)
        self.assertAlmostEqual(row["loo_hi"], 40.0)
        # Highest degree gold doc: d11 (2 queries, tie with d12 by id) -> q1..q4 left, 1/4.
        self.assertAlmostEqual(row["removed_delta"], 25.0)
        self.assertEqual(row["removed_queries"], 4)
        # Promotion: k=0 is the observed +16.67; k>=1 promotes d06 (q2), d01 (q3): -16.67.
        self.assertAlmostEqual(row["promote_0"], 100 / 6)
        self.assertAlmostEqual(row["promote_1"], -100 / 6)
        self.assertAlmostEqual(row["promote_2"], -100 / 6)
        self.assertLessEqual(row["crossed_gold_lo"], row["crossed_gold_hi"])
        self.assertLessEqual(row["crossed_judged_lo"], row["crossed_judged_hi"])

    def test_membership_graph(self):
        # Gold: 7 documents, components {q5,q6} + 4 singletons. Judged: d01..d12, q2 alone.
        got = cells(table_from_dict({"id": "g", "kind": "membership_graph"}, self.ctx))
        self.assertEqual(got["gold"], {"queries": 6, "documents": 7, "components": 5,
                                       "largest": 2})
        self.assertEqual(got["judged"], {"queries": 6, "documents": 12, "components": 2,
                                         "largest": 5})

    def test_bad_spec(self):
        with self.assertRaises(InputError):
            table_from_dict({"id": "x", "kind": "contrast_sensitivity", "contrasts": []}, self.ctx)
        with self.assertRaises(InputError):
            table_from_dict({"id": "x", "kind": "contrast_sensitivity", "promotions": [-1], "contrasts": [
                {"id": "c", "base": "example_lexical", "variant": "example_pages"}]}, self.ctx)


if __name__ == "__main__":
    unittest.main()
