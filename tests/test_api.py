"""The Python API (nclue.api), the measure aliases, per-query output and the N-run comparison,
on data/example with values worked out by hand (tests/test_example_release.py derives the
per-query outcomes: n-Clue Score@10 lexical 1,0,0,1,1,0; dense 0,1,1,0,1,0; pages 1,1,1,0,0,1;
Gold Hit@10 lexical 1,1,0,1,1,0; dense 1,1,1,1,1,1; pages 1,1,1,1,0,1 for q1..q6)."""

import io
import json
import unittest
from contextlib import redirect_stdout
from pathlib import Path

import nclue
from nclue.api import Comparison, PairTest
from nclue.cli import main
from nclue.errors import InputError
from nclue.report.document import Code, Link, Strong
from nclue.report.latex import escape, inline_latex

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def cli(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = nclue.load_release(EXAMPLE)
        cls.runs = {name: nclue.load_run(EXAMPLE / "runs" / f"{name}.jsonl.gz", cls.release)
                    for name in ("example_lexical", "example_dense", "example_pages")}

    def test_readme_example(self):
        result = nclue.score(self.release, self.runs["example_lexical"])
        self.assertEqual(result["nclue_score@10"], 50.0)
        self.assertEqual(result.per_query["nclue_score@10"]["q1"], 1)
        self.assertEqual(result.counts, {"auc": 5})           # AUC: q5 has no subset
        data = result.to_dict()
        self.assertEqual(data["run"], "example_lexical")
        self.assertEqual(json.loads(json.dumps(data)), data)  # plain JSON

    def test_in_memory_run(self):
        # q1: d01 (gold) above d02 (subset) -> success; the other five queries are empty.
        run = nclue.run_from_mapping({"q1": {"d02": 1.0, "d01": 2.0}}, self.release, run_id="mine")
        self.assertEqual(run.rankings["q1"].docs, ("d01", "d02"))
        result = nclue.score(self.release, run, ["nclue_score", "gold:Success@10", "nDCG@1"])
        self.assertEqual(list(result.aggregates), ["nclue_score@10", "gold_hit@10", "graded_ndcg@1"])
        self.assertAlmostEqual(result["nclue_score@10"], 100 / 6)
        self.assertAlmostEqual(result["gold_hit@10"], 100 / 6)
        # graded NDCG@1, q1: gain 2 (d01 supports both conditions) over the ideal gain 2 -> 1.
        self.assertAlmostEqual(result["graded_ndcg@1"], 100 / 6)
        ties = nclue.run_from_mapping({"q1": [("d02", 1.0), ("d01", 1.0)]}, self.release)
        self.assertEqual(ties.rankings["q1"].docs, ("d02", "d01"))   # input order keeps d02 first
        for bad, words in (({"q9": {"d01": 1.0}}, "unknown qid 'q9'"),
                           ({"q1": {"d99": 1.0}}, "unknown docid 'd99'"),
                           ({"q1": [("d01", 1.0), ("d01", 0.5)]}, "ranks a document twice"),
                           ({"q1": {"d01": float("nan")}}, "finite number")):
            with self.assertRaisesRegex(InputError, words):
                nclue.run_from_mapping(bad, self.release)

    def test_compare_three_runs(self):
        table = nclue.compare(self.release, list(self.runs.values()))
        self.assertEqual(table.measures, ("nclue_score@10", "gold_hit@10"))
        self.assertAlmostEqual(table.scores[("example_pages", "nclue_score@10")], 100 * 4 / 6)
        tests = {(t.measure, frozenset((t.better, t.worse))): t for t in table.tests}
        self.assertEqual(len(tests), 6)                      # 3 pairs x 2 measures
        # n-Clue, pages vs lexical: family sums 0, +1, +1, -1, 0 (q5, q6 share a family):
        # T = 1 is odd, every |T*| >= 1, so p = 1 exactly; dense vs lexical: T = 0, p = 1.
        for pair in (("example_pages", "example_lexical"), ("example_dense", "example_lexical")):
            self.assertEqual(tests[("nclue_score@10", frozenset(pair))].p, 1.0)
        t = tests[("gold_hit@10", frozenset(("example_dense", "example_lexical")))]
        self.assertEqual((t.better, t.worse), ("example_dense", "example_lexical"))
        self.assertAlmostEqual(t.delta, 100 * 2 / 6)
        # With 5 families no two-sided sign-flip p can be below 2/32 > 0.05: no marks.
        self.assertEqual(table.marks(), {})
        self.assertIn("| (c) example_pages | 66.7 | 83.3 |", table.to_markdown())

    def test_marks_rule(self):
        tests = (PairTest("m", "b", "a", 5.0, 0.001, 0.01), PairTest("m", "c", "a", 1.0, 0.04, 0.08),
                 PairTest("m", "c", "b", 3.0, 0.002, 0.02))
        table = Comparison("r", ("a", "b", "c"), ("m",), {("a", "m"): 1.0, ("b", "m"): 6.0,
                                                          ("c", "m"): 9.0}, tests, 11, 100, 0.05)
        self.assertEqual(table.marks(), {("b", "m"): "a", ("c", "m"): "b"})  # c vs a: Holm p .08

    def test_compare_refuses_conditional_measures(self):
        with self.assertRaisesRegex(InputError, "not defined on every query"):
            nclue.compare(self.release, list(self.runs.values()), measures=["auc"])


class Latex(unittest.TestCase):
    def test_escaping_and_spans(self):
        self.assertEqual(escape("a_b & 50% #1 {x} ~ ^"),
                         r"a\_b \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{}")
        self.assertEqual(inline_latex(("run ", Code("k1=0.9"), " ", Strong("bold"), " *em* ",
                                       Link("x", "y.md"))),
                         r"run \texttt{k1=0.9} \textbf{bold} *em* x")


class Cli(unittest.TestCase):
    RUN = str(EXAMPLE / "runs" / "example_lexical.jsonl.gz")

    def test_per_query_tsv_is_trec_eval_q_shaped(self):
        code, out = cli(["score", self.RUN, "--release", str(EXAMPLE), "--measures",
                         "nclue_score", "--per-query", "tsv"])
        self.assertEqual(code, 0)
        self.assertEqual(out.splitlines(), [
            "nclue_score@10\tq1\t1", "nclue_score@10\tq2\t0", "nclue_score@10\tq3\t0",
            "nclue_score@10\tq4\t1", "nclue_score@10\tq5\t1", "nclue_score@10\tq6\t0",
            "nclue_score@10\tall\t0.5"])

    def test_per_query_jsonl(self):
        code, out = cli(["score", self.RUN, "--release", str(EXAMPLE), "--measures", "auc",
                         "--per-query", "jsonl"])
        rows = [json.loads(line) for line in out.splitlines()]
        # AUC per query (test_example_release): q1 1, q2 .5, q3 0, q4 1, q6 .5; q5 undefined.
        self.assertEqual({r["qid"]: r["value"] for r in rows},
                         {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 1.0, "q6": 0.5})

    def test_compare_n_runs_latex(self):
        code, out = cli(["compare", "example_lexical", "example_dense", "example_pages",
                         "--release", str(EXAMPLE), "--format", "latex"])
        self.assertEqual(code, 0)
        self.assertIn(r"(b) example\_dense & 50.0 & 100.0 \\", out)
        # the fragment says what the preamble needs for its rules
        self.assertEqual(out.splitlines()[1],
                         r"% needs \usepackage{booktabs} (\toprule, \midrule, \bottomrule) in the preamble")


if __name__ == "__main__":
    unittest.main()
