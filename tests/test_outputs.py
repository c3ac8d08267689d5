"""Safe outputs (nclue.outputs): unsafe targets refused, atomic writes, no partial file on a
write error, stale temporaries of killed runs found and removed."""

import errno
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock

from nclue import outputs
from nclue.errors import InputError
from nclue.formats import write_text_atomic

ROOT = Path(__file__).resolve().parent.parent


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


class Targets(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())

    def tearDown(self):
        for path in self.tmp.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(self.tmp)

    def refused(self, target, fragment, inputs=()):
        with self.assertRaises(InputError) as caught:
            outputs.check_output(target, inputs)
        message = str(caught.exception)
        self.assertIn(fragment, message)
        self.assertNotIn("\n", message)
        return message

    def test_non_regular_targets_are_refused(self):
        self.refused(self.tmp, "it is a directory")
        self.refused("/dev/full", "it is a device")
        self.refused("/dev/null", "it is a device")
        os.mkfifo(self.tmp / "fifo")
        self.refused(self.tmp / "fifo", "it is a FIFO")
        (self.tmp / "link").symlink_to(self.tmp / "elsewhere")
        self.refused(self.tmp / "link", "symbolic link")
        self.assertFalse((self.tmp / "elsewhere").exists())  # never followed

    def test_dev_stdout_is_refused_in_favour_of_dash(self):
        message = self.refused("/dev/stdout", "symbolic link")
        self.assertIn("--out -", message)

    def test_an_input_is_never_overwritten(self):
        data = self.tmp / "run.trec"
        data.write_text("x\n")
        self.refused(data, "input file", inputs=[data])
        os.link(data, self.tmp / "hard")  # a hard link is the same file
        self.refused(self.tmp / "hard", "input file", inputs=[data])
        folder = self.tmp / "release"
        folder.mkdir()
        (folder / "qrels.jsonl").write_text("{}\n")
        self.refused(folder / "qrels.jsonl", "input file", inputs=[folder])  # a folder's files

    def test_read_only_targets_are_refused_even_for_root(self):
        target = self.tmp / "ro.txt"
        target.write_text("keep\n")
        target.chmod(0o444)
        self.refused(target, "read-only")
        folder = self.tmp / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        self.refused(folder / "new.txt", "not writable")
        self.refused(folder / "sub" / "new.txt", "not writable")  # created folders too
        self.assertEqual(target.read_text(), "keep\n")

    def test_dash_is_standard_output(self):
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            outputs.write_output("-", b"hello\n")
        self.assertEqual(buffer.getvalue(), "hello\n")
        with self.assertRaises(InputError):
            outputs.check_output("-", allow_stdout=False)

    def test_atomic_write_keeps_mode_and_leaves_no_temporary(self):
        target = self.tmp / "sub" / "out.txt"
        write_text_atomic(target, "one\n")
        self.assertEqual(target.read_text(), "one\n")
        self.assertEqual(target.stat().st_mode & 0o777, 0o644)
        target.chmod(0o600)
        write_text_atomic(target, "two\n")
        self.assertEqual((target.read_text(), target.stat().st_mode & 0o777), ("two\n", 0o600))
        self.assertEqual(sorted(p.name for p in target.parent.iterdir()), ["out.txt"])

    def test_full_disk_leaves_no_partial_file(self):
        target = self.tmp / "out.txt"
        target.write_text("old\n")

        def full(handle, data):
            handle.write(bytes(data)[:3])
            raise OSError(errno.ENOSPC, "No space left on device")

        with mock.patch.object(outputs, "_write_all", full):
            with self.assertRaises(InputError) as caught:
                outputs.write_output(target, b"new content\n")
        self.assertIn("No space left on device", str(caught.exception))
        self.assertEqual(target.read_text(), "old\n")  # untouched
        self.assertEqual([p.name for p in self.tmp.iterdir()], ["out.txt"])

    def test_file_size_limit_is_one_line_and_no_partial_file(self):
        # a real kernel write error (EFBIG) in a subprocess limited to 100-byte files; the
        # example's TREC qrels are 24 lines of about 10 bytes
        target = self.tmp / "qrels.txt"
        code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                "resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)); "
                "from nclue.cli import main; sys.exit(main(sys.argv[1:]))")
        proc = subprocess.run([sys.executable, "-c", code, "export-trec", "--release",
                               str(ROOT / "data" / "example"), "--out", str(target)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stderr.count("\n"), 1, proc.stderr)
        self.assertIn("File too large", proc.stderr)
        self.assertEqual(list(self.tmp.iterdir()), [])  # neither the file nor a temporary


class StaleTemporaries(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_dead_writers_temporaries_are_removed_live_ones_kept(self):
        dead = self.tmp / f".out.txt.nclue-{dead_pid()}-abc123.tmp"
        live = self.tmp / f".out.txt.nclue-{os.getpid()}-abc123.tmp"
        legacy = self.tmp / ".out.txt.k2j4h5g6.tmp"
        for path in (dead, live, legacy):
            path.write_text("partial")
        lines = []
        outputs.clean_stale_temporaries([self.tmp], report=lines.append)
        self.assertFalse(dead.exists())
        self.assertTrue(live.exists())
        self.assertTrue(legacy.exists())  # reported, not removed: no pid to check
        self.assertEqual(len(lines), 2)
        self.assertIn("removed stale temporary file", lines[0])
        self.assertIn("from an older nclue", lines[1])

    def test_a_killed_write_is_cleaned_by_the_next_write(self):
        # a writer killed (SIGKILL) between writing and renaming leaves its temporary file
        target = self.tmp / "out.txt"
        code = ("import sys, time; from nclue.outputs import open_output\n"
                "with open_output(sys.argv[1]) as out:\n"
                "    out.write(b'partial'); out.flush(); print('ready', flush=True); time.sleep(60)\n")
        proc = subprocess.Popen([sys.executable, "-c", code, str(target)], cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        self.assertEqual(proc.stdout.readline().strip(), "ready")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        left = [p.name for p in self.tmp.iterdir()]
        self.assertEqual(len(left), 1)
        self.assertRegex(left[0], rf"^\.out\.txt\.nclue-{proc.pid}-\w+\.tmp$")
        self.assertFalse(target.exists())
        lines = []
        outputs.write_output(target, b"complete\n", report=lines.append)
        self.assertEqual([p.name for p in self.tmp.iterdir()], ["out.txt"])
        self.assertEqual(len(lines), 1)
        self.assertIn(f"process {proc.pid}", lines[0])

    def test_reproduce_reports_and_removes_stale_temporaries(self):
        # reproduce.py cleans the whole checkout first (nclue.outputs.clean_repository_temporaries)
        folder = self.tmp / "reference_metrics" / "v1"
        folder.mkdir(parents=True)
        stale = folder / f".tables.md.nclue-{dead_pid()}-zz9.tmp"
        stale.write_text("half")
        lines = outputs.clean_repository_temporaries(self.tmp, report=lambda line: None)
        self.assertFalse(stale.exists())
        self.assertEqual(len(lines), 1)
        self.assertIn(str(stale), lines[0])


if __name__ == "__main__":
    unittest.main()
