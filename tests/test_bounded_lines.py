"""Bounded reads (issue 23, item 4): no line is held beyond nclue.formats.MAX_LINE_BYTES (64 MiB);
a longer one is refused by name, so memory stays bounded on any input, a file without newlines
and /dev/zero included."""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from nclue import formats
from nclue.errors import InputError
from nclue.release import load_release
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"

PEAK_RSS = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


class Limit(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="nclue-lines-"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def lines(self, data: bytes, limit: int, name="f.jsonl"):
        path = self.tmp / name
        path.write_bytes(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)
        return list(formats.iter_lines(path, limit=limit))

    def test_lines_up_to_the_limit_are_read(self):
        data = b"a" * 100 + b"\n" + b"b" * 100   # the last line has no newline
        self.assertEqual(self.lines(data, 100), [(1, "a" * 100), (2, "b" * 100)])

    def test_a_longer_line_is_refused_by_file_and_line(self):
        for name in ("f.jsonl", "f.jsonl.gz"):
            for data, line in ((b"x" * 101, 1), (b"ok\n" + b"y" * 101 + b"\nok\n", 2),
                               (b"ok\n" * 3 + b"z" * 5000, 4)):
                with self.assertRaises(InputError) as caught:
                    self.lines(data, 100, name)
                self.assertEqual(str(caught.exception),
                                 f"{self.tmp / name}:{line}: line longer than 100 bytes (the longest line "
                                 "nclue reads); is this a line file?")

    def test_a_line_across_many_chunks(self):
        # chunks are 1 MiB: a 3 MiB line under a 4 MiB limit is read whole, over a 2 MiB one refused
        data = b"q" * (3 << 20) + b"\nend\n"
        self.assertEqual([n for n, _ in self.lines(data, 4 << 20)], [1, 2])
        with self.assertRaises(InputError):
            self.lines(data, 2 << 20)

    def test_qrels_line_refused_by_name(self):
        release = self.tmp / "example"
        shutil.copytree(EXAMPLE, release)
        with open(release / "qrels.jsonl", "ab") as out:
            out.write(b'{"qid": "q1", "docid": "' + b"d" * 5000 + b'"}\n')
        with mock.patch.object(formats, "MAX_LINE_BYTES", 1000):
            with self.assertRaises(InputError) as caught:
                load_release(release)
        self.assertIn("qrels.jsonl:25: line longer than 1,000 bytes", str(caught.exception))


@unittest.skipUnless(sys.platform.startswith("linux"), "sparse files and /dev/zero")
@slow
class HugeInputs(unittest.TestCase):
    """The real limit on inputs that never end a line: a 1 GiB file (sparse: made at once,
    taking no disk) and /dev/zero, scored by ``nclue score`` in a child process."""

    def score(self, run):
        done = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "nclue", "score", str(run),
                               "--release", str(EXAMPLE)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        code, peak_kib = (int(x) for x in done.stdout.split())
        return code, done.stderr, peak_kib

    def test_a_1_gib_file_without_newlines(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp) / "run.jsonl"
            with open(run, "wb") as out:
                out.truncate(1 << 30)
            code, err, peak_kib = self.score(run)
        self.assertEqual(code, 2, err)
        self.assertEqual(err, f"nclue: {run}:1: line longer than 64 MiB (the longest line nclue reads); "
                              "is this a line file?\n")
        self.assertLess(peak_kib, 200 * 1024)   # 64 MiB of line plus the interpreter, not 1 GiB

    def test_dev_zero(self):
        if not os.path.exists("/dev/zero"):
            self.skipTest("no /dev/zero")
        code, err, peak_kib = self.score("/dev/zero")
        self.assertEqual(code, 2, err)
        self.assertIn("/dev/zero:1: line longer than 64 MiB", err)
        self.assertLess(peak_kib, 200 * 1024)


if __name__ == "__main__":
    unittest.main()
