"""ReleaseContext.preload: parsing run files in worker processes gives the runs (and the errors)
that parsing them one by one in this process gives."""

import gzip
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.formats import sha256_file
from nclue.context import ReleaseContext
from nclue.runs import load_run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


class Preload(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.release = self.tmp / "example"
        shutil.copytree(EXAMPLE, self.release)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_parallel_equals_sequential(self):
        serial, parallel = ReleaseContext(self.release), ReleaseContext(self.release)
        serial.preload(1)
        parallel.preload(2)
        for run_id in sorted(serial.index):
            self.assertEqual(parallel.run(run_id), serial.run(run_id))
            self.assertEqual(parallel.run(run_id).run_id, run_id)
            self.assertEqual(parallel.vectors(run_id), serial.vectors(run_id))

    def test_identical_files_share_one_parse_but_keep_their_ids(self):
        runs = self.release / "runs"
        shutil.copy(runs / "example_dense.jsonl.gz", runs / "example_dense_copy.jsonl.gz")
        index = json.loads((runs / "index.json").read_text())
        entry = dict(next(e for e in index["runs"] if e["id"] == "example_dense"),
                     id="example_dense_copy", file="example_dense_copy.jsonl.gz")
        index["runs"].append(entry)
        (runs / "index.json").write_text(json.dumps(index))
        ctx = ReleaseContext(self.release)
        ctx.preload(2)
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
        messages = []
        for jobs in (1, 2):
            with self.assertRaises(InputError) as caught:
                ReleaseContext(self.release).preload(jobs)
            messages.append(str(caught.exception))
        self.assertEqual(messages[0], messages[1])
        self.assertIn("example_lexical.jsonl.gz:2: unknown docid 'no-such-doc'", messages[0])
        # the same message as reading the file with the release directly
        with self.assertRaises(InputError) as direct:
            load_run(path, ReleaseContext(EXAMPLE).release)
        self.assertEqual(str(direct.exception), messages[0])


class ShareScores(unittest.TestCase):
    def test_one_float_object_per_distinct_score(self):
        import pickle
        from nclue.runs import Ranking, Run, share_scores
        a, b = float("0.5"), float("0.25")
        run = Run("r", {"q1": Ranking("q1", ("d1", "d2"), (a, b)),
                        "q2": Ranking("q2", ("d3", "d4"), (float("0.5"), float("0.25"))),
                        "q3": Ranking("q3", ("d5", "d6"), (0.5, -0.0))})
        crossed = pickle.loads(pickle.dumps(run))  # what a worker process hands back
        self.assertIsNot(crossed.rankings["q1"].scores[0], crossed.rankings["q2"].scores[0])
        shared = share_scores(crossed)
        self.assertEqual(shared, run)
        self.assertIs(shared.rankings["q1"].scores[0], shared.rankings["q2"].scores[0])
        self.assertIs(shared.rankings["q1"].scores[1], shared.rankings["q2"].scores[1])
        # a ranking holding a zero keeps its own floats, so -0.0 stays -0.0
        self.assertEqual(str(shared.rankings["q3"].scores[1]), "-0.0")


class SharedPageEntries(unittest.TestCase):
    def test_repeated_page_scores_are_one_tuple(self):
        rows = [{"qid": "q1", "docs": ["d1", "d2"], "scores": [2.0, 1.0],
                 "pages": {"d1": [[3, 0.5], [4, 0.25]], "d2": [[1, -0.0]]}},
                {"qid": "q2", "docs": ["d1", "d2"], "scores": [2.0, 1.0],
                 "pages": {"d1": [[3, 0.5], [4, 0.25]], "d2": [[1, -0.0]]}},
                {"qid": "q3", "docs": ["d1"], "scores": [1.0], "pages": {"d1": [[4, 0.25]]}}]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            run = load_run(path)
        q1, q2, q3 = (run.rankings[q].pages for q in ("q1", "q2", "q3"))
        self.assertEqual(q1["d1"], ((3, 0.5), (4, 0.25)))
        self.assertIs(q1["d1"], q2["d1"])            # the same page list: one tuple
        self.assertIs(q1["d1"][1], q3["d1"][0])      # the same (page, score) pair: one tuple
        # a list holding a zero score is not shared, so -0.0 keeps its sign
        self.assertEqual(str(q2["d2"][0][1]), "-0.0")


if __name__ == "__main__":
    unittest.main()
