"""Every number quoted in README/DATASHEET/docs prose names the claim it quotes and is checked
against it at its printed precision (nclue.prose_numbers)."""

import json
import shutil
import tempfile
import unittest
from pathlib import Path

import re

from nclue.prose_numbers import (check_all, check_file, check_text, numbers_in, prose_files,
                                  value_cache)
from nclue.verification import Summary, check_prose

ROOT = Path(__file__).resolve().parent.parent


def tree(files):
    folder = Path(tempfile.mkdtemp())
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


# A hand-made release with four claims; printed values follow from value + decimals.
CLAIMS = {"release": "r1", "claims": [
    {"table": "t", "row": "a", "column": "hit", "value": 79.1, "decimals": 1},
    {"table": "t", "row": "a", "column": "delta", "value": -36.0, "decimals": 1},
    {"table": "t", "row": "a", "column": "median", "value": 17.0, "decimals": 1},
    {"table": "t", "row": "a", "column": "mean", "value": 1.8, "decimals": 2},
]}
SUMMARY = {"percent": 98.48, "kappa": 0.9509, "wilson": [97.22, 99.17], "n": 657,
           "verdicts": {"x": "EXACT", "y": "FAIL", "z": "EXACT"},
           "docs": [{"id": "d1", "pkg": "p"}, {"id": "d2", "pkg": "q"}, {"id": "d3", "pkg": "p"}],
           "printed": [{"id": "median", "s": "67"}]}


class NumbersIn(unittest.TestCase):
    def test_tokens(self):
        text = "finds 79.1% of queries; 1,164 docs, delta −36.0 [+1.8, +5.5]; v1 S2b k1 = 0.9"
        self.assertEqual(numbers_in(text), ["79.1", "1164", "36", "1.8", "5.5", "0.9"])

    def test_trailing_zeros_are_the_same_number(self):
        self.assertEqual(numbers_in("17.0 17 1.80 20.05 100 0.0"), ["17", "17", "1.8", "20.05", "100", "0"])
        self.assertNotEqual(numbers_in("17.4"), numbers_in("17"))

    def test_words_and_measure_names_hold_no_number(self):
        self.assertEqual(numbers_in("nclue_v2 e5 bm25 x2 HC@10 nclue_score@10 UTF-8 top-10 Qwen3-8B "
                                    "audit-2027-01 https://arxiv.org/abs/2607.24165 <!-- 42 -->"), [])

    def test_each_kind_of_number(self):
        # a date, a dotted version and scientific notation are one number each; leading-dot
        # decimals and K/M suffixes are numbers; a range is two numbers
        text = "2026-12-02 3.11.2 1e-9 .801 p=.381 5.0K 1.01M 10-300 −2.75 `--seed 11` 0–3"
        self.assertEqual(numbers_in(text), ["2026-12-02", "3.11.2", "1e-9", ".801", ".381", "5.0K",
                                            "1.01M", "10", "300", "2.75", "11", "0", "3"])


class Bindings(unittest.TestCase):
    def setUp(self):
        self.root = tree({"data/r1/claims.json": CLAIMS, "audit/s.json": SUMMARY})

    def tearDown(self):
        shutil.rmtree(self.root)

    def check(self, text, name="DOC.md"):
        return check_text(self.root, name, text)

    def test_claims_at_printed_precision(self):
        ok = ("finds 79.1%<!--=r1/t/a/hit--> ; median 17<!--=r1/t/a/median--> (printed with a decimal) ; "
              "mean 1.80<!--=r1/t/a/mean--> or 1.8<!--=r1/t/a/mean--> ; falls by "
              "36.0<!--=r1/t/a/delta--> or −36.0<!--=r1/t/a/delta-->\n")
        self.assertEqual(self.check(ok), (6, []))

    def test_a_different_number_fails_naming_file_line_and_claim(self):
        checked, problems = self.check("a\nfinds 79.3%<!--=r1/t/a/hit-->\n")
        self.assertEqual(checked, 1)
        self.assertEqual(problems, ["DOC.md:2: 79.3 is not printed by r1/t/a/hit, which prints 79.1"])

    def test_more_decimals_than_the_claim_prints_is_refused(self):
        # 79.10 would claim a precision the release never printed
        problems = self.check("79.10<!--=r1/t/a/hit-->")[1]
        self.assertEqual(len(problems), 1)
        self.assertIn("79.10 is not printed by r1/t/a/hit, which prints 79.1 (1 decimals", problems[0])

    def test_fewer_decimals_only_when_the_same_number(self):
        # 79 is not 79.1 (no re-rounding of a rounded claim); 17 is 17.0
        self.assertEqual(len(self.check("79<!--=r1/t/a/hit-->")[1]), 1)
        self.assertEqual(self.check("17<!--=r1/t/a/median-->")[1], [])

    def test_a_printed_sign_is_compared(self):
        problems = self.check("+36.0<!--=r1/t/a/delta-->")[1]
        self.assertEqual(problems, ["DOC.md:1: +36.0 is not printed by r1/t/a/delta, which prints -36.0"])

    def test_json_values_round_half_up_at_the_quoted_decimals(self):
        ok = ("98.5%<!--=audit/s.json#/percent--> [97.2<!--=audit/s.json#/wilson/0-->, "
              "99.2<!--=audit/s.json#/wilson/1-->] kappa 0.951<!--=audit/s.json#/kappa--> "
              "0.95<!--=audit/s.json#/kappa--> n 657<!--=audit/s.json#/n-->")
        self.assertEqual(self.check(ok), (6, []))
        problems = self.check("98.4<!--=audit/s.json#/percent-->")[1]
        self.assertEqual(problems, ["DOC.md:1: 98.4 is not printed by audit/s.json#/percent, "
                                    "which gives 98.48 (98.5 at 1 decimals)"])

    def test_counts_members_and_transcribed_text(self):
        # by hand: 3 verdicts, 2 of them EXACT, 1 FAIL; 2 docs with pkg p; the paper prints "67"
        ok = ("3<!--=audit/s.json#/verdicts?count--> 2<!--=audit/s.json#/verdicts?count=EXACT--> "
              "1<!--=audit/s.json#/verdicts?count=FAIL--> 2<!--=audit/s.json#/docs?count.pkg=p--> "
              "67<!--=audit/s.json#/printed/id=median/s-->")
        self.assertEqual(self.check(ok), (5, []))
        self.assertEqual(len(self.check("3<!--=audit/s.json#/verdicts?count=EXACT-->")[1]), 1)

    def test_unknown_keys_are_failed_checks(self):
        for key, reason in (("r1/t/a/nope", "no such claim"), ("r9/t/a/hit", "no data/r9/claims.json"),
                            ("audit/s.json#/missing", "nothing at /missing"),
                            ("audit/none.json#/x", "does not exist")):
            checked, problems = self.check(f"5<!--={key}-->")
            self.assertEqual(checked, 1)
            self.assertEqual(len(problems), 1, problems)
            self.assertIn(f"5 is not printed by {key}", problems[0])
            self.assertIn(reason, problems[0])

    def test_regions_relative_keys_and_unbound_numbers(self):
        text = ("<!-- numbers: bound r1 -->\n79.1%<!--=t/a/hit--> and 12 more\n<!-- /numbers -->\n"
                "<!-- numbers: bound audit/s.json -->\n657<!--=#/n-->\n<!-- /numbers -->\n"
                "outside a region 99 is no freer\n")
        checked, problems = self.check(text)
        self.assertEqual(checked, 2)
        self.assertEqual(len(problems), 2)
        self.assertIn("DOC.md:2: 12 in the 'numbers: bound' region of line 1 is bound to no claim",
                      problems[0])
        self.assertIn("DOC.md:7: 99 is bound to nothing", problems[1])

    def test_every_number_needs_a_marker_anywhere(self):
        # a table row, a paragraph, a list item, a heading's text, a code span, a fenced block:
        # each unmarked number is a problem, in every prose file
        text = ("| run | hit |\n|---|---|\n| a | 79.1<!--=r1/t/a/hit--> |\n| b | 42 |\n"
                "Prose with 17 queries.\n- a list item of 3 runs\n## Heading of 12 documents\n"
                "Run `--seed 11` then\n```\nscore: 0.5\n```\n")
        for name in ("README.md", "DATASHEET.md", "docs/x.md"):
            checked, problems = self.check(text, name)
            self.assertEqual(checked, 1)
            self.assertEqual([p.split(":")[1] + " " + p.split(": ")[1].split(" is ")[0] for p in problems],
                             ["4 42", "5 17", "6 3", "7 12", "8 11", "10 0.5"], name)
            self.assertIn("is bound to nothing", problems[0])

    def test_labels_and_ordinals_need_no_marker(self):
        # a number after a reference word, the numbers a range or list joins to it, and the
        # ordinal of a list item or heading are labels, not data
        text = ("See sec. 3.4, Table 5 / Tables 8–9, supplement sec. 3-4 and 8, Figure 2(a) and 2(b),\n"
                "Tables 4\nand 5, eq. 5, app. C.1, step 2, issue 24, RFC 8493, arXiv:2607.24165, line 11.\n"
                "1. first\n2) second\n## 3. Judge\n### 3.1 Sub\n")
        self.assertEqual(self.check(text, "README.md"), (0, []))
        # but not a number that merely follows a label's number
        self.assertEqual(len(self.check("Table 5 has 13 rows", "README.md")[1]), 1)

    def test_measured_and_fixed_numbers_are_excluded_explicitly(self):
        text = ("<!-- numbers: measured (bench) -->\n| reproduce | 42 s |\n<!-- /numbers -->\n"
                "| k | 10<!--=fixed--> | 0.33<!--=measured--> s |\n"
                "<!-- numbers: fixed (definitions) -->\n| def | 1/log2(rank+1) |\n<!-- /numbers -->\n"
                "<!-- numbers: fixed (commands) -->\n```\nnclue --k 10 100\n```\n<!-- /numbers -->\n"
                "inline <!-- numbers: fixed -->`[10, 100]`<!-- /numbers --> and `--jobs 1`<!--=fixed-->\n")
        self.assertEqual(self.check(text, "README.md"), (0, []))

    def test_markers_in_code_are_examples_and_comments_are_not_prose(self):
        # a marker inside a code span is an example (it binds nothing), so the number there
        # still needs an exclusion; a number inside a comment is not prose
        self.assertEqual(len(self.check("`79.1%<!--=r1/t/a/hit-->` <!-- 4 -->", "README.md")[1]), 1)
        self.assertEqual(self.check("<!-- numbers: fixed -->`79.1%<!--=r1/t/a/hit-->`<!-- /numbers -->"
                                    " <!-- 4 -->", "README.md"), (0, []))

    def test_dates_and_versions_are_never_quantities(self):
        problems = self.check("released 2026-12-02<!--=r1/t/a/hit-->", "README.md")[1]
        self.assertEqual(len(problems), 1)
        self.assertIn("a date is not a quantity", problems[0])

    def test_malformed_markers_and_regions(self):
        cases = {
            "<!--=r1/t/a/hit--> first": "follows no number",
            "79.1 then words <!--=r1/t/a/hit-->": "follows no number",
            "<!-- numbers: bound r1 -->\n79.1<!--=t/a/hit-->\n": "is not closed",
            "<!-- /numbers -->": "closes no region",
            "<!-- numbers: vague -->\n<!-- /numbers -->": "unknown region",
            "<!-- numbers-from: REPORT.md -->\n79.1\n<!-- /numbers-from -->": "numbers-from blocks are replaced",
        }
        for text, fragment in cases.items():
            problems = self.check(text)[1]
            self.assertTrue(any(fragment in p for p in problems), (text, problems))


class RepositoryProse(unittest.TestCase):
    """The repository's own README, DATASHEET and docs hold, and tampering with them is caught."""

    @classmethod
    def setUpClass(cls):
        cls.values = value_cache(ROOT)   # the claims and JSON files, read once for the tampers

    def test_repository_prose_holds(self):
        checked, problems = check_all(ROOT)
        self.assertEqual(problems, [])
        self.assertGreater(checked, 150)
        self.assertEqual(prose_files(ROOT)[:2], ["README.md", "DATASHEET.md"])

    def tamper(self, name, old, new):
        text = (ROOT / name).read_text(encoding="utf-8")
        self.assertEqual(text.count(old), 1, old)
        line = text[: text.index(old)].count("\n") + 1
        return line, check_text(ROOT, name, text.replace(old, new), self.values)[1]

    def test_readme_tamper_cases_fail_naming_file_line_and_claim(self):
        key = "v1/scorecard/bm25_and.clean/gold_hit@10"
        for new in ("79.3", "32.4"):  # 32.4 is printed elsewhere in the report: still caught
            line, problems = self.tamper("README.md", "79.1%<!--=scorecard", f"{new}%<!--=scorecard")
            self.assertEqual(problems, [f"README.md:{line}: {new} is not printed by {key}, which prints 79.1"])

    def test_releases_table_tamper_fails(self):
        line, problems = self.tamper("README.md", "1,164<!--=v1/instrument/documents/value-->",
                                     "1,165<!--=v1/instrument/documents/value-->")
        self.assertEqual(problems, [f"README.md:{line}: 1,165 is not printed by "
                                    "v1/instrument/documents/value, which prints 1164"])

    def test_datasheet_tamper_fails(self):
        # the stale "median 19 pages": the v1 instrument table says 20
        line, problems = self.tamper("DATASHEET.md", "median 20<!--=v1/instrument/shortest_gold_median",
                                     "median 19<!--=v1/instrument/shortest_gold_median")
        self.assertEqual(problems, [f"DATASHEET.md:{line}: 19 is not printed by "
                                    "v1/instrument/shortest_gold_median/value, which prints 20.0"])
        line, problems = self.tamper("DATASHEET.md", "647<!--=#/conditions/agree-->/", "648<!--=#/conditions/agree-->/")
        self.assertEqual(len(problems), 1)
        self.assertIn(f"DATASHEET.md:{line}: 648 is not printed by "
                      "audit/quote_audit_v1_summary.json#/conditions/agree, which gives 647", problems[0])

    def test_an_unbound_number_in_a_readme_table_fails(self):
        line, problems = self.tamper("README.md", "| 225<!--=v2/instrument/queries/value--> |", "| 225 |")
        self.assertEqual(len(problems), 1)
        self.assertIn(f"README.md:{line}: 225 is bound to nothing", problems[0])

    def test_check_file_reads_the_file(self):
        self.assertEqual(check_file(ROOT, "README.md")[1], [])


# Written here independently of nclue.prose_numbers: a marker that binds a key (not fixed or
# measured) and the number right before it; the explicitly excluded regions; HTML comments.
BOUND = re.compile(r"(?<![\w.@])([+\-\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)[KM]?)(%?`?)<!--=(?!fixed-->|measured-->)([^>]*)-->")
EXCLUDED = re.compile(r"<!-- numbers: (?:fixed|measured)\b.*?<!-- /numbers -->", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)


def shielded_spans(text):
    """The fixed/measured regions (markers quoted inside a code span are examples, not markers)
    and the comments of ``text``, as (start, end) offsets."""
    plain = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), text)
    return ([(m.start(), m.end()) for m in EXCLUDED.finditer(plain)] +
            [(m.start(), m.end()) for m in COMMENT.finditer(plain)])


def changed_last_digit(number):
    """The number with its last digit changed (9 -> 8, any other d -> d + 1)."""
    last = max(i for i, ch in enumerate(number) if ch.isdigit())
    digit = int(number[last])
    return number[:last] + str(8 if digit == 9 else digit + 1) + number[last + 1:]


class EveryNumberOfTheProse(unittest.TestCase):
    """Issue 22, item 5: every number of README.md, DATASHEET.md and docs/*.md is bound or
    explicitly marked, so changing a bound number, or adding a number outside a fixed/measured
    region, makes the prose stage of reproduce.py fail."""

    @classmethod
    def setUpClass(cls):
        cls.cache = value_cache(ROOT)
        cls.texts = {name: (ROOT / name).read_text(encoding="utf-8") for name in prose_files(ROOT)}

    def test_every_prose_file_is_covered(self):
        self.assertEqual(set(self.texts), {"README.md", "DATASHEET.md"} |
                         {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")})
        for name, text in self.texts.items():
            self.assertEqual(check_text(ROOT, name, text, self.cache)[1], [], name)

    def test_changing_any_bound_number_fails(self):
        # every bound number of every file, changed at once in a copy: one failed check each,
        # on its own line, naming the key it no longer quotes
        total = 0
        for name, text in self.texts.items():
            shielded = shielded_spans(text)
            edits = [m for m in BOUND.finditer(text)
                     if not any(a <= m.start() < b for a, b in shielded)]
            if not edits:
                continue
            pieces, cursor, expected = [], 0, []
            for m in edits:
                pieces += [text[cursor:m.start(1)], changed_last_digit(m.group(1))]
                cursor = m.end(1)
                expected.append(text.count("\n", 0, m.start(1)) + 1)
            mutated = "".join(pieces) + text[cursor:]
            problems = check_text(ROOT, name, mutated, self.cache)[1]
            failed = [int(p.split(":")[1]) for p in problems if " is not printed by " in p]
            self.assertEqual(sorted(failed), sorted(expected), name)
            self.assertEqual(len(problems), len(edits), name)
            total += len(edits)
        self.assertGreater(total, 250)

    def test_a_new_number_outside_a_marked_region_fails(self):
        # one new number at the end of every line that is not inside a fixed/measured region or
        # a comment (paragraphs, tables, lists, headings, code blocks): each one is reported
        total = 0
        for name, text in self.texts.items():
            shielded = shielded_spans(text)
            lines = text.split("\n")
            offset, out, expected = 0, [], []
            for number, line in enumerate(lines, 1):
                end = offset + len(line)
                if line.strip() and not any(a <= end <= b for a, b in shielded):
                    line += " (n 97)"
                    expected.append(number)
                out.append(line)
                offset = end + 1
            problems = check_text(ROOT, name, "\n".join(out), self.cache)[1]
            reported = sorted(int(p.split(":")[1]) for p in problems if ": 97 " in p)
            self.assertEqual(reported, expected, name)
            total += len(expected)
        self.assertGreater(total, 1000)

    def test_the_prose_stage_fails_on_an_unmarked_number(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "README.md").write_text("Six runs: 6.\n", encoding="utf-8")
            summary, lines = Summary(), []
            check_prose(root, summary, lines.append)
            self.assertEqual(summary.failed, 1)
            self.assertIn("README.md:1: 6 is bound to nothing", summary.failures()[0].detail)


if __name__ == "__main__":
    unittest.main()
