"""Held-out perspectives (issue 25) and scoped tables (issues 24, 25), on hand-made cases.

Expected values come from the rule's text (provenance/spin/heldout_rule.md), from counting the
example release by hand, or from enumerating a bootstrap's possible outcomes.
"""

import json
import random
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.errors import InputError
from nclue.inference import Resampler
from nclue.release import render_forms
from nclue.instrument.heldout import draw_heldout_conditions, heldout_problems, heldout_record, kept_lines
from nclue.tables.kinds import table_from_dict
from nclue.tables.random_controls import draws_bootstrap
from tests.slow import slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
# condition ids of the example's conditions (kind by the construction's naming)
CIDS = {"Acknowledgements": "section:acknowledgements", "Bibliography": "section:references",
        "Index": "section:index", "Introduction": "section:introduction", "Examples": "section:examples",
        "TikZ": "entity:TikZ", "PGF": "entity:PGF", "hyperref": "entity:hyperref", "beamer": "entity:beamer",
        "babel": "entity:babel", "fontspec": "entity:fontspec", "microtype": "entity:microtype"}


def query_line(qid, conditions):
    return json.dumps({"qid": qid, "conditions": conditions, "condition_ids": [CIDS[c] for c in conditions],
                       "forms": render_forms(tuple(conditions))},
                      sort_keys=True) + "\n"


class Rule(unittest.TestCase):
    def test_draw_follows_the_written_rule(self):
        ids = [f"entity:E{i}" for i in range(6)] + [f"section:s{i}" for i in range(5)]
        seed = 7
        # the rule's text: kinds in sorted order, floor(n/4 + 1/2) each, one Random(seed), sample()
        rng = random.Random(seed)
        expected = rng.sample(sorted(i for i in ids if i.startswith("entity")), 2)   # floor(6/4 + 1/2) = 2
        expected += rng.sample(sorted(i for i in ids if i.startswith("section")), 1)  # floor(5/4 + 1/2) = 1
        self.assertEqual(draw_heldout_conditions(reversed(ids), seed), tuple(sorted(expected)))

    def test_kept_lines_are_byte_identical_and_leaks_are_caught(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            test = d / "queries.jsonl"
            test.write_text(query_line("t1", ["TikZ", "Index"]) + query_line("t2", ["PGF", "babel"])
                            + query_line("t3", ["beamer", "Examples"]) + query_line("t4", ["fontspec", "Introduction"]))
            train, val = d / "train.jsonl", d / "val.jsonl"
            train.write_text(query_line("a", ["TikZ", "PGF"]) + query_line("b", ["babel", "Index"]))
            val.write_text(query_line("v", ["beamer", "fontspec"]))
            record = heldout_record(test, 3)
            held = record["condition_ids"]
            for path in (train, val):
                want = b"".join(line for line in path.read_bytes().splitlines(keepends=True)
                                if not set(json.loads(line)["condition_ids"]) & set(held))
                self.assertEqual(kept_lines(path, held), want)
            (d / "train_h.jsonl").write_bytes(kept_lines(train, held))
            (d / "val_h.jsonl").write_bytes(kept_lines(val, held))
            args = (test, train, val, d / "train_h.jsonl", d / "val_h.jsonl")
            self.assertEqual(heldout_problems(record, d / "h.json", 3, *args), [])
            self.assertTrue(any("seed" in p for p in heldout_problems(record, d / "h.json", 4, *args)))
            # a training query with a held-out condition makes the check fail
            leak = [c for c in CIDS if CIDS[c] in held][0]
            with open(d / "train_h.jsonl", "a") as fh:
                fh.write(query_line("c", [leak, "microtype" if leak != "microtype" else "TikZ"]))
            problems = heldout_problems(record, d / "h.json", 3, *args)
            self.assertTrue(any("holds held-out condition" in p for p in problems), problems)


class DrawsBootstrap(unittest.TestCase):
    def test_interval_includes_the_variance_over_draws(self):
        resampler = Resampler(["a", "b"], {"a": "A", "b": "B"}, seed=1)
        learned = {"a": 1.0, "b": 1.0}
        randoms = [{"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 1.0}]
        delta, lo, hi = draws_bootstrap(resampler, learned, randoms, replicates=1000, seed=1)
        # delta = 1 - (0 + 1) / 2; resampling two draws gives a random mean of 0, 1/2 or 1
        # (probabilities 1/4, 1/2, 1/4), so the 2.5% and 97.5% quantiles are 0 and 1.
        self.assertEqual(delta, 0.5)
        self.assertEqual((lo, hi), (0.0, 1.0))

    def test_one_draw_is_refused(self):
        resampler = Resampler(["a"], {"a": "A"}, seed=1)
        with self.assertRaises(ValueError):
            draws_bootstrap(resampler, {"a": 1.0}, [{"a": 0.0}], replicates=10, seed=1)


class ScopedTables(unittest.TestCase):
    """A copy of the example release with condition ids and a held-out split."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        folder = Path(cls.tmp.name) / "data" / "example"
        shutil.copytree(EXAMPLE, folder)
        rows = [json.loads(line) for line in (EXAMPLE / "queries.jsonl").read_text().splitlines()]
        (folder / "queries.jsonl").write_text("".join(query_line(r["qid"], r["conditions"]) for r in rows))
        (folder / "train_queries.jsonl").write_text(query_line("tr1", ["TikZ", "PGF"]) + query_line("tr2", ["Index", "babel"]))
        (folder / "val_queries.jsonl").write_text(query_line("va1", ["beamer", "Examples"]))
        record = heldout_record(folder / "queries.jsonl", 5)
        cls.held = set(record["condition_ids"])
        (folder / "heldout_conditions.json").write_text(json.dumps(record))
        for name in ("train", "val"):
            (folder / f"{name}_queries_heldout.jsonl").write_bytes(kept_lines(folder / f"{name}_queries.jsonl", cls.held))
        cls.rows = rows
        cls.ctx = ReleaseContext(folder)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def heldout_qids(self):
        return sorted(r["qid"] for r in self.rows if {CIDS[c] for c in r["conditions"]} & self.held)

    def test_scoped_scorecard_is_the_mean_over_the_heldout_queries(self):
        qids = self.heldout_qids()
        self.assertTrue(0 < len(qids) < 6)
        inner = {"id": "s", "kind": "scorecard", "runs": ["example_lexical"]}
        table = table_from_dict({"id": "s", "kind": "scoped", "queries": "heldout", "table": inner}, self.ctx)
        full = self.ctx.vector("example_lexical", self.ctx.registry.measure("nclue_score", 10))
        cells = table.rows[0][2]
        self.assertAlmostEqual(cells["nclue_score@10"], 100 * sum(full[q] for q in qids) / len(qids))
        self.assertIn(f"{len(qids)} of 6", table.note)

    def test_heldout_split_table_counts_and_refuses_a_leak(self):
        table = table_from_dict({"id": "h", "kind": "heldout_split", "seed": 5}, self.ctx)
        cells = {k: c["count"] for k, _, c in table.rows}
        self.assertEqual(cells["test_any"], len(self.heldout_qids()))
        self.assertEqual(cells["heldout_in_training"], 0)
        with self.assertRaises(InputError):
            table_from_dict({"id": "h", "kind": "heldout_split", "seed": 6}, self.ctx)

    def test_inner_table_keys_are_checked(self):
        inner = {"id": "s", "kind": "scorecard", "runs": ["example_lexical"], "titel": "x"}
        with self.assertRaisesRegex(InputError, "unknown key 'titel'"):
            table_from_dict({"id": "s", "kind": "scoped", "queries": "heldout", "table": inner}, self.ctx)
        with self.assertRaisesRegex(InputError, "inner table's id"):
            table_from_dict({"id": "x", "kind": "scoped", "table": dict(inner, titel=None)}, self.ctx)


if __name__ == "__main__":
    unittest.main()


class ValidationSelection(unittest.TestCase):
    def test_choice_and_refusal(self):
        import hashlib
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            shutil.copytree(EXAMPLE, root / "data" / "example")
            (root / "vec").mkdir()
            cells = {}
            for name, m, layer, top in (("spin_m1_l3", 1, 3, {"v1": ["d1"], "v2": ["d9"]}),
                                        ("spin_m5_l3", 5, 3, {"v1": ["d1"], "v2": ["d2"]}),
                                        ("spin_m3_l0", 3, 0, {"v1": ["d1"], "v2": ["d2"]})):
                data = name.encode()
                (root / "vec" / f"{name}.npy").write_bytes(data)
                cells[name] = {"m": m, "layer": layer, "top10": top, "vectors_sha256": hashlib.sha256(data).hexdigest()}
            # v1 has one perspective supported by d1; v2 two perspectives, one supported by d2
            supports = {"v1": [["d1"]], "v2": [["d2"], ["d7"]]}
            (root / "val.json").write_text(json.dumps({"k": 10, "queries": ["v1", "v2"], "supports": supports,
                                                       "cells": cells}))
            ctx = ReleaseContext(root / "data" / "example")
            spec = {"id": "sel", "kind": "validation_selection", "rankings": "val.json", "vectors": "vec"}
            # HC@10: m1 = (1 + 0) / 2, m5 and m3 = (1 + 1/2) / 2; the tie goes to fewer vectors: m3 (l0)
            table = table_from_dict(dict(spec, reported="spin_m3_l0"), ctx)
            cells_out = {k: c for k, _, c in table.rows}
            self.assertEqual(cells_out["spin_m1_l3"]["val_hc"], 50.0)
            self.assertEqual(cells_out["spin_m3_l0"]["val_hc"], 75.0)
            self.assertEqual(cells_out["spin_m3_l0"]["selected"], 1.0)
            with self.assertRaisesRegex(InputError, "validation HC@10 selects 'spin_m3_l0'"):
                table_from_dict(dict(spec, reported="spin_m5_l3"), ctx)


@slow
class RepairTransitions(unittest.TestCase):
    def test_v2_p1_transitions_recounted_from_the_rows(self):
        import gzip
        rows = [json.loads(line) for line in gzip.open(ROOT / "data" / "v2" / "repairs" / "P1.jsonl.gz", "rt")]
        demoted = sum(1 for r in rows if r["before"]["label"] == "gold" and r["after"] and r["after"]["label"] == "subset")
        dropped = sum(1 for r in rows if r["after"] is None)
        ctx = ReleaseContext(ROOT / "data" / "v2")
        table = table_from_dict({"id": "t", "kind": "repair_transitions", "repair": "P1"}, ctx)
        cells = {k: c["count"] for k, _, c in table.rows}
        self.assertEqual(cells["gold_subset"], demoted)
        self.assertEqual(cells["gold_none"] + cells["subset_none"], dropped)
        self.assertEqual(cells["changed"], len(rows))
        self.assertEqual(cells["gold_gate_failures"], 0)
