"""Verdict words follow a written rule, and so do the words around them (issue 22, item 4).

- The summary line of every findings section is recounted from the rendered bullets.
- A pattern across releases ("reverses", "flips") is judged on both sides.
- "No effect" wording needs an equivalence verdict; otherwise the words are "not shown".
- Explanations are checked statements: written for declared verdicts, numbers bound to cells,
  comparatives resting on checked cells, untested mechanisms labelled; withheld (and a problem
  recorded, which fails verification) when the numbers no longer support them.
- Facts about the release (what a figure includes or leaves out, what the tie table gives) are
  generated from the release.
Expected values are stated from the rule and from the files, never from the code under test.
"""

import json
import re
import shutil
import tempfile
import unittest
from collections import Counter
from pathlib import Path

from nclue.errors import InputError
from nclue.report.assemble import build_release_report, open_release
from nclue.report.markdown import render_markdown
from nclue.table import Column, Table
from nclue.tables import statements
from nclue.tables.findings import findings_bullets, pattern_verdict, summary_line, verdict_text

ROOT = Path(__file__).resolve().parent.parent
REPORTS = [ROOT / "reference_metrics" / name / "REPORT.md" for name in ("example", "v1", "v2")]
SUMMARY = re.compile(r"^\d+ [a-z][^;]*(; \d+ [a-z][^;]*)*\.$")
BULLET = re.compile(r"^- \*\*(.+?)\*\*: ")


def findings_sections(markdown):
    """(heading, counts the summary line states, counts of the bullets' verdict words) of every
    section whose first paragraph is a summary line."""
    lines = markdown.splitlines()
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("## "):
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not SUMMARY.match(lines[j]):
            continue
        stated = {}
        for part in lines[j][:-1].split("; "):
            number, words = part.split(" ", 1)
            stated[words] = int(number)
        bullets = Counter()
        for text in lines[j + 1:]:
            if text.startswith("#") or text.startswith("!["):
                break
            match = BULLET.match(text)
            if match:
                bullets[match.group(1)] += 1
        out.append((line[3:], stated, bullets))
    return out


class SummaryLines(unittest.TestCase):

    def check(self, markdown, where):
        sections = findings_sections(markdown)
        self.assertTrue(sections, where)
        for heading, stated, bullets in sections:
            self.assertEqual({w: n for w, n in stated.items() if n}, dict(bullets),
                             f"{where}: {heading}")

    def test_every_shipped_report_states_the_counts_of_its_bullets(self):
        for path in REPORTS:
            self.check(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())

    def test_a_fresh_example_report_too(self):
        ctx, spec = open_release(ROOT / "data" / "example")
        self.check(render_markdown(build_release_report(ctx, spec).report), "example (fresh)")

    def test_regression_rows_with_a_margin_are_equivalence_verdicts(self):
        # the v1 bug: a regression row stores its margin as beta_margin, and was counted as
        # "same direction, not significant" although its bullet read "inconclusive"
        columns = tuple(Column(k, k, 2) for k in ("beta", "beta_lo", "beta_hi", "beta_margin",
                                                   "beta_lo90", "beta_hi90", "verdict"))
        table = Table("obs", "t", columns, (
            ("reg", "More conditions are not harder", {
                "beta": 0.24, "beta_lo": 0.03, "beta_hi": 0.41, "beta_margin": 0.25,
                "beta_lo90": 0.08, "beta_hi90": 0.40, "verdict": 0.0}),
            ("dir", "Rarer conditions are harder", {
                "beta": -0.05, "beta_lo": -0.54, "beta_hi": 0.40, "verdict": 0.0})))
        bullets = findings_bullets(table)
        self.assertEqual([w for w, _ in bullets], ["inconclusive (equivalence not shown)",
                                                   "same direction, not significant"])
        self.assertTrue(bullets[0][1].startswith(": More conditions are not harder: beta +0.24"))
        self.assertEqual(summary_line(bullets),
                         "0 replicates; 1 same direction, not significant; 0 opposite direction, "
                         "not significant; 0 contradicted; 0 not testable; 1 inconclusive "
                         "(equivalence not shown).")
        self.assertEqual(verdict_text({"verdict": 1.0, "beta_margin": 0.25}), "equivalent")


class Patterns(unittest.TestCase):

    def test_the_pattern_holds_no_better_than_its_weaker_side(self):
        self.assertEqual(pattern_verdict((1, 1)), 1)    # both sides significant, paper's signs
        self.assertEqual(pattern_verdict((1, 0)), 0)    # one side not significant
        self.assertEqual(pattern_verdict((1, -1)), -1)  # v2 replicates, v1 opposite n.s.: no reversal
        self.assertEqual(pattern_verdict((0, -1)), -1)
        self.assertEqual(pattern_verdict((1, -2)), -2)  # one side significantly opposite

    def test_a_flip_on_two_identical_releases_is_not_a_flip(self):
        """Two copies of the example release: the same contrast on both sides, so a "flip"
        (paper + here, - there) cannot hold: this side keeps its verdict (0: +16.7, interval
        spanning zero, tests/test_findings.py) and the other side, with the same delta and
        interval but the paper's sign reversed, is opposite and not significant (-1)."""
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("a", "b"):
                shutil.copytree(ROOT / "data" / "example", Path(tmp) / name)
            spec_path = Path(tmp) / "b" / "report.json"
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
            findings = next(t for t in spec["tables"] if t["kind"] == "findings")
            row = next(f for f in findings["findings"] if f["id"] == "pages_vs_lexical")
            row.update(other="a", other_direction="-")
            spec_path.write_text(json.dumps(spec), encoding="utf-8")
            ctx, parsed = open_release(Path(tmp) / "b")
            report = build_release_report(ctx, parsed)
        table = next(t for t in report.tables if t.table_id == findings["id"])
        cells = {key: c for key, _, c in table.rows}["pages_vs_lexical"]
        self.assertEqual(cells["other_delta"], cells["delta"])
        self.assertEqual((cells["other_lo"], cells["other_hi"]), (cells["ci_lo"], cells["ci_hi"]))
        self.assertEqual((cells["here_verdict"], cells["other_verdict"], cells["verdict"]),
                         (0.0, -1.0, -1.0))
        text = render_markdown(report.report)
        line = next(l for l in text.splitlines() if "Page-aware scoring" in l)
        self.assertTrue(line.startswith("- **opposite direction, not significant**: "), line)
        self.assertIn("a delta +16.7 points", line)
        self.assertIn("(opposite direction, not significant); b delta +16.7 points", line)

    def test_v2_reversal_findings_are_judged_on_both_releases(self):
        spec = json.loads((ROOT / "data" / "v2" / "report.json").read_text(encoding="utf-8"))
        rows = {f["id"]: f for t in spec["tables"] if t.get("id") == "findings"
                for f in t["findings"]}
        for fid in ("lexical_decomposition_reverses", "page_aggregation_flips"):
            self.assertEqual((rows[fid]["other"], rows[fid]["other_direction"]), ("v1", "+"), fid)
            self.assertNotIn("explanation", rows[fid])
        # the shipped v2 report: v1's distinct-page delta is negative and not significant, so
        # the "reversal" is not shown; its bullet prints both sides
        text = (ROOT / "reference_metrics" / "v2" / "REPORT.md").read_text(encoding="utf-8")
        line = next(l for l in text.splitlines() if l.startswith("- ") and "reverses under" in l)
        self.assertTrue(line.startswith("- **opposite direction, not significant**"), line)
        self.assertRegex(line, r"v1 delta -\d+\.\d points \\?\[-\d+\.\d, \+\d+\.\d\\?\] "
                               r"\(opposite direction, not significant\); v2 delta")


def statement(text, checks=None, role="observed"):
    return statements.Statement(text=text, checks=checks, role=role)


CELLS = {("t", "a", "x"): 12.345, ("t", "b", "x"): 3.0, ("t", "a", "verdict"): -2.0,
         ("t", "a", "n"): 1658880.0, ("f", "eq", "verdict"): 1.0, ("f", "eq", "margin"): 2.0}
DECIMALS = {("t", "a", "x"): 1, ("t", "b", "x"): 1, ("t", "a", "n"): 0, ("t", "a", "verdict"): 0}


class Statements(unittest.TestCase):

    def test_numbers_must_be_bound(self):
        self.assertEqual(statements.literal_numbers("trains 1,798 queries at m = 3"), ["1,798", "3"])
        self.assertEqual(statements.literal_numbers(
            "Table 7, sec. 4.2, Figure 2(a), eq. 5, BM25-AND, all-MiniLM-L6-v2, hc@10, top-3, n-1, "
            "r=16, 3-condition, {t/a/x}, {=95}%"), [])
        found = statements.problems(statement("MiniLM reaches 28.2 points"))
        self.assertTrue(any("'28.2' is bound to no cell" in p for p in found), found)

    def test_comparatives_rest_on_checks_or_are_a_possible_reason(self):
        self.assertTrue(any("names no cells it rests on" in p for p in
                            statements.problems(statement("MiniLM finds fewer golds"))))
        self.assertEqual(statements.problems(statement(
            "MiniLM finds fewer golds ({t/b/x} against {t/a/x})", (("t/b/x", "<", "t/a/x"),))), [])
        self.assertEqual(statements.problems(statement("capacity may fit better", role="possible reason")), [])

    def test_no_effect_words_need_an_equivalence_verdict(self):
        for words in ("is not better than", "is not largest", "has no effect", "leaves it unchanged",
                      "raises it about as much as"):
            found = statements.problems(statement(f"injection {words} the baseline"))
            self.assertTrue(any("claims no effect" in p for p in found), (words, found))
        self.assertEqual(statements.problems(statement(
            "the change is not shown ({+t/a/x})")), [])
        self.assertEqual(statements.problems(statement(
            "length matching leaves AUC unchanged", (("f/eq/verdict", "=", 1),))), [])

    def test_release_facts_are_not_written(self):
        for words in ("is not in this release yet", "controls excluded", "not yet computed"):
            found = statements.paragraph_problems(f"the expectation {words}")
            self.assertTrue(any("fact about the release" in p for p in found), (words, found))

    def test_render_binds_numbers_and_withholds_what_no_longer_holds(self):
        ok = statements.render(
            [statement("fusion weights {t/a/n} against {t/b/x}, {+t/a/x} points",
                       (("t/a/x", ">", "t/b/x"),)),
             statement("the paper's lists may be stronger", role="possible reason")],
            (-2, -1), -2, CELLS, DECIMALS)
        self.assertEqual(ok.problems, ())
        self.assertEqual(ok.text, "Fusion weights 1,658,880 against 3.0, +12.3 points; a possible "
                                  "reason, not tested here: the paper's lists may be stronger")
        other_verdict = statements.render([statement("x")], (-2,), 1, CELLS, DECIMALS)
        self.assertIsNone(other_verdict.text)
        self.assertIn("written for -2, but the verdict is now 1", other_verdict.problems[0])
        failed = statements.render([statement("a is below b", (("t/a/x", "<", "t/b/x"),))],
                                   (-2,), -2, CELLS, DECIMALS)
        self.assertIsNone(failed.text)
        self.assertIn("fails", failed.problems[0])


class Explanations(unittest.TestCase):

    def copy_with(self, tmp, change):
        folder = Path(tmp) / "example"
        shutil.copytree(ROOT / "data" / "example", folder)
        spec = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        change(spec)
        (folder / "report.json").write_text(json.dumps(spec), encoding="utf-8")
        return folder

    def finding(self, spec, fid="pages_vs_lexical"):
        table = next(t for t in spec["tables"] if t["kind"] == "findings")
        return next(f for f in table["findings"] if f["id"] == fid)

    def test_an_explanation_for_another_verdict_is_withheld_and_fails_verification(self):
        from nclue.layout import ReleaseLayout, RepositoryLayout
        from nclue.verification import Summary, reproduce_release

        def change(spec):  # pages_vs_lexical is "same direction, not significant" (code 0)
            self.finding(spec).update(written_for=[1], explanation=[
                {"text": "page scores add the missing conditions"}])
        with tempfile.TemporaryDirectory() as tmp:
            folder = self.copy_with(tmp, change)
            ctx, spec = open_release(folder)
            report = build_release_report(ctx, spec)
            self.assertEqual(len(report.problems), 1)
            self.assertIn("findings/pages_vs_lexical: explanation withheld: written for "
                          "replicates, but the verdict is now same direction, not significant",
                          report.problems[0])
            self.assertNotIn("page scores add", render_markdown(report.report))
            summary = Summary()
            reproduce_release(RepositoryLayout(Path(tmp)), ReleaseLayout(folder), "verify",
                              summary, log=lambda _: None)
            words = [c for c in summary.checks if c.subject == "example/report words"]
            self.assertEqual([c.ok for c in words], [False])

    def test_an_explanation_for_its_verdict_is_printed_with_bound_numbers(self):
        def change(spec):
            self.finding(spec).update(written_for=[0], explanation=[
                {"text": "the pages run scores {scorecard/example_pages/nclue_score@10} against "
                         "{scorecard/example_lexical/nclue_score@10}",
                 "checks": [["scorecard/example_pages/nclue_score@10", ">",
                             "scorecard/example_lexical/nclue_score@10"]]}])
        with tempfile.TemporaryDirectory() as tmp:
            ctx, spec = open_release(self.copy_with(tmp, change))
            report = build_release_report(ctx, spec)
        self.assertEqual(report.problems, ())
        # n-Clue Score@10 by hand (tests/test_example_release.py): pages 4/6, lexical 3/6
        # Markdown escapes the brackets of the printed text
        self.assertIn(r"delta +16.7 points \[-40.0, +80.0\]. The pages run scores 66.7 against 50.0",
                      render_markdown(report.report))

    def test_a_literal_number_or_an_unchecked_comparative_is_refused(self):
        for text in ("the pages run scores 66.7", "the pages run finds more golds"):
            def change(spec, text=text):
                self.finding(spec).update(written_for=[0], explanation=[{"text": text}])
            with tempfile.TemporaryDirectory() as tmp:
                ctx, spec = open_release(self.copy_with(tmp, change))
                with self.assertRaises(InputError) as caught:
                    build_release_report(ctx, spec)
            self.assertIn("finding 1, explanation: statement 1:", str(caught.exception))

    def test_written_for_is_required(self):
        def change(spec):
            self.finding(spec).update(explanation=[{"text": "pages help"}])
        with tempfile.TemporaryDirectory() as tmp:
            ctx, spec = open_release(self.copy_with(tmp, change))
            with self.assertRaises(InputError) as caught:
                build_release_report(ctx, spec)
        self.assertIn("needs 'written_for'", str(caught.exception))

    def test_shipped_explanations_follow_the_rule(self):
        for name in ("v1", "v2"):
            spec = json.loads((ROOT / "data" / name / "report.json").read_text(encoding="utf-8"))
            for table in spec["tables"]:
                inner = table.get("table", table)
                for item in inner.get("findings") or ():
                    if "explanation" not in item:
                        continue
                    parsed = [statements.Statement(
                        text=s["text"], role=s.get("role", "observed"),
                        checks=tuple(tuple(c) for c in s["checks"]) if s.get("checks") else None)
                        for s in item["explanation"]]
                    self.assertEqual(statements.explanation_problems(
                        parsed, item.get("written_for"), (1, 0, -1, -2, -3)), [],
                        f"{name}: {item['id']}")


class ReleaseFacts(unittest.TestCase):

    def test_intro_and_captions_state_no_written_release_fact(self):
        for name in ("v1", "v2", "example"):
            spec = json.loads((ROOT / "data" / name / "report.json").read_text(encoding="utf-8"))
            for paragraph in spec.get("intro", []):
                self.assertFalse(statements.RELEASE_FACT_PHRASES.search(paragraph["text"]), paragraph)
            for figure in spec.get("figures", []):
                self.assertFalse(statements.RELEASE_FACT_PHRASES.search(figure.get("caption", "")),
                                 figure)

    def test_figure_2a_caption_counts_the_controls_it_shows(self):
        """The caption counts, from runs/index.json, the runs Figure 2(a) plots (neither the
        control family nor privileged, every test query) and those of them whose recorded
        operation is a control (SPIN's random-vector runs)."""
        for name in ("v1", "v2"):
            runs = json.loads((ROOT / "data" / name / "runs" / "index.json").read_text())["runs"]
            shown = [r for r in runs if r.get("family") != "control" and not r.get("control")
                     and not r.get("privileged") and r.get("query_scope", "all") == "all"]
            controls = [r for r in shown if str(r.get("operation", "")).startswith("control:")]
            text = (ROOT / "reference_metrics" / name / "REPORT.md").read_text(encoding="utf-8")
            caption = next(l for l in text.splitlines() if l.startswith("![Figure 2(a)"))
            self.assertIn(f"for {len(shown)} runs (", caption)
            self.assertIn(f"including {len(controls)} runs whose recorded operation is a control",
                          caption)
            self.assertGreater(len(controls), 0)
            self.assertNotIn("excluded", caption)

    def test_the_tie_sentence_says_what_the_tie_table_gives(self):
        spec = json.loads((ROOT / "data" / "v1" / "report.json").read_text(encoding="utf-8"))
        ties = next(t for t in spec["tables"] if t["kind"] == "tie_sensitivity")
        text = (ROOT / "reference_metrics" / "v1" / "REPORT.md").read_text(encoding="utf-8")
        self.assertFalse("not in this release" in text)
        expected = "exact expectation over uniformly random orders within tied scores"
        if "expected" in ties.get("ties", ["input", "trec_eval", "expected"]):
            self.assertIn(f"Score ties: the tie table ({ties['id']}) gives its "
                          f"{len(ties['contrasts'])} contrasts", text)
            self.assertIn(expected, text)


class ProseWording(unittest.TestCase):
    """README.md, DATASHEET.md and docs/*.md: in the regions that state results
    (``<!-- numbers: bound ... -->``), no "no effect" wording; the words are "not shown"."""

    def test_result_prose_says_not_shown(self):
        files = [ROOT / "README.md", ROOT / "DATASHEET.md"] + sorted((ROOT / "docs").glob("*.md"))
        for path in files:
            text = path.read_text(encoding="utf-8")
            for region in re.findall(r"<!-- numbers: bound[^>]*-->(.*?)<!-- /numbers -->", text, re.S):
                words = re.sub(r"<!--.*?-->", "", region, flags=re.S)
                words = re.sub(r"\s+", " ", words)
                match = statements.NULL_PHRASES.search(words)
                self.assertIsNone(match, f"{path.name}: {match and words[max(0, match.start() - 80):match.end() + 40]}")


if __name__ == "__main__":
    unittest.main()
