"""Label-audit stages and defects beyond the main workflow, on data/example/ with FIXTURE judgments.

Issue 24: identical exports are one response stream in every stage; every input is refused as
``--out``; every bad number is a one-line error; a count that cannot be met is warned about;
tied adjudication decisions are listed. Every expected value is worked out by hand from the
scenario of tests/label_audit_setup.py (the first pass of tests/test_label_audit_workflow.py) and
the example's qrels, in the comments.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from nclue.formats import iter_jsonl
from tests import label_audit_setup as setup

ROOT = Path(__file__).resolve().parent.parent


def nclue(*args):
    return subprocess.run([sys.executable, "-m", "nclue", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def cells(payload, table_id):
    table = next(t for t in payload["tables"] if t["id"] == table_id)
    return {row["row"]: row["cells"] for row in table["rows"]}


class Stages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-stages-"))
        cls.first, cls.key, cls.packet, cls.html = setup.first_record(cls.tmp)
        cls.adj_key, _, cls.adj_packet, cls.adj_html = setup.adjudication_stage(cls.tmp, cls.first)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def release_copy(self, name):
        folder = self.tmp / name
        if not folder.exists():
            shutil.copytree(setup.EXAMPLE, folder)
        return folder

    def run_ok(self, *args):
        proc = nclue(*args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return (json.loads(proc.stdout) if "--json" in args else proc.stdout), proc.stderr

    def refused(self, *args):
        proc = nclue(*args)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        return proc.stderr

    def adjudication_record(self, name, answers):
        folder = self.tmp / name
        folder.mkdir()
        paths = setup.write_exports(folder, self.adj_packet, answers)
        out, err = self.run_ok("audit", "import", "--key", self.tmp / "adj" / "key.json", "--packet",
                               self.adj_html, *paths, "--out", folder / "record.json", "--json")
        return folder / "record.json", out, err

    def test_identical_adjudication_exports_are_one_stream(self):
        # F1 and a copy of F1 under another id, and F3 (every queued condition is condition 2):
        #   q2/d06 PGF:      F1 yes p3, copy yes p3, F3 no
        #   q4/d11 TikZ:     F1 no,     copy no,     F3 yes p6
        #   q5/d11 fontspec: F1 no,     copy no,     F3 no
        #   q5/d12 fontspec: F1 yes p20, copy yes p20, F3 no
        # Counted as three votes, q2/d06 would be promoted (2 yes), q4/d11 demoted (2 no) and
        # q5/d12 confirmed; collapsed, only q5/d11 (2 no of 2) is decided, the other three tie
        # 1-1 and keep the construction decision. Changed pairs: q1/d02 and q3/d01 (first-pass
        # consensus increases) and q5/d11 (gold -> subset): 3.
        item = lambda q, d: next(it.item for it in self.adj_key.items if (it.qid, it.docid) == (q, d))  # noqa: E731
        f1 = {item("q2", "d06"): {1: [3]}, item("q4", "d11"): {1: []}, item("q5", "d11"): {1: []},
              item("q5", "d12"): {1: [20]}}
        f3 = {item("q2", "d06"): {1: []}, item("q4", "d11"): {1: [6]}, item("q5", "d11"): {1: []},
              item("q5", "d12"): {1: []}}
        record, stats, err = self.adjudication_record(
            "dup", {"FIXTURE-F1": f1, "FIXTURE-F1-COPY": dict(f1), "FIXTURE-F3": f3})
        self.assertIn("FIXTURE-F1 and FIXTURE-F1-COPY are identical", err)
        # agreement is computed over the two distinct streams: unanimous on q5/d11 only
        adj = cells(stats, "audit_agreement")
        self.assertEqual((adj["support"]["agree"], adj["support"]["n"]), (1, 4))
        release = self.release_copy("example-dup")
        out, err = self.run_ok("audit", "repair", "--release", release, "--record", self.tmp / "first.record.json",
                               "--adjudication", record, "--id", "dup-1", "--json")
        self.assertIn("FIXTURE-F1-COPY", err)
        self.assertEqual(out["changed_pairs"], 3)
        rows = {(o["qid"], o["docid"]) for _, o in iter_jsonl(release / "repairs" / "dup-1.jsonl")}
        self.assertEqual(rows, {("q1", "d02"), ("q3", "d01"), ("q5", "d11")})
        lineage = json.loads((release / "repairs" / "dup-1.lineage.json").read_text())
        self.assertEqual(lineage["collapsed_streams"],
                         [{"stage": "adjudication", "packet_id": self.adj_key.packet_id,
                           "collapsed": "FIXTURE-F1-COPY", "into": "FIXTURE-F1"}])
        # the tied decisions are listed, each with its votes and the construction decision kept
        tied = cells(out, "audit_flagged")
        self.assertEqual(set(tied), {"q2|d06|1", "q4|d11|1", "q5|d12|1"})
        self.assertEqual(tied["q2|d06|1"], {"yes": 1, "no": 1, "kept": 0})
        self.assertEqual(tied["q4|d11|1"], {"yes": 1, "no": 1, "kept": 1})
        self.assertEqual(tied["q5|d12|1"], {"yes": 1, "no": 1, "kept": 1})

    def test_pending_and_tied_conditions_are_listed(self):
        # the workflow's adjudication (F1, F2, F3; F3 leaves q5/d12 unjudged): q5/d12 fontspec
        # F1 yes p20, F2 no -> 1-1, retained; nothing pending. Without any adjudication record,
        # the four queued conditions are pending, each listed with 0 votes.
        release = self.release_copy("example-pending")
        out, err = self.run_ok("audit", "repair", "--release", release, "--record", self.tmp / "first.record.json",
                               "--id", "pending-1", "--json", "--dry-run")
        flagged = cells(out, "audit_flagged")
        self.assertEqual(set(flagged), {"q2|d06|1", "q4|d11|1", "q5|d11|1", "q5|d12|1"})
        self.assertEqual(flagged["q4|d11|1"], {"yes": 0, "no": 0, "kept": 1})
        self.assertIn("4 queued condition(s) have no adjudication response", err)


if __name__ == "__main__":
    unittest.main()
