"""reproduce.py writes nothing (issue 17): a read-only copy verifies, by two concurrent runs that
both verify without disturbing each other, and an interrupted or killed run leaves the tree as it
was. The copy is a small repository (tests/small_repo.py: the example release, its reference
files, the paper audit and the code): the code paths are this repository's, without copying
and hashing all of its files twice over."""

import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from tests.child_signals import default_sigint
from tests.slow import slow
from tests.small_repo import small_repository

COMMAND = [sys.executable, "-I", "-S", "reproduce.py"]


def snapshot(root: Path):
    """Every entry under ``root`` with its kind, size and modification time."""
    out = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        out[path.relative_to(root).as_posix()] = (stat.S_IFMT(info.st_mode), info.st_size,
                                                  info.st_mtime_ns)
    return out


@slow
class WritesNothing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp())
        cls.copy = small_repository(cls.tmp / "repo")
        cls.before = snapshot(cls.copy)

    @classmethod
    def tearDownClass(cls):
        for path in [cls.copy] + list(cls.copy.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(cls.tmp)

    def assertUnchanged(self):
        self.assertEqual(snapshot(self.copy), self.before)

    def test_1_read_only_copy_verifies_also_twice_at_once(self):
        # a read-only copy verifies, by two runs at the same time (which share nothing and
        # disturb nothing): each run verifies, and the tree is as it was
        for path in [self.copy] + list(self.copy.rglob("*")):
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode):
                path.chmod(stat.S_IMODE(mode) & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        self.before = snapshot(self.copy)
        procs = [subprocess.Popen(COMMAND, cwd=self.copy, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            self.assertEqual(proc.returncode, 0, out[-2000:] + err[-2000:])
            self.assertRegex(out.splitlines()[-1], r"^\d+ checks verified, 0 failed")
        self.assertUnchanged()

    def test_2_interrupted_and_killed_runs_leave_nothing(self):
        for sig in (signal.SIGINT, signal.SIGKILL):
            proc = subprocess.Popen(COMMAND, cwd=self.copy, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    preexec_fn=default_sigint)
            time.sleep(0.4)
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)
            self.assertNotIn("Traceback", err)
            if sig == signal.SIGINT and proc.returncode != 0:  # 0 when it finished first
                self.assertEqual(proc.returncode, 130, err)
            self.assertUnchanged()


if __name__ == "__main__":
    unittest.main()
