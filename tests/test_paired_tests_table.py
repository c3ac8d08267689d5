"""The Table S4 analogue (kind paired_tests) on the example release, worked by hand."""

import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.tables.kinds import table_from_dict

ROOT = Path(__file__).resolve().parent.parent


class PairedTests(unittest.TestCase):
    def test_example(self):
        ctx = ReleaseContext(ROOT / "data" / "example")
        spec = {"id": "s4", "kind": "paired_tests", "forms": ["clean"], "draws": 10000, "seed": 11,
                "contrasts": [{"id": "score", "runs": {"clean": ["example_lexical", "example_dense"]}}]}
        table = table_from_dict(spec, ctx)
        cells = table.rows[0][2]
        # n-Clue per query q1..q6: lexical 1,0,0,1,1,0; dense 0,1,1,0,1,0 -> differences sum to 0,
        # so delta = 0 and every sign vector has |T*| >= 0: p = 1 exactly.
        self.assertEqual(cells["clean:delta"], 0.0)
        self.assertEqual(cells["clean:p"], 1.0)
        spec["measure"] = "gold_hit"
        cells = table_from_dict(spec, ctx).rows[0][2]
        # Gold Hit: lexical 1,1,0,1,1,0; dense all 1 -> differences 0,0,1,0,0,1, T = 2, delta 2/6.
        # Only q3 and q6 move: T* is 2, 0, 0 or -2 with equal probability, so P(|T*| >= 2) = 1/2.
        self.assertAlmostEqual(cells["clean:delta"], 100 * 2 / 6)
        self.assertAlmostEqual(cells["clean:p"], 0.5, delta=0.03)


if __name__ == "__main__":
    unittest.main()
