"""Provenance records checked against what they describe (nclue/crosschecks.py; issue 23,
item 1), on hand-made files: each edit below would pass a checksum refreeze, and fails here."""

import hashlib
import json
import shutil
import struct
import tempfile
import unittest
from pathlib import Path

from nclue import crosschecks as cc
from nclue.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def npy(shape, values):
    """A version-1.0 ``.npy`` file of little-endian float32 (the format, written by hand)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (repr(tuple(shape)),)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        f"<{len(values)}f", *values)


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Records(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="nclue-cc-"))
        shutil.copytree(EXAMPLE, self.root / "data" / "example")
        (self.root / "provenance" / "spin").mkdir(parents=True)
        vectors = npy((2, 3), [1, 2, 3, 4, 5, 6])
        (self.root / "provenance" / "spin" / "spin_m2.npy").write_bytes(vectors)
        self.vectors_sha = sha(vectors)
        self.record = {"vectors_file": "provenance/spin/spin_m2.npy", "vectors_sha256": self.vectors_sha}
        self.write("spin/spin_m2.json", self.record)
        index = json.loads((EXAMPLE / "runs" / "index.json").read_text())["runs"]
        self.runs = [dict(index[0], environment={"torch": "x"}),
                     dict(index[1], configuration={"vectors_sha256": self.vectors_sha})]
        index[1]["configuration"] = {"vectors_sha256": self.vectors_sha}
        (self.root / "data" / "example" / "runs" / "index.json").write_text(json.dumps({"runs": index}))
        self.write("model_runs.json", {"runs": self.runs})
        self.releases = {"example": self.root / "data" / "example"}

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def write(self, name, obj):
        (self.root / "provenance" / name).write_text(json.dumps(obj))

    def digests(self):
        out = set()
        for path in cc.weight_records(self.root):
            problems, digest = cc.weight_problems(self.root, path)
            self.assertEqual(problems, [])
            out.add(digest)
        return out

    def run_problems(self):
        return cc.run_record_problems(self.root / "provenance" / "model_runs.json", self.releases, self.digests())

    def test_consistent_records_pass(self):
        self.assertEqual(self.digests(), {self.vectors_sha})
        self.assertEqual(self.run_problems(), (2, []))

    def test_an_edited_run_record_fails(self):
        self.runs[0] = dict(self.runs[0], operation="something else")
        self.write("model_runs.json", {"runs": self.runs})
        checked, problems = self.run_problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("run record 1 ('example_lexical'): differs from its runs/index.json entry in example", problems[0])

    def test_a_record_of_no_run_fails(self):
        self.write("model_runs.json", {"runs": self.runs + [dict(self.runs[0], id="ghost")]})
        self.assertIn("names a run that no release's runs/index.json lists", self.run_problems()[1][0])

    def test_a_recorded_input_that_is_no_release_file_fails(self):
        index = json.loads((self.root / "data" / "example" / "runs" / "index.json").read_text())
        for entries in (index["runs"], self.runs):
            entries[0]["inputs"] = {"queries": "0" * 64}
        (self.root / "data" / "example" / "runs" / "index.json").write_text(json.dumps(index))
        self.write("model_runs.json", {"runs": self.runs})
        (problem,) = self.run_problems()[1]
        self.assertIn("queries 000000000000... is the sha256 of none of queries.jsonl in example", problem)

    def test_weights_named_by_a_run_must_be_recorded(self):
        self.record["vectors_sha256"] = sha(b"other")
        self.write("spin/spin_m2.json", self.record)
        with self.assertRaises(InputError) as caught:   # the record against its file
            cc.weight_problems(self.root, self.root / "provenance" / "spin" / "spin_m2.json")
        self.assertIn("spin_m2.json", str(caught.exception))

    def test_a_random_control_record_against_its_npy(self):
        (self.root / "provenance" / "spin" / "random_m2.npy").write_bytes(npy((1, 3), [0, 0, 1]))
        self.write("spin/random_m2.json", {"seed": 1, "vectors_sha256": "f" * 64})
        path = self.root / "provenance" / "spin" / "random_m2.json"
        self.assertIn(path, cc.weight_records(self.root))
        problems, digest = cc.weight_problems(self.root, path)
        self.assertIsNone(digest)
        self.assertIn("is not the sha256 of random_m2.npy", problems[0])


class Splits(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="nclue-splits-"))
        self.test = [{"qid": "r_0001", "condition_ids": ["entity:A", "entity:B"]},
                     {"qid": "r_0002", "condition_ids": ["entity:C", "entity:D", "entity:E"]}]
        self.write("queries.jsonl", self.test)
        self.construction = self.folder / "construction.json"
        self.construction.write_text(json.dumps({"conditions": [{"id": f"entity:{c}"} for c in "ABCDEFG"]}))

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def write(self, name, rows):
        (self.folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))

    def test_disjoint_splits_pass(self):
        # A+C shares single conditions with the test queries, but no pair
        self.write("train_queries.jsonl", [{"qid": "r_train_0001", "condition_ids": ["entity:A", "entity:C"]}])
        self.write("val_queries.jsonl", [{"qid": "r_val_0001", "condition_ids": ["entity:F", "entity:G"]}])
        self.assertEqual(cc.split_problems(self.folder, self.construction), (2, []))

    def test_a_shared_pair_a_wrong_prefix_and_an_unknown_condition_fail(self):
        # C+E is a pair of the test query r_0002; X is no condition of the inventory
        self.write("train_queries.jsonl", [{"qid": "r_train_0001", "condition_ids": ["entity:E", "entity:C"]},
                                           {"qid": "r_val_0009", "condition_ids": ["entity:F", "entity:X"]}])
        checked, problems = cc.split_problems(self.folder, self.construction)
        self.assertEqual(checked, 1)
        self.assertEqual(len(problems), 3, problems)
        self.assertIn("train_queries.jsonl:1: condition pair entity:C + entity:E of 'r_train_0001' occurs in the test split too", problems[0])
        self.assertIn("train_queries.jsonl:2: query id 'r_val_0009' lacks the prefix r_train_", problems[1])
        self.assertIn("train_queries.jsonl:2: condition 'entity:X' is not in the construction's inventory", problems[2])


if __name__ == "__main__":
    unittest.main()
