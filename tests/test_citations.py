"""Citations only from the source (issue 22, item 6).

Every arXiv id, DOI and URL the repository prints must be given by one of the papers' texts
(``../shared/seeds/``, beside the repository), or be on the short allow-list of software, format
and test-fixture references in ``claims/citations.json``, each with its reason. A clone without
the seeds checks against the committed copy of what they give (``claims/citations.json``: each
identifier with its seed file and line); with the seeds, the copy must equal a fresh extraction.
"""

import importlib.util
import re
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool(name):
    """A module of tools/ (standard library only), loaded from its file."""
    spec = importlib.util.spec_from_file_location(f"tools_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


citations = _tool("citations")

COMMITTED = citations.load(ROOT / "claims" / "citations.json")
SEEDS = citations.seeds_folder(ROOT)
#: The identifier and author once invented for Multi3IR, assembled here so that this file does
#: not print them itself.
INVENTED_ID, INVENTED_AUTHOR = "2608" + "." + "30949", "Seok" + "won"


class RepositoryIdentifiers(unittest.TestCase):

    def test_every_identifier_is_given_by_a_seed_or_allowed(self):
        self.assertEqual(citations.problems(ROOT, COMMITTED), [])

    def test_the_invented_multi3ir_identifier_is_gone(self):
        for rel, text in citations.scanned_files(ROOT):
            self.assertNotIn(INVENTED_ID, text, rel)
            self.assertNotIn(INVENTED_AUTHOR, text, rel)

    def test_an_identifier_no_source_gives_is_named_with_its_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "docs").mkdir()
            (folder / "docs" / "x.md").write_text(
                "n-Clue (arXiv:2607.24165) is given.\n"
                f"Multi3IR (arXiv {INVENTED_ID}, https://arxiv.org/abs/{INVENTED_ID}) is not.\n"
                "Nor is doi:10.1234/made.up, or https://github.com/nobody/paper.\n"
                "The SVG namespace http://www.w3.org/2000/svg is allowed.\n", encoding="utf-8")
            found = citations.problems(folder, COMMITTED)
        self.assertEqual([line.split(" is given")[0] for line in found],
                         [f"docs/x.md:2: arxiv arXiv:{INVENTED_ID}",
                          f"docs/x.md:2: url https://arxiv.org/abs/{INVENTED_ID}",
                          "docs/x.md:3: doi 10.1234/made.up",
                          "docs/x.md:3: url https://github.com/nobody/paper"])

    def test_release_documents_are_not_citations(self):
        # page text of the corpora prints the manuals' own addresses; it is not scanned
        scanned = {rel for rel, _ in citations.scanned_files(ROOT)}
        self.assertNotIn("data/v1/corpus.jsonl", scanned)
        self.assertIn("CITATION.cff", scanned)
        self.assertIn("pyproject.toml", scanned)
        self.assertIn("docs/PACKAGE.md", scanned)


class CommittedCopy(unittest.TestCase):

    def test_committed_copy_equals_the_seed_texts(self):
        if SEEDS is None:
            self.skipTest("no ../shared/seeds beside this clone: the committed copy is the source")
        fresh = citations.extract_seeds(SEEDS)
        self.assertEqual(COMMITTED["seeds"], fresh["seeds"], "run python tools/citations.py")
        self.assertEqual(COMMITTED["identifiers"], fresh["identifiers"],
                         "run python tools/citations.py")

    def test_each_identifier_is_on_its_seed_line(self):
        if SEEDS is None:
            self.skipTest("no ../shared/seeds beside this clone")
        for entry in COMMITTED["identifiers"]:
            line = (SEEDS / entry["seed"]).read_text(encoding="utf-8").splitlines()[entry["line"] - 1]
            shown = entry["id"][len("arXiv:"):] if entry["kind"] == "arxiv" else entry["id"]
            self.assertIn(shown.lower(), line.lower(), entry)

    def test_the_committed_copy_holds_both_papers(self):
        ids = {(e["seed"], e["id"]) for e in COMMITTED["identifiers"]}
        self.assertIn(("000_5edb9f697168b38b.txt", "arXiv:2607.24165"), ids)
        self.assertIn(("002_1e1dc913949f1555.txt", "https://github.com/seokwon99/Multi3IR"), ids)
        self.assertFalse([e for e in COMMITTED["identifiers"]
                          if e["seed"].startswith("002_") and e["kind"] == "arxiv"])

    def test_allow_list_is_short_justified_and_holds_no_paper(self):
        allowed = COMMITTED["allowed"]
        self.assertLessEqual(len(allowed), 12)
        for entry in allowed:
            self.assertIn(entry["category"], ("software", "format", "test fixture"), entry)
            self.assertGreater(len(entry["why"]), 20, entry)
            self.assertNotRegex(entry["id"], r"(?i)arxiv|doi\.org|paperpeel|openreview|aclanthology",
                                entry)


def cff_references(text):
    """The ``references`` of CITATION.cff: title, person names and every quoted value."""
    refs = []
    body = text[text.index("\nreferences:"):]
    for block in re.split(r"(?m)^  - type: ", body)[1:]:
        title = re.search(r'(?m)^    title: "(.+)"$', block).group(1)
        families = re.findall(r"(?m)^      - family-names: (.+)$", block)
        givens = re.findall(r"(?m)^        given-names: (.+)$", block)
        refs.append({"title": title, "persons": [f"{g} {f}" for g, f in zip(givens, families)],
                     "values": re.findall(r'(?m)^\s+(?:url|repository|value): "(.+)"$', block)})
    return refs


class CitationFile(unittest.TestCase):
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")

    def test_each_reference_is_a_seed_with_its_own_authors(self):
        titles = {seed["title"]: name for name, seed in COMMITTED["seeds"].items()}
        known = {e["id"] for e in COMMITTED["identifiers"]}
        refs = cff_references(self.text)
        self.assertEqual(sorted(r["title"] for r in refs), sorted(titles))
        for ref in refs:
            seed = titles[ref["title"]]
            for value in ref["values"]:
                self.assertIn(value, known, ref["title"])
            if SEEDS is not None:  # the source's author list, where it has one
                header = (SEEDS / seed).read_text(encoding="utf-8").split("\n---\n")[0]
                named = re.findall(r'(?m)^  - "(.+)"$', header) if header.startswith("---") else []
                self.assertEqual(ref["persons"], named, ref["title"])

    def test_multi3ir_has_no_person_and_no_identifier(self):
        multi = [r for r in cff_references(self.text) if r["title"].startswith("Multi³IR")]
        self.assertEqual(len(multi), 1)
        self.assertEqual(multi[0]["persons"], [])
        self.assertEqual(multi[0]["values"], ["https://github.com/seokwon99/Multi3IR"] * 2)


if __name__ == "__main__":
    unittest.main()
