"""The v1 Multi3IR section spec (docs/multi3ir_v1_spec.json) names only runs the release has,
and the dispersion facts file covers every test query."""

import json
import unittest
from pathlib import Path

from nclue import coverage
from nclue.multi3ir_tables import spec_from_dict

ROOT = Path(__file__).resolve().parents[1]


class V1SpecTest(unittest.TestCase):
    def setUp(self):
        self.raw = json.loads((ROOT / "docs" / "multi3ir_v1_spec.json").read_text())
        self.spec = spec_from_dict(self.raw)
        index = json.loads((ROOT / "data" / "v1" / "runs" / "index.json").read_text())
        self.index = {e["id"]: e for e in index["runs"]}

    def test_every_run_is_indexed_with_its_file(self):
        missing = [r for r in self.spec.runs() if r not in self.index]
        self.assertEqual(missing, [])
        for run in self.spec.runs():
            self.assertTrue((ROOT / "data" / "v1" / "runs" / self.index[run]["file"]).exists(), run)

    def test_grid_is_complete(self):
        # 3 layers x 5 values of m, learned and random: 15 cells each
        cells = {(layer, m) for layer, m, _ in self.spec.grid_learned}
        self.assertEqual(len(cells), 15)
        self.assertEqual(cells, {(layer, m) for layer, m, _ in self.spec.grid_random})

    def test_dispersions_cover_the_test_queries(self):
        values = coverage.load_dispersions(ROOT / self.raw["table7_dispersions"])
        queries = [json.loads(line)["qid"]
                   for line in (ROOT / "data" / "v1" / "queries.jsonl").read_text().splitlines()]
        self.assertEqual(sorted(values), sorted(queries))


if __name__ == "__main__":
    unittest.main()
