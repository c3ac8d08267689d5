"""Tests for nclue.paper_audit: rounding and count rules on hand-worked cases, the transcriptions
re-read from the seed text, frozen verdicts, and the --release mapping on a tiny inline release.

Expected values are worked out by hand in the comments (never printed by the code under test).
"""

import io
import hashlib
import json
import re
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from pathlib import Path

from nclue import paper_audit as pa
from nclue.errors import InputError

REPO = Path(__file__).resolve().parents[1]
SEED_NCLUE = "000_5edb9f697168b38b.txt"
SEED_M3 = "002_1e1dc913949f1555.txt"


def seed_dir() -> Path:
    """The seeds beside the repository (CI: ../shared/seeds), else /work/shared/seeds."""
    for candidate in (REPO.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        if (candidate / SEED_NCLUE).exists():
            return candidate
    raise AssertionError("seed texts not found in ../shared/seeds or /work/shared/seeds: the "
                         "transcription checks cannot run (this is a failure, not a skip)")


def transcription(values=None, relations=(), tables=()):
    """A minimal in-memory transcription document."""
    prose = [{"id": k, "s": v if isinstance(v, str) else v["s"], "context": "test",
              **({"kind": v["kind"]} if isinstance(v, dict) else {})}
             for k, v in (values or {}).items()]
    return {"schema": pa.SCHEMA, "paper": "toy", "seed": "none", "tables": list(tables),
            "prose": prose, "relations": list(relations)}


def run_doc(doc):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "toy.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        tr = pa.load_transcription(path)
        return {r.rid: r for r in pa.audit(tr)}


class PrintedValues(unittest.TestCase):
    def test_decimals_and_half_units(self):
        v = pa.parse_printed("26.8", "x", None, "f")
        self.assertEqual((v.value, v.decimals, v.half, v.kind), (Fraction(268, 10), 1, Fraction(1, 20), "measure"))
        c = pa.parse_printed("1,000", "x", None, "f")  # integer -> exact count
        self.assertEqual((c.value, c.half, c.kind), (1000, 0, "count"))
        k = pa.parse_printed("104.9K", "x", None, "f")  # 104,900 +- 50
        self.assertEqual((k.value, k.half), (104900, 50))
        m = pa.parse_printed("$-4.6^{*}$", "x", None, "f")
        self.assertEqual((m.value, m.markers), (Fraction(-46, 10), "*"))
        self.assertEqual(pa.parse_printed(".801", "x", None, "f").value, Fraction(801, 1000))
        self.assertEqual(pa.parse_printed("\u22123.9", "x", None, "f").value, Fraction(-39, 10))
        self.assertEqual(pa.parse_printed("13.6\u00d7", "x", None, "f").value, Fraction(136, 10))
        # "67" declared a measure: the median 67 stands for [66.5, 67.5]
        self.assertEqual(pa.parse_printed("67", "x", "measure", "f").half, Fraction(1, 2))

    def test_bad_numbers_are_input_errors(self):
        for text in ("1,00", "abc", "", "2.5.1"):
            with self.assertRaises(InputError):
                pa.parse_printed(text, "x", None, "f")
        with self.assertRaises(InputError):
            pa.parse_printed("2.5", "x", "count", "f")  # a count must be whole


class RoundingRule(unittest.TestCase):
    def test_sum_and_difference_verdicts(self):
        doc = transcription(
            {"a": "26.8", "b": "30.4", "c": "42.8", "h": "83.9", "s": "30.6", "g": "53.2", "bad": "53.0"},
            [
                # 26.8 + 30.4 + 42.8 = 100.0 exactly
                {"id": "sum", "kind": "equal", "got": {"add": ["p.a", "p.b", "p.c"]}, "expected": 100},
                # 83.9 - 30.6 = 53.3; |53.3 - 53.2| = 0.1 <= 0.05 + 0.05 + 0.05 = 0.15 -> within
                {"id": "gap", "kind": "equal", "got": {"sub": ["p.h", "p.s"]}, "expected": "p.g"},
                # |53.3 - 53.0| = 0.3 > 0.15 -> fail
                {"id": "gap_bad", "kind": "equal", "got": {"sub": ["p.h", "p.s"]}, "expected": "p.bad"},
            ])
        r = run_doc(doc)
        self.assertEqual(r["sum"].verdict, pa.EXACT)
        self.assertEqual(r["gap"].verdict, pa.WITHIN)
        self.assertEqual(r["gap"].tolerance, "0.15")
        self.assertEqual(r["gap_bad"].verdict, pa.FAIL)

    def test_percentage_and_symmetric_crossref(self):
        doc = transcription(
            {"k": "254", "n": "300", "pct": "84.7", "pct2": "84.6", "fine": "63.44", "coarse": "63.4",
             "frac": "0.99", "pp": "99.1"},
            [
                # 100 * 254 / 300 = 84.666..., rounds to 84.7
                {"id": "pct", "kind": "equal", "got": {"pct": ["p.k", "p.n"]}, "expected": "p.pct"},
                # 84.666... is outside [84.55, 84.65] and the counts are exact -> fail
                {"id": "pct_bad", "kind": "equal", "got": {"pct": ["p.k", "p.n"]}, "expected": "p.pct2"},
                # 63.44 rounds to 63.4: exact in both directions
                {"id": "x1", "kind": "equal", "got": "p.fine", "expected": "p.coarse"},
                {"id": "x2", "kind": "equal", "got": "p.coarse", "expected": "p.fine"},
                # 0.99 (two decimals of a fraction) vs 99.1%: 99.1 rounds to 99 -> exact
                {"id": "unit", "kind": "equal", "got": {"mul": ["p.frac", 100]}, "expected": "p.pp"},
            ])
        r = run_doc(doc)
        self.assertEqual(r["pct"].verdict, pa.EXACT)
        self.assertEqual(r["pct_bad"].verdict, pa.FAIL)
        self.assertEqual((r["x1"].verdict, r["x2"].verdict), (pa.EXACT, pa.EXACT))
        self.assertEqual(r["unit"].verdict, pa.EXACT)

    def test_compare(self):
        doc = transcription({"a": "20.6", "b": "36.3", "c": "5.0", "d": "4.96", "e": "5.1", "f": "4.9"}, [
            {"id": "lt", "kind": "compare", "left": "p.a", "op": "<", "right": "p.b"},
            # 5.0 < 4.96 is false, but 4.95 < 4.965 is possible inside the intervals -> within
            {"id": "maybe", "kind": "compare", "left": "p.c", "op": "<", "right": "p.d"},
            # 5.05 ... 5.15 can never be below 4.85 ... 4.95 -> fail
            {"id": "never", "kind": "compare", "left": "p.e", "op": "<", "right": "p.f"},
        ])
        r = run_doc(doc)
        self.assertEqual([r[i].verdict for i in ("lt", "maybe", "never")], [pa.EXACT, pa.WITHIN, pa.FAIL])


class CountRule(unittest.TestCase):
    def feasible(self, text, n):
        return pa.feasible_counts(pa.parse_printed(text, "x", None, "f"), n)

    def test_grim_by_hand(self):
        # 23.1% of 186: k in [23.05, 23.15] * 1.86 = [42.87, 43.06] -> k = 43 (43/186 = 23.118%)
        self.assertEqual(self.feasible("23.1", 186), [43])
        # thirds of 6: 16.6% of 6 -> [16.55, 16.65] * 0.06 = [0.993, 0.999] -> no whole k
        self.assertEqual(self.feasible("16.6", 6), [])
        self.assertEqual(self.feasible("16.7", 6), [1])
        # 44.4% of 225 -> [44.35, 44.45] * 2.25 = [99.79, 100.01] -> k = 100
        self.assertEqual(self.feasible("44.4", 225), [100])
        # 44.5% of 225 -> [100.01, 100.24] -> none
        self.assertEqual(self.feasible("44.5", 225), [])

    def test_passes_tolerance_but_fails_count(self):
        """50.0 - 16.6 = 33.4 holds at printed precision, but 16.6% cannot be k/6."""
        doc = transcription({"a": "50.0", "b": "16.6", "g": "33.4"}, [
            {"id": "arith", "kind": "equal", "got": {"sub": ["p.a", "p.b"]}, "expected": "p.g"},
            {"id": "grim_b", "kind": "grim", "value": "p.b", "n": 6},
            {"id": "count", "kind": "count", "vars": {"a": {"value": "p.a", "n": 6}, "b": {"value": "p.b", "n": 6}},
             "combine": {"a": 1, "b": -1}, "result": {"value": "p.g", "n": 6}},
        ])
        r = run_doc(doc)
        self.assertEqual(r["arith"].verdict, pa.EXACT)
        self.assertEqual(r["grim_b"].verdict, pa.FAIL)
        self.assertEqual(r["count"].verdict, pa.FAIL)

    def test_gap_from_whole_counts(self):
        doc = transcription({"h": "83.9", "s": "30.6", "g": "53.2", "H": "67.2", "S": "21.1", "G": "46.1"}, [
            # n = 186: 83.9% -> [156.05, 156.24] -> 156; 30.6% -> [56.82, 57.01] -> 57;
            # (156 - 57) / 186 = 99/186 = 53.226% -> rounds to 53.2: the printed gap is exact at count level
            {"id": "g186", "kind": "count", "vars": {"a": {"value": "p.h", "n": 186}, "b": {"value": "p.s", "n": 186}},
             "combine": {"a": 1, "b": -1}, "result": {"value": "p.g", "n": 186}},
            # n = 299: 67.2% -> [200.78, 201.08] -> 201; 21.1% -> [62.94, 63.24] -> 63;
            # 138/299 = 46.154% -> 46.2, so the printed 46.1 (= 67.2 - 21.1) is not a whole-count gap
            {"id": "g299", "kind": "count", "vars": {"a": {"value": "p.H", "n": 299}, "b": {"value": "p.S", "n": 299}},
             "combine": {"a": 1, "b": -1}, "result": {"value": "p.G", "n": 299}},
            {"id": "a299", "kind": "equal", "got": {"sub": ["p.H", "p.S"]}, "expected": "p.G"},
        ])
        r = run_doc(doc)
        self.assertEqual(r["g186"].verdict, pa.EXACT)
        self.assertEqual(r["g299"].verdict, pa.FAIL)
        self.assertEqual(r["a299"].verdict, pa.EXACT)

    def test_slices_add_up(self):
        # 27.6% of 814 -> [224.26, 225.07] -> 225; 23.1% of 186 -> 43; 225 + 43 = 268 = 26.8% of 1000
        doc = transcription({"a": "27.6", "b": "23.1", "t": "26.8", "u": "26.9"}, [
            {"id": "ok", "kind": "count", "vars": {"a": {"value": "p.a", "n": 814}, "b": {"value": "p.b", "n": 186}},
             "combine": {"a": 1, "b": 1}, "result": {"value": "p.t", "n": 1000}},
            {"id": "bad", "kind": "count", "vars": {"a": {"value": "p.a", "n": 814}, "b": {"value": "p.b", "n": 186}},
             "combine": {"a": 1, "b": 1}, "result": {"value": "p.u", "n": 1000}},
        ])
        r = run_doc(doc)
        self.assertEqual((r["ok"].verdict, r["bad"].verdict), (pa.EXACT, pa.FAIL))

    def test_spearman_lattice(self):
        # 13 untied ranks: rho = 1 - 6 S / (13 * 168) = 1 - S / 364, S even -> rho = 1 - j / 182.
        # .5714: j = 78 gives 1 - 78/182 = .571428...; .9986 would need j = 0.25 -> impossible
        # (j = 0 -> 1.0000, j = 1 -> .99451).
        doc = transcription({"r": ".5714", "q": ".9986"}, [
            {"id": "r", "kind": "grim", "value": "p.r", "n": 182, "scale": -1, "offset": 1, "kmax": 364},
            {"id": "q", "kind": "grim", "value": "p.q", "n": 182, "scale": -1, "offset": 1, "kmax": 364},
        ])
        r = run_doc(doc)
        self.assertEqual((r["r"].verdict, r["q"].verdict), (pa.EXACT, pa.FAIL))
        self.assertIn("78/182", r["r"].detail)


class Statistics(unittest.TestCase):
    def test_kappa_linear(self):
        # 2x2: linear weights reduce to Cohen's kappa. Wikipedia "Cohen's kappa" worked example:
        # [[20, 5], [10, 15]]: p_o = 35/50 = .7, p_e = (25*30 + 25*20)/2500 = .5, kappa = .4
        doc = transcription({"k": ".4", "w": ".714"}, [
            {"id": "k2", "kind": "equal", "got": {"kappa_linear": [[20, 5], [10, 15]]}, "expected": "p.k"},
            # 3x3 [[1,1,0],[0,1,0],[0,0,1]], weights 1, .5, 0: p_o = 3.5/4 = .875,
            # rows (2,1,1), cols (1,2,1): p_e = (4 + 3 + 2)/16 = .5625, kappa = .3125/.4375 = 5/7
            {"id": "k3", "kind": "equal", "got": {"kappa_linear": [[1, 1, 0], [0, 1, 0], [0, 0, 1]]},
             "expected": "p.w"},
        ])
        r = run_doc(doc)
        self.assertEqual((r["k2"].verdict, r["k3"].verdict), (pa.EXACT, pa.EXACT))
        self.assertEqual(r["k2"].got, "0.4")

    def test_wilson(self):
        # 254/300, z = 1.96: centre = (.84667 + .0064027)/1.0128053 = .84228,
        # half = 1.96 * sqrt(.0004329 + .0000107)/1.0128053 = .04073 -> [80.15, 88.30] %
        doc = transcription({"lo": "80.2", "hi": "88.3", "k": "254", "n": "300"}, [
            {"id": "lo", "kind": "equal", "got": {"wilson_lo": ["p.k", "p.n"]}, "expected": "p.lo"},
            {"id": "hi", "kind": "equal", "got": {"wilson_hi": ["p.k", "p.n"]}, "expected": "p.hi"},
        ])
        r = run_doc(doc)
        self.assertEqual((r["lo"].verdict, r["hi"].verdict), (pa.EXACT, pa.EXACT))


class Reports(unittest.TestCase):
    def test_summary_line_and_fail_first(self):
        doc = transcription({"a": "1.0", "b": "2.0"}, [
            {"id": "z_ok", "kind": "equal", "got": "p.a", "expected": "p.a"},
            {"id": "a_ok", "kind": "equal", "got": "p.b", "expected": "p.b"},
            {"id": "m_bad", "kind": "equal", "got": "p.a", "expected": "p.b"},
        ])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "toy.json"
            path.write_text(json.dumps(doc), encoding="utf-8")
            tr = pa.load_transcription(path)
            results = pa.audit(tr)
            self.assertEqual(pa.summary_line("toy", results),
                             "paper audit toy: 3 relations: 1 FAIL, 0 REVIEW, 0 WITHIN_ROUNDING, 2 EXACT, "
                             "0 NOT_INFORMATIVE")
            report = pa.report_json(tr, results)
            self.assertEqual([r["id"] for r in report["results"]], ["m_bad", "a_ok", "z_ok"])
            md = pa.report_markdown(tr, results)
            self.assertLess(md.index("| m_bad |"), md.index("| a_ok |"))

    def test_bad_relation_is_input_error(self):
        for rel in ({"id": "x", "kind": "equal", "got": "p.nope", "expected": 1},
                    {"id": "x", "kind": "frobnicate"},
                    {"id": "x", "kind": "equal", "got": {"div": [1, 0]}, "expected": 1}):
            with self.assertRaises(InputError):
                run_doc(transcription({"a": "1"}, [rel]))
        with self.assertRaises(InputError):
            run_doc(transcription({"a": "1"}, [{"id": "d", "kind": "equal", "got": 1, "expected": 1},
                                               {"id": "d", "kind": "equal", "got": 1, "expected": 1}]))

    def test_cli_exit_codes(self):
        from nclue.cli import main
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.json"
            bad.write_text('{"schema": "other"}', encoding="utf-8")
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                self.assertEqual(main(["audit-paper", str(bad)]), 2)
            self.assertIn("bad.json", err.getvalue())
            out = io.StringIO()
            with redirect_stderr(io.StringIO()), redirect_stdout(out):
                code = main(["audit-paper", str(REPO / "claims/papers/multi3ir.json"), "--json",
                             "--out", tmp])
            self.assertEqual(code, 0)
            report = json.loads(out.getvalue())
            self.assertEqual(report["paper"], "multi3ir")
            self.assertTrue((Path(tmp) / "multi3ir.audit.md").exists())


class FrozenVerdicts(unittest.TestCase):
    def test_repository_verdicts_match(self):
        checked, problems = pa.verify_frozen_verdicts(REPO)
        self.assertEqual(problems, [])
        self.assertGreater(checked, 500)

    def test_flipped_verdict_is_reported(self):
        doc = transcription({"a": "1.0"}, [{"id": "r1", "kind": "equal", "got": "p.a", "expected": "p.a"}])
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "claims" / "papers").mkdir(parents=True)
            (root / "audit" / "papers").mkdir(parents=True)
            (root / "claims" / "papers" / "toy.json").write_text(json.dumps(doc), encoding="utf-8")
            frozen = root / "audit" / "papers" / "toy.verdicts.json"
            # the counts by verdict and kind are those of the fresh audit (1 EXACT equal), so
            # only the flipped verdict itself is reported
            counts = {"summary": {"FAIL": 0, "REVIEW": 0, "WITHIN_ROUNDING": 0, "EXACT": 1,
                                  "NOT_INFORMATIVE": 0},
                      "fail_reviews": {}, "review_readings": {}, "failed_values": {}}
            counts["by_kind"] = {"equal": counts["summary"]}
            frozen.write_text(json.dumps({"verdicts": {"r1": "FAIL"}, **counts}), encoding="utf-8")
            checked, problems = pa.verify_frozen_verdicts(root)
            self.assertEqual(checked, 1)
            self.assertEqual(len(problems), 1)
            self.assertIn("r1 frozen FAIL, now EXACT", problems[0])
            frozen.write_text(json.dumps({"verdicts": {"r1": "EXACT", "gone": "EXACT"}, **counts}),
                              encoding="utf-8")
            self.assertEqual(len(pa.verify_frozen_verdicts(root)[1]), 1)
            # a frozen file whose counts disagree with its verdicts is reported
            frozen.write_text(json.dumps({"verdicts": {"r1": "EXACT"}}), encoding="utf-8")
            self.assertEqual(len(pa.verify_frozen_verdicts(root)[1]), 5)


class NewFindingsByHand(unittest.TestCase):
    """The FAILs the new relation kinds find in the two papers, each re-derived by hand here from
    the printed cells (the frozen-verdict test only compares the tool with its own past output)."""

    @classmethod
    def setUpClass(cls):
        cls.results = {}
        for name in ("nclue", "multi3ir"):
            tr = pa.load_transcription(REPO / "claims" / "papers" / f"{name}.json")
            cls.results.update({r.rid: r for r in pa.audit(tr)})

    def verdict(self, rid):
        return self.results[rid].verdict

    def test_multi3ir(self):
        # Table 7, SPIN m=5 quartiles 78.3, 67.4, 58.8, 53.6: even giving the two lowest quartiles
        # 263 queries and the two highest 237, the mean over the rounding intervals is at least
        # (237*78.25 + 237*67.35 + 263*58.75 + 263*53.55) / 1000 = 64.04 > 63.45 (Table 4's 63.4)
        self.assertEqual(self.verdict("M7.quartiles_vs_all.spin5"), pa.FAIL)
        # the Naive quartiles average (69.6 + 50.0 + 44.4 + 29.2) / 4 = 48.3 ~ 48.28: consistent
        self.assertEqual(self.verdict("M7.quartiles_vs_all.naive"), pa.EXACT)
        # Table 8's Computer science row lists 9 sub-classes, the text says 10 for each class
        self.assertEqual(self.verdict("A.subclasses_each.cs"), pa.FAIL)
        self.assertEqual(self.verdict("A.subclasses_each.science"), pa.EXACT)
        # Table 10 has six category rows besides the total; the text has five categories
        self.assertEqual(self.verdict("M10.categories_vs_design"), pa.FAIL)
        # 12.5K retained test documents (>= 12,450) against 9.1K judged (<= 9,150)
        self.assertEqual(self.verdict("M13.exclusive_n_vs_test_docs"), pa.FAIL)
        # 5 x (30 + 960) x 4 = 19,800 > 5.0K (<= 5,050) perspective judgments, if N counts
        # perspective judgments (the table does not say): REVIEW, not FAIL
        self.assertEqual(self.verdict("B4.annotated_perspectives"), pa.REVIEW)
        # 4.98 (Table 1) and 4.97 (Table 10) at the same precision
        self.assertEqual(self.verdict("M1.subq_vs_T10"), pa.FAIL)
        # GME-Qwen2 LLM-Expansion 25.84 is not below naive 21.81
        self.assertEqual(self.verdict("M2.llm_below_naive_hc10"), pa.FAIL)
        # Thinking's precision 0.95 > Instruct's 0.93 (fully only); GPT's recall 0.93 > 0.79
        self.assertEqual(self.verdict("M11.instruct_best_precision"), pa.FAIL)
        self.assertEqual(self.verdict("M11.instruct_best_recall"), pa.FAIL)
        # fully+partially: 0.78*0.35/0.79 = .346 (at most .785*.355/.785 = .355) for Instruct
        # against 0.70*0.71/0.93 = .534 (at least .695*.705/.935 = .524) for GPT-5-mini
        # (if Pass is the accepted share, which the caption does not define: REVIEW)
        self.assertEqual(self.verdict("M11.human_positives.part.inst_gpt"), pa.REVIEW)
        # ... and .85*.33/.76 = .369 (at least .845*.325/.765 = .359) for Thinking
        self.assertEqual(self.verdict("M11.human_positives.part.inst_think"), pa.REVIEW)

    def test_nclue(self):
        # Sec. 4.3 "lowers it for three of five", Table S5a: all five c3 cells are negative
        self.assertEqual(self.verdict("S5a.c3_lowers_three_of_five"), pa.FAIL)
        # Sec. 5: 1.9 points = .019; Table S5b: .020 (same precision after rescaling)
        self.assertEqual(self.verdict("S5b.mask_range_vs_sec5.lo"), pa.FAIL)
        self.assertEqual(self.verdict("S5b.mask_range_vs_sec5.hi"), pa.EXACT)  # 6.5 -> .065
        # 190 two-condition and 110 three-condition pairs (710 - 600): 85.3% of 190 -> 162,
        # 83.6% of 110 -> 92, 162 + 92 = 254 agreements
        self.assertEqual(self.verdict("count.sec102.agree_by_n"), pa.EXACT)
        # GRIM checks of percentages of 1,000 queries at one decimal cannot fail
        self.assertEqual(self.verdict("grim.T3.hybrid.score"), pa.NOT_INFORMATIVE)
        self.assertEqual(self.verdict("grim.T6.hybrid.n3_s"), pa.EXACT)  # N = 186 is informative


# ------------------------------------------------------------------------------------------
# The transcriptions, re-read from the seed text
# ------------------------------------------------------------------------------------------

def norm(text: str) -> str:
    """Seed typography -> plain: LaTeX $...$, unicode minus, \\times, ^{*}, {,} thousands."""
    out = text.replace("$", "").replace("\u2212", "-").replace("^{*}", "*").replace("{,}", ",")
    return out.replace("\\times", "\u00d7")


def numbers(text: str):
    return re.findall(r"[+-]?\d[\d,]*\.?\d*|[+-]?\.\d+", norm(text))


def load(name):
    return json.loads((REPO / "claims" / "papers" / name).read_text(encoding="utf-8"))


def cell(doc, tid, rid, cid):
    table = next(t for t in doc["tables"] if t["id"] == tid)
    row = next(r for r in table["rows"] if r["id"] == rid)
    value = row["cells"][cid]
    return value["s"] if isinstance(value, dict) else value


# Rows whose printed layout differs from the column order (the label holds a number, or the seed
# prints the split cell in another order): checked for presence only.
UNORDERED = {"T6.n", "S1j.n", "S6.gold", "S6.subset2", "S6.subset1", "S13.cp", "S14.changed",
             "M3a.dom_others", "M7.spin1", "M7.spin3", "M7.spin5"}


class SeedReread(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = seed_dir()
        cls.nclue_seed = (folder / SEED_NCLUE).read_text(encoding="utf-8")
        cls.m3_seed = (folder / SEED_M3).read_text(encoding="utf-8")
        cls.nclue = load("nclue.json")
        cls.m3 = load("multi3ir.json")

    def line_starting(self, text, prefix, nth=0):
        lines = [l for l in text.split("\n") if l.startswith(prefix)]
        self.assertGreater(len(lines), nth, prefix)
        return lines[nth]

    def test_handful_of_values_by_label(self):
        # Table 3, markdown row located by its system label
        row = self.line_starting(self.nclue_seed, "| Hybrid | BM25 + visual top-3")
        self.assertEqual(numbers(row.split("|")[4]) + numbers(row.split("|")[5]) + numbers(row.split("|")[6]),
                         [cell(self.nclue, "T3", "hybrid", c) for c in ("score", "hit", "ndcg")])
        # Table 5: "+7.3 [3.9,10.6]" in the Qwen composition row
        row = self.line_starting(self.nclue_seed, "| Dense composition | Qwen 0.6B joint")
        parts = [p.strip() for p in row.split("|")]
        self.assertEqual(numbers(parts[3]), [cell(self.nclue, "T5", "qwen_comp", c) for c in ("base", "variant")])
        self.assertEqual(numbers(parts[4]), [cell(self.nclue, "T5", "qwen_comp", c) for c in ("delta", "ci_lo", "ci_hi")])
        # Table S3 (flattened): the rerank_qwen3vl8b triple in the SourceShift line
        line = [l for l in self.nclue_seed.split("\n") if l.startswith("System Raw Cleaned Natural")][1]
        tokens = norm(line).split()
        at = tokens.index("rerank_qwen3vl8b")
        self.assertEqual(tokens[at + 1: at + 4], [cell(self.nclue, "S3", "qwenvl_rerank", c) for c in ("raw", "clean", "natural")])
        # Table S9 (flattened confusion matrix): the last 16 numbers, row by row
        line = self.line_starting(self.nclue_seed, "Evaluator E grade")
        grid = numbers(line)[-20:]  # 4 x (row label + 4 counts)
        for i in range(4):
            self.assertEqual(grid[5 * i], str(i))
            self.assertEqual(grid[5 * i + 1: 5 * i + 5], [cell(self.nclue, "S9", f"a{i}", f"e{j}") for j in range(4)])
        # Table S1j (flattened copy of Table 6): the ColQwen row
        line = self.line_starting(self.nclue_seed, "System All $n{=}2$")
        seg = line[line.index("ColQwen2.5 top-3") + len("ColQwen2.5 top-3"): line.index("Visual + BM25 RRF")]
        self.assertEqual([x for pair in seg.split() for x in pair.split("/")],
                         [cell(self.nclue, "S1j", "colqwen_top3", c) for c in
                          [f"{s}_{m}" for s in ("all", "n2", "n3", "short", "long", "sparse", "dense") for m in ("s", "h")]])
        # Multi3IR Table 2: the ARE row inside the GME-Qwen2 block
        lines = self.m3_seed.split("\n")
        start = lines.index("GME-Qwen2", lines.index(next(l for l in lines if "Hard Coverage (HC)" in l)))
        are = next(l for l in lines[start:] if l.startswith("ARE\t")).split("\t")
        self.assertEqual(are[4:], [cell(self.m3, "M2", "gme_are", c) for c in
                                   ("hc5", "hc10", "hc20", "hc100", "sc5", "sc10", "sc15", "sc20")])
        # Multi3IR Figure 3(a) and Table 10 rows
        row = self.line_starting(self.m3_seed, "- Culture & Recreation")
        self.assertEqual(numbers(row), [cell(self.m3, "M3a", "cat_culture", "n"), cell(self.m3, "M3a", "cat_culture", "pct")])
        row = self.line_starting(self.m3_seed, "Total\t104,916")
        self.assertEqual(row.split("\t")[1:], [cell(self.m3, "M10", "total", c) for c in ("questions", "perspectives", "avg")])

    def check_document(self, doc, seed):
        problems = []
        for item in doc["prose"]:
            if item["context"] not in seed:
                problems.append(f"prose {item['id']}: context not in seed")
                continue
            shown = item.get("printed_word", item["s"])
            if not re.search(r"(?<![\d.])" + re.escape(norm(shown)) + r"(?![\d])", norm(item["context"])):
                problems.append(f"prose {item['id']}: {shown!r} not in its context")
        for table in doc["tables"]:
            anchor = table["seed_anchor"]
            pos = seed.find(anchor)
            if pos < 0:
                problems.append(f"table {table['id']}: anchor not in seed")
                continue
            if table.get("labels_in_seed") is False:
                continue
            found = []
            for row in table["rows"]:
                at = seed.find(row["label"], pos)
                if at < 0:
                    problems.append(f"table {table['id']} row {row['id']}: label not found")
                    break
                found.append((row, at))
                pos = at + len(row["label"])
            for i, (row, at) in enumerate(found):
                end = seed.find("\n", at)
                end = len(seed) if end < 0 else end
                if i + 1 < len(found):
                    end = min(end, found[i + 1][1])
                segment = norm(seed[at:end])
                # printed words (a direction column) and list entries (sub-classes) of the row
                for name, word in row.get("words", {}).items():
                    if word not in seed[at:end]:
                        problems.append(f"table {table['id']} row {row['id']} word {name}: {word!r} not in row")
                for name, entries in row.get("lists", {}).items():
                    for entry in entries:
                        if entry not in seed[at:end]:
                            problems.append(f"table {table['id']} row {row['id']} list {name}: {entry!r} not in row")
                for cid, value in row["cells"].items():
                    text = norm(value["s"] if isinstance(value, dict) else value)
                    if not re.search(r"(?<!\d)(?<!\d\.)" + re.escape(text) + r"(?!\d)(?!\.\d)", segment):
                        problems.append(f"table {table['id']} row {row['id']} {cid}: {text!r} not in {segment[:60]!r}")
                if f"{table['id']}.{row['id']}" in UNORDERED:
                    continue
                # the cells also appear after the label in column order (catches swapped columns)
                after = norm(seed[at + len(row["label"]):end])
                cursor = 0
                for col in table["columns"]:
                    value = row["cells"].get(col["id"])
                    if value is None:
                        continue
                    text = norm(value["s"] if isinstance(value, dict) else value)
                    match = re.compile(r"(?<!\d)(?<!\d\.)" + re.escape(text) + r"(?!\d)(?!\.\d)").search(after, cursor)
                    if not match:
                        problems.append(f"table {table['id']} row {row['id']}: {col['id']}={text!r} out of order")
                        break
                    cursor = match.end()
        return problems

    def test_every_transcribed_value_is_in_the_seed(self):
        self.assertEqual(self.check_document(self.nclue, self.nclue_seed), [])
        self.assertEqual(self.check_document(self.m3, self.m3_seed), [])

    def test_lists_and_words_are_complete(self):
        # Multi3IR Table 8: every sub-class of a row is transcribed, in order (the tally of
        # sub-classes depends on it); 'Life sciences; biology' is one Dewey class (570)
        lines = self.m3_seed.split("\n")
        start = lines.index("Top-level class\tSub-class")
        m8 = next(t for t in self.m3["tables"] if t["id"] == "M8")
        self.assertEqual(len(m8["rows"]), 10)
        for row, line in zip(m8["rows"], lines[start + 1: start + 11]):
            label, printed = line.split("\t")
            self.assertEqual(row["label"], label)
            self.assertEqual("; ".join(row["lists"]["sub"]), printed)
        self.assertEqual([len(r["lists"]["sub"]) for r in m8["rows"]], [9] + [10] * 9)
        # n-Clue Table 7: the Direction word is the last cell of each markdown row
        t7 = next(t for t in self.nclue["tables"] if t["id"] == "T7")
        for row in t7["rows"]:
            line = next(l for l in self.nclue_seed.split("\n")
                        if l.startswith("| " + row["label"] + " |") and l.count("|") == 5)
            self.assertEqual(row["words"]["direction"], line.split("|")[4].strip())

    def test_typo_would_be_caught(self):
        doc = json.loads(json.dumps(self.nclue))
        t3 = next(t for t in doc["tables"] if t["id"] == "T3")
        t3["rows"][0]["cells"]["score"] = "26.9"  # BM25-AND prints 26.8
        doc["prose"][0]["s"] = "1,001"
        problems = self.check_document(doc, self.nclue_seed)
        self.assertEqual(len(problems), 3, problems)  # presence, order (same cell), prose
        # swapping two columns keeps every value present but breaks the order
        doc = json.loads(json.dumps(self.nclue))
        cells = next(t for t in doc["tables"] if t["id"] == "T3")["rows"][0]["cells"]
        cells["score"], cells["hit"] = cells["hit"], cells["score"]
        problems = self.check_document(doc, self.nclue_seed)
        self.assertEqual(len(problems), 1, problems)
        # a wrong direction word or list entry is caught as well
        doc = json.loads(json.dumps(self.nclue))
        next(t for t in doc["tables"] if t["id"] == "T7")["rows"][0]["words"]["direction"] = "same"
        self.assertEqual(len(self.check_document(doc, self.nclue_seed)), 1)
        doc = json.loads(json.dumps(self.m3))
        next(t for t in doc["tables"] if t["id"] == "M8")["rows"][0]["lists"]["sub"][1] = "Bibliographies"
        self.assertEqual(len(self.check_document(doc, self.m3_seed)), 1)


class ReleaseMapping(unittest.TestCase):
    """--release on a tiny inline release: 2 queries, 3 documents, one run."""

    def make_release(self, root: Path):
        root.mkdir(parents=True)

        def jl(name, rows):
            (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        sha = "0" * 64
        jl("queries.jsonl", [
            {"qid": "q1", "conditions": ["A", "B"], "forms": {"raw": "A, B", "clean": '"A"; "B"',
                                                                         "natural": 'Find the document that discusses "A" and "B".'}},
            {"qid": "q2", "conditions": ["A", "B", "C"], "forms": {"raw": "A, B, C", "clean": '"A"; "B"; "C"',
             "natural": 'Find the document that discusses "A", "B", and "C".'}},
        ])
        jl("corpus.jsonl", [{"docid": d, "pages": p, "source": "s", "sha256": sha}
                            for d, p in (("g1", 40), ("g2", 120), ("s1", 5))])
        jl("qrels.jsonl", [
            {"qid": "q1", "docid": "g1", "clues": 2, "label": "gold"},
            {"qid": "q1", "docid": "s1", "clues": 1, "label": "subset"},
            {"qid": "q2", "docid": "g2", "clues": 3, "label": "gold"},
            {"qid": "q2", "docid": "s1", "clues": 2, "label": "subset"},
        ])
        (root / "runs").mkdir()
        # q1: gold first -> success; q2: subset precedes the gold -> gold hit but no success
        (root / "runs" / "toy.jsonl").write_text(
            json.dumps({"qid": "q1", "docs": ["g1", "s1"], "scores": [2.0, 1.0]}) + "\n" +
            json.dumps({"qid": "q2", "docs": ["s1", "g2"], "scores": [2.0, 1.0]}) + "\n", encoding="utf-8")

    def test_reproduced_and_not(self):
        # n-Clue Score = 1/2 -> 50.0; Gold Hit = 2/2 -> 100.0; n=3 slice: q2 only -> score 0.0;
        # L_min > 100 slice: q2 (gold g2 has 120 pages) -> hit 100.0
        doc = transcription({"s": "50.0", "h": "100.0", "wrong": "45.0", "s3": "0.0", "long": "100.0", "miss": "1.0"})
        doc["release_map"] = [
            {"value": "p.s", "run": "toy", "measure": "nclue_score@10"},
            {"value": "p.h", "run": "toy", "measure": "gold_hit@10"},
            {"value": "p.wrong", "run": "toy", "measure": "nclue_score@10"},
            {"value": "p.s3", "run": "toy", "measure": "nclue_score@10", "slice": "n=3"},
            {"value": "p.long", "run": "toy", "measure": "gold_hit@10", "slice": "lmin>100"},
            {"value": "p.miss", "run": "absent", "measure": "nclue_score@10"},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            self.make_release(root / "rel")
            path = root / "toy.json"
            path.write_text(json.dumps(doc), encoding="utf-8")
            tr = pa.load_transcription(path)
            out = pa.reproduce_from_release(tr, root / "rel")
            self.assertEqual([o["status"] for o in out],
                             ["reproduced", "reproduced", "not_reproduced", "reproduced", "reproduced", "no_input"])
            # runs/index.json (read through RunIndex: sha256 checked) maps each id to its file;
            # with an index, runs are looked up there only
            sha = hashlib.sha256((root / "rel" / "runs" / "toy.jsonl").read_bytes()).hexdigest()
            (root / "rel" / "runs" / "index.json").write_text(json.dumps({"runs": [
                {"id": "indexed", "file": "toy.jsonl", "sha256": sha},
                {"id": "toy", "file": "toy.jsonl", "sha256": sha}]}), encoding="utf-8")
            doc["release_map"] = doc["release_map"][:1] + [{"value": "p.s", "run": "indexed", "measure": "nclue_score@10"}]
            path.write_text(json.dumps(doc), encoding="utf-8")
            tr2 = pa.load_transcription(path)
            self.assertEqual([o["status"] for o in pa.reproduce_from_release(tr2, root / "rel")],
                             ["reproduced", "reproduced"])
            # the original-release layout: the same folder under data/v1
            (root / "orig" / "data").mkdir(parents=True)
            (root / "rel").rename(root / "orig" / "data" / "v1")
            self.assertEqual(len(pa.reproduce_from_release(tr, root / "orig")), 6)
            md = pa.report_markdown(tr, pa.audit(tr), out)
            self.assertIn("4 reproduced, 1 not reproduced, 1 without inputs", md)


if __name__ == "__main__":
    unittest.main()
