"""Controls (oracle, single-page floor, prior, masking) and the ``nclue retrieve``/``fuse`` CLI."""

import contextlib
import gzip
import io
import json
import math
import tempfile
import unittest
from pathlib import Path

from nclue.cli import main
from nclue.formats import sha256_file
from nclue.release import render_forms
from nclue.retrieval import controls
from nclue.retrieval.bm25 import LexicalIndex

CORPUS = {"d1": ["apple banana", "apple"], "d2": ["banana cherry cherry"],
          "d3": ["cherry", "date date date", ""]}


class ControlsTest(unittest.TestCase):
    def test_oracle_ranks_golds_first(self):
        judged = {"s2": (1, False), "g1": (2, True), "s1": (2, False), "g0": (2, True)}
        # gold = clues + 1 = 3 (g0, g1 by docid), gate-failed all-condition subset 2, then 1
        hits = controls.fact_oracle(judged)
        self.assertEqual([(h.docid, h.score) for h in hits],
                         [("g0", 3.0), ("g1", 3.0), ("s1", 2.0), ("s2", 1.0)])
        self.assertEqual(len(controls.fact_oracle(judged, depth=2)), 2)

    def test_single_page_floor(self):
        index = LexicalIndex.from_pages(CORPUS, 1.2, 0.75)
        # banana and cherry share d2's only page -> d2 scores; d1 (banana p1, no cherry) does not
        hits = controls.single_page_floor(index, "banana cherry", ["banana", "cherry"])
        self.assertEqual([h.docid for h in hits], ["d2"])
        # page level (N 5, avgdl 2): banana df 2 and cherry df 2 -> idf ln 2.4 each; d2p1 (len 3,
        # K 1.65): ln2.4 * (1/2.65 + 2/3.65)
        self.assertAlmostEqual(hits[0].score, math.log(2.4) * (1 / 2.65 + 2 / 3.65), places=12)
        # apple and date are never on one page: the floor retrieves nothing
        self.assertEqual(controls.single_page_floor(index, "apple date", ["apple", "date"]), [])

    def test_single_page_fact_floor(self):
        # g: pages 2 / 19 / 60, no common page (a gold) -> unranked.
        # s: {4,5} & {5} & {5,9} = {5} -> 1.  t: {1} & {1,2} = {1} -> 1.  u: {3,4} & {3,4} -> 2.
        evidence = {"g": [[2], [19], [60]], "s": [[4, 5], [5], [5, 9]], "t": [[1], [1, 2]],
                    "u": [[3, 4], [3, 4]]}
        hits = controls.single_page_fact_floor(evidence)
        self.assertEqual([(h.docid, h.score) for h in hits], [("u", 2.0), ("s", 1.0), ("t", 1.0)])
        self.assertEqual(hits[0].pages, ((3, 1.0), (4, 1.0)))

    def test_condition_frequency_prior(self):
        index = LexicalIndex.from_pages(CORPUS, 1.2, 0.75)
        # conditions "apple banana" (d1), "cherry" (d2, d3), "date" (d3): d3 2, d1 1, d2 1
        prior = controls.condition_frequency_prior(index, ["apple banana", "cherry", "date",
                                                           "cherry"])
        named = {index.collection.docids[d]: v for d, v in prior.items()}
        self.assertEqual(named, {"d1": 1.0, "d2": 1.0, "d3": 2.0})
        ranked = controls.prior_ranking(index, prior)
        self.assertEqual([h.docid for h in ranked], ["d3", "d1", "d2"])

    def test_mask(self):
        self.assertEqual(controls.mask_condition(("a", "b", "c"), 2), ("a", "c"))
        self.assertEqual(controls.mask_condition(("a", "b"), 3), ("a", "b"))
        with self.assertRaises(ValueError):
            controls.mask_condition(("a", "b"), 0)


def write_release(folder: Path, corpus_pages=None):
    queries = [("q1", ["apple", "banana"]), ("q2", ["cherry", "date", "apple"])]
    with open(folder / "queries.jsonl", "w") as out:
        for qid, conds in queries:
            out.write(json.dumps({"qid": qid, "conditions": conds,
                                  "forms": render_forms(tuple(conds))}) + "\n")
    pages = corpus_pages or {"d1": 2, "d2": 1, "d3": 3}
    with open(folder / "corpus.jsonl", "w") as out:
        for docid, n in pages.items():
            out.write(json.dumps({"docid": docid, "pages": n, "source": "test",
                                  "sha256": "0" * 64}) + "\n")
    with open(folder / "qrels.jsonl", "w") as out:
        for row in ({"qid": "q1", "docid": "d1", "clues": 2, "label": "gold"},
                    {"qid": "q1", "docid": "d2", "clues": 1, "label": "subset"},
                    {"qid": "q2", "docid": "d3", "clues": 2, "label": "subset"}):
            out.write(json.dumps(row) + "\n")
    with gzip.open(folder / "pages.jsonl.gz", "wt") as out:
        for docid, texts in CORPUS.items():
            for number, text in enumerate(texts, start=1):
                out.write(json.dumps({"docid": docid, "page": number, "text": text}) + "\n")


def read_run(path):
    with gzip.open(path, "rt") as handle:
        return {row["qid"]: row for row in map(json.loads, handle)}


def quiet(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


class RowTest(unittest.TestCase):
    def test_page_depth_and_rounding(self):
        from nclue.retrieval.production import hits_row
        from nclue.retrieval.bm25 import Hit
        hits = [Hit(f"d{i:02d}", 1.0 / (i + 3), ((1, 2.0 / 3.0),)) for i in range(25)]
        row = hits_row("q", hits, page_depth=20)
        self.assertEqual(len(row["docs"]), 25)
        self.assertEqual(sorted(row["pages"]), [f"d{i:02d}" for i in range(20)])
        # 1/3 and 2/3 to 6 significant digits
        self.assertEqual(row["scores"][0], 0.333333)
        self.assertEqual(row["pages"]["d00"], [[1, 0.666667]])
        self.assertNotIn("pages", hits_row("q", hits, page_depth=0))


class CommandTest(unittest.TestCase):
    def test_retrieve_plan_and_fuse(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_release(folder)
            plan = folder / "plan.json"
            plan.write_text(json.dumps({"runs": [
                {"id": "sdr", "method": "bm25-sdr", "form": "clean"},
                {"id": "oracle", "method": "oracle", "form": "clean"},
                {"id": "rr", "method": "bm25-cond-rr", "form": "clean"},
                {"id": "or_drop1", "method": "bm25-or", "form": "clean", "drop": 1,
                 "base": "or"}]}))
            code, err = quiet(["retrieve", "--release", tmp, "--pages",
                               str(folder / "pages.jsonl.gz"), "--k1", "1.2", "--b", "0.75",
                               "--plan", str(plan)])
            self.assertEqual(code, 0, err)
            sdr = read_run(folder / "runs" / "sdr.jsonl.gz")
            # q1 = apple, banana: only d1 has a distinct-page assignment (see test_retrieval_sdr);
            # S = ln2.4/2.2 = 0.397944... written with 6 significant digits
            self.assertEqual(sdr["q1"]["docs"], ["d1"])
            self.assertEqual(sdr["q1"]["scores"], [float(f"{math.log(2.4) / 2.2:.6g}")])
            self.assertEqual([p for p, _ in sdr["q1"]["pages"]["d1"]], [2, 1])
            # q2 = cherry, date, apple: no document holds all three
            self.assertEqual(sdr["q2"]["docs"], [])
            oracle = read_run(folder / "runs" / "oracle.jsonl.gz")
            self.assertEqual(oracle["q1"]["docs"], ["d1", "d2"])
            # round robin of the condition lists: apple -> [d1]; banana -> [d1, d2] (equal
            # document scores ln1.6/2.11, docid order). Round 1: d1, d1 (dup); round 2: d2.
            rr = read_run(folder / "runs" / "rr.jsonl.gz")
            self.assertEqual((rr["q1"]["docs"], rr["q1"]["scores"]), (["d1", "d2"], [1.0, 0.5]))
            masked = read_run(folder / "runs" / "or_drop1.jsonl.gz")
            # q1 without "apple" is the query "banana": d1 and d2 (dl 3 each, tf 1) tie, docid
            self.assertEqual(masked["q1"]["docs"], ["d1", "d2"])
            index = json.loads((folder / "runs" / "index.json").read_text())
            entries = {e["id"]: e for e in index["runs"]}
            self.assertEqual(sorted(entries), ["or_drop1", "oracle", "rr", "sdr"])
            self.assertTrue(entries["oracle"]["privileged"])
            self.assertEqual(entries["or_drop1"]["configuration"]["drop_condition"], 1)
            self.assertEqual(entries["or_drop1"]["base"], "or")
            self.assertEqual(entries["sdr"]["sha256"], sha256_file(folder / "runs" / "sdr.jsonl.gz"))
            self.assertEqual(entries["sdr"]["inputs"]["pages"],
                             sha256_file(folder / "pages.jsonl.gz"))
            self.assertEqual(entries["oracle"]["inputs"]["qrels"],
                             sha256_file(folder / "qrels.jsonl"))
            # a fair system's entry names only what it read (never the qrels)
            self.assertEqual(sorted(entries["sdr"]["inputs"]), ["pages", "queries"])
            self.assertEqual(sorted(entries["oracle"]["inputs"]), ["qrels", "queries"])
            # deterministic: the same plan gives byte-identical files
            before = sha256_file(folder / "runs" / "sdr.jsonl.gz")
            quiet(["retrieve", "--release", tmp, "--pages", str(folder / "pages.jsonl.gz"),
                   "--k1", "1.2", "--b", "0.75", "--plan", str(plan)])
            self.assertEqual(sha256_file(folder / "runs" / "sdr.jsonl.gz"), before)

            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code, err = quiet(["fuse", "--release", tmp, "--inputs", "oracle", "sdr",
                                   "--method", "rrf", "--id", "fused", "--json"])
            self.assertEqual(code, 0, err)
            self.assertEqual(json.loads(out.getvalue())["id"], "fused")
            fused = read_run(folder / "runs" / "fused.jsonl.gz")
            # q1: d1 = 1/61 + 1/61, d2 = 1/62
            self.assertEqual(fused["q1"]["docs"], ["d1", "d2"])
            self.assertEqual(fused["q1"]["scores"], [float(f"{2 / 61:.6g}"),
                                                     float(f"{1 / 62:.6g}")])
            entries = {e["id"]: e for e in
                       json.loads((folder / "runs" / "index.json").read_text())["runs"]}
            self.assertEqual(entries["fused"]["configuration"]["inputs"], ["oracle", "sdr"])
            self.assertEqual(entries["fused"]["inputs"]["sdr"],
                             sha256_file(folder / "runs" / "sdr.jsonl.gz"))

    def test_bad_inputs(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_release(folder, corpus_pages={"d1": 3, "d2": 1, "d3": 3})
            out = folder / "runs" / "x.jsonl.gz"
            code, err = quiet(["retrieve", "--release", tmp, "--pages",
                               str(folder / "pages.jsonl.gz"), "--method", "bm25-or",
                               "--out", str(out)])
            self.assertEqual(code, 2)
            self.assertIn("'d1' has 2 pages here but 3", err)
            self.assertFalse(out.exists())
            plan = folder / "plan.json"
            plan.write_text(json.dumps({"runs": [{"id": "y", "method": "bm25-xor",
                                                  "form": "clean"}]}))
            code, err = quiet(["retrieve", "--release", tmp, "--plan", str(plan)])
            self.assertEqual(code, 2)
            self.assertIn("unknown method 'bm25-xor'", err)
            self.assertFalse((folder / "runs" / "y.jsonl.gz").exists())
            # a bad form in the second run stops the plan before the first is written
            plan.write_text(json.dumps({"runs": [
                {"id": "ok", "method": "bm25-or", "form": "clean"},
                {"id": "bad", "method": "bm25-or", "form": "shouting"}]}))
            code, err = quiet(["retrieve", "--release", tmp, "--plan", str(plan)])
            self.assertEqual(code, 2)
            self.assertIn("unknown form 'shouting'", err)
            self.assertFalse((folder / "runs" / "ok.jsonl.gz").exists())
            code, err = quiet(["retrieve", "--release", tmp, "--method", "oracle",
                               "--out", str(out), "--depth", "0"])
            self.assertEqual((code, "--depth: must be >= 1" in err), (2, True))


if __name__ == "__main__":
    unittest.main()
