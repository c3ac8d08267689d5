"""The relation kinds of issue 18, each on a small hand-made paper whose verdicts are worked out by
hand in the comments (never printed by the code under test): same, aggregate, tally, quantified,
order, bound, sign, design, the NOT_INFORMATIVE rule, and the frozen-verdict reviews.
"""

import json
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path

from nclue import paper_audit as pa
from nclue.errors import InputError
from nclue.paper_audit.relations.aggregates import mean_range

EXACT, WITHIN, FAIL, NI = pa.EXACT, pa.WITHIN, pa.FAIL, pa.NOT_INFORMATIVE


def paper(prose=None, tables=(), relations=()):
    """A small transcription document: prose values by id, tables as (id, columns, rows, words)."""
    doc_tables = []
    for tid, columns, rows, *rest in tables:
        words = rest[0] if rest else {}
        doc_tables.append({
            "id": tid, "columns": [{"id": c} for c in columns],
            "rows": [{"id": rid, "label": rid, "cells": dict(zip(columns, cells)),
                      **({"words": words[rid]} if rid in words else {})}
                     for rid, cells in rows]})
    return {"schema": pa.SCHEMA, "paper": "toy", "seed": "none", "tables": doc_tables,
            "prose": [{"id": k, "s": v, "context": "test"} for k, v in (prose or {}).items()],
            "relations": list(relations)}


def audit(doc):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "toy.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        return {r.rid: r for r in pa.audit(pa.load_transcription(path))}


def verdicts(doc):
    return {rid: r.verdict for rid, r in audit(doc).items()}


class SameQuantity(unittest.TestCase):
    def test_same_precision_must_be_identical(self):
        doc = paper({"a": "26.8", "b": "26.8", "c": "26.9"}, relations=[
            {"id": "ok", "kind": "same", "values": ["p.a", "p.b"]},
            # 26.8 vs 26.9: intervals touch at 26.85, but one number rounds one way only -> FAIL
            {"id": "one_unit", "kind": "same", "values": ["p.a", "p.c"]},
            # the old reading: |26.8 - 26.9| = 0.1 <= 0.05 + 0.05 -> WITHIN_ROUNDING
            {"id": "as_equal", "kind": "equal", "got": "p.a", "expected": "p.c"},
        ])
        self.assertEqual(verdicts(doc), {"ok": EXACT, "one_unit": FAIL, "as_equal": WITHIN})

    def test_different_precision_and_rescaling(self):
        doc = paper({"fine": ".5714", "coarse": ".571", "off": ".5716", "tie": "63.45", "t": "63.4",
                     "frac": "0.99", "pct": "99.1", "neg": "-6.1", "pos": "6.1"}, relations=[
            # .5714 lies in [.5705, .5715] -> EXACT; .5716 does not -> FAIL
            {"id": "finer", "kind": "same", "values": ["p.coarse", "p.fine"]},
            {"id": "finer_off", "kind": "same", "values": ["p.coarse", "p.off"]},
            # 63.45 is the upper end of 63.4's closed interval [63.35, 63.45] -> EXACT (a tie)
            {"id": "tie", "kind": "same", "values": ["p.tie", "p.t"]},
            # 0.99 x 100 = 99 +- 0.5 contains 99.1 -> EXACT; -6.1 x -1 = 6.1 -> EXACT
            {"id": "unit", "kind": "same", "values": [{"value": "p.frac", "scale": 100}, "p.pct"]},
            {"id": "sign", "kind": "same", "values": [{"value": "p.neg", "scale": -1}, "p.pos"]},
            # three prints: one pair differs -> FAIL
            {"id": "three", "kind": "same", "values": ["p.coarse", "p.fine", "p.off"]},
        ])
        self.assertEqual(verdicts(doc), {"finer": EXACT, "finer_off": FAIL, "tie": EXACT,
                                         "unit": EXACT, "sign": EXACT, "three": FAIL})

    def test_table_printed_twice(self):
        # B reprints A; r2 differs by one unit in the last place
        doc = paper(tables=[("A", ["c"], [("r1", ["1.0"]), ("r2", ["2.0"])]),
                            ("B", ["c"], [("r1", ["1.0"]), ("r2", ["2.1"])])],
                    relations=[{"id": "copy", "kind": "same_table", "a": "A", "b": "B"}])
        self.assertEqual(verdicts(doc), {"copy.r1.c": EXACT, "copy.r2.c": FAIL})


class Aggregates(unittest.TestCase):
    def test_equal_weights_quartiles(self):
        quartiles = [("naive", ["69.6", "50.0", "44.4", "29.2"]), ("spin", ["78.3", "67.4", "58.8", "53.6"])]
        doc = paper({"all_naive": "48.3", "fine_naive": "48.28", "all_spin": "63.4"},
                    tables=[("Q", ["q1", "q2", "q3", "q4"], quartiles)],
                    relations=[
            # (69.6 + 50.0 + 44.4 + 29.2) / 4 = 193.2 / 4 = 48.3 -> EXACT
            {"id": "naive", "kind": "aggregate", "whole": "p.all_naive", "weights": [1, 1, 1, 1],
             "parts": ["Q.naive.q1", "Q.naive.q2", "Q.naive.q3", "Q.naive.q4"]},
            # 48.3 is not inside [48.275, 48.285], but the mean of the rounding intervals,
            # [48.25, 48.35], contains 48.28 -> WITHIN_ROUNDING
            {"id": "naive_fine", "kind": "aggregate", "whole": "p.fine_naive", "weights": [1, 1, 1, 1],
             "parts": {"each": {"q": ["q1", "q2", "q3", "q4"]}, "value": "Q.naive.{q}"}},
            # (78.3 + 67.4 + 58.8 + 53.6) / 4 = 258.1 / 4 = 64.525, at least 64.475 over the
            # rounding intervals, far above 63.4 (<= 63.45) -> FAIL
            {"id": "spin", "kind": "aggregate", "whole": "p.all_spin", "weights": [1, 1, 1, 1],
             "parts": ["Q.spin.q1", "Q.spin.q2", "Q.spin.q3", "Q.spin.q4"]},
        ])
        self.assertEqual(verdicts(doc), {"naive": EXACT, "naive_fine": WITHIN, "spin": FAIL})

    def test_group_sizes_given(self):
        # 81.0% of 100 CrossPage pairs and 86.5% of 200 SourceShift pairs:
        # (100 * 81.0 + 200 * 86.5) / 300 = 25400 / 300 = 84.667 -> rounds to 84.7 -> EXACT
        doc = paper({"cp": "81.0", "ss": "86.5", "n_cp": "100", "n_ss": "200", "all": "84.7", "bad": "84.0"},
                    relations=[
            {"id": "agree", "kind": "aggregate", "whole": "p.all", "parts": ["p.cp", "p.ss"],
             "weights": ["p.n_cp", "p.n_ss"]},
            # 84.0 vs 84.667 +- 0.05 -> FAIL
            {"id": "bad", "kind": "aggregate", "whole": "p.bad", "parts": ["p.cp", "p.ss"],
             "weights": ["p.n_cp", "p.n_ss"]},
        ])
        self.assertEqual(verdicts(doc), {"agree": EXACT, "bad": FAIL})

    def test_unknown_weights_bound_the_whole(self):
        # n=2 / n=3 strata 85.3 and 83.6 without their sizes: the whole lies in [83.6, 85.3]
        doc = paper({"n2": "85.3", "n3": "83.6", "w1": "84.7", "w2": "86.0", "w3": "85.4"}, relations=[
            {"id": "inside", "kind": "aggregate", "whole": "p.w1", "parts": ["p.n2", "p.n3"]},
            # [85.95, 86.05] misses even the hull of the intervals, [83.55, 85.35] -> FAIL
            {"id": "outside", "kind": "aggregate", "whole": "p.w2", "parts": ["p.n2", "p.n3"]},
            # [85.35, 85.45] misses [83.6, 85.3] but touches [83.55, 85.35] -> WITHIN_ROUNDING
            {"id": "edge", "kind": "aggregate", "whole": "p.w3", "parts": ["p.n2", "p.n3"]},
        ])
        self.assertEqual(verdicts(doc), {"inside": EXACT, "outside": FAIL, "edge": WITHIN})

    def test_bounded_weights(self):
        # parts 10.0 and 20.0, each weight in [1, 3]: least mean (3*10 + 1*20)/4 = 12.5,
        # greatest (1*10 + 3*20)/4 = 17.5. Over the rounding intervals the least is
        # (3*9.95 + 19.95)/4 = 12.45.
        w = [{"between": [1, 3]}, {"between": [1, 3]}]
        doc = paper({"a": "10.0", "b": "20.0", "x": "12.5", "y": "12.4", "z": "12.0"}, relations=[
            {"id": "x", "kind": "aggregate", "whole": "p.x", "parts": ["p.a", "p.b"], "weights": w},
            {"id": "y", "kind": "aggregate", "whole": "p.y", "parts": ["p.a", "p.b"], "weights": w},
            {"id": "z", "kind": "aggregate", "whole": "p.z", "parts": ["p.a", "p.b"], "weights": w},
        ])
        # 12.4 -> [12.35, 12.45] touches 12.45 -> WITHIN; 12.0 -> [11.95, 12.05] -> FAIL
        self.assertEqual(verdicts(doc), {"x": EXACT, "y": WITHIN, "z": FAIL})

    def test_mean_range_by_hand(self):
        # values 0 and 10, weights in [1, 2]: least (2*0 + 1*10)/3 = 10/3, greatest (0 + 20)/3
        boxes = [(Fraction(1), Fraction(2))] * 2
        self.assertEqual(mean_range([Fraction(0), Fraction(10)], boxes, True), Fraction(10, 3))
        self.assertEqual(mean_range([Fraction(0), Fraction(10)], boxes, False), Fraction(20, 3))
        # three values, the middle weight free in [0, 5]: least puts 5 on 4 ... (1*1 + 5*4 + 1*10)/7
        # = 31/7 = 4.43 vs dropping it (1 + 10)/2 = 5.5 -> 31/7; greatest drops it: 5.5
        vals = [Fraction(1), Fraction(4), Fraction(10)]
        boxes = [(Fraction(1), Fraction(1)), (Fraction(0), Fraction(5)), (Fraction(1), Fraction(1))]
        self.assertEqual(mean_range(vals, boxes, True), Fraction(31, 7))
        self.assertEqual(mean_range(vals, boxes, False), Fraction(11, 2))


class Tally(unittest.TestCase):
    def doc(self, relations):
        rows = [(r, ["1"]) for r in ("culture", "science", "business", "technology", "life",
                                     "professional", "total")]
        return paper({"five": "5", "three": "3", "four": "4", "two": "2", "six": "6"},
                     tables=[("M10", ["q"], rows),
                             ("S5", ["c3"], [("a", ["-4.6"]), ("b", ["-6.5"]), ("c", ["0.0"]),
                                             ("d", ["-2.5"]), ("e", ["0.3"])]),
                             ("T7", ["cp", "ss"], [("r1", ["+1.2", "-0.9"]), ("r2", ["+1.5", "-20.0"]),
                                                   ("r3", ["+6.8", "+6.7"])],
                              {"r1": {"dir": "flip"}, "r2": {"dir": "flip"}, "r3": {"dir": "same"}})],
                     relations=relations)

    def test_rows_and_columns(self):
        doc = self.doc([
            # 7 rows without the total = 6 categories, not the 'five' of the prose -> FAIL
            {"id": "cats6", "kind": "tally", "expected": "p.five", "rows": "M10", "exclude": ["total"]},
            {"id": "cats5", "kind": "tally", "expected": "p.five", "rows": "M10",
             "exclude": ["total", "professional"]},
            {"id": "cols", "kind": "tally", "expected": "p.two", "columns": "T7"},
        ])
        self.assertEqual(verdicts(doc), {"cats6": FAIL, "cats5": EXACT, "cols": EXACT})

    def test_cells_with_a_condition(self):
        # cells < 0 at the printed values: -4.6, -6.5, -2.5 -> 3; 0.0 might be slightly negative
        # ([-0.05, 0.05]) -> between 3 and 4; 0.3 never
        cells = ["S5.a.c3", "S5.b.c3", "S5.c.c3", "S5.d.c3", "S5.e.c3"]
        where = {"op": "<", "than": 0}
        doc = self.doc([
            {"id": "three", "kind": "tally", "expected": "p.three", "cells": cells, "condition": where},
            {"id": "four", "kind": "tally", "expected": "p.four", "cells": cells, "condition": where},
            {"id": "five", "kind": "tally", "expected": "p.five", "cells": cells, "condition": where},
            {"id": "listed", "kind": "tally", "expected": "p.five", "cells": cells},
        ])
        self.assertEqual(verdicts(doc), {"three": EXACT, "four": WITHIN, "five": FAIL, "listed": EXACT})

    def test_list_entries_and_filled_cells(self):
        doc = self.doc([])
        # a two-level taxonomy 'of 2 top-level classes, each divided into 3 sub-classes'; the
        # first row prints only two entries
        doc["tables"].append({"id": "M8", "columns": [{"id": "sub"}], "rows": [
            {"id": "cs", "label": "CS", "cells": {}, "lists": {"sub": ["Bibliography", "Quotations"]}},
            {"id": "sci", "label": "Science", "cells": {}, "lists": {"sub": ["Physics", "Chemistry", "Life sciences; biology"]}}]})
        # a gold with pages for 3 conditions, a subset with 2 (a dash in the paper is no cell)
        doc["tables"].append({"id": "S6", "columns": [{"id": "grade"}, {"id": "c1"}, {"id": "c2"}, {"id": "c3"}], "rows": [
            {"id": "gold", "label": "Gold", "cells": {"grade": "3", "c1": "2", "c2": "19", "c3": "60"}},
            {"id": "sub2", "label": "Subset", "cells": {"grade": "2", "c2": "28", "c3": "47"}}]})
        doc["relations"] = [
            {"id": "each_three", "kind": "tally", "expected": "p.three", "each": {"row": ["cs", "sci"]},
             "items": ["M8.{row}.sub"]},
            {"id": "total", "kind": "tally", "expected": "p.five", "items": ["M8.cs.sub", "M8.sci.sub"]},
            {"id": "grade", "kind": "tally", "expected": "S6.{row}.grade", "each": {"row": ["gold", "sub2"]},
             "filled": "S6.{row}", "of": ["c1", "c2", "c3"]},
            # counting every column, the grade cell itself is counted too: 4 != 3 -> FAIL
            {"id": "all_columns", "kind": "tally", "expected": "S6.gold.grade", "filled": "S6.gold"},
        ]
        # cs: 2 entries, not 3 -> FAIL; sci: 3 (an entry may hold a semicolon) -> EXACT; 2 + 3 = 5
        self.assertEqual(verdicts(doc), {"each_three.cs": FAIL, "each_three.sci": EXACT, "total": EXACT,
                                         "grade.gold": EXACT, "grade.sub2": EXACT, "all_columns": FAIL})

    def test_words(self):
        doc = self.doc([{"id": "flips", "kind": "tally", "expected": "p.two",
                         "words": ["T7.r1.dir", "T7.r2.dir", "T7.r3.dir"], "condition": {"is": "flip"}}])
        self.assertEqual(verdicts(doc), {"flips": EXACT})


class Quantified(unittest.TestCase):
    def test_all_none_only(self):
        doc = paper({"llm1": "15.63", "nv1": "21.07", "llm2": "25.84", "nv2": "21.81",
                     "c": "5.0", "d": "4.96"},
                    tables=[("M3", ["p5", "b100"], [("spin", ["63.33", "98.10"]), ("naive", ["51.12", "99.15"])])],
                    relations=[
            # 'LLM-Expansion falls below naive': 15.63 < 21.07 holds, 25.84 < 21.81 never -> FAIL
            {"id": "below", "kind": "quantified", "quantifier": "all",
             "items": [{"left": "p.llm1", "op": "<", "right": "p.nv1"},
                       {"left": "p.llm2", "op": "<", "right": "p.nv2"}]},
            # 5.0 < 4.96 fails at the printed values, holds for 4.95 < 4.965 -> WITHIN
            {"id": "maybe", "kind": "quantified", "quantifier": "all",
             "items": [{"left": "p.llm1", "op": "<", "right": "p.nv1"}, {"left": "p.c", "op": "<", "right": "p.d"}]},
            # 'no cell exceeds 99.5': 63.33, 98.10, 51.12, 99.15 -> none does -> EXACT
            {"id": "none", "kind": "quantified", "quantifier": "none",
             "items": {"each": {"row": ["spin", "naive"], "col": ["p5", "b100"]},
                       "left": "M3.{row}.{col}", "op": ">", "right": 99.5}},
            # 'SPIN improves on every column; the only exception is b100': the items say
            # 'SPIN does not beat naive'; only b100 (98.10 <= 99.15) holds, p5 (63.33 <= 51.12) not
            {"id": "only", "kind": "quantified", "quantifier": "only", "only": ["b100"],
             "items": {"each": {"col": ["p5", "b100"]}, "left": "M3.spin.{col}", "op": "<=",
                       "right": "M3.naive.{col}"}},
            {"id": "only_wrong", "kind": "quantified", "quantifier": "only", "only": ["p5"],
             "items": {"each": {"col": ["p5", "b100"]}, "left": "M3.spin.{col}", "op": "<=",
                       "right": "M3.naive.{col}"}},
        ])
        self.assertEqual(verdicts(doc), {"below": FAIL, "maybe": WITHIN, "none": EXACT,
                                         "only": EXACT, "only_wrong": FAIL})

    def test_best_and_worst(self):
        rows = [("spin", ["63.4"]), ("prefix", ["54.1"]), ("lora", ["55.9"]), ("adapter", ["55.9"])]
        over = {"each": {"row": ["spin", "prefix", "lora", "adapter"]}, "value": "T5.{row}.hc"}
        doc = paper(tables=[("T5", ["hc"], rows)], relations=[
            # 63.4 above 54.1, 55.9, 55.9 (itself skipped) -> EXACT
            {"id": "best", "kind": "quantified", "quantifier": "best", "claim": "T5.spin.hc", "over": over},
            # LoRA 55.9 above prefix 54.1, but not strictly above the adapter's 55.9: possible
            # inside [55.85, 55.95] -> WITHIN
            {"id": "tie", "kind": "quantified", "quantifier": "best", "claim": "T5.lora.hc",
             "over": ["T5.prefix.hc", "T5.adapter.hc"]},
            {"id": "tie_ok", "kind": "quantified", "quantifier": "best", "claim": "T5.lora.hc",
             "over": ["T5.prefix.hc", "T5.adapter.hc"], "strict": False},
            {"id": "worst", "kind": "quantified", "quantifier": "worst", "claim": "T5.prefix.hc", "over": over},
            # 'SPIN is worst' -> 63.4 < 54.1 never -> FAIL
            {"id": "not_worst", "kind": "quantified", "quantifier": "worst", "claim": "T5.spin.hc", "over": over},
        ])
        self.assertEqual(verdicts(doc), {"best": EXACT, "tie": WITHIN, "tie_ok": EXACT,
                                         "worst": EXACT, "not_worst": FAIL})


class OrderingAndBounds(unittest.TestCase):
    def test_order_chains(self):
        doc = paper(tables=[("T3", ["score", "hit"], [("a", ["26.8", "57.2"]), ("b", ["60.0", "57.2"])]),
                            ("M2", ["hc5", "hc10", "hc20", "hc100"],
                             [("naive", ["21.07", "28.83", "35.50", "52.26"]),
                              ("bad", ["21.07", "28.83", "55.50", "52.26"])]),
                            ("M4", ["m1", "m3", "m5"], [("mid", ["59.9", "59.9", "63.4"])])],
                    relations=[
            # score <= hit per row: a holds; b has 60.0 > 57.2 -> FAIL
            {"id": "score_le_hit", "kind": "order", "op": "<=", "each": {"row": ["a", "b"]},
             "chain": ["T3.{row}.score", "T3.{row}.hit"]},
            # coverage non-decreasing in k: naive holds; 'bad' has 55.50 > 52.26 -> FAIL
            {"id": "hc_monotone", "kind": "order", "op": "<=", "each": {"row": ["naive", "bad"]},
             "chain": {"each": {"k": ["hc5", "hc10", "hc20", "hc100"]}, "value": "M2.{row}.{k}"}},
            # strictly increasing in m: 59.9 < 59.9 fails at the printed values, holds inside
            # [59.85, 59.95] -> WITHIN
            {"id": "increasing", "kind": "order", "op": "<", "chain": ["M4.mid.m1", "M4.mid.m3", "M4.mid.m5"]},
        ])
        self.assertEqual(verdicts(doc), {"score_le_hit.a": EXACT, "score_le_hit.b": FAIL,
                                         "hc_monotone.naive": EXACT, "hc_monotone.bad": FAIL,
                                         "increasing": WITHIN})

    def test_several_chains_in_one_relation(self):
        doc = paper(tables=[("T3", ["score", "hit"], [("a", ["26.8", "57.2"]), ("b", ["60.0", "57.2"]),
                                                     ("c", ["9.6", "21.8"])])],
                    relations=[
            # one relation for the whole table: a and c hold, b does not -> FAIL
            {"id": "all_rows", "kind": "order", "op": "<=",
             "chains": {"each": {"row": ["a", "b", "c"]}, "chain": ["T3.{row}.score", "T3.{row}.hit"]}},
            {"id": "two_rows", "kind": "order", "op": "<=",
             "chains": [["T3.a.score", "T3.a.hit"], {"chain": ["T3.c.score", "T3.c.hit"]}]},
        ])
        results = audit(doc)
        self.assertEqual({k: r.verdict for k, r in results.items()}, {"all_rows": FAIL, "two_rows": EXACT})
        self.assertEqual(results["all_rows"].got, "2/3 steps hold")

    def test_oracle_bound(self):
        doc = paper({"oracle": "44.41", "low": "30.00", "n": "28.83", "s": "35.24", "l": "22.11"}, relations=[
            {"id": "oracle", "kind": "bound", "bound": "p.oracle", "op": ">=", "over": ["p.n", "p.s", "p.l"]},
            # 30.00 >= 35.24 never -> FAIL
            {"id": "low", "kind": "bound", "bound": "p.low", "op": ">=", "over": ["p.n", "p.s"]},
        ])
        self.assertEqual(verdicts(doc), {"oracle": EXACT, "low": FAIL})

    def test_direction_words(self):
        doc = paper({"z": "0.0", "one": "+1.0", "neg": "-3.9"},
                    tables=[("T7", ["cp", "ss"], [("page", ["+1.2", "-0.9"]), ("jina", ["+6.8", "+6.7"])],
                             {"page": {"dir": "flip"}, "jina": {"dir": "same"}})],
                    relations=[
            {"id": "page", "kind": "sign", "word": "T7.page.dir", "values": ["T7.page.cp", "T7.page.ss"]},
            {"id": "jina", "kind": "sign", "word": "T7.jina.dir", "values": ["T7.jina.cp", "T7.jina.ss"]},
            # +1.2 and -0.9 printed 'same' -> no value inside the intervals gives one sign -> FAIL
            {"id": "page_same", "kind": "sign", "printed": "same", "values": ["T7.page.cp", "T7.page.ss"]},
            # 0.0 may be slightly positive ([-0.05, 0.05]) -> 'same' as +1.0 only within rounding
            {"id": "zero", "kind": "sign", "printed": "same", "values": ["p.z", "p.one"]},
            {"id": "neg", "kind": "sign", "printed": "negative", "values": ["p.neg"]},
            {"id": "neg_wrong", "kind": "sign", "printed": "positive", "values": ["p.neg"]},
        ])
        self.assertEqual(verdicts(doc), {"page": EXACT, "jina": EXACT, "page_same": FAIL,
                                         "zero": WITHIN, "neg": EXACT, "neg_wrong": FAIL})


class Design(unittest.TestCase):
    def test_counts_against_design(self):
        doc = paper({"systems": "13", "runs": "39", "runs_bad": "40", "gold": "90", "t12": "82",
                     "t13": "6", "t23": "5", "train": "72K", "val": "32K", "test": "1.0K",
                     "total": "104,916"}, relations=[
            # 13 systems x 3 forms = 39 rankings
            {"id": "forms", "kind": "design", "planned": {"mul": ["p.systems", 3]}, "reported": "p.runs"},
            {"id": "forms_bad", "kind": "design", "planned": {"mul": ["p.systems", 3]}, "reported": "p.runs_bad"},
            # at most the 82 + 6 + 5 = 93 targets moved to a gold grade can become gold: 90 <= 93
            {"id": "gold", "kind": "design", "op": "<=", "planned": {"add": ["p.t12", "p.t13", "p.t23"]},
             "reported": "p.gold"},
            # 72K + 32K + 1.0K = 105,000 +- (500 + 500 + 50): contains 104,916 but is not it -> WITHIN
            {"id": "split", "kind": "design", "planned": {"add": ["p.train", "p.val", "p.test"]},
             "reported": "p.total"},
        ])
        self.assertEqual(verdicts(doc), {"forms": EXACT, "forms_bad": FAIL, "gold": EXACT, "split": WITHIN})


class Informativeness(unittest.TestCase):
    def test_grim_that_cannot_fail(self):
        doc = paper({"s": "26.8", "a": "27.6", "b": "16.6", "over": "101.0", "frac": "0.99"}, relations=[
            # N = 1,000 at one decimal: the interval [26.75, 26.85] spans 0.1 * 1000 / 100 = 1
            # whole count, so every printed value has a k -> NOT_INFORMATIVE
            {"id": "n1000", "kind": "grim", "value": "p.s", "n": 1000},
            # N = 814: width 0.814 < 1; 27.6% -> [224.66, 225.07] -> k = 225 -> EXACT
            {"id": "n814", "kind": "grim", "value": "p.a", "n": 814},
            # N = 6: 16.6% -> [0.993, 0.999] -> no k -> FAIL
            {"id": "n6", "kind": "grim", "value": "p.b", "n": 6},
            # uninformative width, but 101.0% would need k = 1010 > N -> FAIL all the same
            {"id": "over", "kind": "grim", "value": "p.over", "n": 1000},
            # a proportion of 100 items at two decimals: width 0.01 * 100 / 1 = 1 -> NOT_INFORMATIVE
            {"id": "prop", "kind": "grim", "value": "p.frac", "n": 100, "scale": 1},
        ])
        self.assertEqual(verdicts(doc), {"n1000": NI, "n814": EXACT, "n6": FAIL, "over": FAIL, "prop": NI})

    def test_count_relations(self):
        doc = paper({"c": "26.8", "s": "30.4", "m": "42.8", "h": "57.2", "h2": "57.3",
                     "n2": "27.6", "n3": "23.1", "all": "26.8"}, relations=[
            # N = 1,000 throughout: 268 + 304 + 428 = 1000 -> 100.0, and each percentage is its
            # count, so the check tests only the printed arithmetic -> NOT_INFORMATIVE
            {"id": "sum100", "kind": "count", "combine": {"a": 1, "b": 1, "c": 1},
             "vars": {"a": {"value": "p.c", "n": 1000}, "b": {"value": "p.s", "n": 1000},
                      "c": {"value": "p.m", "n": 1000}}, "result": {"count": 1000}},
            # 268 + 304 = 572 -> 57.2, not 57.3 -> FAIL (a failure is never hidden)
            {"id": "hit_bad", "kind": "count", "combine": {"a": 1, "b": 1},
             "vars": {"a": {"value": "p.c", "n": 1000}, "b": {"value": "p.s", "n": 1000}},
             "result": {"value": "p.h2", "n": 1000}},
            # slices: 27.6% of 814 -> 225, 23.1% of 186 -> 43, 268 / 1000 = 26.8 -> EXACT
            # (the slice counts are informative: widths 0.814 and 0.186)
            {"id": "slices", "kind": "count", "combine": {"a": 1, "b": 1},
             "vars": {"a": {"value": "p.n2", "n": 814}, "b": {"value": "p.n3", "n": 186}},
             "result": {"value": "p.all", "n": 1000}},
        ])
        self.assertEqual(verdicts(doc), {"sum100": NI, "hit_bad": FAIL, "slices": EXACT})

    def test_summary_counts_them_separately(self):
        doc = paper({"s": "26.8", "a": "27.6"}, relations=[
            {"id": "n1000", "kind": "grim", "value": "p.s", "n": 1000},
            {"id": "n814", "kind": "grim", "value": "p.a", "n": 814}])
        results = list(audit(doc).values())
        self.assertEqual(pa.summary_line("toy", results),
                         "paper audit toy: 2 relations: 0 FAIL, 0 REVIEW, 0 WITHIN_ROUNDING, 1 EXACT, "
                         "1 NOT_INFORMATIVE")
        self.assertEqual(pa.counts_by_kind(results),
                         {"grim": {FAIL: 0, pa.REVIEW: 0, WITHIN: 0, EXACT: 1, NI: 1}})


class FrozenReviews(unittest.TestCase):
    def frozen_root(self, doc):
        tmp = tempfile.TemporaryDirectory()
        root = Path(tmp.name)
        (root / "claims" / "papers").mkdir(parents=True)
        (root / "audit" / "papers").mkdir(parents=True)
        path = root / "claims" / "papers" / "toy.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        tr = pa.load_transcription(path)
        (root / "audit" / "papers" / "toy.verdicts.json").write_text(
            json.dumps(pa.verdicts_document(tr, pa.audit(tr))), encoding="utf-8")
        return tmp, root

    def test_every_fail_needs_a_review(self):
        rel = {"id": "r", "kind": "same", "values": ["p.a", "p.b"]}
        doc = paper({"a": "1.0", "b": "1.1"}, relations=[rel])
        tmp, root = self.frozen_root(doc)
        with tmp:
            checked, problems = pa.verify_frozen_verdicts(root)
            self.assertEqual(checked, 1)
            self.assertEqual(len(problems), 1)
            self.assertIn("r FAILs without a one-line review", problems[0])
        doc["relations"][0]["review"] = "the two prints differ: a typo in one of them"
        tmp, root = self.frozen_root(doc)
        with tmp:
            self.assertEqual(pa.verify_frozen_verdicts(root), (1, []))
            frozen = json.loads((root / "audit/papers/toy.verdicts.json").read_text(encoding="utf-8"))
            self.assertEqual(frozen["fail_reviews"], {"r": "the two prints differ: a typo in one of them"})
            self.assertEqual(frozen["by_kind"], {"same": {FAIL: 1, pa.REVIEW: 0, WITHIN: 0, EXACT: 0, NI: 0}})
            # a changed review is a mismatch too
            doc["relations"][0]["review"] = "something else"
            (root / "claims/papers/toy.json").write_text(json.dumps(doc), encoding="utf-8")
            problems = pa.verify_frozen_verdicts(root)[1]
            self.assertEqual(len(problems), 1)
            self.assertIn("fail_reviews", problems[0])


class Templates(unittest.TestCase):
    def test_each_expands_ids_and_refuses_unbound_names(self):
        doc = paper({"a": "1", "b": "2"}, relations=[
            {"id": "t", "kind": "order", "op": "<=", "each": {"x": ["a"]}, "chain": ["p.{x}", "p.b"]}])
        self.assertEqual(verdicts(doc), {"t.a": EXACT})
        doc["relations"][0]["chain"] = ["p.{y}", "p.b"]
        with self.assertRaises(InputError):
            audit(doc)


if __name__ == "__main__":
    unittest.main()
