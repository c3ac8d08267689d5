"""Packaging and citation metadata (text checks, stdlib only; Python 3.9 has no tomllib).

The sdist is the package only (the tests need data/ and the reports), and docs/PACKAGE.md, the
sdist's readme, says so and points at the repository. The build backend is nclue's own
(tools/build_backend/nclue_build.py, stdlib only), so that pip installs it offline.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent


def _load_backend():
    """tools/build_backend/nclue_build.py as a module (a file of this repository, not a package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("nclue_build",
                                                  ROOT / "tools" / "build_backend" / "nclue_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


nclue_build = _load_backend()


class Pyproject(unittest.TestCase):
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")

    def test_spdx_license_expression_and_files(self):
        self.assertRegex(self.text, r'(?m)^license = "MIT"$')
        self.assertRegex(self.text, r'(?m)^license-files = \["LICENSE"\]$')
        self.assertNotIn("License ::", self.text)  # PEP 639: no license classifiers with an expression
        self.assertTrue((ROOT / "LICENSE").exists())

    def test_authors_urls_classifiers(self):
        self.assertRegex(self.text, r"(?m)^authors = \[\{name = ")
        self.assertIn("[project.urls]", self.text)
        self.assertIn("https://arxiv.org/abs/2607.24165", self.text)
        self.assertIn('"Programming Language :: Python :: 3.9"', self.text)

    def test_sdist_is_the_package_only_and_says_so(self):
        names = [name for name, _ in nclue_build.sdist_files(ROOT)]
        self.assertEqual(sorted(n for n in names if not n.startswith("nclue/")),
                         ["LICENSE", "docs/PACKAGE.md", "pyproject.toml",
                          "tools/build_backend/nclue_build.py"])
        self.assertIn("nclue/cli.py", names)
        self.assertIn("nclue/label_audit/assets/packet.js", names)
        self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
        self.assertIn('readme = "docs/PACKAGE.md"', self.text)
        readme = (ROOT / "docs" / "PACKAGE.md").read_text(encoding="utf-8")
        self.assertIn("package only", readme)
        self.assertIn("reproduce.py", readme)


class BuildBackend(unittest.TestCase):
    """The stdlib build backend: its TOML reader, the metadata, and an offline install."""

    def test_toml_reader_agrees_with_tomllib(self):
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib is Python >= 3.11")
        text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        self.assertEqual(nclue_build.read_toml(text), tomllib.loads(text))
        sample = ('# c\n[a]\nx = "q\\"s" # c\n"k y" = [\n  "1", # c\n  {n = "v"},\n]\n'
                  '[a.b]\nt = true\n')
        self.assertEqual(nclue_build.read_toml(sample), tomllib.loads(sample))
        with self.assertRaisesRegex(ValueError, "pyproject.toml:1: unsupported value"):
            nclue_build.read_toml("x = 1\n")

    def test_metadata(self):
        lines = nclue_build.metadata_text(ROOT).split("\n\n", 1)[0].splitlines()
        for line in ("Metadata-Version: 2.4", "Name: nclue", "License-Expression: MIT",
                     "License-File: LICENSE", "Requires-Python: >=3.9",
                     "Description-Content-Type: text/markdown",
                     "Classifier: Programming Language :: Python :: 3.9"):
            self.assertIn(line, lines)
        self.assertTrue(nclue_build.metadata_text(ROOT).split("\n\n", 1)[1].startswith(
            "# nclue (the Python package)"))

    @slow
    def test_offline_install_in_a_fresh_venv(self):
        """``pip install --no-index .`` in a fresh venv (no index, no config, no build
        dependency to fetch), from a copy of the sdist's files; then the console script runs."""
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "src"
            for name, path in nclue_build.sdist_files(ROOT):
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, source / name)
            venv = Path(tmp) / "venv"
            bindir = venv / ("Scripts" if os.name == "nt" else "bin")
            env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
            install = ["install", "--isolated", "--no-index", "--no-cache-dir", "."]
            # a venv without its own pip, installed into by this interpreter's pip (pip >= 22.3:
            # --python runs pip under the venv's interpreter), which saves seeding pip into the
            # venv (ensurepip: most of this test's time); else a venv with pip, as before
            host_pip = subprocess.run([sys.executable, "-m", "pip", "--python", sys.executable,
                                       "--version"], capture_output=True, text=True, env=env)
            pip = ([sys.executable, "-m", "pip", "--python", str(bindir / "python")]
                   if host_pip.returncode == 0 else [str(bindir / "python"), "-m", "pip"])
            made = subprocess.run([sys.executable, "-m", "venv", str(venv)] +
                                  (["--without-pip"] if host_pip.returncode == 0 else []),
                                  capture_output=True, text=True)
            if made.returncode != 0:
                self.skipTest(f"no venv with pip here (ensurepip): {made.stderr.strip()[-200:]}")
            installed = subprocess.run(pip + install, cwd=source, capture_output=True, text=True,
                                       env=env)
            self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)
            self.assertEqual(sorted(p.name for p in source.iterdir()),
                             ["LICENSE", "docs", "nclue", "pyproject.toml", "tools"])  # no build/
            scored = subprocess.run([str(bindir / "nclue"), "score",
                                     str(ROOT / "data" / "example" / "runs" / "example_lexical.jsonl.gz"),
                                     "--release", str(ROOT / "data" / "example"), "--json"],
                                    cwd=tmp, capture_output=True, text=True, env=env)
            self.assertEqual(scored.returncode, 0, scored.stderr)
            self.assertEqual(json.loads(scored.stdout)["nclue_score@10"], 50.0)


class Citation(unittest.TestCase):
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")

    def test_no_placeholder_author_and_both_papers(self):
        self.assertNotIn("The nclue authors", self.text)
        self.assertIn('value: "arXiv:2607.24165"', self.text)
        self.assertEqual(len(re.findall(r"(?m)^  - type: article$", self.text)), 2)

    def test_multi3ir_cited_by_title_and_repository_only(self):
        # its source text gives a title and a repository URL, no authors and no arXiv id
        block = self.text[self.text.index('title: "Multi³IR'):]
        self.assertIn('repository: "https://github.com/seokwon99/Multi3IR"', block)
        self.assertNotIn("family-names", block)
        self.assertNotIn("identifiers", block)
        self.assertNotIn("arxiv.org", block)
        self.assertNotIn("arXiv:", block)

    def test_datasheet_cites_by_arxiv_id(self):
        datasheet = (ROOT / "DATASHEET.md").read_text(encoding="utf-8")
        self.assertNotIn("/work/", datasheet)
        self.assertIn("arXiv:2607.24165", datasheet)


if __name__ == "__main__":
    unittest.main()
