"""Numbers quoted in README/DATASHEET prose blocks must be printed in the generated file they name."""

import tempfile
import unittest
from pathlib import Path

from nclue.prose_numbers import check_file, numbers_in

ROOT = Path(__file__).resolve().parent.parent


def tree(files):
    folder = Path(tempfile.mkdtemp())
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


class NumbersIn(unittest.TestCase):
    def test_tokens(self):
        text = "finds 79.1% of queries; 1,164 docs, delta −36.0 [+1.8, +5.5]; v1 S2b k1 = 0.9"
        self.assertEqual(numbers_in(text), ["79.1", "1164", "36", "1.8", "5.5", "0.9"])

    def test_trailing_zeros_are_the_same_number(self):
        self.assertEqual(numbers_in("17.0 17 1.80 20.05 100 0.0"), ["17", "17", "1.8", "20.05", "100", "0"])
        self.assertNotEqual(numbers_in("17.4"), numbers_in("17"))

    def test_version_like_words_are_not_numbers(self):
        self.assertEqual(numbers_in("nclue_v2 e5 bm25 x2"), [])


class CheckFile(unittest.TestCase):
    REPORT = "| BM25-AND | 32.4 | -36.0 |\n1,000 queries\n"

    def test_all_numbers_present(self):
        root = tree({"REPORT.md": self.REPORT,
                     "README.md": "x\n<!-- numbers-from: REPORT.md -->\n32.4% of 1000; falls by 36.0\n"
                                  "<!-- /numbers-from -->\nunchecked 99\n"})
        self.assertEqual(check_file(root, "README.md"), (3, []))

    def test_missing_number_names_file_line_and_value(self):
        root = tree({"REPORT.md": self.REPORT,
                     "README.md": "a\nb\n<!-- numbers-from: REPORT.md -->\n32.5 points\n<!-- /numbers-from -->\n"})
        checked, problems = check_file(root, "README.md")
        self.assertEqual(checked, 1)
        self.assertEqual(problems, ["README.md:3: 32.5 is not printed in REPORT.md"])

    def test_bad_fences_are_problems(self):
        root = tree({"REPORT.md": self.REPORT,
                     "A.md": "<!-- numbers-from: REPORT.md -->\n32.4\n",
                     "B.md": "<!-- numbers-from: NOPE.md -->\n32.4\n<!-- /numbers-from -->",
                     "C.md": "<!-- numbers-from: REPORT.md -->\nno digits\n<!-- /numbers-from -->"})
        self.assertIn("not closed", check_file(root, "A.md")[1][0])
        self.assertIn("does not exist", check_file(root, "B.md")[1][0])
        self.assertIn("quotes no number", check_file(root, "C.md")[1][0])

    def test_rounded_sources_match_by_the_claims_rule(self):
        summary = '{"percent": 98.48, "kappa": 0.9509, "wilson95": [97.22, 99.17], "n": 657}'
        ok = ("<!-- numbers-from: S.json rounded -->\n98.5% [97.2, 99.2], kappa 0.951, 657 "
              "<!-- /numbers-from -->")
        root = tree({"S.json": summary, "A.md": ok,
                     # 98.4 is not 98.48 rounded to one decimal; 0.95 is (0.9509 -> 0.95)
                     "B.md": "<!-- numbers-from: S.json rounded -->\n98.4 0.95\n<!-- /numbers-from -->",
                     # without "rounded" only printed values match
                     "C.md": "<!-- numbers-from: S.json -->\n98.5\n<!-- /numbers-from -->"})
        self.assertEqual(check_file(root, "A.md"), (5, []))  # 98.5, 97.2, 99.2, 0.951, 657
        self.assertEqual(check_file(root, "B.md")[1],
                         ["B.md:1: 98.4 is not printed or rounded from a number in S.json"])
        self.assertEqual(check_file(root, "C.md")[1], ["C.md:1: 98.5 is not printed in S.json"])

    def test_repository_readme_blocks_hold(self):
        checked, problems = check_file(ROOT, "README.md")
        self.assertEqual(problems, [])
        self.assertGreater(checked, 10)


if __name__ == "__main__":
    unittest.main()
