"""Unit tests of nclue.label_audit on data/example/ and small hand-made inputs.

Expected values are worked out by hand in the comments (strata counts, pools, gates, policy
cases, kappas); judgments are FIXTURES (tests/audit_fixtures.py).
"""

import copy
import json
import re
import shutil
import tempfile
import unittest
from dataclasses import replace
from pathlib import Path

from nclue.errors import InputError, NclueError
from nclue.formats import iter_jsonl, read_json
from nclue.label_audit import exports as ex
from nclue.label_audit.packet import read_packet_html
from nclue.label_audit.policy import (Response, adjudication_decision, check_recorded, first_pass_decision,
                                      load_policy, page_set)
from nclue.label_audit.pools import build_pool, exact_pages, fuzzy_pages, index_document, ranked_pool
from nclue.label_audit.repair import apply_repair, evidence_rows, file_bytes, gold_gate_problems, qrels_rows
from nclue.label_audit.report_section import label_audit_section
from nclue.label_audit.rubric import load_rubrics
from nclue.label_audit.sampling import allocate, allocate_equal, draw_sample, sample_table_rows
from nclue.label_audit.textnorm import is_nontrivial, locate, normalize
from nclue.release import load_release
from tests import audit_fixtures as fx
from tests import label_audit_setup as setup

ROOT = Path(__file__).resolve().parent.parent
S = "example:hand-made"


class TextNormalization(unittest.TestCase):
    def test_normalize(self):
        # ligature -> "fi", no-break space -> space, curly quotes -> '"', em dash -> "-",
        # soft hyphen dropped, whitespace runs -> one space, ends trimmed
        self.assertEqual(normalize("  \ufb01ne\u00a0 \u201cquote\u201d \u2014 x\u00adx\n\tend "),
                         'fine "quote" - xx end')
        self.assertEqual(normalize("Case Kept"), "Case Kept")

    def test_locate_maps_back_to_code_points(self):
        page = "ab  \ufb01ne\ncd"
        # normalized "ab fine cd", origins [0,1,2,4,4,5,6,7,8,9]
        self.assertEqual(locate(page, "fine  cd"), (4, 10))
        self.assertEqual(page[4:10], "\ufb01ne\ncd")
        self.assertEqual(locate(page, "fin"), (4, 6))
        self.assertEqual(locate(page, "fi"), (4, 5))
        self.assertIsNone(locate(page, "fine dc"))
        self.assertIsNone(locate(page, "   "))
        # an astral code point is one offset (JavaScript counts it the same way, Array.from)
        self.assertEqual(locate("x\U0001d400y", "\U0001d400"), (1, 2))

    def test_nontrivial(self):
        self.assertFalse(is_nontrivial("abc"))
        self.assertTrue(is_nontrivial("abcd"))
        self.assertFalse(is_nontrivial("...."))
        self.assertFalse(is_nontrivial("  a  "))
        self.assertTrue(is_nontrivial("1 Usage"))


class Sampling(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = load_release(setup.EXAMPLE)

    def test_strata_counted_by_hand(self):
        # data/example/qrels.jsonl: n=2 queries q1 q3 q5 q6, n=3 queries q2 q4
        everything = allocate(self.release, 300)
        self.assertEqual(everything, {
            (S, 2, "gold"): 6,                      # q1/d01 q3/d09 q5/d11 q5/d12 q6/d11 q6/d12
            (S, 2, "subset:1"): 6,                  # q1/d02 d10 d11, q3/d01 d10, q6/d03
            (S, 2, "subset:2:single_page"): 1,      # q1/d03
            (S, 3, "gold"): 3,                      # q2/d04 d05, q4/d10
            (S, 3, "subset:1"): 5,                  # q2/d07, q4/d01 d02 d03 d12
            (S, 3, "subset:2"): 2,                  # q2/d06, q4/d11
            (S, 3, "subset:3:distinct_page"): 1})   # q2/d08

    def test_allocation_n10(self):
        # gold 5 over caps (6, 3): 2 each, the remaining 1 to the first stratum (n=2);
        # subset 5 over five strata: 1 each
        self.assertEqual(allocate(self.release, 10), {
            (S, 2, "gold"): 3, (S, 3, "gold"): 2, (S, 2, "subset:1"): 1, (S, 2, "subset:2:single_page"): 1,
            (S, 3, "subset:1"): 1, (S, 3, "subset:2"): 1, (S, 3, "subset:3:distinct_page"): 1})

    def test_allocation_gold_shortfall(self):
        # n=20: gold wants 10, has 9 -> subset 11 over caps (6, 1, 5, 2, 1): 2 each (8 given,
        # two strata capped at 1), the remaining 3 over the two open strata: 1 each, then 1 to the
        # first in sorted order (n=2, subset:1)
        alloc = allocate(self.release, 20)
        self.assertEqual((alloc[(S, 2, "gold")], alloc[(S, 3, "gold")]), (6, 3))
        self.assertEqual([alloc[(S, 2, "subset:1")], alloc[(S, 2, "subset:2:single_page")], alloc[(S, 3, "subset:1")],
                          alloc[(S, 3, "subset:2")], alloc[(S, 3, "subset:3:distinct_page")]], [4, 1, 3, 2, 1])

    def test_allocate_equal(self):
        self.assertEqual(allocate_equal({"a": 1, "b": 5, "c": 5}, 7), {"a": 1, "b": 3, "c": 3})
        self.assertEqual(allocate_equal({"a": 1, "b": 5, "c": 5}, 8), {"a": 1, "b": 4, "c": 3})
        self.assertEqual(allocate_equal({"a": 1, "b": 2}, 10), {"a": 1, "b": 2})

    def test_draw_is_seeded_and_shaped(self):
        pairs = draw_sample(self.release, 10, 7)
        self.assertEqual(pairs, draw_sample(self.release, 10, 7))
        self.assertNotEqual(pairs, draw_sample(self.release, 10, 8))
        self.assertEqual(sample_table_rows(self.release, pairs), [(S, 10, 5, 5), ("All", 10, 5, 5)])
        with self.assertRaises(NclueError):
            allocate(self.release, 0)


class RubricsAndPools(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release, cls.rubrics, cls.cids, cls.pages = setup.example_inputs()

    def test_example_rubric(self):
        ack = self.rubrics.conditions["section:acknowledgements"]
        self.assertEqual(ack.titles[0], "Acknowledgements")
        self.assertIn("Thanks", ack.titles)
        self.assertEqual(self.rubrics.heading_key("3 Acknowledgments"), "acknowledgements")
        self.assertNotEqual(self.rubrics.heading_key("2 Bibliography ........ 6"), "bibliography")
        tikz = self.rubrics.conditions["entity:TikZ"]
        self.assertTrue(self.rubrics.holds_on(tikz, "drawn with TikZ.", []))
        self.assertFalse(self.rubrics.holds_on(tikz, "\\usetikzlibrary{x} tikz-cd", []))
        self.assertFalse(self.rubrics.holds_on(tikz, "drawn with TikZ.", ["toc"]))
        self.assertEqual(self.cids["q2"], ("section:bibliography", "entity:PGF", "entity:hyperref"))
        for name in ("requirement", "note"):
            self.assertTrue(getattr(tikz, name))
        self.assertTrue(tikz.counts and tikz.does_not_count)

    def test_v1_rubric_from_the_construction_record(self):
        rubrics = load_rubrics(ROOT / "provenance" / "construction_v1.json")
        refs = rubrics.conditions["section:references"]
        self.assertTrue({"bibliography", "literature", "works cited"} <= set(refs.titles))
        self.assertTrue(rubrics.page_gates)
        self.assertEqual(rubrics.excluded_page_flags, frozenset({"empty", "garbage", "index", "toc"}))

    def test_a_condition_without_rubric_is_refused(self):
        tmp = Path(tempfile.mkdtemp())
        try:
            data = read_json(setup.EXAMPLE / "rubric.json")
            data["conditions"] = [c for c in data["conditions"] if c["name"] != "PGF"]
            (tmp / "rubric.json").write_text(json.dumps(data))
            from nclue.label_audit.rubric import query_condition_ids
            with self.assertRaises(InputError) as caught:
                query_condition_ids(self.release, load_rubrics(tmp / "rubric.json"))
            self.assertIn("'PGF' has no rubric", str(caught.exception))
        finally:
            shutil.rmtree(tmp)

    def test_example_text_matches_its_inventory(self):
        # the exact route re-finds every evidence page set of the example, and nothing else
        indexes = {d: index_document(self.pages[d], self.rubrics) for d in self.pages}
        for qid, judged in self.release.judgments.items():
            for docid in self.release.corpus:
                for i, cid in enumerate(self.cids[qid]):
                    found = exact_pages(self.rubrics.conditions[cid], self.rubrics, indexes[docid])
                    expected = list(self.release.evidence[(qid, docid)][i]) if docid in judged else []
                    self.assertEqual(found, expected, (qid, docid, cid))

    def test_routes_on_a_toc_trap(self):
        # d06 page 1 is a table of contents listing "2 Bibliography ........ 6": fuzzy finds it,
        # the exact (heading) rule does not
        doc = index_document(self.pages["d06"], self.rubrics)
        bib = self.rubrics.conditions["section:bibliography"]
        self.assertEqual(exact_pages(bib, self.rubrics, doc), [6])
        self.assertEqual(fuzzy_pages(bib, doc), [1, 6])

    def test_round_robin_pool(self):
        pages = self.pages["d10"]  # 11 pages, none flagged
        routes = {"construction": [5], "exact": [5, 7], "bm25": [7, 2, 9], "fuzzy": [2]}
        shown, membership = build_pool(routes, ("construction", "exact", "bm25", "fuzzy"), 3, pages, "s")
        # round 0: construction 5, exact 5 (taken), bm25 7, fuzzy 2
        self.assertEqual(shown, [2, 5, 7])
        self.assertEqual(membership, {2: ["fuzzy", "bm25"], 5: ["construction", "exact"], 7: ["exact", "bm25"]})
        shown, membership = build_pool(routes, ("construction", "exact", "bm25", "fuzzy"), 5, pages, "s")
        # round 1 adds nothing new, round 2 adds bm25's 9, then one seeded fill page
        self.assertEqual(len(shown), 5)
        self.assertTrue({2, 5, 7, 9} < set(shown))
        (extra,) = set(shown) - {2, 5, 7, 9}
        self.assertEqual(membership[extra], ["fill"])
        self.assertEqual(build_pool(routes, ("construction",), 5, pages, "s"),
                         build_pool(routes, ("construction",), 5, pages, "s"))
        # the order the pool takes pages in (ranks): 5, 7, 2 in round 0, 9 in round 2, then fill
        ranked, filled = ranked_pool(routes, ("construction", "exact", "bm25", "fuzzy"), 5, pages, "s")
        self.assertEqual(ranked[:4], [5, 7, 2, 9])
        self.assertEqual(filled, frozenset(ranked[4:]))


class PolicyRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.policy = load_policy()

    def test_first_pass_cases(self):
        yes = lambda *p: Response(True, tuple(p))  # noqa: E731
        no = Response(False, ())
        d = first_pass_decision(self.policy, False, [yes(3), yes(5)])
        self.assertEqual((d.positive, d.status, d.rule, d.pages), (True, "accepted", "first_pass.both_positive", (3, 5)))
        d = first_pass_decision(self.policy, False, [no, no])
        self.assertEqual((d.positive, d.status), (False, "accepted"))
        d = first_pass_decision(self.policy, True, [no, no])   # three pages cannot prove absence
        self.assertEqual((d.positive, d.status, d.rule), (True, "adjudicate", "first_pass.both_negative_construction_positive"))
        d = first_pass_decision(self.policy, False, [yes(2), no])
        self.assertEqual((d.status, d.rule), ("adjudicate", "first_pass.split"))
        with self.assertRaises(NclueError):
            first_pass_decision(self.policy, False, [no])

    def test_adjudication_cases(self):
        t, f = Response(True, (4,)), Response(False, ())
        cases = [([t, t, f], True, "adjudicated"), ([f, f, t], False, "adjudicated"), ([t, f], True, "retained"),
                 ([t], False, "retained"), ([f, f], False, "adjudicated"), ([t, t, f, f], False, "retained")]
        for responses, construction, status in cases[:2] + cases[4:5]:
            d = adjudication_decision(self.policy, not construction, responses)
            self.assertEqual((d.positive, d.status), (construction, status), responses)
        d = adjudication_decision(self.policy, True, [t, f])         # 1-1: the construction is kept
        self.assertEqual((d.positive, d.status), (True, "retained"))
        d = adjudication_decision(self.policy, False, [t])           # one quote is not two
        self.assertEqual((d.positive, d.status), (False, "retained"))
        d = adjudication_decision(self.policy, True, [t, t, f, f])
        self.assertEqual((d.positive, d.status), (True, "retained"))

    def test_page_sets(self):
        accepted = first_pass_decision(self.policy, True, [Response(True, (3,)), Response(True, (4,))])
        self.assertEqual(page_set(self.policy, (2,), accepted), (2,))          # construction kept
        self.assertEqual(page_set(replace(self.policy, evidence_pages="union"), (2,), accepted), (2, 3, 4))
        new = first_pass_decision(self.policy, False, [Response(True, (3,)), Response(True, (4,))])
        self.assertEqual(page_set(self.policy, (), new), (3, 4))
        gone = adjudication_decision(self.policy, True, [Response(False, ())] * 2)
        self.assertEqual(page_set(self.policy, (2,), gone), ())

    def test_policy_file_is_strict_and_fixed(self):
        tmp = Path(tempfile.mkdtemp())
        try:
            data = read_json(ROOT / "audit" / "label_audit" / "repair_policy_v1.json")
            for field, value in (("split", "accept_majority"), ("responses", 3)):
                bad = copy.deepcopy(data)
                bad["first_pass"][field] = value
                (tmp / "p.json").write_text(json.dumps(bad))
                with self.assertRaises(InputError) as caught:
                    load_policy(tmp / "p.json")
                self.assertIn(field, str(caught.exception))
            with self.assertRaises(InputError):
                check_recorded(self.policy, {"sha256": "0" * 64, "policy": "x", "version": 1}, "key.json")
            check_recorded(self.policy, self.policy.ref(), "key.json")
        finally:
            shutil.rmtree(tmp)


class GatesAndRepairFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = load_release(setup.EXAMPLE)

    def test_released_golds_pass_both_gates(self):
        self.assertEqual(gold_gate_problems(self.release, True), [])

    def test_a_single_page_gold_is_caught(self):
        evidence = dict(self.release.evidence)
        evidence[("q1", "d01")] = ((2,), (2,))
        self.assertEqual(gold_gate_problems(replace(self.release, evidence=evidence), True),
                         ["(q1, d01): gold fails the single-page gate"])
        evidence[("q2", "d04")] = ((1,), (1, 4), (4,))   # no page in all three, no SDR of 3 pages
        self.assertIn("(q2, d04): gold fails the distinct-page gate",
                      gold_gate_problems(replace(self.release, evidence=evidence), True))

    def test_empty_repair_reproduces_the_released_files(self):
        same = apply_repair(self.release, [], "none")
        self.assertEqual(file_bytes(qrels_rows(same), False), (setup.EXAMPLE / "qrels.jsonl").read_bytes())
        self.assertEqual(file_bytes(evidence_rows(same), False), (setup.EXAMPLE / "evidence.jsonl").read_bytes())

    def test_repair_on_the_wrong_base_is_refused(self):
        row = {"qid": "q1", "docid": "d02", "line": 1, "before": ((2, "subset", None), ((1,), (5,))),
               "after": ((2, "gold", None), ((1,), (5,)))}
        with self.assertRaises(InputError) as caught:
            apply_repair(self.release, [row], "r.jsonl")
        self.assertIn("does not match", str(caught.exception))
        row["before"] = ((1, "subset", None), ((1,), ()))
        repaired = apply_repair(self.release, [row], "r.jsonl")
        self.assertTrue(repaired.judgments["q1"]["d02"].is_gold)
        self.assertFalse(self.release.judgments["q1"]["d02"].is_gold)   # the base is not modified


class ExportValidation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-exports-"))
        cls.key, _, cls.packet, cls.html = setup.first_stage(cls.tmp)
        cls.good = fx.export(cls.packet, "FIXTURE-A", fx.construction_answers(cls.key))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def check(self, data, fragment):
        path = self.tmp / "e.json"
        path.write_text(json.dumps(data))
        with self.assertRaises(InputError) as caught:
            ex.read_export(path, self.packet)
        self.assertIn(fragment, str(caught.exception))
        self.assertTrue(str(caught.exception).startswith(str(path)))

    def positive(self, data):
        for item in data["items"]:
            for c in item["conditions"]:
                if c["evidence"]:
                    return item, c
        raise AssertionError

    def test_good_export(self):
        path = self.tmp / "good.json"
        path.write_text(json.dumps(self.good))
        export = ex.read_export(path, self.packet)
        self.assertEqual(len(export.answers), 24)
        self.assertEqual(export.quotes_checked, 41)   # one quote per construction positive (sum of clues)

    def test_gate_failures(self):
        d = copy.deepcopy(self.good)
        d["packet_sha256"] = "f" * 64
        self.check(d, "exported from another packet")
        d = copy.deepcopy(self.good)
        d["items"][0]["conditions"][0]["answer"] = None
        self.check(d, "accepted item with an unanswered condition")
        d = copy.deepcopy(self.good)
        _, c = self.positive(d)
        c["evidence"] = []
        self.check(d, "a 'yes' answer needs at least one page")
        d = copy.deepcopy(self.good)
        item, c = self.positive(d)
        no = next(x for i in d["items"] for x in i["conditions"] if x["answer"] == "no")
        no["evidence"] = copy.deepcopy(c["evidence"])
        self.check(d, "a 'no' answer must have no page and no quote")
        d = copy.deepcopy(self.good)
        _, c = self.positive(d)
        c["evidence"][0]["page"] = 999
        self.check(d, "is not among the displayed pages")
        d = copy.deepcopy(self.good)
        _, c = self.positive(d)
        c["evidence"][0]["end"] = 10 ** 6
        self.check(d, "outside the page text")
        d = copy.deepcopy(self.good)
        _, c = self.positive(d)
        c["evidence"][0]["sha256"] = "0" * 64
        self.check(d, "sha256 differs")
        d = copy.deepcopy(self.good)
        item_id, c = self.positive(d)
        e = c["evidence"][0]
        text = self.packet.pages[self.packet.item(item_id["item"]).document][e["page"]]
        e["start"], e["end"] = 0, 3
        e["quote"] = text[0:3]
        e["sha256"] = fx.text_sha256(e["quote"])
        self.check(d, "the quote is trivial")
        d = copy.deepcopy(self.good)
        d["items"].append(copy.deepcopy(d["items"][0]))
        self.check(d, "item listed twice")
        d = copy.deepcopy(self.good)
        d["evaluator_id"] = "no spaces allowed"
        self.check(d, "evaluator_id")
        d = copy.deepcopy(self.good)
        d["items"][0]["request_clear"] = None
        self.check(d, "accepted item without an answer to 'is the request clear?'")
        d = copy.deepcopy(self.good)
        d["items"][0]["request_clear"] = "yes"
        self.check(d, "'request_clear' must be true, false or null")

    def test_unaccepted_items_are_not_completed(self):
        d = copy.deepcopy(self.good)
        d["items"][0]["accepted"] = False
        d["items"][0]["accepted_at"] = None
        d["items"][0]["conditions"][0]["evidence"] = [{"page": 1, "quote": "draft", "start": None, "end": None,
                                                       "sha256": None, "ticked": True}]
        path = self.tmp / "partial.json"
        path.write_text(json.dumps(d))
        export = ex.read_export(path, self.packet)
        self.assertEqual(len(export.answers), 23)
        self.assertNotIn(d["items"][0]["item"], export.answers)

    def test_two_exports_one_evaluator(self):
        a, b = self.tmp / "a.json", self.tmp / "b.json"
        a.write_text(json.dumps(self.good))
        b.write_text(json.dumps(self.good))
        with self.assertRaises(InputError):
            ex.read_exports([a, b], self.packet)
        other = dict(self.good, evaluator_id="FIXTURE-B")
        b.write_text(json.dumps(other))
        exports = ex.read_exports([a, b], self.packet)
        self.assertEqual(ex.identical_streams(exports), [("FIXTURE-A", "FIXTURE-B")])


class PacketBlinding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-packet-"))
        cls.key, _, cls.packet, cls.html = setup.first_stage(cls.tmp)
        cls.text = cls.html.read_text(encoding="utf-8")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_no_private_field_and_nothing_external(self):
        lowered = self.text.lower()
        for word in ("gold", "subset", "construction", "stratum", "route", "bm25", "fuzzy", "hand-made",
                     "control", "grade"):
            self.assertFalse(word in lowered, word)
        block = re.search(r'id="nclue-packet-data">(.*?)</script>', self.text, re.S).group(1)
        for word in ("target", "contrast", "seed"):
            self.assertFalse(word in block.lower(), word)
        data = json.loads(block)
        keys = set()

        def walk(value, under_pages=False):
            if isinstance(value, dict):
                for k, v in value.items():
                    if not under_pages:
                        keys.add(k)
                    walk(v, under_pages or k in ("pages", "typographic"))
            elif isinstance(value, list):
                for v in value:
                    walk(v, under_pages)

        walk(data)
        self.assertEqual(keys, {"packet", "sha256", "format", "version", "packet_id", "stage", "design", "title",
                                "instructions", "items", "item", "document", "request", "all_conditions",
                                "conditions", "index", "name", "requirement", "counts", "does_not_count", "note",
                                "pages", "quote_rules", "whitespace", "typographic", "punctuation", "min_chars"})
        for it in self.key.items:
            self.assertFalse(f'"{it.qid}"' in self.text or f'"{it.docid}"' in self.text, it.item)
        # no external resource of any kind: no src/href attribute, stylesheet link, import or url()
        self.assertIsNone(re.search(r"<(link|img|iframe|object|embed|base)\b|\bsrc\s*=|@import", self.text, re.I))
        self.assertIsNone(re.search(r"\burl\(|fetch\(|XMLHttpRequest|WebSocket|EventSource", self.text))
        self.assertIn("default-src 'none'", self.text)
        self.assertEqual(self.text.count("<script"), 2)  # the data block and the inline script

    def test_sha256_is_recomputed_and_tampering_refused(self):
        self.assertEqual(read_packet_html(self.html).sha256, self.packet.sha256)
        page = next(iter(next(iter(self.packet.pages.values())).values()))
        word = page.split()[2]
        tampered = self.tmp / "tampered.html"
        tampered.write_text(self.text.replace(word, word.upper(), 1), encoding="utf-8")
        with self.assertRaises(InputError):
            read_packet_html(tampered)

    def test_displayed_pages_are_the_key_pools(self):
        key_items = {it.item: it for it in self.key.items}
        for item in self.packet.items:
            for c in item.conditions:
                pool = [p.page for p in key_items[item.item].conditions[c.index].pool]
                self.assertEqual(list(c.pages), pool)
                self.assertEqual(len(c.pages), 3)


class ReportSection(unittest.TestCase):
    ROWS = [
        {"stratum": "gold", "construction": {"clues": 2, "label": "gold", "gate": None},
         "recheck": {"clues": 1, "label": "subset", "gate": None},
         "conditions": [{"condition_id": "entity:X", "construction": True, "recheck": True, "on_construction_page": True},
                        {"condition_id": "section:y", "construction": True, "recheck": False}]},
        {"stratum": "partial", "construction": {"clues": 1, "label": "subset", "gate": None},
         "recheck": {"clues": 1, "label": "subset", "gate": None},
         "conditions": [{"condition_id": "entity:Z", "construction": False, "recheck": False},
                        {"condition_id": "section:y", "construction": True, "recheck": True,
                         "on_construction_page": False}]},
    ]
    POLICY = {"policy": "p", "version": 1, "sha256": "ab" * 32, "file": "p.json"}

    def test_hand_counts(self):
        section = label_audit_section("test", self.ROWS, self.POLICY)
        status, mech = section.tables
        self.assertEqual({k: v["value"] for k, _, v in status.rows},
                         {"evaluator_exports": 0, "repairs": 0, "policy_version": 1})
        cells = {k: v for k, _, v in mech.rows}
        # conditions a = (T, T, F, T), b = (T, F, F, T): 3/4; p_e = (1*2 + 3*2)/16 = 1/2 -> kappa 1/2
        self.assertEqual((cells["conditions"]["agree"], cells["conditions"]["n"]), (3, 4))
        self.assertAlmostEqual(cells["conditions"]["kappa"], 0.5)
        self.assertEqual((cells["conditions_entity"]["agree"], cells["conditions_entity"]["n"]), (2, 2))
        self.assertEqual((cells["conditions_section"]["agree"], cells["conditions_section"]["n"]), (1, 2))
        self.assertEqual((cells["exact_grade"]["agree"], cells["exact_grade"]["n"]), (1, 2))
        self.assertEqual((cells["quote_on_construction_page"]["agree"], cells["quote_on_construction_page"]["n"]), (1, 3))
        self.assertIn("No external audit has been imported for test", section.paragraphs[0])
        self.assertIn("3/4 (75.0%", section.paragraphs[1])
        self.assertIn("What it does not show", section.paragraphs[2])
        later = label_audit_section("test", self.ROWS, self.POLICY, exports=2, repairs=["r1"])
        self.assertIn("2 evaluator export(s)", later.paragraphs[0])

    def test_v1_matches_the_committed_summary(self):
        rows = [o for _, o in iter_jsonl(ROOT / "audit" / "quote_audit_v1.jsonl")]
        summary = read_json(ROOT / "audit" / "quote_audit_v1_summary.json")
        cells = {k: v for k, _, v in label_audit_section("v1", rows, self.POLICY).tables[1].rows}
        self.assertEqual((cells["conditions"]["agree"], cells["conditions"]["n"]),
                         (summary["conditions"]["agree"], summary["conditions"]["n"]))
        self.assertEqual(round(cells["conditions"]["kappa"], 4), summary["conditions"]["cohen_kappa"])
        self.assertEqual(round(cells["exact_grade"]["kappa"], 4), summary["exact_grade"]["cohen_kappa"])
        self.assertEqual(round(cells["clue_count"]["kappa"], 4), summary["clue_count_weighted_kappa_linear"])
        self.assertEqual((cells["quote_on_construction_page"]["agree"], cells["quote_on_construction_page"]["n"]),
                         (summary["construction_positive_on_quote_page"]["hits"],
                          summary["construction_positive_on_quote_page"]["positives"]))


if __name__ == "__main__":
    unittest.main()
