"""The qrels reader's canonical-block fast path (nclue.release._CANONICAL_QRELS) must give exactly
what the general path (the JSON parser and ``_add_judgment`` line by line) gives, on every line
form, including the ones it must not take, and the same error for every broken rule."""

import os
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.formats import iter_jsonl
from nclue.release import (_CANONICAL_QRELS, Document, Query, _add_judgment, load_corpus,
                           load_qrels, load_queries)
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent

QUERIES = {q: Query(q, ("a", "b"), {}) for q in ("q1", "q2", "v1_0007")}
QUERIES["q3"] = Query("q3", ("a", "b", "c"), {})
CORPUS = {d: Document(d, 5, "s", "0" * 64) for d in ("d1", "d2", "d3", "tl:a.b.c", "\u00e9t\u00e9", "aA")}

LINES = [
    '{"clues":2,"docid":"d1","label":"gold","qid":"q1"}',            # canonical: fast path
    '{"clues":1,"docid":"tl:a.b.c","label":"subset","qid":"v1_0007"}',
    '{"clues":2,"docid":"\u00e9t\u00e9","label":"gold","qid":"q2"}',  # non-ASCII, no escape
    '{"clues":1,"docid":"a\\u0041","label":"subset","qid":"q2"}',     # escape: JSON parser
    '{"clues": 1, "docid": "d2", "label": "subset", "qid": "q1"}',   # spaces: JSON parser
    '{"clues":3,"docid":"d1","gate":"distinct_page","label":"subset","qid":"q3"}',
    '{"qid":"q3","docid":"d2","clues":1,"label":"subset"}',         # other key order
    '{"clues":2,"docid":"d3","label":"gold","qid":"q","qid":"q2"}',  # duplicate key: last wins
    '   ',                                                          # blank: skipped
]
CANONICAL = [True, True, True, False, False, True, False, False, False]
BAD_SYNTAX = [
    '{"clues":01,"docid":"d3","label":"gold","qid":"q1"}',  # leading zero: not JSON
    '{"clues":1,"docid":"a\tb","label":"gold","qid":"q1"}',  # raw control character
    '{"clues":1,"docid":"d3","label":"gold","qid":"q1"',    # truncated
    '[1, 2]',
]
BAD_RULES = [  # canonical lines that break a rule: the fast path must hand them to the rules
    '{"clues":2,"docid":"d3","label":"gold","qid":"nope"}',     # unknown qid
    '{"clues":2,"docid":"nope","label":"gold","qid":"q1"}',     # unknown docid
    '{"clues":3,"docid":"d3","label":"gold","qid":"q1"}',       # clues above n
    '{"clues":1,"docid":"d3","label":"gold","qid":"q1"}',       # gold without every condition
    '{"clues":2,"docid":"d3","label":"subset","qid":"q1"}',     # all-condition subset, no gate
    '{"clues":2,"docid":"d1","label":"gold","qid":"q1"}',       # duplicate of line 1
    '{"clues":1,"docid":"d3","gate":"single_page","label":"subset","qid":"q1"}',  # gate, clues < n
    '{"clues":2,"docid":"d3","gate":"single_page","label":"gold","qid":"q1"}',    # gated gold
]


def _write(tmp: str, name: str, text: str) -> str:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


def general_path(path, queries, corpus):
    """Every line through the JSON parser and the rules, one at a time."""
    judgments = {}
    for line, obj in iter_jsonl(path):
        _add_judgment(judgments, obj, path, line, queries, corpus)
    return judgments


class QrelsFastPath(unittest.TestCase):
    def test_which_lines_the_pattern_takes(self):
        taken = [bool(_CANONICAL_QRELS.fullmatch(line)) for line in LINES]
        self.assertEqual(taken, CANONICAL)
        self.assertFalse(any(_CANONICAL_QRELS.fullmatch(line) for line in BAD_SYNTAX[:2]))
        self.assertTrue(all(_CANONICAL_QRELS.fullmatch(line) for line in BAD_RULES))

    def test_same_judgments_as_the_general_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, lines in (("mixed", LINES), ("canonical", [l for l, c in zip(LINES, CANONICAL) if c])):
                path = _write(tmp, f"{name}.jsonl", "\n".join(lines) + "\n")
                with self.subTest(name):
                    self.assertEqual(load_qrels(path, QUERIES, CORPUS),
                                     general_path(path, QUERIES, CORPUS))

    def test_same_errors_as_the_general_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            for number, bad in enumerate(BAD_SYNTAX + BAD_RULES):
                path = _write(tmp, f"bad{number}.jsonl", LINES[0] + "\n" + bad + "\n")
                with self.subTest(bad):
                    with self.assertRaises(InputError) as fast:
                        load_qrels(path, QUERIES, CORPUS)
                    with self.assertRaises(InputError) as general:
                        general_path(path, QUERIES, CORPUS)
                    self.assertEqual(str(fast.exception), str(general.exception))
                    self.assertIn(":2:", str(fast.exception))

    def test_one_string_object_per_id(self):
        # a release holds one judgment per judged pair: their ids are the queries' and the
        # corpus' own string objects, not a copy per line
        with tempfile.TemporaryDirectory() as tmp:
            lines = [l for l, c in zip(LINES, CANONICAL) if c] + ['{"clues":1,"docid":"d2","label":"subset","qid":"q1"}']
            path = _write(tmp, "canonical.jsonl", "\n".join(lines) + "\n")
            for qid, per_query in load_qrels(path, QUERIES, CORPUS).items():
                self.assertIs(qid, QUERIES[qid].qid)
                for docid, judgment in per_query.items():
                    self.assertIs(judgment.qid, QUERIES[qid].qid)
                    self.assertIs(judgment.docid, CORPUS[docid].docid)

    @slow
    def test_shipped_qrels(self):
        for name in ("example", "v2", "v1"):
            folder = ROOT / "data" / name
            qrels = next(folder.glob("qrels.jsonl*"))
            queries, corpus = load_queries(folder / "queries.jsonl"), load_corpus(folder / "corpus.jsonl")
            with self.subTest(name):
                self.assertEqual(load_qrels(qrels, queries, corpus), general_path(qrels, queries, corpus))


if __name__ == "__main__":
    unittest.main()
