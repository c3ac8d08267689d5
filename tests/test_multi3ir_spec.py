"""The Multi3IR section as typed report.json specs (issue 25): v1's section names only runs the
release has and a complete grid, Table 5's counts come from weight files, every kind builds on
the example release, and a misspelled key is one line (reproduce.py exits 2 on it)."""

import hashlib
import json
import shutil
import struct
import tempfile
import unittest
from pathlib import Path

from nclue import coverage
from nclue.context import ReleaseContext
from nclue.errors import InputError
from nclue.layout import ReleaseLayout
from nclue.report.figures import FIGURE_KINDS
from nclue.report.spec import parse_report_spec
from nclue.tables.kinds import table_from_dict
from nclue.tables.multi3ir import MethodRow
from nclue.weights import checked_parameter_count, load_weights_record
from tests.slow import slow
from tests.small_repo import reproduce_in_process

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
M3_KINDS = ("perspective_coverage", "perspective_contrasts", "layer_grid", "adaptation",
            "knowledge_sources", "dispersion_quartiles", "perspective_hits")


def v1_section():
    """v1's Multi3IR table specs, parsed against the run ids of its index (no run file read)."""
    layout = ReleaseLayout.of(ROOT / "data" / "v1")
    index = json.loads((layout.folder / "runs" / "index.json").read_text())
    ids = tuple(e["id"] for e in index["runs"])
    spec = parse_report_spec(json.loads(layout.report_spec.read_text()), layout, ids, ids)
    return {t.id: t for t in spec.tables if t.kind in M3_KINDS}, {e["id"]: e for e in index["runs"]}, spec


class V1SectionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tables, cls.index, cls.spec = v1_section()

    def test_every_table_is_there(self):
        self.assertEqual(sorted(self.tables), sorted(
            ["m3_table2", "m3_contrasts", "m3_table4_hc10", "m3_table4_hc100", "m3_table5",
             "m3_table6", "m3_table7_hc10", "m3_table7_hc100", "m3_figure4"]))
        figure = next(f for f in self.spec.figures if f.id == "figure4")
        self.assertEqual(figure.rows, self.tables["m3_figure4"].rows)   # the same numbers

    def test_grid_is_complete(self):
        # 3 layers x 5 values of m, each cell with its learned run and one random control
        for table_id in ("m3_table4_hc10", "m3_table4_hc100"):
            grid = self.tables[table_id]
            cells = {(c.layer, c.m) for c in grid.cells}
            self.assertEqual(len(grid.cells), 15)
            self.assertEqual(cells, {(l.key, m) for l in grid.layers for m in grid.ms})
            self.assertTrue(all(c.random and len(c.random) == 1 for c in grid.cells))

    def test_table5_counts_come_from_weights(self):
        # SPIN: m = 5 vectors of width 384; prefix: 5 x 10 tokens x 384; LoRA and adapter
        # weights are not committed (build/models/adapt/, git-ignored), so no count is computed
        expected = {"spin_l0": 1920, "spin_l3": 1920, "prefix_l0": 19200, "prefix_l3": 19200,
                    "lora_l0": None, "lora_l3": None, "adapter_l0": None, "adapter_l3": None}
        for row in self.tables["m3_table5"].rows:
            record = load_weights_record(ROOT / row.weights)
            configuration = self.index[row.run]["configuration"]
            self.assertIn(record.sha256, (configuration.get("vectors_sha256"),
                                          configuration.get("weights_sha256")), row.key)
            self.assertEqual(record.committed, (ROOT / record.weights_file).is_file(), row.key)
            self.assertEqual(checked_parameter_count(record, ROOT), expected[row.key], row.key)

    def test_dispersions_cover_the_test_queries(self):
        for table_id in ("m3_table7_hc10", "m3_table7_hc100"):
            values = coverage.load_dispersions(ROOT / self.tables[table_id].dispersions)
            queries = [json.loads(line)["qid"] for line in
                       (ROOT / "data" / "v1" / "queries.jsonl").read_text().splitlines()]
            self.assertEqual(sorted(values), sorted(queries))


ROWS = [{"key": "lex", "label": "Lexical", "run": "example_lexical"},
        {"key": "dense", "label": "Dense", "run": "example_dense"}]


def npy(shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %r, }" % (tuple(shape),)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
            + struct.pack("<%df" % len(values), *values))


class ExampleKindsTest(unittest.TestCase):
    """Every Multi3IR kind builds on a copy of the example release (six queries)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = Path(cls.tmp.name)
        shutil.copytree(EXAMPLE, root / "data" / "example")
        (root / "provenance").mkdir()
        weights = npy((3, 4), [0.5] * 12)
        (root / "provenance" / "vec.npy").write_bytes(weights)
        digest = hashlib.sha256(weights).hexdigest()
        (root / "provenance" / "vec.json").write_text(json.dumps(
            {"vectors_file": "provenance/vec.npy", "vectors_sha256": digest, "m": 3}))
        (root / "provenance" / "ignored.json").write_text(json.dumps(
            {"weights_file": "build/w.npz (not committed)", "weights_sha256": "b" * 64,
             "weights_sha256_rule": "sha256 over (name, shape, float32 bytes), names sorted",
             "parameters": 52, "m": 1, "injected_layers": [6]}))
        # LoRA rank 1 on one layer of a hidden-4, FFN-6 encoder: 4 * 1 * (4 + 4) + 2 * 1 * (4 + 6) = 52
        (root / "provenance" / "wrong.json").write_text(json.dumps(
            {"weights_file": "build/w.npz (not committed)", "weights_sha256": "b" * 64,
             "weights_sha256_rule": "sha256 over (name, shape, float32 bytes), names sorted",
             "parameters": 4242, "m": 1, "injected_layers": [6]}))
        index_path = root / "data" / "example" / "runs" / "index.json"
        index = json.loads(index_path.read_text())
        for entry in index["runs"]:
            entry["configuration"] = {"vectors_sha256": digest} if entry["id"] == "example_lexical" \
                else {"weights_sha256": "b" * 64}
        index_path.write_text(json.dumps(index))
        (root / "facts.jsonl").write_text("".join(
            json.dumps({"qid": q, "dispersion": 0.1 * i}) + "\n" for i, q in
            enumerate(sorted(json.loads(line)["qid"] for line in
                             (EXAMPLE / "queries.jsonl").read_text().splitlines()))))
        cls.ctx = ReleaseContext(root / "data" / "example")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def build(self, obj):
        return table_from_dict(obj, self.ctx)

    def test_every_kind_builds(self):
        grid = {"layers": [{"key": "mid", "label": "Mid"}], "ms": [1],
                "cells": [{"layer": "mid", "m": 1, "learned": "example_dense",
                           "random": ["example_lexical"]}]}
        specs = [
            {"id": "t2", "kind": "perspective_coverage", "replicates": 50,
             "rows": ROWS + [{"key": "are", "label": "ARE", "blocked": "no decoder", "m": 5},
                             {"key": "oracle", "label": "Oracle", "run": "example_pages",
                              "m": "perspectives"}]},
            {"id": "c", "kind": "perspective_contrasts", "replicates": 50, "draws": 50,
             "contrasts": [{"key": "d", "label": "Dense - Lexical", "base": "example_lexical",
                            "variant": "example_dense"}]},
            {"id": "t4", "kind": "layer_grid", "k": 10, **grid},
            {"id": "t6", "kind": "knowledge_sources", "rows": ROWS,
             "groupings": [{"key": "package", "label": "Package", "field": "source"}]},
            {"id": "t7", "kind": "dispersion_quartiles", "k": 10, "rows": ROWS, "naive": "lex",
             "dispersions": "facts.jsonl"},
            {"id": "f4", "kind": "perspective_hits", "rows": ROWS, "k": 2},
        ]
        for obj in specs:
            table = self.build(obj)
            self.assertTrue(table.cells(), obj["id"])
        t2 = self.build(specs[0])
        cells = {key: c for key, _, c in t2.rows}
        # the oracle's m: the mean number of conditions of the example's queries
        conditions = [len(json.loads(line)["conditions"])
                      for line in (EXAMPLE / "queries.jsonl").read_text().splitlines()]
        self.assertAlmostEqual(cells["oracle"]["m"], sum(conditions) / len(conditions))
        # HC@10 of a run is the same number the `coverage` kind prints for it
        same = self.build({"id": "cov", "kind": "coverage", "runs": ["example_dense"], "ks": [10]})
        self.assertAlmostEqual(cells["dense"]["hc@10"], same.rows[0][2]["hc@10"])
        figure = FIGURE_KINDS["perspective_hits"]
        rows = tuple(MethodRow(r["key"], r["label"], r["run"]) for r in ROWS)
        svg = figure.build(figure.spec("fig", "perspective_hits", None, None, rows, 2), self.ctx)
        self.assertIn(">Hit@2 (%)</text>", svg)
        self.assertIn("Multi3IR Figure 4 analogue: Hit@2 by perspective rank", svg)

    def test_adaptation_counts_from_the_weight_file(self):
        table = self.build(self.table5("provenance/ignored.json"))
        cells = {key: c for key, _, c in table.rows}
        self.assertEqual(cells["spin"]["parameters"], 12.0)                # a (3, 4) array
        self.assertIsNone(cells["spin"]["recorded_parameters"])
        self.assertIsNone(cells["lora"]["parameters"])
        self.assertEqual(cells["lora"]["recorded_parameters"], 52.0)       # the record's own
        self.assertIn("provenance/ignored.json", table.note)

    @staticmethod
    def table5(lora_record, hidden=4):
        return {"id": "t5", "kind": "adaptation", "hidden": hidden, "ffn": 6, "rows": [
            {"key": "spin", "label": "SPIN", "layer": "L3", "run": "example_lexical",
             "weights": "provenance/vec.json", "method": "spin"},
            {"key": "lora", "label": "LoRA", "layer": "L0-6", "run": "example_dense",
             "weights": lora_record, "method": "lora", "rank": 1}]}

    def test_adaptation_closed_form_refuses_a_wrong_record_or_formula(self):
        with self.assertRaises(InputError) as caught:
            self.build(self.table5("provenance/wrong.json"))
        self.assertIn("row 'lora': the closed form of 'lora' gives 52 parameters, its record states 4242",
                      str(caught.exception))
        # a wrong hidden size is caught on the committed SPIN weights (3 x 4 = 12, not 3 x 5)
        with self.assertRaises(InputError) as caught:
            self.build(self.table5("provenance/ignored.json", hidden=5))
        self.assertIn("row 'spin': the closed form of 'spin' gives 15 parameters, the committed weights hold 12",
                      str(caught.exception))

    def test_adaptation_record_of_other_weights_refused(self):
        with self.assertRaises(InputError) as caught:
            self.build({"id": "t5", "kind": "adaptation", "rows": [
                {"key": "x", "label": "X", "layer": "L3", "run": "example_dense",
                 "weights": "provenance/vec.json"}]})
        self.assertIn("describes other weights than run 'example_dense'", str(caught.exception))
        self.assertIn("report.json", str(caught.exception))

    def test_refusals_name_the_table_and_key(self):
        cases = [
            ({"id": "g", "kind": "layer_grid", "k": 10, "grid_k": [10], "layers": [
                {"key": "mid", "label": "Mid"}], "ms": [1],
              "cells": [{"layer": "mid", "m": 1, "learned": "example_dense"}]},
             ["table 'g'", "unknown key 'grid_k'"]),
            ({"id": "t2", "kind": "perspective_coverage", "titel": "x", "rows": ROWS},
             ["table 't2'", "unknown key 'titel'"]),
            ({"id": "t2", "kind": "perspective_coverage", "rows": [{"key": "x", "label": "X"}]},
             ["table 't2'", "row 'x' has no run, so it needs 'blocked'"]),
            ({"id": "t2", "kind": "perspective_coverage", "rows": [
                {"key": "x", "label": "X", "run": "example_dense", "m": "perspective"}]},
             ["table 't2'", "key 'm'", "\"perspectives\""]),
            ({"id": "t6", "kind": "knowledge_sources", "rows": ROWS,
              "groupings": [{"key": "Package", "label": "P", "field": "source"}]},
             ["table 't6'", "source field 'Package'"]),
            ({"id": "t7", "kind": "dispersion_quartiles", "k": 10, "rows": ROWS, "naive": "base",
              "dispersions": "facts.jsonl"}, ["table 't7'", "naive row 'base'"]),
        ]
        for obj, words in cases:
            with self.assertRaises(InputError, msg=obj["id"]) as caught:
                self.build(obj)
            message = str(caught.exception)
            self.assertNotIn("\n", message)
            self.assertTrue(message.startswith(str(self.ctx.layout.report_spec)), message)
            for word in words:
                self.assertIn(word, message)


@slow
class ReproduceExitsTwo(unittest.TestCase):
    def test_misspelled_multi3ir_key(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "repo"
            copy.mkdir()
            shutil.copytree(ROOT / "nclue", copy / "nclue")
            shutil.copy(ROOT / "reproduce.py", copy / "reproduce.py")
            shutil.copytree(EXAMPLE, copy / "data" / "example")
            report = {"tables": [{"id": "m3_table4", "kind": "layer_grid", "k": 10, "grid_k": [10],
                                  "layers": [{"key": "mid", "label": "Mid"}], "ms": [1],
                                  "cells": [{"layer": "mid", "m": 1, "learned": "example_dense"}]}]}
            (copy / "data" / "example" / "report.json").write_text(json.dumps(report))
            proc = reproduce_in_process(copy, "example")
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            self.assertNotIn("Traceback", proc.stdout + proc.stderr)
            fail = [line for line in proc.stdout.splitlines() if line.startswith("FAIL release")]
            self.assertEqual(len(fail), 1, proc.stdout)
            for word in ("report.json", "table 'm3_table4'", "unknown key 'grid_k'"):
                self.assertIn(word, fail[0])


if __name__ == "__main__":
    unittest.main()
