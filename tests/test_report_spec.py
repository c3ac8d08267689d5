"""Typed report.json specs: every mistake is refused with one line naming the file, the table and
the key, and reproduce.py exits 2 on it (issue 12)."""

import json
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.errors import InputError
from nclue.report.spec import parse_report_spec
from tests.slow import slow
from tests.small_repo import reproduce_in_process

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"

SCORECARD = {"id": "scorecard", "kind": "scorecard", "runs": ["example_lexical"]}

BAD = [  # (report.json, the words the one-line error must contain)
    ({"tables": [{"id": "forms", "kind": "forms", "sytems": []}]},
     ["table 'forms'", "unknown key 'sytems'"]),
    ({"tables": [{"id": "s", "kind": "scorecard", "titel": "x", "runs": "all"}]},
     ["table 's'", "unknown key 'titel'"]),
    ({"tables": [{"id": "s", "kind": "scorecard", "runs": ["example_lexical", "no_such_run"]}]},
     ["table 's'", "key 'runs'", "unknown run id 'no_such_run'"]),
    ({"tables": [{"id": "f", "kind": "findings", "findings": [
        {"id": "x", "statement": "s", "base": "example_lexical", "variant": "example_dense",
         "measure": "ndgc"}]}]},
     ["table 'f'", "key 'measure'", "unknown measure 'ndgc'"]),
    ({"tables": [{"id": "s", "kind": "scorecard", "runs": []}]},
     ["table 's'", "key 'runs'", "must be a non-empty list"]),
    ({"tables": 5}, ["key 'tables'", "must be a list of table objects"]),
    ({"tables": [SCORECARD], "tittle": "x"}, ["unknown key 'tittle'"]),
    ({"tables": [{"id": "s", "kind": "scorecards", "runs": "all"}]}, ["table 's'", "needs a 'kind'"]),
    ({"tables": [SCORECARD, SCORECARD]}, ["duplicate id 'scorecard'"]),
]


class Refusals(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = ReleaseContext(EXAMPLE)

    def parse(self, data):
        return parse_report_spec(data, self.ctx.layout, tuple(self.ctx.index.ids()),
                                 tuple(self.ctx.fair_runs()))

    def test_each_mistake_is_one_line(self):
        for data, words in BAD:
            with self.assertRaises(InputError, msg=json.dumps(data)) as caught:
                self.parse(data)
            message = str(caught.exception)
            self.assertNotIn("\n", message)
            self.assertTrue(message.startswith(str(EXAMPLE / "report.json")), message)
            for word in words:
                self.assertIn(word, message)

    def test_defaults_are_checked_like_written_values(self):
        spec = self.parse({"k": 5, "tables": [{"id": "c", "kind": "contrasts", "blocks": [
            {"id": "b", "shown": "e", "endpoints": [
                {"id": "e", "base": "example_lexical", "variant": "example_dense"}]}]}]})
        table = spec.tables[0]
        self.assertEqual(table.measure.name, "nclue_score@5")   # default measure at report k
        self.assertEqual((table.seed, table.replicates, table.draws), (11, 1000, 10000))

    def test_a_table_with_no_number_is_refused(self):
        from nclue.tables.kinds import table_from_dict
        # page evidence of a run without page scores: refused by the kind itself; a forms table
        # whose systems list no run at all reports no number: refused as a zero-claim table.
        with self.assertRaisesRegex(InputError, "reports no number"):
            table_from_dict({"id": "f", "kind": "forms", "systems": [{"id": "x"}]}, self.ctx)


@slow
class ReproduceExitsTwo(unittest.TestCase):
    def test_bad_spec_exit_2_one_line_per_problem(self):
        # one run over five releases, each the example with one bad report.json: one FAIL line
        # for each release, naming its problem, and exit status 2 after the summary line
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "repo"
            copy.mkdir()
            shutil.copytree(ROOT / "nclue", copy / "nclue")
            shutil.copy(ROOT / "reproduce.py", copy / "reproduce.py")
            names = []
            for i, (data, _) in enumerate(BAD[:5]):
                names.append(f"bad{i}")
                shutil.copytree(EXAMPLE, copy / "data" / names[-1])
                (copy / "data" / names[-1] / "report.json").write_text(json.dumps(data))
            proc = reproduce_in_process(copy, *names)
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            self.assertNotIn("Traceback", proc.stdout + proc.stderr)
            for name, (data, words) in zip(names, BAD):
                with self.subTest(spec=data):
                    fail = [line for line in proc.stdout.splitlines()
                            if line.startswith(f"FAIL release: {name}: ")]
                    self.assertEqual(len(fail), 1, proc.stdout)
                    self.assertIn(str(copy / "data" / name / "report.json"), fail[0])
                    for word in words:
                        self.assertIn(word, fail[0])
            fails = [line for line in proc.stdout.splitlines() if line.startswith("FAIL release")]
            self.assertEqual(len(fails), len(names), proc.stdout)
            self.assertRegex(proc.stdout.splitlines()[-1], r"^\d+ checks verified, \d+ failed")

class GeneratedDocs(unittest.TestCase):
    def test_report_spec_reference_is_current(self):
        from nclue.report.spec import spec_reference
        self.assertEqual((ROOT / "docs" / "REPORT_SPEC.md").read_text(encoding="utf-8"),
                         spec_reference(), "run python tools/make_docs.py")

    def test_readme_definitions_table_is_the_registry(self):
        from nclue.measures import definitions_markdown
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        opening, closing = "<!-- generated: measures -->\n", "<!-- /generated -->\n"
        block = text[text.index(opening) + len(opening):text.index(closing)]
        self.assertEqual(block, definitions_markdown(), "run python tools/make_docs.py")


if __name__ == "__main__":
    unittest.main()
