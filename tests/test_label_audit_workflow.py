"""The label audit end to end on data/example/ through the CLI, with FIXTURE judgments.

Scenario (tests/label_audit_setup.py): all 24 judged pairs of the example are sampled; two fixture
evaluators A and E answer as the construction except

  q1/d02 TikZ:     A yes p5, E yes p5   (both add a condition: a promotion)
  q3/d01 Index:    A yes p8, E yes p8   (p8 is also beamer's only page: single-page gate)
  q2/d06 PGF:      A yes p3, E no       (split -> adjudication)
  q4/d11 TikZ:     A no, E no           (consensus decrease -> adjudication)
  q5/d11 fontspec: A no, E no           (consensus decrease -> adjudication)
  q5/d12 fontspec: A no, E no           (consensus decrease -> adjudication)
  q1/d01 TikZ:     A yes p5, E yes p6   (same answer, different page)

Adjudication (F1, F2, F3): q2/d06 PGF yes/yes/no; q4/d11 TikZ no/no/yes; q5/d11 fontspec
no/no/no; q5/d12 fontspec yes/no/(F3 leaves the item unaccepted).

Every expected value below is worked out by hand from that scenario and the example's qrels.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from nclue.formats import iter_jsonl
from nclue.errors import InputError
from nclue.label_audit.impact import changed_queries, runs_of, scores
from nclue.label_audit.packet import read_packet_html
from nclue.label_audit.spec import read_key
from nclue.label_audit.repair import load_label_version
from nclue.label_audit.verify import check_repairs
from nclue.metrics import evaluate
from nclue.release import load_release
from tests import audit_fixtures as fx
from tests import label_audit_setup as setup
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent


def nclue(*args):
    return subprocess.run([sys.executable, "-m", "nclue", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def nclue_in_process(*args):
    """``nclue ARGS`` through :func:`nclue.cli.main` in this process (from the repository root,
    as :func:`nclue` runs it), its output captured: for the happy paths, whose point is what the
    command prints and writes; the refusals (exit status 2, one line) run as child processes."""
    from nclue.cli import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in args])
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def cells(payload, table_id):
    table = next(t for t in payload["tables"] if t["id"] == table_id)
    return {row["row"]: row["cells"] for row in table["rows"]}


@slow
class Workflow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-audit-"))
        cls.release = cls.tmp / "example"
        shutil.copytree(setup.EXAMPLE, cls.release)
        cls.released_qrels = (cls.release / "qrels.jsonl").read_bytes()
        cls.first, cls.key, cls.packet, cls.html = setup.first_record(cls.tmp)
        cls.adj_key, _, cls.adj_packet, cls.adj_html = setup.adjudication_stage(cls.tmp, cls.first)
        # FIXTURE-F3 leaves q5/d12 out of its export (an item it did not judge)
        cls.adj_exports = setup.write_exports(cls.tmp, cls.adj_packet, setup.scenario_adjudication(cls.adj_key))
        cls.exports = [cls.tmp / "FIXTURE-A.json", cls.tmp / "FIXTURE-E.json"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_ok(self, *args):
        proc = nclue_in_process(*args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        return json.loads(proc.stdout) if "--json" in args else proc.stdout

    def test_1_first_pass_agreement(self):
        out = self.run_ok("audit", "import", "--key", self.tmp / "first" / "key.json", "--packet", self.html,
                          *self.exports, "--json")
        s8 = cells(out, "audit_agreement")
        self.assertEqual((s8["pairs"]["agree"], s8["pairs"]["n"]), (24, 24))
        # 13 two-condition pairs (q1 5, q3 3, q5 2, q6 3) and 11 three-condition pairs (q2 5, q4 6)
        self.assertEqual((s8["conditions"]["agree"], s8["conditions"]["n"]), (59, 59))
        # grades differ only on q2/d06 (A 3, E 2)
        self.assertEqual((s8["grade"]["agree"], s8["grade"]["n"]), (23, 24))
        # A grades 1:12 2:7 3:5, E 1:12 2:8 3:4, one (3, 2) cell: p_o = 71/72, p_e = 79/108,
        # linear weights over 0..3 -> kappa_w = (71/72 - 79/108) / (1 - 79/108) = 55/58
        self.assertAlmostEqual(s8["grade"]["kappa"], 55 / 58, places=12)
        # support: both yes 40, A yes E no 1, both no 18 -> p_o 58/59, p_e 1982/3481, kappa 1440/1499
        self.assertEqual((s8["support"]["agree"], s8["support"]["n"]), (58, 59))
        self.assertAlmostEqual(s8["support"]["kappa"], 1440 / 1499, places=12)
        self.assertEqual((s8["pages"]["agree"], s8["pages"]["n"]), (57, 59))  # q2/d06 PGF, q1/d01 TikZ
        self.assertEqual((s8["quotes"]["agree"], s8["quotes"]["n"]), (81, 81))  # 41 + 40 positives
        self.assertEqual((s8["clear"]["agree"], s8["clear"]["n"]), (24, 24))  # the fixtures judge every request clear
        self.assertEqual(s8["positive_FIXTURE-A"]["agree"], 41)
        self.assertEqual(s8["positive_FIXTURE-E"]["agree"], 40)
        s9 = cells(out, "audit_confusion")
        self.assertEqual(s9["g3"], {"g0": 0, "g1": 0, "g2": 1, "g3": 4})
        self.assertEqual(s9["g1"]["g1"], 12)
        self.assertEqual(s9["g2"]["g2"], 7)

    def test_2_adjudication_queue_and_agreement(self):
        # queued: the split (q2/d06 PGF) and the three consensus decreases; q1/d02 and q3/d01 are
        # consensus increases, accepted at once
        queue = {(it.qid, it.docid): [c.index for c in it.conditions if c.ask] for it in self.adj_key.items}
        self.assertEqual(queue, {("q2", "d06"): [1], ("q4", "d11"): [1], ("q5", "d11"): [1], ("q5", "d12"): [1]})
        for it in self.adj_key.items:
            (c,) = [c for c in it.conditions if c.ask]
            shown = [p.page for p in c.pool]
            self.assertEqual(len(shown), 9)                       # documents of 10, 14 and 25 pages
            self.assertTrue(set(c.construction_pages) <= set(shown))
            first = next(x for x in self.first.items if (x.qid, x.docid) == (it.qid, it.docid))
            first_shown = [p.page for p in first.conditions[c.index].pool]
            self.assertTrue(set(first_shown) <= set(shown))      # the first-pass pages are kept
        out = self.run_ok("audit", "import", "--key", self.tmp / "adj" / "key.json", "--packet", self.adj_html,
                          *self.adj_exports, "--json", "--out", self.tmp / "adj.record.json")
        adj = cells(out, "audit_adjudication")
        # completed by all three: q2/d06 (2 yes), q4/d11 (1 yes), q5/d11 (0 yes); unanimous: q5/d11
        self.assertEqual((adj["unanimous"]["agree"], adj["unanimous"]["n"]), (1, 3))
        # Fleiss: P_i = 1/3, 1/3, 1 -> P_bar 5/9; shares no 6/9, yes 3/9 -> P_e 5/9 -> kappa 0
        self.assertAlmostEqual(adj["unanimous"]["kappa"], 0.0, places=12)
        self.assertEqual(adj["pair_FIXTURE-F1_FIXTURE-F2"]["agree"], 3)
        self.assertEqual(adj["pair_FIXTURE-F1_FIXTURE-F3"]["agree"], 1)
        integrity = cells(out, "audit_integrity")
        self.assertEqual(integrity["FIXTURE-F3"], {"positive": 1, "negative": 2, "pages": 1, "quotes": 1,
                                                   "quotes_of": 1, "items": 3})

    def test_3_repair_transitions_and_impact(self):
        if not (self.tmp / "adj.record.json").exists():
            self.test_2_adjudication_queue_and_agreement()
        out = self.run_ok("audit", "repair", "--release", self.release, "--record", self.tmp / "first.record.json",
                          "--adjudication", self.tmp / "adj.record.json", "--id", "fixture-1", "--json",
                          "--write-copy", self.tmp / "copy")
        labels = cells(out, "audit_label_transitions")
        counts = {k: v["count"] for k, v in labels.items()}
        self.assertEqual(counts, {
            "audited": 24, "changed": 5,
            "subset_gold": 2,            # q1/d02 (1 -> 2), q2/d06 (2 -> 3)
            "gold_subset": 1,            # q5/d11 (fontspec demoted)
            "gold_none": 0, "subset_none": 0,
            "subset_subset_changed": 2,  # q3/d01 (1 -> 2, single-page gate), q4/d11 (2 -> 1)
            "subset_subset_same": 11, "gold_gold": 8,   # q5/d12 retained (no adjudication decision)
            "golds": 10, "gold_gate_failures": 0, "zero_gold_queries": 0})
        grades = cells(out, "audit_grade_transitions")
        self.assertEqual(grades["from1"], {"to0": 0, "to1": 9, "to2": 2, "to3": 0, "pairs": 11})
        self.assertEqual(grades["from2"], {"to0": 0, "to1": 2, "to2": 6, "to3": 1, "pairs": 9})
        self.assertEqual(grades["from3"], {"to0": 0, "to1": 0, "to2": 0, "to3": 4, "pairs": 4})
        rows = {(o["qid"], o["docid"]): o for _, o in iter_jsonl(self.release / "repairs" / "fixture-1.jsonl")}
        self.assertEqual(set(rows), {("q1", "d02"), ("q3", "d01"), ("q2", "d06"), ("q4", "d11"), ("q5", "d11")})
        self.assertEqual(rows[("q1", "d02")]["after"], {"clues": 2, "label": "gold", "gate": None, "pages": [[1], [5]]})
        self.assertEqual(rows[("q3", "d01")]["after"],
                         {"clues": 2, "label": "subset", "gate": "single_page", "pages": [[8], [8]]})
        self.assertEqual(rows[("q2", "d06")]["after"], {"clues": 3, "label": "gold", "gate": None,
                                                       "pages": [[6], [3], [2]]})
        self.assertEqual(rows[("q4", "d11")]["after"], {"clues": 1, "label": "subset", "gate": None,
                                                       "pages": [[1], [], []]})
        self.assertEqual([c["rule"] for c in rows[("q2", "d06")]["conditions"]],
                         ["first_pass.both_positive", "adjudication.positive", "first_pass.both_positive"])
        # the released qrels are untouched; the copy holds the new label version with its lineage
        self.assertEqual((self.release / "qrels.jsonl").read_bytes(), self.released_qrels)
        copy = {(o["qid"], o["docid"]): (o["clues"], o["label"], o.get("gate"))
                for _, o in iter_jsonl(self.tmp / "copy" / "qrels.jsonl")}
        self.assertEqual(len(copy), 24)
        self.assertEqual(copy[("q5", "d11")], (1, "subset", None))
        self.assertEqual(check_repairs(load_release(self.release)), (1, []))
        lineage = json.loads((self.release / "repairs" / "fixture-1.lineage.json").read_text())
        self.assertEqual([r["stage"] for r in lineage["records"]], ["first_pass", "adjudication"])
        self.assertEqual(lineage["policy"]["version"], 1)
        # a tampered repair file no longer verifies
        tampered = self.tmp / "tampered"
        shutil.copytree(self.release, tampered)
        path = tampered / "repairs" / "fixture-1.jsonl"
        path.write_text(path.read_text().replace('"clues":3', '"clues":2', 1))
        checked, problems = check_repairs(load_release(tampered))
        self.assertEqual(checked, 1)
        self.assertEqual(len(problems), 1)
        self.assertIn("sha256 differs from its lineage", problems[0])
        # a second repair with the same id is refused (exit 2, one line)
        again = nclue("audit", "repair", "--release", self.release, "--record", self.tmp / "first.record.json",
                      "--id", "fixture-1")
        self.assertEqual(again.returncode, 2)
        self.assertEqual(len(again.stderr.strip().splitlines()), 1)
        self.assertIn("a repair with this id exists", again.stderr)

        impact = self.run_ok("audit", "impact", "--release", self.release, "--repair", "fixture-1", "--json",
                             "--contrast", "example_lexical", "example_pages", "--measure", "nclue_score")
        runs = cells(impact, "audit_impact_runs")
        # n-Clue Score@10 by hand: lexical q1 q4 q5 before (3/6), + q2 after (d06 now gold at rank 1);
        # dense q2 q3 q5 both times; pages q1 q2 q3 q6 both times
        self.assertAlmostEqual(runs["example_lexical"]["nclue_score@10|before"], 50.0)
        self.assertAlmostEqual(runs["example_lexical"]["nclue_score@10|after"], 400 / 6)
        self.assertAlmostEqual(runs["example_dense"]["nclue_score@10|delta"], 0.0)
        self.assertAlmostEqual(runs["example_pages"]["nclue_score@10|after"], 400 / 6)
        summary = cells(impact, "audit_impact_summary")
        # ranks before (lexical, dense, pages) = (1.5, 1.5, 3), after (2.5, 1, 2.5): rho = 0.75/1.5
        self.assertAlmostEqual(summary["nclue_score@10"]["rho"], 0.5)
        self.assertAlmostEqual(summary["nclue_score@10"]["max_abs_delta"], 100 / 6)
        self.assertAlmostEqual(summary["nclue_score@10"]["rank_shift"], 1.0)
        self.assertEqual(summary["gold_hit@10"]["changed"], 0)
        # the incremental re-scoring equals a full evaluation of both label versions
        release = load_release(self.release)
        repaired, _ = load_label_version(release, "fixture-1")
        self.assertEqual(changed_queries(release, repaired), ["q1", "q2", "q3", "q4", "q5"])
        runs = runs_of(self.release, release)
        pre, post = scores(release, repaired, runs, 10)
        for run_id, run in runs.items():
            for version, values in ((release, pre[run_id]), (repaired, post[run_id])):
                full = evaluate(version, run, 10)
                self.assertEqual(values, {m: full[m] for m in values})
        # the same tables as report kinds, so a shipped repair's impact is a verified claim
        from nclue.context import ReleaseContext
        from nclue.tables.kinds import table_from_dict
        ctx = ReleaseContext(self.release)
        table = table_from_dict({"id": "r", "kind": "repair_impact_runs", "repair": "fixture-1"}, ctx)
        rows = {key: values for key, _, values in table.rows}
        self.assertAlmostEqual(rows["example_lexical"]["nclue_score@10|after"], 400 / 6)
        table = table_from_dict({"id": "s", "kind": "repair_impact_summary", "repair": "fixture-1"}, ctx)
        self.assertAlmostEqual({k: v for k, _, v in table.rows}["nclue_score@10"]["rho"], 0.5)
        with self.assertRaisesRegex(InputError, "no repair 'nope'"):
            table_from_dict({"id": "s", "kind": "repair_impact_summary", "repair": "nope"}, ctx)
        contrast = cells(impact, "audit_contrast")
        self.assertAlmostEqual(contrast["before"]["gap"], 100 / 6)
        self.assertAlmostEqual(contrast["after"]["gap"], 0.0)
        # paired p, exact over the 2**6 sign vectors: pages - lexical per query is
        # (0, +1, +1, -1, -1, +1) before and (0, 0, +1, -1, -1, +1) after; an odd number of +-1
        # terms (5) never sums to 0, so |T*| >= |T| = 1 always (p = 1); after, T = 0 (p = 1)
        for version in ("before", "after"):
            self.assertEqual((contrast[version]["p_query"], contrast[version]["p_family"]), (1.0, 1.0))
        # Gold Hit, dense - lexical: (0, 0, +1, 0, 0, +1) on both versions (the repair changes no
        # Gold Hit); |T*| >= 2 needs both nonzero signs equal: p = 2/4. Families before:
        # {q5, q6} one unit (sum 0 + 1), after q5 (gold d12) and q6 (d11, d12) apart: p = 1/2 too
        hit = cells(self.run_ok("audit", "impact", "--release", self.release, "--repair", "fixture-1", "--json",
                                "--contrast", "example_lexical", "example_dense", "--measure", "gold_hit"),
                    "audit_contrast")
        for version in ("before", "after"):
            self.assertAlmostEqual(hit[version]["gap"], 200 / 6)
            self.assertEqual((hit[version]["p_query"], hit[version]["p_family"]), (0.5, 0.5))
        # Gold-NDCG (real-valued differences): the query-paired p equals an exhaustive count over
        # the 64 sign vectors of the per-query differences, on each label version
        ndcg = cells(self.run_ok("audit", "impact", "--release", self.release, "--repair", "fixture-1", "--json",
                                 "--contrast", "example_lexical", "example_dense"), "audit_contrast")
        from itertools import product
        from nclue.metrics import per_query
        for version, labels in (("before", release), ("after", repaired)):
            lex = per_query(labels, runs["example_lexical"], 10)["gold_ndcg@10"]
            dense = per_query(labels, runs["example_dense"], 10)["gold_ndcg@10"]
            d = [dense[q] - lex[q] for q in sorted(lex)]
            observed = abs(sum(d))
            hits = sum(1 for signs in product((1, -1), repeat=6)
                       if abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-9)
            self.assertEqual(ndcg[version]["p_query"], hits / 64)
            self.assertAlmostEqual(ndcg[version]["gap"], 100 * sum(d) / 6)

    def test_4_challenge(self):
        out = self.run_ok("audit", "challenge", "--release", setup.EXAMPLE, "--base", "example_lexical",
                          "--variant", "example_pages", "--measure", "nclue_score", "--controls", "2",
                          "--seed", "5", "--out", self.tmp / "challenge", "--json")
        # pages - lexical = 4/6 - 3/6; only promoting q2/d06 (lexical's rank 1) or q3/d01 (lexical's
        # rank 1) turns a lexical failure into a success where pages succeeds
        self.assertAlmostEqual(out["contrast_points"], 100 / 6, places=4)
        self.assertEqual((out["targets"], out["controls"]), (2, 2))
        key = json.loads((self.tmp / "challenge" / "key.json").read_text())
        roles = {(it["qid"], it["docid"]): it["role"] for it in key["items"]}
        self.assertEqual({p for p, r in roles.items() if r == "target"}, {("q2", "d06"), ("q3", "d01")})
        # neutral subsets of the top-10 union: q1/d02, q1/d03, q2/d07, q3/d10, q4/d12 (q4/d11 would
        # widen the contrast)
        controls = {p for p, r in roles.items() if r == "control"}
        self.assertTrue(controls <= {("q1", "d02"), ("q1", "d03"), ("q2", "d07"), ("q3", "d10"), ("q4", "d12")})
        self.assertAlmostEqual(key["contrast"]["target_deltas"]["q2|d06"], -100 / 6)
        spec = (self.tmp / "challenge" / "spec.json").read_text()
        for word in ("target", "control", "example_lexical", "example_pages", "contrast"):
            self.assertNotIn(word, spec)
        self.assertTrue(all(len(c["pool"]) == 9 for it in key["items"] for c in it["conditions"]))

    def test_4b_challenge_import_and_repair(self):
        # the challenge goes through the same packet, import and repair; FIXTURE evaluators answer
        # as the construction except that both find PGF for the target q2/d06, each on another page
        # that is neither Bibliography's (6) nor hyperref's (2): it becomes a gold. (Two identical
        # exports would be one response stream and are refused.)
        out = self.tmp / "ch"
        self.run_ok("audit", "challenge", "--release", setup.EXAMPLE, "--base", "example_lexical",
                    "--variant", "example_pages", "--measure", "nclue_score", "--controls", "2",
                    "--seed", "5", "--out", out)
        self.run_ok("audit", "packet", "--spec", out / "spec.json", "--pages", setup.EXAMPLE / "pages.jsonl",
                    "--out", out / "packet.html")
        key, _ = read_key(out / "key.json")
        packet = read_packet_html(out / "packet.html")
        a, e = fx.construction_answers(key), fx.construction_answers(key)
        target = fx.item_of(key, "q2", "d06")
        free = [p.page for p in key.item(target).conditions[1].pool if p.page not in (2, 6)]
        a[target][1], e[target][1] = free[:1], free[1:2]
        paths = setup.write_exports(out, packet, {"FIXTURE-A": a, "FIXTURE-E": e})
        stats = self.run_ok("audit", "import", "--key", out / "key.json", "--packet", out / "packet.html",
                            *paths, "--out", out / "record.json", "--json")
        self.assertEqual(cells(stats, "audit_agreement")["grade"]["agree"], 4)
        release = self.tmp / "example-ch"
        shutil.copytree(setup.EXAMPLE, release)
        repaired = self.run_ok("audit", "repair", "--release", release, "--record", out / "record.json",
                               "--id", "challenge-1", "--json")
        roles = cells(repaired, "audit_roles")
        self.assertEqual(roles["target"], {"audited": 2, "changed": 1, "to_gold": 1})
        self.assertEqual(roles["control"], {"audited": 2, "changed": 0, "to_gold": 0})

    def test_5_bad_input_one_line(self):
        bad = self.tmp / "bad.json"
        data = json.loads(self.exports[0].read_text())
        item = next(i for i in data["items"] if any(c["evidence"] for c in i["conditions"]))
        cond = next(c for c in item["conditions"] if c["evidence"])
        cond["evidence"][0]["quote"] = cond["evidence"][0]["quote"] + " (edited)"
        bad.write_text(json.dumps(data))
        proc = nclue("audit", "import", "--key", self.tmp / "first" / "key.json", "--packet", self.html, bad)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn(f"{bad}: items[", proc.stderr)
        self.assertIn("is not the quote", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        # a policy other than the one fixed at sampling time is refused
        other = self.tmp / "policy.json"
        policy = json.loads((ROOT / "audit" / "label_audit" / "repair_policy_v1.json").read_text())
        policy["adjudication"]["min_agreeing"] = 1
        other.write_text(json.dumps(policy))
        proc = nclue("audit", "import", "--key", self.tmp / "first" / "key.json", "--packet", self.html,
                     "--policy", other, *self.exports)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("is not the one fixed when this sample was drawn", proc.stderr)

    def test_6_cli_sample_and_packet(self):
        out = self.run_ok("audit", "sample", "--release", setup.EXAMPLE, "--n", "10", "--seed", "7",
                          "--out", self.tmp / "s7", "--json")
        self.assertEqual((out["items"], out["page_contexts"]), (10, 3 * out["asked_conditions"]))
        again = self.run_ok("audit", "sample", "--release", setup.EXAMPLE, "--n", "10", "--seed", "7",
                            "--out", self.tmp / "s7b", "--json")
        self.assertEqual((self.tmp / "s7" / "key.json").read_bytes(), (self.tmp / "s7b" / "key.json").read_bytes())
        self.assertEqual(out["spec_sha256"], again["spec_sha256"])
        packet = self.run_ok("audit", "packet", "--spec", self.tmp / "s7" / "spec.json", "--pages",
                             setup.EXAMPLE / "pages.jsonl", "--out", self.tmp / "s7.html", "--json")
        self.assertEqual(packet["items"], 10)
        self.assertEqual(packet["bytes"], (self.tmp / "s7.html").stat().st_size)


if __name__ == "__main__":
    unittest.main()
