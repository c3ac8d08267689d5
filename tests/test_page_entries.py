"""A page-scored run's entries are checked a column at a time (nclue.runs._page_entries); the
result must be what the entry rule says, entry by entry: ``[page, score]`` with an integer page
>= 1 (not a bool) and a finite number as score (not a bool), every score made a float."""

import itertools
import math
import unittest

from nclue.errors import InputError
from nclue.runs import PageScoreTable, _page_entries, _parse_pages


def by_the_rule(items):
    """The rule written entry by entry (the reference)."""
    out = []
    for item in items:
        if not (type(item) is list and len(item) == 2):
            return None
        page, score = item
        if type(page) is not int or page < 1:
            return None
        if type(score) not in (int, float) or not math.isfinite(score):
            return None
        out.append((page, float(score)))
    return tuple(out)


ENTRIES = [[1, 2.5], [3, 0], [7, -1.0], [0, 1.0], [True, 1.0], [2, True], [2, float("nan")],
           [2, float("inf")], [2.0, 1.0], [2, "1"], [2], [2, 1.0, 3], (2, 1.0), 5, None, [2, -0.0]]


class PageEntries(unittest.TestCase):
    def test_every_pair_of_entry_forms(self):
        for size in (0, 1, 2):
            for items in itertools.product(ENTRIES, repeat=size):
                items = [list(i) if isinstance(i, list) else i for i in items]
                with self.subTest(items=items):
                    got, want = _page_entries(items), by_the_rule(items)
                    self.assertEqual(got, want)
                    if want is not None:  # floats, with the sign of a zero kept
                        self.assertEqual([math.copysign(1, s) for _, s in got],
                                         [math.copysign(1, s) for _, s in want])
                        self.assertTrue(all(type(s) is float for _, s in got))


class PageTables(unittest.TestCase):
    """A ranking's page scores are held in flat arrays (nclue.runs.PageScoreTable) but read as
    the dict the JSON object stands for: same keys in file order, same (page, float) pairs."""

    def parse(self, value, docs=("a", "b", "c")):
        return _parse_pages(value, "run.jsonl", 1, docs)

    def test_reads_as_the_dict_of_the_entries(self):
        value = {"b": [[2, 0.5], [1, 3]], "a": [], "c": [[7, -0.0]]}
        want = {"b": ((2, 0.5), (1, 3.0)), "a": (), "c": ((7, -0.0),)}
        table = self.parse(value)
        self.assertIsInstance(table, PageScoreTable)
        self.assertEqual(table, want)
        self.assertEqual(want, table)
        self.assertEqual(list(table), ["b", "a", "c"])  # the file's order
        self.assertEqual(len(table), 3)
        self.assertEqual(table.get("b"), ((2, 0.5), (1, 3.0)))
        self.assertEqual(table["a"], ())
        self.assertIsNone(table.get("d"))
        self.assertEqual(table.get("d", ()), ())
        self.assertNotIn("d", table)
        self.assertIn("c", table)
        with self.assertRaises(KeyError):
            table["d"]
        self.assertEqual(math.copysign(1, table["c"][0][1]), -1.0)  # the sign of a zero kept
        self.assertTrue(all(type(s) is float for _, s in table["b"]))
        self.assertEqual(dict(table.items()), want)

    def test_page_numbers_beyond_an_array(self):
        for page in (2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1, 2 ** 64, 10 ** 30):
            with self.subTest(page=page):
                table = self.parse({"a": [[page, 1.5]], "b": [[1, 2.0]]})
                self.assertEqual(table, {"a": ((page, 1.5),), "b": ((1, 2.0),)})
                self.assertEqual(type(table["a"][0][0]), int)

    def test_no_pages(self):
        self.assertEqual(self.parse({}), {})

    def test_bad_entries_are_named(self):
        for value in ({"a": [[0, 1.0]]}, {"a": [[1, "x"]]}, {"z": [[1, 1.0]]}, {"a": 5}, []):
            with self.subTest(value=value), self.assertRaises(InputError):
                self.parse(value)


if __name__ == "__main__":
    unittest.main()


class RankedDocuments(unittest.TestCase):
    """A run's rankings hold their documents as indices into one table of the run's docids
    (runs.RankedDocs), read as the tuples they stand for."""

    def parsed(self, text, name="run.jsonl"):
        import tempfile
        from pathlib import Path
        from nclue.runs import load_run
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / name
            path.write_text(text, encoding="utf-8")
            return load_run(path)

    def test_reads_as_the_tuple(self):
        run = self.parsed('{"qid": "q1", "docs": ["b", "a", "c"], "scores": [3, 2, 1]}\n'
                          '{"qid": "q2", "docs": ["c", "d"], "scores": [2.5, -0.0]}\n')
        docs = run.rankings["q1"].docs
        self.assertEqual(docs, ("b", "a", "c"))
        self.assertEqual(("b", "a", "c"), docs)
        self.assertNotEqual(docs, ["b", "a", "c"])   # as a tuple: not equal to a list
        self.assertEqual(hash(docs), hash(("b", "a", "c")))
        self.assertEqual((list(docs), len(docs), docs[0], docs[-1], docs[1:]), (["b", "a", "c"], 3, "b", "c", ("a", "c")))
        self.assertEqual((docs.index("c"), "a" in docs, "z" in docs), (2, True, False))
        self.assertEqual(repr(docs), "('b', 'a', 'c')")
        self.assertEqual(tuple(run.rankings["q2"].docs), ("c", "d"))
        self.assertEqual(list(run.rankings["q2"].scores), [2.5, -0.0])
        self.assertEqual(math.copysign(1, run.rankings["q2"].scores[1]), -1)
        # one table per run: "c" is one index, whichever ranking names it
        self.assertIs(run.rankings["q1"].docs._names, run.rankings["q2"].docs._names)
        self.assertEqual(run.rankings["q1"].docs._ids.typecode, "H")

    def test_trec_runs_too(self):
        run = self.parsed("q1 Q0 x 1 2.0 t\nq1 Q0 y 2 2.0 t\nq2 Q0 y 1 1.0 t\n", "run.trec")
        self.assertEqual((run.rankings["q1"].docs, run.rankings["q2"].docs), (("x", "y"), ("y",)))

    def test_more_than_65535_documents(self):
        from array import array
        from nclue.runs import RankedDocs
        names = tuple(f"d{i}" for i in range(70000))
        docs = RankedDocs(names, array("I", [69999, 0]))
        self.assertEqual(docs, ("d69999", "d0"))
