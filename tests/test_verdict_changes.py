"""Kind ``verdict_changes``: a finding's verdict on P0 against P1 (n-Clue supplement, Table S14)."""

import json
import unittest
from pathlib import Path

from nclue.tables.verdict_changes import changed

ROOT = Path(__file__).resolve().parent.parent


class Changed(unittest.TestCase):
    def test_rules_by_hand(self):
        self.assertFalse(changed({"verdict": 1.0}, {"verdict": 1.0}))
        self.assertTrue(changed({"verdict": 1.0}, {"verdict": 0.0}))
        # the same code means another thing on a no-effect row (one with a margin)
        self.assertTrue(changed({"verdict": 1.0, "margin": 2.0}, {"verdict": 1.0}))
        self.assertFalse(changed({"verdict": -3.0}, {"verdict": -3.0}))
        self.assertTrue(changed({"verdict": 1.0}, {}))


class ShippedTables(unittest.TestCase):
    def test_matches_the_two_findings_tables(self):
        """The frozen change table agrees with findings and findings_p1 compared row by row here."""
        for release in ("v1", "v2"):
            path = ROOT / "reference_metrics" / release / "tables.json"
            tables = {t["id"]: t for t in json.loads(path.read_text(encoding="utf-8"))["tables"]}
            if "p1_verdict_changes" not in tables:
                self.fail(f"{release}: no p1_verdict_changes table")
            p0 = {r["row"]: r["cells"] for r in tables["findings"]["rows"]}
            p1 = {r["row"]: r["cells"] for r in tables["findings_p1"]["rows"]}
            expected = sorted(k for k in p0 if p0[k].get("verdict") != p1[k].get("verdict")
                              or ("margin" in p0[k]) != ("margin" in p1[k]))
            rows = {r["row"]: r["cells"] for r in tables["p1_verdict_changes"]["rows"]}
            shipped = sorted(k for k, c in rows.items() if k != "total" and c.get("changed") == 1)
            self.assertEqual(shipped, expected, release)
            self.assertEqual(rows["total"]["changed"], len(expected), release)


if __name__ == "__main__":
    unittest.main()
