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

    def test_pool_composition_and_held_out_recall(self):
        out, _ = self.run_ok("audit", "adjudicate", "--release", setup.EXAMPLE, "--record",
                             self.tmp / "first.record.json", "--out", self.tmp / "adj-pool", "--json")
        pool = {k: v["count"] for k, v in cells(out, "audit_pool").items()}
        # four queued pairs, one asked condition each (condition 2), nine pages each (documents of
        # 10, 14, 14 and 25 pages)
        self.assertEqual([pool[k] for k in ("pairs", "conditions", "contexts", "pages_min", "pages_mean",
                                            "pages_max")], [4, 4, 36, 9, 9.0, 9])
        # first pass: all 3 pages of each condition are kept (12); quoted in the first pass: only
        # A's PGF page 3 of q2/d06 (1); construction: TikZ p6 of q4/d11, fontspec p12 of q5/d11
        # and p20 of q5/d12 (q2/d06 has no PGF page): 3
        self.assertEqual((pool["route_first_pass"], pool["route_selected"], pool["route_construction"]),
                         (12, 1, 3))
        # the example names TikZ and fontspec on their construction page only and PGF nowhere in
        # d06 (checked here on the text), so exact, fuzzy and BM25 list one page each of three
        # conditions; the other 36 - 4 * 3 = 24 contexts are seeded filler
        _, _, _, pages = setup.example_inputs()
        for docid, name, page in (("d11", "TikZ", 6), ("d11", "fontspec", 12), ("d12", "fontspec", 20)):
            self.assertEqual([n for n, p in pages[docid].items() if name.casefold() in p.text.casefold()], [page])
        self.assertEqual([n for n, p in pages["d06"].items() if "pgf" in p.text.casefold()], [])
        self.assertEqual((pool["route_exact"], pool["route_fuzzy"], pool["route_bm25"], pool["route_fill"]),
                         (3, 3, 3, 24))
        # held out: the locked positives of the queued pairs are Bibliography (p6) and hyperref
        # (p2) of q2/d06, Introduction (p1) of q4/d11 and Examples of q5/d11 (p10) and q5/d12 (p4),
        # each quoted by both evaluators on its construction page; the held-out pool takes the
        # construction route first, so each is found at rank 1
        recall = cells(out, "audit_pool_recall")
        self.assertEqual({k: (v["count"], v["n"]) for k, v in recall.items()},
                         {"rank6": (5, 5), "rank9": (5, 5), "all9": (5, 5), "asked": (1, 1)})

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


class RefusalsAndWarnings(unittest.TestCase):
    """Every input is refused as an output; every bad number is one line; a count that cannot be
    met is warned about (issue 24)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-refusals-"))
        cls.first, cls.key, cls.packet, cls.html = setup.first_record(cls.tmp)
        cls.exports = [cls.tmp / "FIXTURE-A.json", cls.tmp / "FIXTURE-E.json"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    refused = Stages.refused
    run_ok = Stages.run_ok

    def unchanged_after_refusal(self, target, *args):
        before = Path(target).read_bytes()
        err = self.refused(*args)
        self.assertEqual(Path(target).read_bytes(), before)
        return err

    def test_inputs_refused_as_out(self):
        spec, key = self.tmp / "first" / "spec.json", self.tmp / "first" / "key.json"
        pages = setup.EXAMPLE / "pages.jsonl"
        for target in (spec, pages):
            err = self.unchanged_after_refusal(target, "audit", "packet", "--spec", spec, "--pages", pages,
                                               "--out", target)
            self.assertIn("over an input file of this command", err)
        for target in (self.exports[0], key, self.html):
            err = self.unchanged_after_refusal(target, "audit", "import", "--key", key, "--packet", self.html,
                                               *self.exports, "--out", target)
            self.assertIn("over an input file of this command", err)
        # a stage folder holding the command's input record: spec.json would overwrite it
        folder = self.tmp / "holder"
        folder.mkdir()
        record = folder / "spec.json"
        record.write_bytes((self.tmp / "first.record.json").read_bytes())
        err = self.unchanged_after_refusal(record, "audit", "adjudicate", "--release", setup.EXAMPLE,
                                           "--record", record, "--out", folder)
        self.assertIn("input", err)
        # the release folder itself, as a stage folder or a repaired copy
        release = self.tmp / "example"
        shutil.copytree(setup.EXAMPLE, release)
        self.refused("audit", "sample", "--release", release, "--seed", "1", "--out", release)
        self.refused("audit", "repair", "--release", release, "--record", self.tmp / "first.record.json",
                     "--id", "x", "--write-copy", release)
        self.assertFalse((release / "repairs").exists())  # refused before anything was written

    def test_bad_numbers_are_one_line(self):
        example = setup.EXAMPLE
        challenge = ("audit", "challenge", "--release", example, "--base", "example_lexical", "--variant",
                     "example_pages", "--seed", "1", "--out", self.tmp / "never")
        cases = [
            (("audit", "impact", "--release", example, "--repair", "x", "--k", "0"), "--k"),
            (challenge + ("--controls", "-3"), "--controls"),
            (challenge + ("--k", "0"), "--k"),
            (("audit", "sample", "--release", example, "--seed", "1", "--n", "0", "--out", self.tmp / "never"),
             "--n"),
            (("audit", "sample", "--release", example, "--seed", "1", "--n", "-5", "--out", self.tmp / "never"),
             "--n"),
        ]
        for args, name in cases:
            err = self.refused(*args)
            self.assertIn(name, err)
        self.assertFalse((self.tmp / "never").exists())

    def test_counts_that_cannot_be_met_are_warned(self):
        # the example judges 24 pairs (9 golds, 15 subsets)
        out, err = self.run_ok("audit", "sample", "--release", setup.EXAMPLE, "--seed", "1", "--n", "30",
                               "--out", self.tmp / "s30", "--json")
        self.assertEqual(out["items"], 24)
        self.assertIn("warning: asked for 30 pairs; the release judges 24", err)
        # n = 20: the gold half wants 10 of 9 golds
        out, err = self.run_ok("audit", "sample", "--release", setup.EXAMPLE, "--seed", "1", "--n", "20",
                               "--out", self.tmp / "s20", "--json")
        self.assertEqual(out["items"], 20)
        self.assertIn("warning: 9 pre-gold pairs instead of 10", err)
        # lexical vs pages on n-Clue Score: 2 targets (q2/d06, q3/d01), and of the other 13 judged
        # subsets only q4/d11 moves the contrast (away from zero): 12 neutral controls exist
        out, err = self.run_ok("audit", "challenge", "--release", setup.EXAMPLE, "--base", "example_lexical",
                               "--variant", "example_pages", "--measure", "nclue_score", "--controls", "13",
                               "--seed", "5", "--out", self.tmp / "c13", "--json")
        self.assertEqual((out["targets"], out["controls"]), (2, 12))
        self.assertIn("warning: asked for 13 controls; only 12 judged subsets leave the contrast unchanged", err)
        # d02 (8 pages), d03 (6) and d08 (7) cannot show nine pages
        self.assertIn("show fewer than the 9 pages asked for (their documents are shorter; fewest 6)", err)


if __name__ == "__main__":
    unittest.main()
