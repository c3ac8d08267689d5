"""ReleaseContext.preload: every run file parsed once, in this process (identical files share
one parse), with the errors that parsing a file with the release gives."""

import gzip
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.formats import sha256_file
from nclue.context import ReleaseContext
from nclue.runs import PageScoreTable, load_run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


class Preload(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.release = self.tmp / "example"
        shutil.copytree(EXAMPLE, self.release)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_identical_files_share_one_parse_but_keep_their_ids(self):
        runs = self.release / "runs"
        shutil.copy(runs / "example_dense.jsonl.gz", runs / "example_dense_copy.jsonl.gz")
        index = json.loads((runs / "index.json").read_text())
        entry = dict(next(e for e in index["runs"] if e["id"] == "example_dense"),
                     id="example_dense_copy", file="example_dense_copy.jsonl.gz")
        index["runs"].append(entry)
        (runs / "index.json").write_text(json.dumps(index))
        ctx = ReleaseContext(self.release)
        ctx.preload()
        copy, original = ctx.run("example_dense_copy"), ctx.run("example_dense")
        self.assertEqual(copy.run_id, "example_dense_copy")
        self.assertIs(copy.rankings, original.rankings)

    def test_unknown_document_is_reported_with_its_line_either_way(self):
        path = self.release / "runs" / "example_lexical.jsonl.gz"
        lines = gzip.decompress(path.read_bytes()).decode().splitlines()
        row = json.loads(lines[1])
        row["docs"][0] = "no-such-doc"
        lines[1] = json.dumps(row)
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
        index_path = self.release / "runs" / "index.json"
        index = json.loads(index_path.read_text())
        for e in index["runs"]:
            if e["id"] == "example_lexical":
                e["sha256"] = sha256_file(path)
        index_path.write_text(json.dumps(index))
        with self.assertRaises(InputError) as caught:
            ReleaseContext(self.release).preload()
        messages = [str(caught.exception)]
        self.assertIn("example_lexical.jsonl.gz:2: unknown docid 'no-such-doc'", messages[0])
        # the same message as reading the file with the release directly
        with self.assertRaises(InputError) as direct:
            load_run(path, ReleaseContext(EXAMPLE).release)
        self.assertEqual(str(direct.exception), messages[0])


class CompactPageScores(unittest.TestCase):
    def test_page_scores_are_flat_arrays_that_read_as_the_rows(self):
        rows = [{"qid": "q1", "docs": ["d1", "d2"], "scores": [2.0, 1.0],
                 "pages": {"d1": [[3, 0.5], [4, 0.25]], "d2": [[1, -0.0]]}},
                {"qid": "q3", "docs": ["d1"], "scores": [1.0], "pages": {"d1": [[4, 0.25]]}}]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            run = load_run(path)
        q1, q3 = (run.rankings[q].pages for q in ("q1", "q3"))
        self.assertIsInstance(q1, PageScoreTable)    # no tuple per entry is held
        self.assertEqual(q1, {"d1": ((3, 0.5), (4, 0.25)), "d2": ((1, -0.0),)})
        self.assertEqual(q3, {"d1": ((4, 0.25),)})
        self.assertEqual(str(q1["d2"][0][1]), "-0.0")  # the sign of a zero kept


class LoadedOnce(unittest.TestCase):
    """Each release is loaded once per run, each file hashed once (issue 23, item 5)."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        shutil.copytree(EXAMPLE, self.tmp / "a")
        shutil.copytree(EXAMPLE, self.tmp / "b")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_sibling_release_is_the_shared_context(self):
        from nclue.measures import Measure
        from nclue.tables.source_shift import Operation, SourceShiftSpec, build
        shared = {}
        a = ReleaseContext.opened(self.tmp / "a", shared=shared)
        spec = SourceShiftSpec("s", "source_shift", None, "b", Measure("nclue_score"), 1, 20,
                               (Operation("op", None, "example_lexical", "example_pages"),))
        table = build(spec, a)
        b = shared[(self.tmp / "b").resolve()]
        self.assertIs(ReleaseContext.opened(self.tmp / "b", shared=shared), b)   # not loaded again
        self.assertIs(a.sibling("b"), b)
        # the same data on both sides: n-Clue Score@10 lexical 3/6, pages 4/6 (by hand)
        (row,) = table.rows
        self.assertAlmostEqual(row[2]["here"], 100 / 6)
        self.assertAlmostEqual(row[2]["there"], 100 / 6)
        self.assertIsNot(ReleaseContext.opened(self.tmp / "b", ties="trec_eval", shared=shared), b)

    def test_a_file_is_hashed_once_until_it_changes(self):
        import hashlib
        from unittest import mock
        from nclue import formats
        path = self.tmp / "f.bin"
        path.write_bytes(b"one")
        calls = []
        real = hashlib.sha256

        def counting(*args):
            calls.append(1)
            return real(*args)
        with mock.patch.object(formats.hashlib, "sha256", counting):
            self.assertEqual(formats.sha256_file(path), real(b"one").hexdigest())
            self.assertEqual(formats.sha256_file(path), real(b"one").hexdigest())
            self.assertEqual(len(calls), 1)
            path.write_bytes(b"two")   # a new size, modification and change time
            self.assertEqual(formats.sha256_file(path), real(b"two").hexdigest())
            self.assertEqual(len(calls), 2)


if __name__ == "__main__":
    unittest.main()


class PackedVectors(unittest.TestCase):
    """A context holds per-query vectors packed (context.PackedVector) and gives back the dict."""

    def test_round_trip(self):
        import math
        from nclue.context import PackedVector, packed_vector, unpacked_vector
        orders = {}
        ints = {"q2": 1, "q1": 0, "q3": -4}
        floats = {"q2": 0.5, "q1": -0.0, "q3": 1e-300}
        for vector in (ints, floats):
            stored = packed_vector(vector, orders)
            self.assertIsInstance(stored, PackedVector)
            back = unpacked_vector(stored)
            self.assertEqual(list(back.items()), list(vector.items()))   # same order, values
            self.assertEqual([type(v) for v in back.values()], [type(v) for v in vector.values()])
            self.assertIsNot(back, unpacked_vector(stored))   # a new dict each time
        self.assertEqual(math.copysign(1, unpacked_vector(packed_vector(floats, orders))["q1"]), -1)
        # one query order, interned
        self.assertIs(packed_vector(ints, orders).qids, packed_vector(floats, orders).qids)
        # not packed: mixed types, None values, huge ints, empty, None
        for vector in ({"a": 1, "b": 0.5}, {"a": None}, {"a": 2 ** 70}, {}, None):
            self.assertIs(packed_vector(vector, orders), vector)
