"""Construction on hand-made page sets (tests/construction_fixture.py); every expected value is
worked out by hand in the comments (n-Clue paper, sec. 3.2 and supplement 1.1)."""

import os
import tempfile
import unittest
from itertools import combinations

from tests import construction_fixture as fx
from nclue.errors import InputError
from nclue.formats import iter_jsonl, read_json
from nclue.instrument import entities, gates, sections
from nclue.instrument.config import from_dict, preset
from nclue.instrument.construction import construct, qrels_for
from nclue.instrument.enumeration import enumerate_candidates
from nclue.instrument.inputs import read_build
from nclue.instrument.inventory import build_inventory
from nclue.instrument.release_writer import write_release
from nclue.instrument.stats import instrument_stats
from nclue.release import load_release

B, P, T = "entity:BibTeX", "entity:PostScript", "entity:TikZ"
ACK, REF = "section:acknowledgements", "section:references"


class GateTest(unittest.TestCase):
    def test_same_page_all_condition_document_is_single_page_subset(self):
        # Both conditions only on page 2: intersection {2} nonempty.
        self.assertEqual(gates.judge([(2,), (2,)]), gates.Judgment(2, "subset", "single_page"))
        # A shared page fails the gate even when a distinct assignment (1, 2) also exists.
        self.assertEqual(gates.judge([(1, 2), (2,)]), gates.Judgment(2, "subset", "single_page"))

    def test_hall_failure_with_every_pair_assignable(self):
        # c1 {1}, c2 {2}, c3 {1, 2}: intersection empty; each pair has distinct pages
        # ((1,2), (1,2), (2,1)) but three conditions share only two pages (Hall fails).
        sets = [(1,), (2,), (1, 2)]
        for pair in combinations(sets, 2):
            self.assertIsNotNone(gates.distinct_page_assignment(list(pair)))
        self.assertFalse(gates.single_page_solvable(sets))
        self.assertIsNone(gates.distinct_page_assignment(sets))
        self.assertEqual(gates.judge(sets), gates.Judgment(3, "subset", "distinct_page"))

    def test_gold_and_partial(self):
        # Needs the augmenting path: c1 {1, 2}, c2 {1}, c3 {2, 3} -> (2, 1, 3).
        self.assertEqual(gates.distinct_page_assignment([(1, 2), (1,), (2, 3)]), [2, 1, 3])
        self.assertEqual(gates.judge([(1, 2), (1,), (2, 3)]), gates.Judgment(3, "gold", None))
        self.assertEqual(gates.judge([(), (4,), (5,)]), gates.Judgment(2, "subset", None))
        self.assertIsNone(gates.judge([(), ()]))
        # Document level: all conditions present is gold, gates ignored.
        self.assertEqual(gates.judge([(2,), (2,)], page_gates=False), gates.Judgment(2, "gold", None))


class SectionTest(unittest.TestCase):
    def test_alias_merge_and_numbering(self):
        self.assertEqual(sections.canonical_key("Acknowledgments"), "acknowledgements")
        self.assertEqual(sections.canonical_key("3 Acknowledgements"), "acknowledgements")
        self.assertEqual(sections.canonical_key("Bibliography"), "references")
        self.assertEqual(sections.canonical_key("2.3.1 Package Options"), "options")  # alias
        self.assertEqual(sections.canonical_key("2.3.1 Package Macros"), "package macros")
        self.assertEqual(sections.canonical_key("Appendix A: Examples"), "examples")
        self.assertEqual(sections.canonical_key("A.2 Known bugs"), "known issues")
        self.assertEqual(sections.canonical_key("IV. Fonts & Encodings"), "fonts and encodings")
        self.assertEqual(sections.canonical_key("A Short Introduction"), "a short introduction")

    def test_not_sections(self):
        for title in ("Contents", "1.2", "Appendix B", "A", "One two three four five six seven",
                      "Symbols", "Index", "New in version 3.2", "Note"):
            self.assertIsNone(sections.canonical_key(title), title)

    def test_display_name(self):
        self.assertEqual(sections.display_name("acknowledgements", {"Acknowledgments": 9}),
                         "Acknowledgements")
        # Most frequent surface form; a tie goes to the smaller string ("Usage" < "usage").
        self.assertEqual(sections.display_name("usage", {"USAGE": 1, "Usage": 3, "usage": 3}), "Usage")


class EntityTest(unittest.TestCase):
    def test_shape_rule(self):
        self.assertEqual(entities.term_shape("ConTeXt"), "mixed")
        self.assertEqual(entities.term_shape("pdfTeX"), "mixed")
        self.assertEqual(entities.term_shape("PDF"), "acronym")
        self.assertEqual(entities.term_shape("UTF8"), "acronym")
        for token in ("context", "Knuth", "XIV", "A4", "TeX_x", "3D", "PDF-A", "Für"):
            self.assertIsNone(entities.term_shape(token), token)

    def test_whole_word_case_sensitive(self):
        words = entities.page_words("ConTeXt, pdfTeX and TeX-based; TeX_x TeXs context")
        self.assertIn("ConTeXt", words)
        self.assertIn("TeX", words)  # "TeX-based": hyphen is a boundary
        self.assertNotIn("Context", words)
        self.assertIn("context", words)  # the English word stays a different word
        self.assertEqual(sorted(w for w in words if w.startswith("TeX")), ["TeX", "TeX_x", "TeXs"])

    def test_vocabulary_selection(self):
        # 10 documents, min_df 2, max 0.5 * 10 = 5 documents.  BibTeX and BibTEX (small-capitals
        # logo) are one group held by 3 documents (one document has both spellings).
        word_df = {"PDF": 7, "CTAN": 5, "WARRANTY": 4, "Warranty": 1, "NOTE": 4, "Note": 3,
                   "BibTeX": 2, "BibTEX": 2, "Knuth": 6, "McLean": 2, "TikZ": 1, "pdfTeX": 2}
        group_df = {"PDF": 7, "CTAN": 5, "WARRANTY": 4, "NOTE": 4, "bibtex": 3, "mclean": 2,
                    "tikz": 1, "pdftex": 2}
        variant_df = {"PDF": {"PDF": 7}, "CTAN": {"CTAN": 5}, "WARRANTY": {"WARRANTY": 4},
                      "NOTE": {"NOTE": 4}, "bibtex": {"BibTeX": 2, "BibTEX": 2},
                      "mclean": {"McLean": 2}, "tikz": {"TikZ": 1}, "pdftex": {"pdfTeX": 2}}
        kept, rejected = entities.select_vocabulary(group_df, variant_df, word_df, 10, 2, 0.5, 0.25,
                                                    {"McLean": "person name"}, 3)
        # PDF df 7 > 5 (too common); TikZ df 1 < 2; NOTE: Note 3 >= 0.25*4; WARRANTY: Warranty
        # 1 >= 0.25*4 = 1 -> English word; McLean excluded by the table.  Remaining CTAN 5,
        # BibTeX 3 (shown without the TEX artefact), pdfTeX 2 -> all three fit max_terms 3.
        self.assertEqual([(t, n, v) for t, n, _, v in kept],
                         [("CTAN", 5, ("CTAN",)), ("BibTeX", 3, ("BibTEX", "BibTeX")),
                          ("pdfTeX", 2, ("pdfTeX",))])
        self.assertEqual(sorted(rejected), ["McLean", "NOTE", "WARRANTY"])
        kept2, rejected2 = entities.select_vocabulary(group_df, variant_df, word_df, 10, 2, 0.5,
                                                      0.25, {}, 2)
        self.assertEqual([t for t, _, _, _ in kept2], ["CTAN", "BibTeX"])
        self.assertIn("pdfTeX", rejected2)

    def test_groups_and_display(self):
        self.assertEqual(entities.group_key("ConTEXt"), "context")
        self.assertEqual(entities.group_key("CONTEXT"), "CONTEXT")  # acronyms are not merged
        self.assertEqual(entities.group_key("TEXT"), "TEXT")
        self.assertEqual(entities.group_key("XELATEX"), "xelatex")  # ... except TeX logos
        self.assertEqual(entities.group_key("LATEX3"), "latex3")
        self.assertIsNone(entities.group_key("context"))
        self.assertEqual(entities.display_variant({"MiKTeX": 2, "mikTEX": 9, "MiKTEX": 5}), "MiKTeX")
        self.assertEqual(entities.display_variant({"LATEX2e": 4, "LaTEX2e": 4}), "LATEX2e")

    def test_heading_on_index_page_does_not_count(self):
        with tempfile.TemporaryDirectory() as tmp:
            # x: a "Glossary" heading on page 2, flagged index; y: the same heading on a normal page.
            fx.write_build(tmp, docs={"x": ["Intro", "Glossary  \\foo . . 3"], "y": ["Glossary\nA table."]},
                           flags={("x", 2): ["index"]},
                           outlines={"x": [("Glossary", 2, 1)], "y": [("Glossary", 1, 1)]})
            inventory = build_inventory(read_build(tmp), from_dict({"entity_terms": ["TikZ"], "min_df": 1, "max_df_fraction": 1.0}))
            self.assertEqual(inventory.support["section:glossary"], {"y": (1,)})

    def test_variants_share_one_condition(self):
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_build(tmp, docs={"x": ["BibTEX here", "ConTeXt"], "y": ["BibTeX"],
                                      "z": ["CONTEXT and context", "ConTEXt"]}, flags={}, outlines={})
            config = from_dict({"entity_terms": ["BibTeX", "ConTeXt"], "min_df": 1})
            inventory = build_inventory(read_build(tmp), config)
            # BibTEX (x p1) and BibTeX (y p1); ConTeXt (x p2) and ConTEXt (z p2), not CONTEXT.
            self.assertEqual(inventory.support["entity:BibTeX"], {"x": (1,), "y": (1,)})
            self.assertEqual(inventory.support["entity:ConTeXt"], {"x": (2,), "z": (2,)})
            variants = {c.cid: c.variants for c in inventory.conditions}
            self.assertEqual(variants["entity:ConTeXt"], ("ConTEXt", "ConTeXt"))


class RedundancyTest(unittest.TestCase):
    def test_jaccard_twins_are_dropped(self):
        from nclue.instrument.inventory import Condition, drop_redundant
        support = {"entity:X": {f"d{i}": (1,) for i in range(10)},          # 10 documents
                   "entity:Y": {f"d{i}": (2,) for i in range(9)},           # 9 of them: J 0.9
                   "section:z": {f"d{i}": (3,) for i in range(5, 15)}}      # J with X 5/15
        conds = [Condition(c, c.split(":")[0], c, len(d)) for c, d in support.items()]
        kept, dropped = drop_redundant(conds, support, 0.8)
        self.assertEqual(sorted(c.cid for c in kept), ["entity:X", "section:z"])
        self.assertEqual(dropped, {"entity:Y": "document set Jaccard 0.900 with entity:X"})
        kept, dropped = drop_redundant(conds, support, 0.95)
        self.assertEqual(len(kept), 3)


class FixtureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.build = os.path.join(cls.tmp.name, "build")
        fx.write_build(cls.build)
        cls.inputs = read_build(cls.build)
        cls.config = from_dict(fx.TEST_CONFIG)
        cls.inventory = build_inventory(cls.inputs, cls.config)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_inventory_pages(self):
        support = self.inventory.support
        # introduction (dA only) and references... references has dB and dF: df 2 >= min_df 2.
        self.assertEqual(sorted(support), [B, P, T, ACK, REF])
        self.assertEqual(support[B], {"dA": (2,), "dB": (2,), "dC": (1,), "dE": (1,), "dF": (3,)})
        self.assertEqual(support[P], {"dA": (3,), "dB": (2,), "dC": (2,)})
        self.assertEqual(support[T], {"dA": (4,), "dC": (1, 2), "dD": (3,)})
        self.assertEqual(support[ACK], {"dA": (5,), "dE": (2,)})  # Acknowledgments merged
        self.assertEqual(support[REF], {"dB": (3,), "dF": (3,)})  # Bibliography merged
        names = {c.cid: c.name for c in self.inventory.conditions}
        self.assertEqual(names[ACK], "Acknowledgements")
        self.assertEqual(names[REF], "References")

    def test_exact_clue_counts(self):
        rows = {r.docid: r for r in qrels_for(self.inventory, "q", (B, P), True)}
        # dA {2},{3} gold; dB {2},{2} single_page; dC {1},{2} gold; dE, dF BibTeX only.
        self.assertEqual({d: (r.clues, r.label, r.gate) for d, r in rows.items()},
                         {"dA": (2, "gold", None), "dB": (2, "subset", "single_page"),
                          "dC": (2, "gold", None), "dE": (1, "subset", None),
                          "dF": (1, "subset", None)})
        rows = {r.docid: r for r in qrels_for(self.inventory, "q", (B, P, T), True)}
        # dC {1},{2},{1,2}: Hall fails; dB has B and P; dD has TikZ only.
        self.assertEqual({d: (r.clues, r.label, r.gate) for d, r in rows.items()},
                         {"dA": (3, "gold", None), "dB": (2, "subset", None),
                          "dC": (3, "subset", "distinct_page"), "dD": (1, "subset", None),
                          "dE": (1, "subset", None), "dF": (1, "subset", None)})
        self.assertEqual(rows["dC"].pages, ((1,), (2,), (1, 2)))
        rows = {r.docid: r for r in qrels_for(self.inventory, "q", (REF, B), True)}
        # dF: heading "Bibliography" and BibTeX on page 3 -> single_page; dB pages 3 and 2 -> gold.
        self.assertEqual((rows["dF"].label, rows["dF"].gate), ("subset", "single_page"))
        self.assertEqual((rows["dB"].label, rows["dB"].clues), ("gold", 2))

    def test_candidates(self):
        def is_gold(cids, docid):
            j = gates.judge(self.inventory.page_sets(cids, docid))
            return j is not None and j.label == "gold"
        pairs = enumerate_candidates(self.inventory, 2, 5, is_gold)
        # Worked out in the fixture: every pair except TikZ&References and the two sections.
        self.assertEqual({c.cids: c.golds for c in pairs}, {
            (B, P): ("dA", "dC"), (B, T): ("dA",), (B, ACK): ("dA", "dE"), (B, REF): ("dB",),
            (P, T): ("dA",), (P, ACK): ("dA",), (P, REF): ("dB",), (T, ACK): ("dA",)})
        triples = enumerate_candidates(self.inventory, 3, 5, is_gold)
        # B,P,References: dB {2},{2},{3} fails Hall -> no gold, not a candidate.
        self.assertEqual({c.cids: c.golds for c in triples}, {
            (B, P, T): ("dA",), (B, P, ACK): ("dA",), (B, T, ACK): ("dA",), (P, T, ACK): ("dA",)})
        # max_holders 2 drops B&P (held by dA, dB, dC).
        self.assertNotIn((B, P), {c.cids for c in enumerate_candidates(self.inventory, 2, 2, is_gold)})

    def test_full_construction_statistics(self):
        # n_queries 12, three_fraction 1/3 -> 4 triples, 8 pairs: every candidate is selected.
        c = construct(self.inputs, self.config)
        stats = instrument_stats(c, self.inputs)
        self.assertEqual(stats["queries_by_conditions"], {"2": 8, "3": 4})
        # Per query (gold, subset): BP 2/3, BT 1/5, B-ack 2/3, B-ref 1/4, PT 1/3, P-ack 1/3,
        # P-ref 1/3, T-ack 1/3, BPT 1/5, BP-ack 1/4, BT-ack 1/5, PT-ack 1/4 -> 14 / 45.
        self.assertEqual((stats["gold_qrels"], stats["subset_qrels"]), (14, 45))
        # single_page: BP dB, BT dC, B-ref dF, PT dC; distinct_page: BPT dC.
        self.assertEqual(stats["gate_failures"], {"single_page": 4, "distinct_page": 1})
        self.assertEqual(stats["subset_grades"], {"1": 33, "2": 11, "3": 1})
        self.assertEqual(stats["distinct_gold_documents"], 4)  # dA, dB, dC, dE
        self.assertEqual(stats["gold_qrels_by_source"], {"test": 14})
        self.assertEqual(stats["families"], 4)  # {A,C}, {A}, {A,E}, {B}
        self.assertEqual(stats["single_page_solvable_golds"], 0)
        self.assertEqual(stats["distinct_page_valid_golds"], 14)
        self.assertEqual((stats["documents"], stats["pages"]), (6, 20))
        # pages 5,3,4,3,2,3: mean 20/6, median 3, max 5.
        self.assertEqual(stats["pages_per_document"], {"mean": 3.3333, "median": 3.0, "max": 5})
        # shortest gold: 4,5,2,3,5,5,3,5,5,5,5,5 -> mean 52/12, median 5.
        self.assertEqual(stats["shortest_gold_pages"], {"mean": 4.3333, "median": 5.0, "max": 5})
        self.assertEqual(stats["max_queries_per_gold_document"], 10)  # dA

    def test_gold_cap(self):
        config = from_dict(dict(fx.TEST_CONFIG, max_gold_per_doc=2))
        c = construct(self.inputs, config)
        counts = {}
        for row in c.qrels:
            if row.label == "gold":
                counts[row.docid] = counts.get(row.docid, 0) + 1
        self.assertLessEqual(max(counts.values()), 2)
        # dA is a gold of 10 candidates (6 pairs, 4 triples): exactly 2 of them are chosen; the
        # two candidates without dA (B-ref, P-ref, gold dB) are both chosen -> 4 queries.
        self.assertEqual(len(c.queries), 4)

    def test_release_files_load_and_rebuild_identically(self):
        out1 = os.path.join(self.tmp.name, "r1")
        out2 = os.path.join(self.tmp.name, "r2")
        prov1 = os.path.join(self.tmp.name, "p1")
        prov2 = os.path.join(self.tmp.name, "p2")
        write_release(construct(read_build(self.build), self.config), self.inputs, out1, prov1)
        write_release(construct(read_build(self.build), self.config), self.inputs, out2, prov2)
        for name in sorted(os.listdir(out1)):
            with open(os.path.join(out1, name), "rb") as a, open(os.path.join(out2, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        with open(os.path.join(prov1, "construction_v1.json"), "rb") as a, \
                open(os.path.join(prov2, "construction_v1.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        release = load_release(out1)
        self.assertEqual(len(release.queries), 12)
        families = [obj for _, obj in iter_jsonl(os.path.join(out1, "families.jsonl"))]
        self.assertEqual(sorted(sorted(f["golds"]) for f in families),
                         [["dA"], ["dA", "dC"], ["dA", "dE"], ["dB"]])
        self.assertEqual(sum(len(f["qids"]) for f in families), 12)
        # The family of the query BibTeX & PostScript is {dA, dC} alone.
        queries = {obj["qid"]: obj for _, obj in iter_jsonl(os.path.join(out1, "queries.jsonl"))}
        bp = [q for q, obj in queries.items() if sorted(obj["condition_ids"]) == [B, P]][0]
        fam = [f for f in families if bp in f["qids"]][0]
        self.assertEqual((fam["golds"], fam["qids"]), (["dA", "dC"], [bp]))
        stats = read_json(os.path.join(out1, "instrument_stats.json"))
        self.assertEqual(stats["gold_qrels"], 14)
        corpus = [obj for _, obj in iter_jsonl(os.path.join(out1, "corpus.jsonl"))]
        self.assertFalse(any("text" in row for row in corpus))

    def test_forms(self):
        c = construct(self.inputs, self.config)
        for q in c.queries:
            if len(q.names) == 2:
                self.assertEqual(q.forms["natural"],
                                 f'Find the document that discusses "{q.names[0]}" and "{q.names[1]}".')
                self.assertEqual(q.forms["clean"], f'"{q.names[0]}"; "{q.names[1]}"')
                self.assertEqual(q.forms["raw"], f"{q.names[0]}, {q.names[1]}")

    def test_extra_splits_share_no_condition_pair(self):
        config = from_dict(dict(fx.TEST_CONFIG, n_queries=3, three_fraction=0.0, n_val=2, n_train=3))
        c = construct(self.inputs, config)
        owners = {}
        for split, queries in [("test", c.queries)] + sorted(c.extra.items()):
            for q in queries:
                for pair in combinations(sorted(q.cids), 2):
                    self.assertEqual(owners.setdefault(pair, split), split, (pair, split))
        self.assertEqual(len(c.queries), 3)


class BadInputTest(unittest.TestCase):
    def test_missing_page_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            docs = {"d1": ["a", "b"]}
            fx.write_build(tmp, docs=docs, flags={}, outlines={})
            # Rewrite documents.jsonl claiming 3 pages.
            with open(os.path.join(tmp, "documents.jsonl"), "w") as out:
                out.write('{"docid":"d1","pages":3,"source":"s","sha256":"%s"}\n' % ("0" * 64))
            with self.assertRaises(InputError) as ctx:
                read_build(tmp)
            self.assertIn("lacks pages [3]", str(ctx.exception))
            self.assertIn("pages.jsonl.gz", str(ctx.exception))

    def test_no_candidate_is_a_clear_error(self):
        from nclue.errors import NclueError
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_build(tmp, docs={"x": ["BibTeX"], "y": ["TikZ"]}, flags={}, outlines={})
            config = from_dict({"entity_terms": ["BibTeX", "TikZ"], "min_df": 1, "max_df_fraction": 1.0})
            with self.assertRaises(NclueError) as ctx:
                construct(read_build(tmp), config)  # BibTeX and TikZ never share a document
            self.assertIn("no rare conjunction", str(ctx.exception))

    def test_bad_config(self):
        with self.assertRaises(InputError):
            from_dict({"min_df": "3"})
        with self.assertRaises(InputError):
            from_dict({"nonsense": 1})
        with self.assertRaises(InputError):
            preset("v9")
        self.assertFalse(preset("v2").page_gates)


if __name__ == "__main__":
    unittest.main()
