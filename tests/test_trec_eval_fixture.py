"""``nclue score --per-query trec_eval`` against trec_eval's own golden files, line for line.

The fixture (tests/data/trec_eval/, with trec_eval's license and a README naming the commit) is
trec_eval's ``test/qrels.test``, ``test/results.test``, ``test/results.trunc`` and the outputs
trec_eval's ``make quicktest`` diffs against. The expected lines are trec_eval's committed output,
not values printed by nclue.

A release is made from ``qrels.test``: topics 301-303 with two conditions each, every grade-1
document a gold (clue count 2), the grade-0 rows dropped (nclue's qrels hold nonzero rows only).
Every relevant document has the same gain (2), so graded NDCG@k (gain = clue count) equals
trec_eval's ``ndcg_cut_k`` on the 0/1 qrels (NDCG does not change when every gain is doubled),
and Gold Hit@k (``gold:success.k``) is trec_eval's ``success_k``.
"""

import hashlib
import io
import json
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from nclue.cli import main

FIXTURE = Path(__file__).resolve().parent / "data" / "trec_eval"

AQ_MEASURES = ["ndcg_cut.5", "ndcg_cut.10", "ndcg_cut.15", "ndcg_cut.20", "ndcg_cut.30",
               "ndcg_cut.100", "ndcg_cut.200", "ndcg_cut.500", "ndcg_cut.1000",
               "gold:success.1", "gold:success.5", "gold:success.10"]


def cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def golden(name, measures):
    """The lines of a trec_eval output file whose measure is one of ``measures``."""
    lines = (FIXTURE / name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.split("\t")[0].rstrip() in measures]


def printed(asked):
    """trec_eval's printed name of each asked measure (``gold:success.5`` -> ``success_5``)."""
    return {text.split(":")[-1].replace(".", "_") for text in asked}


def write_release(folder: Path) -> None:
    qrels = [line.split() for line in
             (FIXTURE / "qrels.test").read_text(encoding="utf-8").splitlines() if line.strip()]
    docids = {row[2] for row in qrels}
    for name in ("results.test", "results.trunc"):
        for line in (FIXTURE / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                docids.add(line.split()[2])
    qids = sorted({row[0] for row in qrels})
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as out:
        for qid in qids:
            out.write(json.dumps({"qid": qid, "conditions": [f"{qid} a", f"{qid} b"],
                                  "forms": {"raw": f"{qid} a, {qid} b",
                                            "clean": f'"{qid} a"; "{qid} b"',
                                            "natural": f'Find the document that discusses '
                                                       f'"{qid} a" and "{qid} b".'}}) + "\n")
    with open(folder / "qrels.jsonl", "w", encoding="utf-8") as out:
        for qid, _, docid, grade in qrels:
            if int(grade) > 0:
                out.write(json.dumps({"qid": qid, "docid": docid, "clues": 2,
                                      "label": "gold"}) + "\n")
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for docid in sorted(docids):
            out.write(json.dumps({"docid": docid, "pages": 1, "source": "trec_eval:test",
                                  "sha256": hashlib.sha256(docid.encode()).hexdigest()}) + "\n")


class TrecEvalGolden(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.release = Path(cls.tmp.name) / "release"
        cls.release.mkdir()
        write_release(cls.release)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def score(self, run, measures, *extra):
        code, out, err = cli(["score", str(FIXTURE / run), "--release", str(self.release),
                              "--measures", *measures, "--per-query", "trec_eval", *extra])
        self.assertEqual(code, 0, err)
        return out.splitlines()

    def test_out_test_aq(self):
        """``trec_eval -m all_trec -q qrels.test results.test``: 12 measures x (3 topics + all)."""
        want = golden("out.test.aq", printed(AQ_MEASURES))
        self.assertEqual(len(want), 48)
        self.assertEqual(self.score("results.test", AQ_MEASURES), want)

    def test_out_test_aqc_on_results_trunc(self):
        """``-c`` on ``results.trunc`` (topic 302 absent, text after the tag): nclue counts an
        absent query as an empty ranking, which is trec_eval's -c."""
        want = golden("out.test.aqc", printed(AQ_MEASURES))
        self.assertEqual(len(want), 48)
        self.assertIn("ndcg_cut_10           \t302\t0.0000", want)
        self.assertEqual(self.score("results.trunc", AQ_MEASURES), want)

    def test_out_test_meas_params_in_trec_eval_order(self):
        """``-mndcg_cut.10,20,23.4 -msuccess.2,5,20`` (trec_eval reads 23.4 as 23); asked here in
        another order, printed in trec_eval's (ndcg_cut before success, cutoffs ascending)."""
        asked = ["gold:success.20", "ndcg_cut.23", "gold:success.2", "ndcg_cut.20",
                 "gold:success.5", "ndcg_cut.10"]
        want = golden("out.test.meas_params", printed(asked))
        self.assertEqual(len(want), 24)
        self.assertEqual(self.score("results.test", asked), want)

    def test_gold_only_ndcg_is_the_same_lines(self):
        """Every relevant document is a gold, so gold:ndcg_cut.10 (Gold-NDCG@10) prints the same."""
        self.assertEqual(self.score("results.test", ["gold:ndcg_cut.10"]),
                         golden("out.test.aq", {"ndcg_cut_10"}))

    def test_ties_default_to_trec_eval_and_a_bare_family_is_refused(self):
        self.assertEqual(self.score("results.test", ["ndcg_cut.20"]),
                         golden("out.test.aq", {"ndcg_cut_20"}))
        # an alias takes no default cutoff (issue 22): bare ndcg_cut is trec_eval's every cutoff
        code, out, err = cli(["score", str(FIXTURE / "results.test"), "--release",
                              str(self.release), "--measures", "ndcg_cut", "--per-query",
                              "trec_eval", "--k", "20"])
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn("every default cutoff", err)

    def test_tsv_form_unchanged(self):
        code, out, _ = cli(["score", str(FIXTURE / "results.test"), "--release",
                            str(self.release), "--measures", "ndcg_cut.10", "--per-query", "tsv",
                            "--ties", "trec_eval"])
        self.assertEqual(code, 0)
        self.assertTrue(out.splitlines()[0].startswith("graded_ndcg@10\t301\t0.1517"))

    def test_refusals_are_one_line(self):
        cases = {
            "no --measures": [],
            "a registry name": ["--measures", "nclue_score@10"],
            "an ir_measures name": ["--measures", "nDCG@10"],
            "two measures, one printed name": ["--measures", "ndcg_cut.10", "gold:ndcg_cut.10"],
        }
        for label, extra in cases.items():
            with self.subTest(label):
                code, out, err = cli(["score", str(FIXTURE / "results.test"), "--release",
                                      str(self.release), "--per-query", "trec_eval", *extra])
                self.assertEqual(code, 2)
                self.assertEqual(out, "")
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn("trec_eval", err)

    def test_plain_success_on_graded_qrels_is_refused_with_the_reason(self):
        code, _, err = cli(["score", str(FIXTURE / "results.test"), "--release",
                            str(self.release), "--measures", "success.10"])
        self.assertEqual(code, 2)
        self.assertIn("gold:success.k is Gold Hit@k", err)


class TrecRunFields(unittest.TestCase):
    """trec_eval reads ``qid iter docno rank sim run_id`` and skips the rest of the line; a line
    with fewer fields is "Malformed", and a document twice in one topic is refused. So does nclue."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls.tmp.name)
        cls.release = cls.root / "release"
        cls.release.mkdir()
        write_release(cls.release)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_text(self, name, text):
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return cli(["score", str(path), "--release", str(self.release), "--json"])

    def test_text_after_the_tag_is_ignored(self):
        plain = self.run_text("plain.trec", "301 Q0 FBIS3-27619 1 2.5 STANDARD\n"
                                            "301 Q0 FBIS3-2934 2 2.0 STANDARD\n")
        extra = self.run_text("extra.trec", "301 Q0 FBIS3-27619 1 2.5 STANDARD more junk at\n"
                                            "301 Q0 FBIS3-2934 2 2.0 STANDARD end of lines.\n")
        self.assertEqual(plain[0], 0)
        self.assertEqual(extra[0], 0)
        drop = ("run",)
        self.assertEqual({k: v for k, v in json.loads(plain[1]).items() if k not in drop},
                         {k: v for k, v in json.loads(extra[1]).items() if k not in drop})

    def test_what_trec_eval_refuses_is_refused(self):
        cases = {
            "five fields": ("301 Q0 FBIS3-27619 1 2.5\n", "expected 6 columns"),
            "a document twice": ("301 Q0 FBIS3-27619 1 2.5 STANDARD\n"
                                 "301 Q0 FBIS3-27619 2 2.0 STANDARD x\n", "twice"),
        }
        for label, (text, message) in cases.items():
            with self.subTest(label):
                code, out, err = self.run_text("bad.trec", text)
                self.assertEqual(code, 2)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(message, err)
                self.assertIn("bad.trec", err)


if __name__ == "__main__":
    unittest.main()
