"""The qrels reader's canonical-line fast path (nclue.release._CANONICAL_QREL) must give exactly
what the JSON parser gives, on every line form, including the ones it must not take."""

import os
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.formats import iter_jsonl
from nclue.release import _CANONICAL_QREL, _qrel_objects
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent

LINES = [
    '{"clues":1,"docid":"d1","label":"gold","qid":"q1"}',            # canonical: fast path
    '{"clues":2,"docid":"tl:a.b.c","label":"subset","qid":"v1_0007"}',
    '{"clues":1,"docid":"\u00e9t\u00e9","label":"gold","qid":"q"}',  # non-ASCII, no escape
    '{"clues":1,"docid":"a\\u0041","label":"gold","qid":"q"}',       # escape: JSON parser
    '{"clues": 1, "docid": "d1", "label": "gold", "qid": "q1"}',     # spaces: JSON parser
    '{"clues":3,"docid":"d","gate":"distinct_pages","label":"subset","qid":"q"}',
    '{"qid":"q","docid":"d","clues":1,"label":"gold"}',             # other key order
    '{"clues":1,"docid":"d","label":"gold","qid":"q","qid":"r"}',   # duplicate key
    '   ',                                                          # blank: skipped
]
BAD = [
    '{"clues":01,"docid":"d","label":"gold","qid":"q"}',  # leading zero: not JSON
    '{"clues":1,"docid":"a\tb","label":"gold","qid":"q"}',  # raw control character
    '{"clues":1,"docid":"d","label":"gold","qid":"q"',    # truncated
    '[1, 2]',
]


def _write(tmp: str, name: str, text: str) -> str:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


class QrelsFastPath(unittest.TestCase):
    def test_which_lines_take_the_fast_path(self):
        taken = [bool(_CANONICAL_QREL.fullmatch(line)) for line in LINES]
        self.assertEqual(taken, [True, True, True, False, False, False, False, False, False])
        self.assertFalse(any(_CANONICAL_QREL.fullmatch(line) for line in BAD[:2]))

    def test_same_objects_as_the_json_parser(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = _write(tmp, "qrels.jsonl", "\n".join(LINES) + "\n")
            self.assertEqual(list(_qrel_objects(path)), list(iter_jsonl(path)))

    def test_same_errors_as_the_json_parser(self):
        with tempfile.TemporaryDirectory() as tmp:
            for number, bad in enumerate(BAD):
                path = _write(tmp, f"bad{number}.jsonl", LINES[0] + "\n" + bad + "\n")
                with self.assertRaises(InputError) as fast:
                    list(_qrel_objects(path))
                with self.assertRaises(InputError) as slow:
                    list(iter_jsonl(path))
                self.assertEqual(str(fast.exception), str(slow.exception))
                self.assertIn(":2:", str(fast.exception))

    @slow
    def test_shipped_qrels(self):
        for name in ("example/qrels.jsonl", "v2/qrels.jsonl", "v1/qrels.jsonl.gz"):
            path = ROOT / "data" / name
            if path.exists():
                with self.subTest(name):
                    self.assertEqual(list(_qrel_objects(path)), list(iter_jsonl(path)))


if __name__ == "__main__":
    unittest.main()
