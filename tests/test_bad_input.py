"""Bad input gets one line naming file, line and problem, exit status 2, and no partial output."""

import gzip
import io
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from nclue.cli import main as cli_main
from nclue.errors import InputError
from nclue.integrity import parse_sha256sums, verify_sha256sums
from nclue.release import load_release
from nclue.runs import load_run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(argv))
    return code, out.getvalue(), err.getvalue()


class ReleaseCopy(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.release = self.tmp / "rel"
        shutil.copytree(EXAMPLE, self.release)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def rewrite_line(self, name, number, new_text):
        path = self.release / name
        lines = path.read_text().split("\n")
        lines[number - 1] = new_text
        path.write_text("\n".join(lines))
        return path

    def assertInputError(self, func, path_fragment, line, problem_fragment):
        with self.assertRaises(InputError) as ctx:
            func()
        message = str(ctx.exception)
        self.assertIn(path_fragment, message)
        if line is not None:
            self.assertIn(f":{line}:", message)
        self.assertIn(problem_fragment, message)
        self.assertEqual(message.count("\n"), 0)


class ReleaseInputs(ReleaseCopy):
    def test_malformed_json_line(self):
        self.rewrite_line("qrels.jsonl", 3, '{"qid": "q1", "docid": ')
        self.assertInputError(lambda: load_release(self.release), "qrels.jsonl", 3, "malformed JSON")

    def test_missing_field(self):
        self.rewrite_line("qrels.jsonl", 2, '{"qid": "q1", "docid": "d02", "label": "subset"}')
        self.assertInputError(lambda: load_release(self.release), "qrels.jsonl", 2, "missing field 'clues'")

    def test_unknown_qid_and_docid(self):
        self.rewrite_line("qrels.jsonl", 1, '{"qid": "q9", "docid": "d01", "clues": 2, "label": "gold"}')
        self.assertInputError(lambda: load_release(self.release), "qrels.jsonl", 1, "unknown qid 'q9'")
        self.rewrite_line("qrels.jsonl", 1, '{"qid": "q1", "docid": "zz", "clues": 2, "label": "gold"}')
        self.assertInputError(lambda: load_release(self.release), "qrels.jsonl", 1, "unknown docid 'zz'")

    def test_all_condition_subset_needs_gate(self):
        self.rewrite_line("qrels.jsonl", 3, '{"qid": "q1", "docid": "d03", "clues": 2, "label": "subset"}')
        self.assertInputError(lambda: load_release(self.release), "qrels.jsonl", 3, "gate")

    def test_evidence_must_match_clues(self):
        # q1/d02 is a 1-clue subset; claiming support for both conditions contradicts it.
        self.rewrite_line("evidence.jsonl", 2, '{"qid": "q1", "docid": "d02", "pages": [[1], [2]]}')
        self.assertInputError(lambda: load_release(self.release), "evidence.jsonl", 2, "clues=1")

    def test_form_mismatch(self):
        row = json.loads((self.release / "queries.jsonl").read_text().split("\n")[0])
        row["forms"]["clean"] = "Acknowledgements; TikZ"
        self.rewrite_line("queries.jsonl", 1, json.dumps(row))
        self.assertInputError(lambda: load_release(self.release), "queries.jsonl", 1, "form 'clean'")


class RunInputs(ReleaseCopy):
    def write_run(self, text, name="run.jsonl"):
        path = self.tmp / name
        path.write_text(text)
        return path

    def test_duplicate_document(self):
        path = self.write_run('{"qid": "q1", "docs": ["d01", "d02", "d01"], "scores": [3, 2, 1]}\n')
        release = load_release(self.release)
        self.assertInputError(lambda: load_run(path, release), "run.jsonl", 1, "twice")

    def test_non_finite_score(self):
        path = self.write_run('{"qid": "q1", "docs": ["d01"], "scores": [1]}\n'
                              '{"qid": "q2", "docs": ["d04"], "scores": [NaN]}\n')
        release = load_release(self.release)
        self.assertInputError(lambda: load_run(path, release), "run.jsonl", 2, "non-finite")
        trec = self.write_run("q1 Q0 d01 1 inf tag\n", "run.trec")
        self.assertInputError(lambda: load_run(trec, release), "run.trec", 1, "not finite")

    def test_unknown_qid_in_trec(self):
        trec = self.write_run("q1 Q0 d01 1 2.0 tag\nqX Q0 d01 1 2.0 tag\n", "run.trec")
        release = load_release(self.release)
        self.assertInputError(lambda: load_run(trec, release), "run.trec", 2, "unknown qid 'qX'")

    def test_gzip_damage(self):
        data = gzip.compress(b'{"qid": "q1", "docs": ["d01"], "scores": [1]}\n' * 50)
        path = self.tmp / "run.jsonl.gz"
        path.write_bytes(data[: len(data) // 2])
        release = load_release(self.release)
        self.assertInputError(lambda: load_run(path, release), "run.jsonl.gz", None, "damaged gzip")

    def test_tampered_run_file_is_caught_by_index(self):
        from nclue.run_index import RunIndex
        path = self.release / "runs" / "example_dense.jsonl.gz"
        path.write_bytes(gzip.compress(b'{"qid": "q1", "docs": ["d01"], "scores": [1]}\n', mtime=0))
        self.assertInputError(lambda: RunIndex.load(self.release), "example_dense.jsonl.gz", None,
                              "differs from index.json")


class CliExitStatus(ReleaseCopy):
    def test_score_bad_run_exits_2_with_one_line(self):
        path = self.tmp / "bad.jsonl"
        path.write_text('{"qid": "q1", "docs": ["d01", "d01"], "scores": [2, 1]}\n')
        code, out, err = run_cli("score", str(path), "--release", str(self.release))
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().split("\n")), 1)
        self.assertIn("bad.jsonl:1:", err)

    def test_import_trec_leaves_no_partial_output(self):
        bad = self.tmp / "bad.trec"
        bad.write_text("q1 Q0 d01 1 2.0 t\nq1 Q0 d02 2 oops t\n")
        out = self.tmp / "out.jsonl.gz"
        code, _, err = run_cli("import-trec", str(bad), "--release", str(self.release), "--out", str(out))
        self.assertEqual(code, 2)
        self.assertIn("bad.trec:2:", err)
        self.assertFalse(out.exists())
        self.assertEqual([p.name for p in self.tmp.iterdir() if p.name.startswith(".out")], [])

    def test_python_m_nclue_exit_status(self):
        proc = subprocess.run([sys.executable, "-m", "nclue", "score", str(self.tmp / "missing.jsonl"),
                               "--release", str(self.release)], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("missing.jsonl: file not found", proc.stderr)


class Integrity(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        (self.tmp / "data").mkdir()
        (self.tmp / "data" / "a.txt").write_text("hello\n")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_sha256sums_roundtrip_and_tamper(self):
        # sha256("hello\n") is a well-known value: 5891b5b5...be03
        digest = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        (self.tmp / "SHA256SUMS").write_text(f"{digest}  data/a.txt\n")
        self.assertEqual(verify_sha256sums(self.tmp), (1, []))
        (self.tmp / "data" / "a.txt").write_text("hellO\n")
        checked, problems = verify_sha256sums(self.tmp)
        self.assertEqual(checked, 1)
        self.assertEqual(len(problems), 1)
        self.assertIn("data/a.txt", problems[0])

    def test_paths_leaving_the_repository_are_refused(self):
        digest = "0" * 64
        for bad in ("../etc/passwd", "/etc/passwd", "data/../../x", "data\\a.txt"):
            (self.tmp / "SHA256SUMS").write_text(f"{digest}  {bad}\n")
            with self.assertRaises(InputError) as ctx:
                parse_sha256sums(self.tmp / "SHA256SUMS", self.tmp)
            self.assertIn("SHA256SUMS:1:", str(ctx.exception))

    def test_symlink_escape_is_refused(self):
        outside = Path(tempfile.mkdtemp())
        try:
            (outside / "secret").write_text("x")
            (self.tmp / "data" / "link").symlink_to(outside)
            (self.tmp / "SHA256SUMS").write_text(f"{'0' * 64}  data/link/secret\n")
            with self.assertRaises(InputError) as ctx:
                parse_sha256sums(self.tmp / "SHA256SUMS", self.tmp)
            self.assertIn("outside the repository", str(ctx.exception))
        finally:
            shutil.rmtree(outside)


if __name__ == "__main__":
    unittest.main()
