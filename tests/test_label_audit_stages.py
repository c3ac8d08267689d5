"""Label-audit stages and defects beyond the main workflow, on data/example/ with FIXTURE judgments.

Issue 24: identical exports are one response stream in every stage; every input is refused as
``--out``; every bad number is a one-line error; a count that cannot be met is warned about;
tied adjudication decisions are listed. Every expected value is worked out by hand from the
scenario of tests/label_audit_setup.py (the first pass of tests/test_label_audit_workflow.py) and
the example's qrels, in the comments.
"""

import contextlib
import io
import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from nclue.cli import main
from nclue.formats import iter_jsonl
from tests import label_audit_setup as setup

ROOT = Path(__file__).resolve().parent.parent


def nclue(*args):
    """``python -m nclue ARGS`` run in this process (the CLI's own entry point, its output
    captured): the same exit status and output lines, without an interpreter start per call."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


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

    def test_queries_judged_clear_by_both(self):
        # A judges every request clear; E flags two items unclear and leaves a third unaccepted:
        # completed by both 23 pairs, judged clear by both 23 - 2 = 21
        from tests import audit_fixtures as fx
        answers = setup.scenario_first(self.key)
        items = [it.item for it in self.packet.items]
        folder = self.tmp / "clear"
        folder.mkdir()
        a = folder / "A.json"
        a.write_text(json.dumps(fx.export(self.packet, "FIXTURE-A", answers["FIXTURE-A"])))
        e = folder / "E.json"
        e.write_text(json.dumps(fx.export(self.packet, "FIXTURE-E", answers["FIXTURE-E"],
                                          accepted={items[5]: False}, unclear=items[:2])))
        out, _ = self.run_ok("audit", "import", "--key", self.tmp / "first" / "key.json", "--packet", self.html,
                             a, e, "--out", folder / "record.json", "--json")
        s8 = cells(out, "audit_agreement")
        self.assertEqual((s8["pairs"]["agree"], s8["clear"]["agree"], s8["clear"]["n"]), (23, 21, 23))
        record = json.loads((folder / "record.json").read_text())
        first_item = next(it for it in record["items"] if it["item"] == items[0])
        self.assertEqual(first_item["request_clear"], {"FIXTURE-A": True, "FIXTURE-E": False})
        unaccepted = next(it for it in record["items"] if it["item"] == items[5])
        self.assertEqual(unaccepted["request_clear"], {"FIXTURE-A": True})

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

    def test_administrative_review(self):
        # the workflow's adjudication: q2/d06 PGF yes/yes/no (rule positive), q4/d11 TikZ no/no/yes
        # (rule negative), q5/d11 fontspec no/no/no (unanimous: not reviewed), q5/d12 fontspec
        # F1 yes, F2 no, F3 unjudged (1-1: retained, not unanimous)
        record, _, _ = self.adjudication_record("rev", setup.scenario_adjudication(self.adj_key))
        sheet = self.tmp / "rev" / "sheet.json"
        out, _ = self.run_ok("audit", "review", "--release", setup.EXAMPLE, "--record", self.tmp / "first.record.json",
                             "--adjudication", record, "--out", sheet, "--json")
        listed = cells(out, "audit_review_sheet")
        self.assertEqual(listed, {"q2|d06|1": {"yes": 2, "no": 1, "quoted": 1},    # A, F1, F2 quote p3
                                  "q4|d11|1": {"yes": 1, "no": 2, "quoted": 1},    # F3 quotes p6
                                  "q5|d12|1": {"yes": 1, "no": 1, "quoted": 1}})   # F1 quotes p20
        data = json.loads(sheet.read_text())
        rows = {(c["qid"], c["docid"]): c for c in data["conditions"]}
        self.assertEqual(rows[("q4", "d11")]["quoted_pages"], [6])
        release = self.release_copy("example-review")
        repair = ("audit", "repair", "--release", release, "--record", self.tmp / "first.record.json",
                  "--adjudication", record, "--id")

        def fill(q2, q4, q5, name="filled.json"):
            filled = json.loads(sheet.read_text())
            for row, value in zip(sorted(filled["conditions"], key=lambda c: (c["qid"], c["docid"])), (q2, q4, q5)):
                row.update(value)
            path = self.tmp / "rev" / name
            path.write_text(json.dumps(filled))
            return path

        # an unfilled sheet, a departure without a reason, a positive page nobody quoted, a
        # missing condition and a sheet of other records are refused (exit 2, one line)
        self.assertIn("decision must be one of", self.refused(*repair, "r0", "--review", sheet))
        confirm = {"decision": "confirm"}
        bad = fill(confirm, {"decision": "positive", "pages": [6]}, confirm)
        self.assertIn("needs a reason", self.refused(*repair, "r0", "--review", bad))
        bad = fill(confirm, {"decision": "positive", "pages": [7], "reason": "x"}, confirm)
        self.assertIn("among the validly quoted pages [6]", self.refused(*repair, "r0", "--review", bad))
        short = json.loads(fill(confirm, confirm, confirm).read_text())
        short["conditions"] = short["conditions"][:2]
        (self.tmp / "rev" / "short.json").write_text(json.dumps(short))
        self.assertIn("not reviewed", self.refused(*repair, "r0", "--review",
                                                   self.tmp / "rev" / "short.json"))
        alien = json.loads(fill(confirm, confirm, confirm).read_text())
        alien["first_record_sha256"] = "0" * 64
        (self.tmp / "rev" / "alien.json").write_text(json.dumps(alien))
        self.assertIn("drawn from other records", self.refused(*repair, "r0", "--review",
                                                               self.tmp / "rev" / "alien.json"))
        # the review: q2/d06 confirmed; q4/d11 TikZ corrected to positive on F3's page 6 (its
        # construction page, so q4/d11 keeps grade 2 and leaves the changed pairs); q5/d12
        # fontspec corrected to negative (gold 2 -> subset 1). With q5/d11's unanimous demotion
        # q5 is left without a gold. Changed: q1/d02, q3/d01, q2/d06, q5/d11, q5/d12.
        filled = fill(confirm, {"decision": "positive", "pages": [6], "reason": "page 6 shows TikZ code"},
                      {"decision": "negative", "reason": "page 20 only names the package in a list"})
        out, _ = self.run_ok(*repair, "review-1", "--review", filled, "--json")
        self.assertEqual(out["changed_pairs"], 5)
        counts = {k: v["count"] for k, v in cells(out, "audit_label_transitions").items()}
        self.assertEqual({k: counts[k] for k in ("subset_gold", "gold_subset", "subset_subset_changed",
                                                 "subset_subset_same", "gold_gold", "golds", "zero_gold_queries")},
                         {"subset_gold": 2, "gold_subset": 2, "subset_subset_changed": 1, "subset_subset_same": 12,
                          "gold_gold": 7, "golds": 9, "zero_gold_queries": 1})
        review = cells(out, "audit_review")
        self.assertEqual({k: v["count"] for k, v in review.items()},
                         {"checked": 3, "confirmed": 1, "to_positive": 1, "to_negative": 1,
                          "q4|d11|1": 1, "q5|d12|1": 1})
        rows = {(o["qid"], o["docid"]): o for _, o in iter_jsonl(release / "repairs" / "review-1.jsonl")}
        self.assertEqual(set(rows), {("q1", "d02"), ("q3", "d01"), ("q2", "d06"), ("q5", "d11"), ("q5", "d12")})
        self.assertEqual([c["rule"] for c in rows[("q5", "d12")]["conditions"]],
                         ["first_pass.both_positive", "review.negative"])
        lineage = json.loads((release / "repairs" / "review-1.lineage.json").read_text())
        self.assertEqual(lineage["review"]["departures"], 2)
        # the tied q5/d12 is reviewed, so it is no longer listed as undecided
        self.assertEqual(set(cells(out, "audit_flagged")), set())

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


class ChallengeTieBreak(unittest.TestCase):
    """The challenge's duplicate-collapsed first pass and its tie-break (supplement sec. 10.5)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-tiebreak-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    run_ok = Stages.run_ok
    refused = Stages.refused

    def test_tie_break(self):
        from nclue.label_audit.packet import read_packet_html
        from nclue.label_audit.spec import read_key
        from tests import audit_fixtures as fx
        ch = self.tmp / "ch"
        # targets q2/d06 and q3/d01, two controls (tests/test_label_audit_workflow.py test_4)
        self.run_ok("audit", "challenge", "--release", setup.EXAMPLE, "--base", "example_lexical", "--variant",
                    "example_pages", "--measure", "nclue_score", "--controls", "2", "--seed", "5", "--out", ch)
        self.run_ok("audit", "packet", "--spec", ch / "spec.json", "--pages", setup.EXAMPLE / "pages.jsonl",
                    "--out", ch / "packet.html")
        key, _ = read_key(ch / "key.json")
        packet = read_packet_html(ch / "packet.html")
        # three nominal first-pass files, two identical (A and A-COPY): as the construction, except
        # q2/d06 PGF: A yes on a free page, E no (a split); q3/d01 beamer (construction p8): both no
        a, e = fx.construction_answers(key), fx.construction_answers(key)
        target, other = fx.item_of(key, "q2", "d06"), fx.item_of(key, "q3", "d01")
        pgf_pool = [p.page for p in key.item(target).conditions[1].pool]
        free = [p for p in pgf_pool if p not in (2, 6)]   # neither Bibliography's (6) nor hyperref's (2)
        a[target][1], e[target][1] = free[:1], []
        a[other][1], e[other][1] = [], []
        paths = setup.write_exports(ch, packet, {"FIXTURE-A": a, "FIXTURE-A-COPY": a, "FIXTURE-E": e})
        stats, err = self.run_ok("audit", "import", "--key", ch / "key.json", "--packet", ch / "packet.html",
                                 *paths, "--out", ch / "record.json", "--json")
        self.assertIn("FIXTURE-A and FIXTURE-A-COPY are identical", err)
        # agreement over the two distinct streams: 4 pairs, grades differ on q2/d06 only
        self.assertEqual(cells(stats, "audit_agreement")["grade"]["agree"], 3)
        # only the split is open: the consensus decrease is decided by two expanded-page responses
        out, _ = self.run_ok("audit", "tiebreak", "--release", setup.EXAMPLE, "--record", ch / "record.json",
                             "--out", ch / "tb", "--json")
        self.assertEqual((out["queued_pairs"], out["queued_conditions"]), (1, 1))
        tb_key, _ = read_key(ch / "tb" / "key.json")
        (item,) = tb_key.items
        (asked,) = [c for c in item.conditions if c.ask]
        self.assertEqual((item.qid, item.docid, asked.index), ("q2", "d06", 1))
        self.assertEqual([p.page for p in asked.pool], pgf_pool)   # exactly the pages both streams saw
        self.run_ok("audit", "packet", "--spec", ch / "tb" / "spec.json", "--pages", setup.EXAMPLE / "pages.jsonl",
                    "--out", ch / "tb.html")
        tb_packet = read_packet_html(ch / "tb.html")
        self.assertEqual(tb_packet.title, "Expanded-page tie-break poll")
        tb = setup.write_exports(ch / "tb", tb_packet, {"FIXTURE-T": {item.item: {1: free[1:2]}}})
        self.run_ok("audit", "import", "--key", ch / "tb" / "key.json", "--packet", ch / "tb.html", *tb,
                    "--out", ch / "tb.record.json")
        release = self.tmp / "example"
        shutil.copytree(setup.EXAMPLE, release)
        out, err = self.run_ok("audit", "repair", "--release", release, "--record", ch / "record.json",
                               "--adjudication", ch / "tb.record.json", "--id", "tb-1", "--json")
        self.assertIn("FIXTURE-A-COPY", err)
        # q2/d06: A yes + T yes vs E no -> PGF positive on A's and T's pages; Bibliography p6,
        # PGF two other pages, hyperref p2 -> distinct pages: a gold. q3/d01: beamer no/no ->
        # negative, no condition left: the pair leaves the qrels.
        rows = {(o["qid"], o["docid"]): o for _, o in iter_jsonl(release / "repairs" / "tb-1.jsonl")}
        self.assertEqual(set(rows), {("q2", "d06"), ("q3", "d01")})
        self.assertEqual(rows[("q2", "d06")]["after"], {"clues": 3, "label": "gold", "gate": None,
                                                       "pages": [[6], sorted(free[:2]), [2]]})
        self.assertEqual([c["rule"] for c in rows[("q2", "d06")]["conditions"]],
                         ["first_pass.both_positive", "tie_break.positive", "first_pass.both_positive"])
        self.assertIsNone(rows[("q3", "d01")]["after"])
        self.assertEqual(rows[("q3", "d01")]["conditions"][1]["rule"], "tie_break.negative")
        self.assertEqual(cells(out, "audit_roles")["target"], {"audited": 2, "changed": 2, "to_gold": 1})
        sides = cells(out, "audit_tie_break")
        self.assertEqual((sides["FIXTURE-T|FIXTURE-A"]["agree"], sides["FIXTURE-T|FIXTURE-A"]["n"]), (1, 1))
        self.assertEqual(sides["FIXTURE-T|FIXTURE-E"]["agree"], 0)
        counts = {k: v["count"] for k, v in cells(out, "audit_label_transitions").items()}
        self.assertEqual((counts["subset_gold"], counts["subset_none"], counts["changed"]), (1, 1, 2))

    def test_no_tie_break_for_a_stratified_first_pass(self):
        setup.first_record(self.tmp)
        err = self.refused("audit", "tiebreak", "--release", setup.EXAMPLE, "--record",
                           self.tmp / "first.record.json", "--out", self.tmp / "tb-strat")
        self.assertIn("a tie-break needs a first pass shown on expanded pages", err)


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
