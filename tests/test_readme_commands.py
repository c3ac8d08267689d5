"""Every command in README.md runs as written on a fresh copy of the repository (issue 16).

The shell blocks (```sh) run line by line with bash, and the Python blocks (```python) with this
interpreter, in order, in a temporary copy (so files they write land there). A block preceded by
``<!-- readme-test: skip (reason) -->`` is left out, with its reason printed: the two commands
`.ci/run` runs itself, and the archive, which tests/test_bag.py exercises.
"""

import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", "build", "work", "__pycache__", ".venv*", "venv*", "*.pyc")
FENCE = re.compile(r"(?:<!-- readme-test: skip \((?P<why>[^)]*)\) -->\n)?```(?P<lang>sh|python)\n(?P<body>.*?)```",
                   re.S)


def readme_blocks(text: str):
    """(language, body, skip reason or None) of every runnable fenced block, in order."""
    return [(m.group("lang"), m.group("body"), m.group("why")) for m in FENCE.finditer(text)]


@slow
class ReadmeCommands(unittest.TestCase):
    def test_every_block_runs(self):
        blocks = readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
        self.assertGreaterEqual(sum(1 for _, _, why in blocks if why is None), 2)
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "repo"
            shutil.copytree(ROOT, copy, ignore=SKIP)
            for lang, body, why in blocks:
                if why is not None:
                    print(f"\nREADME block not run here ({why}):\n{body}", file=sys.stderr)
                    continue
                if lang == "python":
                    proc = subprocess.run([sys.executable, "-c", body], cwd=copy,
                                          capture_output=True, text=True, timeout=300)
                    self.assertEqual(proc.returncode, 0, f"{body}\n{proc.stderr[-3000:]}")
                    continue
                for line in body.splitlines():
                    command = line.split("  #")[0].strip()
                    if not command or command.startswith("#"):
                        continue
                    if command.startswith("python "):
                        command = f"{sys.executable} " + command[len("python "):]
                    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=copy,
                                          capture_output=True, text=True, timeout=300)
                    self.assertEqual(proc.returncode, 0, f"{line}\n{proc.stderr[-3000:]}")
                    self.assertNotIn("Traceback", proc.stderr, line)


if __name__ == "__main__":
    unittest.main()
