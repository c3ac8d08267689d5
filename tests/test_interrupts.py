"""Clean stops: Ctrl-C ends nclue and reproduce.py with one line and exit 130, also while worker
processes parse run files; workers die with their parent, even after a SIGKILL of it.

Run files are FIFOs here, so that opening one blocks until the test says otherwise: the
interrupt and the kill land, deterministically, while the workers are "parsing"."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from tests.child_signals import default_sigint

ROOT = Path(__file__).resolve().parent.parent

EXAMPLE = ROOT / "data" / "example"


def communicate_or_kill(proc, timeout=30):
    """``proc.communicate``; on a timeout the whole process group is killed first, so that a
    failing test leaves no process behind (blocked on its FIFO, it would wait forever)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise

# Parse FIFO run files in 2 workers through ReleaseContext.preload (the reproduce.py path).
PRELOAD = """
import os, sys
from pathlib import Path
from nclue.context import ReleaseContext
from nclue.run_index import RunEntry, RunIndex
release = Path(sys.argv[1])
ctx = ReleaseContext(release)
entries = {}
for number, run_id in enumerate(ctx.index):
    fifo = release / "runs" / f"fifo{number}.jsonl"
    os.mkfifo(fifo)
    entries[run_id] = RunEntry(run_id, fifo.name, f"{number:064d}", {})
ctx.index = RunIndex(ctx.index.layout, entries)
try:
    print("parsing", flush=True)
    ctx.preload(2)
except KeyboardInterrupt:
    print("preload: interrupted", file=sys.stderr)
    sys.exit(130)
"""


def children(pid):
    """Live child processes of ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def alive(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


@unittest.skipUnless(sys.platform.startswith("linux") and Path("/proc/self/stat").exists(),
                     "needs Linux /proc to find worker processes")
class WorkerStops(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.release = self.tmp / "example"
        shutil.copytree(EXAMPLE, self.release)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def start(self):
        proc = subprocess.Popen([sys.executable, "-c", PRELOAD, str(self.release)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, preexec_fn=default_sigint)
        self.assertEqual(proc.stdout.readline().strip(), "parsing")
        deadline = time.monotonic() + 20
        workers = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = children(proc.pid)
        self.assertEqual(len(workers), 2, "the pool did not start 2 workers")
        time.sleep(0.5)  # the workers are now blocked opening their FIFO run files
        return proc, workers

    def assertGone(self, workers, within=3.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and any(alive(w) for w in workers):
            time.sleep(0.05)
        left = [w for w in workers if alive(w)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        self.assertEqual(left, [], "worker processes outlived their parent")

    def test_ctrl_c_stops_parsing_within_a_second(self):
        proc, workers = self.start()
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
        out, err = communicate_or_kill(proc)
        elapsed = time.monotonic() - started
        self.assertEqual(proc.returncode, 130, err)
        self.assertLess(elapsed, 1.5)
        self.assertEqual(err, "preload: interrupted\n")  # no traceback, from anyone
        self.assertGone(workers)

    def test_sigkill_of_the_parent_leaves_no_live_workers(self):
        proc, workers = self.start()
        proc.kill()
        proc.wait(timeout=30)  # not communicate(): orphaned workers would hold its pipes open
        proc.stdout.close()
        proc.stderr.close()
        self.assertGone(workers, within=3.0)


class CommandStops(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def interrupt(self, argv, cwd):
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True, preexec_fn=default_sigint)
        time.sleep(1.5)  # started, and blocked opening its FIFO input
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = communicate_or_kill(proc)
        return proc.returncode, err, time.monotonic() - started

    def test_nclue_score_ctrl_c(self):
        fifo = self.tmp / "run.trec"
        os.mkfifo(fifo)
        code, err, elapsed = self.interrupt(
            [sys.executable, "-m", "nclue", "score", str(fifo), "--release", str(EXAMPLE)], ROOT)
        self.assertEqual((code, err), (130, "nclue: interrupted\n"))
        self.assertLess(elapsed, 1.5)

    def test_reproduce_ctrl_c(self):
        # a checkout whose release queries file is a FIFO: reproduce.py blocks reading it
        shutil.copy(ROOT / "reproduce.py", self.tmp / "reproduce.py")
        shutil.copytree(ROOT / "nclue", self.tmp / "nclue",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (self.tmp / "data" / "x").mkdir(parents=True)
        os.mkfifo(self.tmp / "data" / "x" / "queries.jsonl")
        code, err, elapsed = self.interrupt([sys.executable, "reproduce.py"], self.tmp)
        self.assertEqual(code, 130, err)
        self.assertEqual(err.strip().splitlines()[-1], "reproduce: interrupted")
        self.assertNotIn("Traceback", err)
        self.assertLess(elapsed, 1.5)


if __name__ == "__main__":
    unittest.main()
