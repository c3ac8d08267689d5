"""Exports for other engines (nclue.exports, `nclue export`, `nclue export-trec --grades`).

Expected outputs are written by hand from data/example/qrels.jsonl and queries.jsonl.
"""

import gzip
import hashlib
import io
import json
import math
import shutil
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from nclue.cli import main
from nclue.exports import (qids_by_topic_number, qrels_text, split_page_id, page_id, topic_numbers,
                           topics_tsv)
from nclue.formats import dumps_canonical
from nclue.metrics import evaluate
from nclue.release import load_release
from nclue.runs import load_run, read_trec_qrels

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"

# data/example/qrels.jsonl, sorted by qid then docid: (qid, docid, clues, gold?)
#   q1: d01 gold 2 | d02 1 | d03 2 (gate single_page) | d10 1 | d11 1
#   q2: d04 gold 3 | d05 gold 3 | d06 2 | d07 1 | d08 3 (gate distinct_page)
#   q3: d01 1 | d09 gold 2 | d10 1
#   q4: d01 1 | d02 1 | d03 1 | d10 gold 3 | d11 2 | d12 1
#   q5: d11 gold 2 | d12 gold 2
#   q6: d03 1 | d11 gold 2 | d12 gold 2
GOLD_QRELS = """\
q1 0 d01 1
q1 0 d02 0
q1 0 d03 0
q1 0 d10 0
q1 0 d11 0
q2 0 d04 1
q2 0 d05 1
q2 0 d06 0
q2 0 d07 0
q2 0 d08 0
q3 0 d01 0
q3 0 d09 1
q3 0 d10 0
q4 0 d01 0
q4 0 d02 0
q4 0 d03 0
q4 0 d10 1
q4 0 d11 0
q4 0 d12 0
q5 0 d11 1
q5 0 d12 1
q6 0 d03 0
q6 0 d11 1
q6 0 d12 1
"""
# labels: clue count + 1 for a gold. The gate-failed all-condition subsets (q1 d03: 2 of 2,
# q2 d08: 3 of 3) stay one below their query's golds (3 and 4).
LABEL_QRELS = """\
q1 0 d01 3
q1 0 d02 1
q1 0 d03 2
q1 0 d10 1
q1 0 d11 1
q2 0 d04 4
q2 0 d05 4
q2 0 d06 2
q2 0 d07 1
q2 0 d08 3
q3 0 d01 1
q3 0 d09 3
q3 0 d10 1
q4 0 d01 1
q4 0 d02 1
q4 0 d03 1
q4 0 d10 4
q4 0 d11 2
q4 0 d12 1
q5 0 d11 3
q5 0 d12 3
q6 0 d03 1
q6 0 d11 3
q6 0 d12 3
"""
CLEAN_TOPICS = """\
q1\t"Acknowledgements"; "TikZ"
q2\t"Bibliography"; "PGF"; "hyperref"
q3\t"Index"; "beamer"
q4\t"Introduction"; "TikZ"; "babel"
q5\t"Examples"; "fontspec"
q6\t"Examples"; "microtype"
"""


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def trec_eval_like(qrels, run, k):
    """trec_eval's ndcg_cut.k and success.k from its definitions: ranking by score descending,
    ties by docid descending; gain = grade; ideal from the qrels' positive grades; mean over the
    qrels' queries, an absent query scoring 0 (trec_eval -c)."""
    ndcg, success = [], []
    for qid in sorted(qrels):
        ranking = run.rankings.get(qid)
        pairs = sorted(zip(ranking.docs, ranking.scores), key=lambda p: p[0], reverse=True) if ranking else []
        pairs.sort(key=lambda p: -p[1])
        top = [d for d, _ in pairs[:k]]
        gains = [qrels[qid].get(d, 0) for d in top]
        dcg = sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))
        ideal_gains = sorted((g for g in qrels[qid].values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal_gains, start=1))
        ndcg.append(dcg / idcg if idcg else 0.0)
        success.append(1.0 if any(gains) else 0.0)
    return 100 * sum(ndcg) / len(ndcg), 100 * sum(success) / len(success)


class Qrels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.release = load_release(EXAMPLE)

    def test_gold_and_label_grades(self):
        self.assertEqual(qrels_text(self.release, "gold"), GOLD_QRELS)
        self.assertEqual(qrels_text(self.release, "labels"), LABEL_QRELS)

    def test_clue_grades_are_todays_export(self):
        lines = qrels_text(self.release, "clues").splitlines()
        self.assertEqual(len(lines), 24)
        self.assertIn("q1 0 d03 2", lines)  # gate-failed subset: the gold's grade
        self.assertIn("q2 0 d08 3", lines)

    def test_gold_qrels_reproduce_gold_ndcg_and_gold_hit(self):
        # With gold-only binary grades, trec_eval's ndcg_cut.10 / success.10 (docid-descending
        # ties) are Gold-NDCG@10 / Gold Hit@10 under nclue's trec_eval tie rule.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "gold.qrels"
            self.assertEqual(run_cli("export-trec", "--release", str(EXAMPLE), "--grades", "gold",
                                     "--out", str(path))[0], 0)
            self.assertEqual(path.read_text(), GOLD_QRELS)
            qrels = read_trec_qrels(path)
            qrels = {q: qrels.get(q, {}) for q in self.release.queries}
        for name in ("example_lexical", "example_dense", "example_pages"):
            run = load_run(EXAMPLE / "runs" / f"{name}.jsonl.gz", self.release, ties="trec_eval")
            ndcg, success = trec_eval_like(qrels, run, 10)
            scores = evaluate(self.release, run, 10)
            self.assertAlmostEqual(scores["gold_ndcg@10"], ndcg, places=12)
            self.assertAlmostEqual(scores["gold_hit@10"], success, places=12)

    def test_unknown_scheme_is_refused(self):
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as caught:
            main(["export-trec", "--release", str(EXAMPLE), "--grades", "binary", "--out", "x"])
        self.assertEqual(caught.exception.code, 2)  # argparse: invalid choice


class Topics(unittest.TestCase):
    def test_tsv_clean(self):
        self.assertEqual(topics_tsv(load_release(EXAMPLE), "clean"), CLEAN_TOPICS)

    def test_trec_topics(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "topics.trec"
            code, _, _ = run_cli("export", "topics", "--release", str(EXAMPLE), "--format", "trec",
                                 "--form", "raw", "--out", str(out))
            self.assertEqual(code, 0)
            text = out.read_text()
        self.assertEqual(text.count("<top>"), 6)
        # q1..q6 are not integers: the topic number is the position in qid order
        self.assertTrue(text.startswith(
            "<top>\n<num> Number: 1\n<title> Acknowledgements, TikZ\n\n<desc> Description:\n"
            "Find the document that discusses \"Acknowledgements\" and \"TikZ\".\n\n"
            "<narr> Narrative:\nA relevant document supports every condition, on distinct pages: "
            "Acknowledgements; TikZ.\n</top>\n\n<top>\n<num> Number: 2\n"))


def anserini_trec_keys(text):
    """What Anserini's TrecTopicReader keys a topic by, from its documented behaviour (the
    digits of the text after 'Number:', read as a Java int; bench/anserini_topics.py checks the
    real reader): 'v1_0000' -> 10000."""
    keys = []
    for line in text.splitlines():
        if line.startswith("<num>"):
            digits = "".join(ch for ch in line.split(":", 1)[1] if ch.isdigit())
            keys.append(int(digits))
    return keys


class TopicNumbers(unittest.TestCase):
    """TREC topic numbers: integers that Anserini reads back unchanged, mapped back to qids."""

    def test_rule(self):
        self.assertEqual(topic_numbers(["q2", "q10", "q1"]), {"q1": 1, "q10": 2, "q2": 3})
        self.assertEqual(topic_numbers(["v1_0001", "v1_0000"]), {"v1_0000": 1, "v1_0001": 2})
        # plain integers are their own numbers (trec_eval's test topics)
        self.assertEqual(topic_numbers(["303", "301", "302"]), {"301": 301, "302": 302, "303": 303})
        # a leading zero, a sign or a number past Java's int: positions
        self.assertEqual(topic_numbers(["7", "08"]), {"08": 1, "7": 2})
        self.assertEqual(topic_numbers(["1", "2147483648"]), {"1": 1, "2147483648": 2})
        self.assertEqual(topic_numbers(["1", "2147483647"]), {"1": 1, "2147483647": 2147483647})
        self.assertEqual(qids_by_topic_number(["q2", "q1"]), {"1": "q1", "2": "q2"})

    def test_anserini_keys_are_the_numbers(self):
        release = load_release(EXAMPLE)
        with tempfile.TemporaryDirectory() as tmp:
            for fmt in ("trec", "numbers"):
                code, _, _ = run_cli("export", "topics", "--release", str(EXAMPLE), "--format",
                                     fmt, "--out", str(Path(tmp) / fmt))
                self.assertEqual(code, 0)
            trec = (Path(tmp) / "trec").read_text()
            numbers = (Path(tmp) / "numbers").read_text()
        self.assertEqual(numbers, "1\tq1\n2\tq2\n3\tq3\n4\tq4\n5\tq5\n6\tq6\n")
        self.assertEqual(anserini_trec_keys(trec), [1, 2, 3, 4, 5, 6])
        # the old form, the qid in <num>: Anserini's keys were not the qids (v1_0000 -> 10000)
        self.assertEqual(anserini_trec_keys("<num> Number: v1_0000\n<num> Number: v1_0415\n"),
                         [10000, 10415])
        self.assertEqual(len(release.queries), 6)

    def write_numbered_run(self, folder, release):
        """The example's lexical run as an engine writes it from the TREC topics: qid column =
        topic number (q1 -> 1, ..., q6 -> 6), one line per ranked document."""
        run = load_run(EXAMPLE / "runs" / "example_lexical.jsonl.gz", release)
        lines = []
        for qid in sorted(run.rankings):
            ranking = run.rankings[qid]
            for rank, (docid, score) in enumerate(zip(ranking.docs, ranking.scores), start=1):
                lines.append(f"{qid[1:]} Q0 {docid} {rank} {score!r} engine\n")
        path = Path(folder) / "numbered.trec"
        path.write_text("".join(lines))
        return path

    def test_score_and_import_with_topic_numbers(self):
        release = load_release(EXAMPLE)
        with tempfile.TemporaryDirectory() as tmp:
            numbered = self.write_numbered_run(tmp, release)
            code, out, _ = run_cli("score", str(numbered), "--release", str(EXAMPLE), "--json",
                                   "--topic-numbers")
            self.assertEqual(code, 0)
            mine = json.loads(out)
            code, out, _ = run_cli("score", str(EXAMPLE / "runs" / "example_lexical.jsonl.gz"),
                                   "--release", str(EXAMPLE), "--json")
            frozen = json.loads(out)
            for key in ("run", "queries_in_run"):
                mine.pop(key), frozen.pop(key)
            self.assertEqual(mine, frozen)
            self.assertEqual(mine["nclue_score@10"], 50.0)  # tests/test_example_release.py
            target = Path(tmp) / "imported.jsonl"
            code, _, _ = run_cli("import-trec", str(numbered), "--release", str(EXAMPLE),
                                 "--topic-numbers", "--out", str(target))
            self.assertEqual(code, 0)
            rows = {row["qid"]: row["docs"] for row in map(json.loads, target.read_text().splitlines())}
            lexical = load_run(EXAMPLE / "runs" / "example_lexical.jsonl.gz", release)
            self.assertEqual(rows, {q: list(r.docs) for q, r in lexical.rankings.items()})

    def test_refusals(self):
        release = load_release(EXAMPLE)
        with tempfile.TemporaryDirectory() as tmp:
            numbered = self.write_numbered_run(tmp, release)
            # without --topic-numbers: unknown qid, with the hint
            code, _, err = run_cli("score", str(numbered), "--release", str(EXAMPLE))
            self.assertEqual(code, 2)
            self.assertIn("numbered.trec:1: unknown qid '1' (a TREC topic number?", err)
            # a number the release does not have
            bad = Path(tmp) / "seven.trec"
            bad.write_text("1 Q0 d01 1 2.0 x\n7 Q0 d01 1 2.0 x\n")
            code, _, err = run_cli("score", str(bad), "--release", str(EXAMPLE), "--topic-numbers")
            self.assertEqual(code, 2)
            self.assertIn("seven.trec:2: qid '7' is not a topic number of the release "
                          "(its TREC topics are numbered 1..6", err)
            # a JSONL run carries the release's qids
            code, _, err = run_cli("score", str(EXAMPLE / "runs" / "example_lexical.jsonl.gz"),
                                   "--release", str(EXAMPLE), "--topic-numbers")
            self.assertEqual(code, 2)
            self.assertIn("topic numbers apply to TREC runs", err)
            self.assertEqual(len(err.strip().splitlines()), 1)


class Collection(unittest.TestCase):
    """Synthetic page text for the example corpus: page n of dXX reads 'dXX page n'."""

    def write_pages(self, folder, release, skip=None):
        lines = []
        for docid in sorted(release.corpus):
            for n in range(1, release.corpus[docid].pages + 1):
                if (docid, n) != skip:
                    lines.append(dumps_canonical({"docid": docid, "flags": [], "page": n,
                                                  "text": f"{docid} page {n}"}) + "\n")
        lines.append(dumps_canonical({"docid": "elsewhere", "page": 1, "text": "not in the release"}) + "\n")
        path = Path(folder) / "pages.jsonl.gz"
        path.write_bytes(gzip.compress("".join(lines).encode("utf-8")))
        return path

    def test_collection_rows(self):
        release = load_release(EXAMPLE)
        with tempfile.TemporaryDirectory() as tmp:
            pages = self.write_pages(tmp, release)
            code, _, err = run_cli("export", "collection", "--release", str(EXAMPLE), "--pages",
                                   str(pages), "--out", str(Path(tmp) / "out"))
            self.assertEqual(code, 0, err)
            page_rows = [json.loads(l) for l in (Path(tmp) / "out/pages/pages.jsonl").read_text(encoding="utf-8").splitlines()]
            doc_rows = [json.loads(l) for l in (Path(tmp) / "out/documents/documents.jsonl").read_text(encoding="utf-8").splitlines()]
        self.assertEqual(len(page_rows), 167)  # the example corpus has 167 pages
        self.assertEqual(page_rows[0], {"id": "d01#1", "contents": "d01 page 1"})
        self.assertEqual(page_rows[12], {"id": "d02#1", "contents": "d02 page 1"})  # d01 has 12 pages
        self.assertEqual([r["id"] for r in doc_rows], [f"d{i:02d}" for i in range(1, 13)])
        # d02 has 8 pages, joined by a blank line
        self.assertEqual(doc_rows[1]["contents"], "\n\n".join(f"d02 page {n}" for n in range(1, 9)))

    def test_missing_page_is_refused(self):
        release = load_release(EXAMPLE)
        with tempfile.TemporaryDirectory() as tmp:
            pages = self.write_pages(tmp, release, skip=("d02", 3))
            code, _, err = run_cli("export", "collection", "--release", str(EXAMPLE), "--pages",
                                   str(pages), "--out", str(Path(tmp) / "out"))
            self.assertEqual(code, 2)
            errors = [line for line in err.splitlines() if line.startswith("nclue:")]
            self.assertEqual(len(errors), 1, err)  # one line (after the progress line)
            self.assertIn("'d02'", errors[0])
            self.assertIn("pages.jsonl.gz", errors[0])
            self.assertFalse((Path(tmp) / "out" / "pages" / "pages.jsonl").exists())

    def test_text_hash_is_checked(self):
        with tempfile.TemporaryDirectory() as tmp:
            rel = Path(tmp) / "rel"
            shutil.copytree(EXAMPLE, rel)
            release = load_release(rel)
            pages = self.write_pages(tmp, release)
            # d01's text_sha256: sha256 of its 12 canonical page lines
            digest = hashlib.sha256("".join(
                dumps_canonical({"docid": "d01", "flags": [], "page": n, "text": f"d01 page {n}"}) + "\n"
                for n in range(1, 13)).encode("utf-8")).hexdigest()
            rows = [json.loads(l) for l in (rel / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
            rows[0]["text_sha256"] = digest
            (rel / "corpus.jsonl").write_text("".join(dumps_canonical(r) + "\n" for r in rows))
            args = ("export", "collection", "--release", str(rel), "--pages", str(pages),
                    "--unit", "documents", "--out", str(Path(tmp) / "out"))
            self.assertEqual(run_cli(*args)[0], 0)
            rows[0]["text_sha256"] = "0" * 64
            (rel / "corpus.jsonl").write_text("".join(dumps_canonical(r) + "\n" for r in rows))
            code, _, err = run_cli(*args)
            self.assertEqual(code, 2)
            self.assertIn("text_sha256", err)

    def test_page_ids(self):
        self.assertEqual(page_id("tl:a.b", 7), "tl:a.b#7")
        self.assertEqual(split_page_id("tl:a.b#7"), ("tl:a.b", 7))
        self.assertEqual(split_page_id("tl:a.b"), ("tl:a.b", None))


if __name__ == "__main__":
    unittest.main()
