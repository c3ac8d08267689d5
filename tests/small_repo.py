"""A small repository for end-to-end tests of reproduce.py (not a test module): the example
release with its reference files, the paper transcriptions and their frozen verdicts, the code,
and integrity files written for it. reproduce.py verifies it in about a second."""

import atexit
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nclue.integrity import write_integrity_files
from nclue.verification import run_and_report

ROOT = Path(__file__).resolve().parent.parent


def small_repository(folder: Path) -> Path:
    for name in ("data/example", "reference_metrics/example", "claims/papers", "audit/papers"):
        shutil.copytree(ROOT / name, folder / name)
    # the bytecode caches come along (they are not code: neither listed nor read by
    # reproduce.py), so that the child processes do not compile every module again
    shutil.copytree(ROOT / "nclue", folder / "nclue")
    shutil.copy2(ROOT / "reproduce.py", folder / "reproduce.py")
    write_integrity_files(folder)
    return folder


def run_reproduce(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "reproduce.py"), *args], cwd=root,
                          capture_output=True, text=True, timeout=300)


def reproduce_in_process(root: Path, *releases: str, mode: str = "verify") -> subprocess.CompletedProcess:
    """What ``reproduce.py [--write|--freeze] [--release R ...]`` prints and returns, run in this
    process: :func:`nclue.verification.run_and_report` is everything reproduce.py runs between
    its signal handling and its exit. For the tests of what a run finds (a tampered file, a bad
    spec); the tests of the process itself (exit on Ctrl-C, no traceback, nothing written, a
    read-only copy) run reproduce.py as a child process. The code that runs is this checkout's,
    which the small repositories copy: it checks their files, code included, as reproduce.py
    would."""
    out, err = io.StringIO(), io.StringIO()
    code = run_and_report(Path(root), mode=mode, only=list(releases) or None, out=out, err=err)
    return subprocess.CompletedProcess(["reproduce.py"], code, out.getvalue(), err.getvalue())


_CLEAN = []


def clean_run():
    """(the completed process, its wall seconds) of reproduce.py on a fresh small repository,
    run once per test process and shared: every small repository is built alike (the test
    modules that break one build their own, which differs from this one only by what they
    break)."""
    if not _CLEAN:
        folder = Path(tempfile.mkdtemp(prefix="nclue-small-"))
        atexit.register(shutil.rmtree, folder, True)
        root = small_repository(folder / "repo")
        started = time.monotonic()
        proc = run_reproduce(root)
        _CLEAN.append((proc, time.monotonic() - started))
    return _CLEAN[0]
