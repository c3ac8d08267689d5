"""Packaging and citation metadata (text checks, stdlib only; Python 3.9 has no tomllib).

The sdist is the package only: MANIFEST.in prunes the tests (they need data/ and the reports),
and docs/PACKAGE.md, the sdist's readme, says so and points at the repository.
"""

import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
        manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
        self.assertRegex(manifest, r"(?m)^prune tests$")
        self.assertIn('readme = "docs/PACKAGE.md"', self.text)
        readme = (ROOT / "docs" / "PACKAGE.md").read_text(encoding="utf-8")
        self.assertIn("package only", readme)
        self.assertIn("reproduce.py", readme)


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
