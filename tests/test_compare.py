"""``nclue compare`` end to end on the worked example release (data/example/)."""

import contextlib
import io
import json
import unittest
from pathlib import Path

from nclue.cli import main
from nclue.inference import paired_family_bootstrap

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"

# Per-query n-Clue Score@10 derived by hand in tests/test_example_release.py:
# lexical: q1 success (tie kept in input order), q2 subset first, q3 no gold, q4 success,
#          q5 success, q6 absent -> 1, 0, 0, 1, 1, 0
# pages:   q4 subset before gold, q5 no gold, the other four succeed -> 1, 1, 1, 0, 0, 1
LEXICAL = {"q1": 1, "q2": 0, "q3": 0, "q4": 1, "q5": 1, "q6": 0}
PAGES = {"q1": 1, "q2": 1, "q3": 1, "q4": 0, "q5": 0, "q6": 1}
# Exact gold-set families: q5 and q6 share {d11, d12}; the other queries are alone.
FAMILIES = {"q1": "a", "q2": "b", "q3": "c", "q4": "d", "q5": "e", "q6": "e"}


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


class CompareCommandTest(unittest.TestCase):
    def test_json_pages_minus_lexical(self):
        code, out, err = run_cli("compare", "example_lexical", "example_pages",
                                 "--release", str(EXAMPLE), "--json")
        self.assertEqual(code, 0, err)
        result = json.loads(out)
        # Differences 0, +1, +1, -1, -1, +1 -> delta = 100 * 1/6 points.
        self.assertAlmostEqual(result["delta"], 100 / 6)
        self.assertEqual(result["families"], 5)
        # Family sums 0, +1, +1, -1, 0 (q5 -1 and q6 +1 cancel): T = 1; a signed sum of three
        # +-1 terms is odd, so every draw has |T*| >= 1 and p = (1 + B)/(1 + B) = 1.
        self.assertEqual(result["p"], 1.0)
        # The interval is the family bootstrap of the hand-derived vectors, in points.
        ci = paired_family_bootstrap(LEXICAL, PAGES, FAMILIES, seed=11)
        self.assertAlmostEqual(result["ci_lo"], 100 * ci.lo)
        self.assertAlmostEqual(result["ci_hi"], 100 * ci.hi)
        self.assertLessEqual(result["ci_lo"], result["delta"])
        self.assertGreaterEqual(result["ci_hi"], result["delta"])
        for key in ("delta", "ci_lo", "ci_hi", "p", "families"):
            self.assertIn(key, result)

    def test_identical_totals_give_zero(self):
        # Dense vs lexical: family sums -1, +1, +1, -1, 0 -> T = 0 -> p = 1, delta 0.
        code, out, _ = run_cli("compare", str(EXAMPLE / "runs" / "example_lexical.jsonl.gz"),
                               "example_dense", "--release", str(EXAMPLE), "--json")
        self.assertEqual(code, 0)
        result = json.loads(out)
        self.assertEqual((result["delta"], result["p"]), (0.0, 1.0))

    def test_gold_hit_measure(self):
        # Gold Hit: lexical 1,1,0,1,1,0 and pages 1,1,1,1,0,1 -> differences only on q3 (+1),
        # q5 (-1), q6 (+1); family sums 0,0,+1,0,0 (q5/q6 cancel): delta +100/6 points.
        # |T*| = 1 on every draw -> p = 1. A replicate misses family q3 with probability
        # (4/5)^5 = .33 > .025 and then equals 0; no replicate is negative -> ci_lo = 0.
        code, out, _ = run_cli("compare", "example_lexical", "example_pages", "--measure",
                               "gold_hit", "--release", str(EXAMPLE), "--json")
        self.assertEqual(code, 0)
        result = json.loads(out)
        self.assertAlmostEqual(result["delta"], 100 / 6)
        self.assertEqual((result["p"], result["ci_lo"]), (1.0, 0.0))
        self.assertEqual(result["measure"], "gold_hit@10")

    def test_text_output(self):
        code, out, _ = run_cli("compare", "example_lexical", "example_pages",
                               "--release", str(EXAMPLE), "--seed", "11")
        self.assertEqual(code, 0)
        self.assertIn("+16.7 points", out)
        self.assertIn("5 exact-gold-set families", out)

    def test_bad_input_exit_2(self):
        code, out, err = run_cli("compare", "no_such_run", "example_pages",
                                 "--release", str(EXAMPLE))
        self.assertEqual((code, out), (2, ""))
        self.assertIn("no_such_run", err)
        code, out, err = run_cli("compare", "example_lexical", "example_pages",
                                 "--release", str(EXAMPLE), "--replicates", "0")
        self.assertEqual((code, out), (2, ""))
        self.assertIn("replicates", err)


class FileOrder(unittest.TestCase):
    """A run against its reversed and shuffled copies (issue 22): the same rankings, so under
    trec_eval and expected every delta is exactly 0 with p = 1; under input the file order
    decides q1 (d01 gold and d02 subset tie at the top of example_lexical), and every command
    says so on stderr and counts it in its JSON."""

    @classmethod
    def setUpClass(cls):
        import random
        import tempfile
        cls.tmp = tempfile.TemporaryDirectory()
        folder = Path(cls.tmp.name)
        cls.trec = str(folder / "lexical.trec")
        code, _, err = run_cli("export-trec", "--release", str(EXAMPLE), "--run",
                               str(EXAMPLE / "runs" / "example_lexical.jsonl.gz"), "--out", cls.trec)
        assert code == 0, err
        lines = Path(cls.trec).read_text().splitlines(keepends=True)
        cls.reversed = str(folder / "lexical_reversed.trec")
        Path(cls.reversed).write_text("".join(reversed(lines)))
        shuffled = list(lines)
        random.Random(22).shuffle(shuffled)
        cls.shuffled = str(folder / "lexical_shuffled.trec")
        Path(cls.shuffled).write_text("".join(shuffled))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def compare(self, *argv):
        return run_cli("compare", *argv, "--release", str(EXAMPLE), "--draws", "999",
                       "--replicates", "99")

    def test_order_free_rules_give_zero(self):
        for rule in ("trec_eval", "expected"):
            for copy in (self.reversed, self.shuffled):
                for measure in ("nclue_score", "gold_hit", "gold_ndcg", "graded_ndcg"):
                    code, out, err = self.compare(self.trec, copy, "--ties", rule, "--measure",
                                                  measure, "--json")
                    self.assertEqual((code, err), (0, ""), (rule, copy, measure))
                    result = json.loads(out)
                    self.assertEqual((result["delta"], result["p"]), (0.0, 1.0), (rule, measure))
                    self.assertEqual((result["ci_lo"], result["ci_hi"]), (0.0, 0.0))
                    self.assertEqual(result["ties"], rule)
            code, out, err = self.compare(self.trec, self.reversed, self.shuffled, "--ties", rule,
                                          "--format", "json")
            self.assertEqual((code, err), (0, ""))
            table = json.loads(out)
            self.assertEqual(table["ties"], rule)
            self.assertTrue(all(t["delta"] == 0.0 and t["p"] == 1.0 for t in table["tests"]))
            self.assertEqual(table["marks"], {})

    def test_input_warns_and_counts(self):
        code, out, err = self.compare(self.trec, self.reversed, "--json")
        self.assertEqual(code, 0)
        result = json.loads(out)
        self.assertEqual(result["ties"], "input")
        self.assertEqual(result["tie_decided_queries"], {"base": 1, "variant": 1})
        # q1 succeeds in the file order (d01 first) and is subset-first reversed: -1/6
        self.assertAlmostEqual(result["delta"], -100 / 6)
        warnings = err.strip().splitlines()
        self.assertEqual(len(warnings), 2)  # one per run
        for line, path in zip(warnings, (self.trec, self.reversed)):
            self.assertTrue(line.startswith(f"nclue: warning: {path}: under --ties input"), line)
            self.assertIn("1 query (first: q1)", line)
        for fmt in ("markdown", "latex", "json"):
            code, out, err = self.compare(self.trec, self.reversed, self.shuffled, "--format", fmt)
            self.assertEqual(len(err.strip().splitlines()), 3, fmt)
            self.assertIn("input", out)
            self.assertIn("tie_decided_queries" if fmt == "json" else "a tie decides", out)

    def test_text_output_names_the_rule(self):
        for rule in ("input", "trec_eval", "expected"):
            code, out, _ = self.compare(self.trec, self.reversed, "--ties", rule)
            self.assertEqual(code, 0)
            self.assertIn(f"Score ties: {rule} (", out)
        code, out, _ = self.compare(self.trec, self.reversed, "--format", "markdown")
        self.assertIn("Score ties: input (stable file order", out)

    def test_coverage_names_the_rule_and_warns(self):
        args = ("coverage", self.trec, self.reversed, "--release", str(EXAMPLE), "--k", "1", "10",
                "--json")
        for rule in ("trec_eval", "expected"):
            code, out, err = run_cli(*args, "--ties", rule)
            self.assertEqual(code, 0)
            output = json.loads(out)
            self.assertEqual(output["ties"], rule)
            first, second = output["runs"]
            self.assertEqual(first["measures"], second["measures"])
            self.assertNotIn("warning", err)
        # q1's HC@1 under expected: d01 and d02 share the top score; the mean of the two orders'
        # HC@1 is tested in tests/test_ties.py; SC@k has no exact expectation: refused
        code, out, err = run_cli(*args, "--ties", "expected", "--source-field", "source")
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("--ties expected refuses it", err)
        code, out, err = run_cli(*args)
        output = json.loads(out)
        self.assertEqual(output["ties"], "input")
        first, second = output["runs"]
        self.assertNotEqual(first["measures"]["hc@1"], second["measures"]["hc@1"])
        self.assertEqual((first["tie_decided_queries"], second["tie_decided_queries"]), (1, 1))
        self.assertEqual(sum("nclue: warning:" in line for line in err.splitlines()), 2)


if __name__ == "__main__":
    unittest.main()
