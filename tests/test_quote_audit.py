"""Quote-backed mechanical audit on the fixture release (tests/construction_fixture.py)."""

import hashlib
import os
import tempfile
import unittest

from tests import construction_fixture as fx
from nclue.formats import write_jsonl_atomic
from nclue.instrument.config import from_dict
from nclue.instrument.construction import construct
from nclue.instrument.inputs import read_build
from nclue.instrument.quote_audit import check_audit, sample_pairs, run_audit
from nclue.instrument.release_writer import write_release


class SampleTest(unittest.TestCase):
    def test_strata_and_shortfall(self):
        qrels = ([{"qid": f"q{i}", "docid": "g", "label": "gold", "clues": 2} for i in range(200)]
                 + [{"qid": f"q{i}", "docid": "s", "label": "subset", "clues": 2, "gate": "single_page"}
                    for i in range(20)]
                 + [{"qid": f"q{i}", "docid": "p", "label": "subset", "clues": 1} for i in range(300)])
        picked = sample_pairs(qrels, 300, 5)
        counts = {}
        for stratum, _ in picked:
            counts[stratum] = counts.get(stratum, 0) + 1
        # Targets 150/50/100; only 20 gated -> the 30 missing go to partial (130).
        self.assertEqual(counts, {"gold": 150, "gated": 20, "partial": 130})
        self.assertEqual(picked, sample_pairs(qrels, 300, 5))  # seeded
        self.assertNotEqual(picked, sample_pairs(qrels, 300, 6))


class AuditTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.build = os.path.join(cls.tmp.name, "build")
        cls.release = os.path.join(cls.tmp.name, "release")
        prov = os.path.join(cls.tmp.name, "prov")
        fx.write_build(cls.build)
        inputs = read_build(cls.build)
        write_release(construct(inputs, from_dict(fx.TEST_CONFIG)), inputs, cls.release, prov)
        cls.record = os.path.join(prov, "construction_v1.json")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_clean_fixture(self):
        rows, summary = run_audit(self.build, self.release, self.record, size=300, seed=1)
        # 59 qrels < 300: every pair is audited. Decisions: 8 pair queries with 37 judged rows
        # (5+6+5+5+4+4+4+4) x 2 + 4 triple queries with 22 rows (6+5+6+5) x 3 = 74 + 66 = 140.
        self.assertEqual((summary["pairs"], summary["condition_decisions"]), (59, 140))
        self.assertEqual(summary["conditions"]["agree"], 140)
        self.assertEqual(summary["exact_grade"]["agree"], 59)
        self.assertEqual(summary["conditions_by_source"]["test"]["n"], 140)  # one source
        ack = [c for r in rows if r["docid"] == "dA" for c in r["conditions"]
               if c["condition_id"] == "section:acknowledgements"]
        # dA page 5 is "Acknowledgments\nThanks to all.": the quote is characters 0..15.
        self.assertEqual({(c["page"], c["start"], c["end"], c["quote_sha256"]) for c in ack},
                         {(5, 0, 15, hashlib.sha256(b"Acknowledgments").hexdigest())})
        bib = [c for r in rows if r["docid"] == "dE" for c in r["conditions"]
               if c["condition_id"] == "entity:BibTeX"]
        self.assertEqual({(c["page"], c["start"], c["end"]) for c in bib}, {(1, 0, 22)})
        self.assertFalse(any("quote" in c for r in rows for c in r["conditions"]))

    def test_heading_missing_from_page_text(self):
        # dE's outline says "Acknowledgements" on page 2, but the page text lacks the heading.
        build2 = os.path.join(self.tmp.name, "build2")
        fx.write_build(build2, docs=dict(fx.DOCS, dE=["BibTeX-based workflow.", "We thank."]))
        rows, summary = run_audit(build2, self.release, self.record, size=300, seed=1)
        # The six queries with Acknowledgements judge dE: B-ack, P-ack, T-ack, BP-ack, BT-ack,
        # PT-ack -> 6 condition decisions flip to negative: 134/140; 6 pair grades change: 53/59.
        self.assertEqual(summary["conditions"]["agree"], 134)
        self.assertEqual(summary["exact_grade"]["agree"], 53)
        self.assertEqual(summary["conditions_by_kind"]["entity"]["agree"],
                         summary["conditions_by_kind"]["entity"]["n"])
        b_ack = [r for r in rows if r["docid"] == "dE" and r["construction"]["label"] == "gold"]
        self.assertEqual([r["recheck"] for r in b_ack], [{"clues": 1, "label": "subset", "gate": None}])

    def test_stored_audit_is_checked_against_page_text(self):
        rows, _ = run_audit(self.build, self.release, self.record, size=300, seed=1)
        path = os.path.join(self.tmp.name, "qa.jsonl")
        write_jsonl_atomic(path, rows)
        self.assertEqual(check_audit(self.build, path, self.record), [])
        # Shift one entity quote by a character: the sha256 no longer matches.
        row = next(r for r in rows if r["docid"] == "dE"
                   and any(c["condition_id"] == "entity:BibTeX" for c in r["conditions"]))
        cond = next(c for c in row["conditions"] if c["condition_id"] == "entity:BibTeX")
        cond["start"] += 1
        write_jsonl_atomic(path, rows)
        problems = check_audit(self.build, path, self.record)
        self.assertEqual(len(problems), 1)
        self.assertIn("quote sha256 differs", problems[0])


if __name__ == "__main__":
    unittest.main()
