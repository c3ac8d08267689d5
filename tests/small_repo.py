"""A small repository for end-to-end tests of reproduce.py (not a test module): the example
release with its reference files, the paper transcriptions and their frozen verdicts, the code,
and integrity files written for it. reproduce.py verifies it in about a second."""

import shutil
import subprocess
import sys
from pathlib import Path

from nclue.integrity import write_integrity_files

ROOT = Path(__file__).resolve().parent.parent


def small_repository(folder: Path) -> Path:
    for name in ("data/example", "reference_metrics/example", "claims/papers", "audit/papers"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copytree(ROOT / "nclue", folder / "nclue", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "reproduce.py", folder / "reproduce.py")
    write_integrity_files(folder)
    return folder


def run_reproduce(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "reproduce.py"), *args], cwd=root,
                          capture_output=True, text=True, timeout=300)
