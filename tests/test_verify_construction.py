"""The independent verifier (nclue.instrument.verify) on hand-made cases and on the fixture
release of tests/construction_fixture.py, including deliberately corrupted copies."""

import json
import os
import tempfile
import unittest
from pathlib import Path

from tests import construction_fixture as fx
from nclue.formats import iter_jsonl, write_jsonl_atomic
from nclue.instrument import sections
from nclue.instrument.config import from_dict
from nclue.instrument.construction import construct
from nclue.instrument.inputs import read_build
from nclue.instrument.release_writer import write_release
from nclue.instrument.verify import (brute_distinct_pages, derive_support, brute_single_page, expected_label,
                                     mentions, title_key, verify_release)


class NormalizationTest(unittest.TestCase):
    # Expected keys worked out by hand from the rule in nclue/instrument/sections.py.
    CASES = {
        "Chapter 3: Options": "options",
        "SECTION IV. Fonts": "fonts",
        "\u00a7 2.1 Scope": "scope",
        "\u00a72.1. Scope": "scope",
        "(a) First steps": "first steps",
        "A.1. Known  bugs": "known bugs",
        "IV) Fonts": "fonts",
        "2.3. Tables & Figures": "tables and figures",
        "Part Civil War": "part civil war",      # Civil is no upper-case Roman numeral
        "Appendix A\u2014Examples": "appendix a examples",  # glued dash: no enumerator word
        "3.2x Foo": "3 2x foo",                   # 3.2x is no enumerator word
        "1 2 3 Go": "go",                         # repeated enumerators
        "Appendix A.1 Tools": "appendix a 1 tools",
        "Ｆｕｌｌｗｉｄｔｈ": "fullwidth",              # NFKC
        "Über_uns": "über uns",                   # underscore is not kept
    }

    def test_both_code_paths_give_the_hand_keys(self):
        for title, key in self.CASES.items():
            self.assertEqual(title_key(title), key, title)
            self.assertEqual(sections.title_key(title), key, title)

    def test_mentions(self):
        self.assertTrue(mentions("see ConTeXt.", "ConTeXt"))
        self.assertTrue(mentions("TeX-based", "TeX"))
        self.assertFalse(mentions("pdfTeX and TeXs and TeX_x", "TeX"))
        self.assertTrue(mentions("pdfTeX and TeXs and TeX", "TeX"))  # the last one counts
        self.assertFalse(mentions("context", "ConTeXt"))
        self.assertFalse(mentions("éTeX", "TeX"))  # a non-ASCII letter is a word character

    def test_brute_force_gates(self):
        self.assertTrue(brute_single_page([(1, 2), (2, 3)]))
        self.assertFalse(brute_single_page([(1,), (2,)]))
        self.assertFalse(brute_distinct_pages([(1,), (2,), (1, 2)]))
        self.assertTrue(brute_distinct_pages([(1, 2), (1,), (2, 3)]))
        self.assertEqual(expected_label([(1,), (2,), (1, 2)], True), (3, "subset", "distinct_page"))
        self.assertEqual(expected_label([(5,), (5,)], True), (2, "subset", "single_page"))
        self.assertEqual(expected_label([(5,), (5,)], False), (2, "gold", None))
        self.assertEqual(expected_label([(), (5,)], True), (1, "subset", None))


class VariantTest(unittest.TestCase):
    def test_recorded_spellings_are_all_matched(self):
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_build(tmp, docs={"x": ["BibTEX here", "ConTeXt"], "y": ["BibTeX"],
                                      "z": ["CONTEXT and context", "ConTEXt"]}, flags={("z", 1): ["toc"]},
                           outlines={"y": [("2 Bibliography", 1, 1)], "z": [("References", 1, 1)]})
            record = {"conditions": [
                {"id": "entity:BibTeX", "kind": "entity", "name": "BibTeX", "variants": ["BibTEX", "BibTeX"]},
                {"id": "entity:ConTeXt", "kind": "entity", "name": "ConTeXt", "variants": ["ConTeXt"]},
                {"id": "section:references", "kind": "section", "name": "References"}],
                "config": {"excluded_page_flags": ["toc"]}, "section_aliases": {"bibliography": "references"},
                "excluded_section_keys": [], "section_max_words": 6}
            support = derive_support(Path(tmp), record)
            # ConTEXt on z p2 is not a recorded spelling here, so only x p2 counts.
            self.assertEqual(support, {"entity:BibTeX": {"x": (1,), "y": (1,)},
                                       "entity:ConTeXt": {"x": (2,)},
                                       "section:references": {"y": (1,)}})


class ReleaseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = os.path.join(self.tmp.name, "build")
        self.release = os.path.join(self.tmp.name, "release")
        self.prov = os.path.join(self.tmp.name, "prov")
        fx.write_build(self.build)
        inputs = read_build(self.build)
        write_release(construct(inputs, from_dict(fx.TEST_CONFIG)), inputs, self.release, self.prov)
        self.record = os.path.join(self.prov, "construction_v1.json")

    def tearDown(self):
        self.tmp.cleanup()

    def rows(self, name):
        return [obj for _, obj in iter_jsonl(os.path.join(self.release, name))]

    def test_clean_release_has_zero_disagreements(self):
        report = verify_release(self.build, self.release, self.record)
        self.assertEqual(report["problems"], [])
        # Hand totals of test_construction.FixtureTest.test_full_construction_statistics.
        self.assertEqual((report["gold"], report["subset"]), (14, 45))
        self.assertEqual(report["gate_failures"], {"single_page": 4, "distinct_page": 1})
        self.assertEqual((report["single_page_solvable_golds"], report["distinct_page_valid_golds"]), (0, 14))

    def test_corrupted_qrels_are_listed(self):
        qrels = self.rows("qrels.jsonl")
        gold = next(r for r in qrels if r["label"] == "gold")
        gold.update(label="subset", gate="single_page")  # a wrong demotion
        dropped = qrels.pop(next(i for i, r in enumerate(qrels) if r["clues"] == 1))
        write_jsonl_atomic(os.path.join(self.release, "qrels.jsonl"), qrels)
        report = verify_release(self.build, self.release, self.record)
        kinds = sorted(p["problem"] for p in report["problems"])
        # Expected problems: the demoted gold ("label differs"), the dropped row ("missing from
        # qrels"), and the statistics file: it still says 45 subsets while the verifier counts the
        # 44 judged subset rows it re-derived (gold stays 14, gate counts unchanged).
        self.assertIn("label differs", kinds)
        self.assertIn("missing from qrels", kinds)
        missing = [p for p in report["problems"] if p["problem"] == "missing from qrels"]
        self.assertEqual([(p["qid"], p["docid"]) for p in missing], [(dropped["qid"], dropped["docid"])])
        self.assertEqual(report["disagreements"], 3)

    def test_changed_page_text_is_detected(self):
        # Remove PostScript from dA page 3: every judged (query, dA) pair with PostScript changes.
        path = os.path.join(self.build, "pages.jsonl.gz")
        pages = [obj for _, obj in iter_jsonl(path)]
        for obj in pages:
            if obj["docid"] == "dA" and obj["page"] == 3:
                obj["text"] = "Output as Postscript files."
        write_jsonl_atomic(path, pages)
        report = verify_release(self.build, self.release, self.record)
        queries = {o["qid"]: o["condition_ids"] for o in self.rows("queries.jsonl")}
        with_p = {q for q, cids in queries.items() if "entity:PostScript" in cids}
        # Queries with PostScript: BP, PT, P-ack, P-ref, BPT, BP-ack, PT-ack (7). For each, dA's
        # qrel changes label (gold -> subset with fewer clues) and its evidence differs, except
        # P-ref where dA held only PostScript: dA leaves the union ("judged but holds no condition").
        affected = {p["qid"] for p in report["problems"] if p.get("docid") == "dA"}
        self.assertEqual(affected, with_p)
        self.assertEqual(len(with_p), 7)
        orphan = [p for p in report["problems"] if p["problem"] == "judged but holds no condition"]
        self.assertEqual(len(orphan), 1)

    def test_enumeration_caps_are_checked(self):
        # The fixture's dA is gold for 10 of the 12 queries; a recorded cap of 9 is violated once.
        with open(self.record) as handle:
            record = json.load(handle)
        record["config"]["max_gold_per_doc"] = 9
        record["config"]["max_holders"] = 2  # B&P, B&T, ... are held by more documents
        with open(self.record, "w") as handle:
            json.dump(record, handle)
        report = verify_release(self.build, self.release, self.record)
        problems = [p["problem"] for p in report["problems"]]
        self.assertIn("gold for 10 queries > max_gold_per_doc 9", problems)
        # All-condition holders per query (hand count in test_construction): BP 3 (dA, dB, dC),
        # BT 2, B-ack 2, B-ref 2, PT 2, P-ack 1, P-ref 1, T-ack 1, BPT 2, others 1 -> only BP > 2.
        self.assertEqual(sum("max_holders 2" in p for p in problems), 1)

    def test_split_overlap_is_detected(self):
        queries = self.rows("queries.jsonl")
        leaked = dict(queries[0], qid="v1_train_0000")
        write_jsonl_atomic(os.path.join(self.release, "train_queries.jsonl"), [leaked])
        report = verify_release(self.build, self.release, self.record)
        n_pairs = len(queries[0]["condition_ids"]) * (len(queries[0]["condition_ids"]) - 1) // 2
        self.assertEqual(report["disagreements"], n_pairs)


if __name__ == "__main__":
    unittest.main()


class CommandTest(unittest.TestCase):
    def test_build_and_verify_commands(self):
        import contextlib
        import io

        from nclue.cli import main
        with tempfile.TemporaryDirectory() as tmp:
            build = os.path.join(tmp, "build")
            fx.write_build(build)
            config = os.path.join(tmp, "config.json")
            with open(config, "w") as out:
                json.dump(fx.TEST_CONFIG, out)
            out_dir, prov = os.path.join(tmp, "rel"), os.path.join(tmp, "prov")
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(main(["build", "--input", build, "--out", out_dir,
                                       "--provenance", prov, "--config", config]), 0)
                record = os.path.join(prov, "construction_v1.json")
                audit = os.path.join(tmp, "audit", "qa.jsonl")
                self.assertEqual(main(["verify-construction", "--input", build, "--release", out_dir,
                                       "--provenance", record, "--quote-audit", audit]), 0)
                self.assertTrue(os.path.exists(os.path.join(tmp, "audit", "qa_summary.json")))
                # A wrong label: exit status 1.
                rows = [obj for _, obj in iter_jsonl(os.path.join(out_dir, "qrels.jsonl"))]
                rows[0]["clues"] = 2 if rows[0]["clues"] == 1 else 1
                rows[0].pop("gate", None)
                rows[0]["label"] = "subset"
                write_jsonl_atomic(os.path.join(out_dir, "qrels.jsonl"), rows)
                self.assertEqual(main(["verify-construction", "--input", build, "--release", out_dir,
                                       "--provenance", record]), 1)
                # Missing input: exit status 2 with the file named.
                self.assertEqual(main(["build", "--input", os.path.join(tmp, "nope"), "--out", out_dir,
                                       "--provenance", prov]), 2)
                # A bad configuration field: exit status 2.
                with open(config, "w") as out:
                    json.dump({"min_df": "many"}, out)
                self.assertEqual(main(["build", "--input", build, "--out", out_dir,
                                       "--provenance", prov, "--config", config]), 2)
            self.assertIn("nope/documents.jsonl: file not found", err.getvalue())
            self.assertIn("'min_df' must be int", err.getvalue())
