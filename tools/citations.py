"""Bibliographic identifiers: what the seed texts give, and what the repository cites.

A citation is only as good as its source. The papers this project implements are the seed texts
in ``../shared/seeds/`` (beside the repository); every arXiv id, DOI and URL they print is
extracted here, with the seed file and line it came from, into ``claims/citations.json`` (a
committed copy, so that a clone without the seeds still checks against them). Every identifier
the repository prints must be one of those, or one of the short allow-list of software, format
and test-fixture references kept in the same file, each with its reason.

    python tools/citations.py            # rewrite claims/citations.json from the seed texts
    python tools/citations.py --check    # list identifiers of the repository that no source gives

Standard library only; ``tests/test_citations.py`` runs the check.
"""

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
CITATIONS = ROOT / "claims" / "citations.json"

#: arXiv identifiers (new style) written with their prefix or as an arxiv.org address.
ARXIV = re.compile(r"(?i)\barxiv(?:\.org/(?:abs|pdf|html)/|:\s?|\s)(\d{4}\.\d{4,5})(?:v\d+)?")
#: A bare new-style id on a line that names arXiv (``arxiv_id: "2607.24165"``).
ARXIV_BARE = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?![\d])")
DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>)\]`]+)")
URL = re.compile(r"https?://[^\s\"'<>)\]`\\]+")
TRAILING = ".,;:}*"

#: Paths whose text is not the project's own citing: the documents of the releases (page text
#: of TeX Live and other manuals, with the addresses those manuals print), this file's output,
#: and the citation test, whose fixtures are invented identifiers on purpose.
NOT_SCANNED_DIRS = {".git", "__pycache__", "build", "dist", ".eggs"}
NOT_SCANNED = (re.compile(r"^data/[^/]+/(corpus|pages|evidence)\.jsonl$"),
               re.compile(r"^audit/label_audit/samples/[^/]+/documents\.json$"),
               re.compile(r"^claims/citations\.json$"),
               re.compile(r"^tests/test_citations\.py$"))
BINARY_SUFFIXES = (".gz", ".npy", ".png", ".jpg", ".pdf", ".zip", ".tar", ".pyc", ".safetensors",
                   ".bin", ".pt", ".woff", ".woff2", ".ico")


def normalised(kind: str, value: str) -> str:
    """One spelling per identifier: ``arXiv:NNNN.NNNNN``, a lower-case DOI, a URL without its
    trailing punctuation."""
    if kind == "arxiv":
        return f"arXiv:{value}"
    if kind == "doi":
        return value.rstrip(TRAILING).lower()
    return value.rstrip(TRAILING)


def identifiers_in(text: str) -> Iterator[Tuple[int, str, str]]:
    """(line, kind, identifier) of every arXiv id, DOI and URL in ``text``."""
    for number, line in enumerate(text.splitlines(), start=1):
        seen = set()
        for match in ARXIV.finditer(line):
            if match.group(1) not in seen:  # one per line: "arXiv 2607.24165" and its address
                seen.add(match.group(1))
                yield number, "arxiv", normalised("arxiv", match.group(1))
        if "arxiv" in line.lower():
            for match in ARXIV_BARE.finditer(line):
                if match.group(1) not in seen:
                    seen.add(match.group(1))
                    yield number, "arxiv", normalised("arxiv", match.group(1))
        for match in DOI.finditer(line):
            yield number, "doi", normalised("doi", match.group(1))
        for match in URL.finditer(line):
            yield number, "url", normalised("url", match.group(0))


def seeds_folder(root: Path = ROOT) -> Optional[Path]:
    """``../shared/seeds`` beside the repository, or beside its main checkout when this is a git
    worktree; None when neither exists (a fresh clone: the committed copy is used)."""
    candidates = [root.parent / "shared" / "seeds"]
    dotgit = root / ".git"
    if dotgit.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        line = dotgit.read_text(encoding="utf-8").strip()
        if line.startswith("gitdir:"):
            gitdir = Path(line[len("gitdir:"):].strip())
            main = gitdir.parent.parent.parent if gitdir.parent.name == "worktrees" else None
            if main is not None:
                candidates.append(main.parent / "shared" / "seeds")
    for folder in candidates:
        if folder.is_dir() and any(folder.glob("*.txt")):
            return folder
    return None


def extract_seeds(folder: Path) -> Dict:
    """Every identifier the seed texts print, first occurrence per identifier and seed."""
    seeds, found = {}, []
    for path in sorted(folder.glob("*.txt")):
        data = path.read_bytes()
        seeds[path.name] = {"sha256": hashlib.sha256(data).hexdigest(),
                            "title": seed_title(data.decode("utf-8"))}
        first: Dict[str, Tuple[int, str]] = {}
        for line, kind, value in identifiers_in(data.decode("utf-8")):
            first.setdefault(value, (line, kind))
        found += [{"id": value, "kind": kind, "seed": path.name, "line": line}
                  for value, (line, kind) in sorted(first.items(), key=lambda i: (i[1][0], i[0]))]
    return {"seeds": seeds, "identifiers": found}


def seed_title(text: str) -> str:
    """The paper's title: the YAML header's ``title`` or else the first non-empty line."""
    match = re.search(r'(?m)^title:\s*"(.+)"\s*$', text)
    if match:
        return match.group(1)
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def load(path: Path = CITATIONS) -> Dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, extracted: Dict, allowed: Sequence[Dict]) -> None:
    data = {"about": ("Bibliographic identifiers the seed texts give (seed file and line), "
                      "extracted by tools/citations.py, and the allow-list of references that "
                      "are not papers (each with its reason). tests/test_citations.py checks "
                      "every identifier of the repository against both."),
            "seeds": extracted["seeds"], "identifiers": extracted["identifiers"],
            "allowed": list(allowed)}
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def scanned_files(root: Path = ROOT) -> Iterator[Tuple[str, str]]:
    """(relative path, text) of every text file of the repository that is the project's own."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_SCANNED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if name.endswith(BINARY_SUFFIXES) or any(p.match(rel) for p in NOT_SCANNED):
                continue
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if b"\0" in data:
                continue
            try:
                yield rel, data.decode("utf-8")
            except UnicodeDecodeError:
                continue


def allowed_by(value: str, allowed: Sequence[Dict]) -> Optional[Dict]:
    """The allow-list entry that covers ``value`` (an exact id, or a URL prefix)."""
    for entry in allowed:
        if value == entry["id"] or (entry.get("prefix") and value.startswith(entry["id"])):
            return entry
    return None


def problems(root: Path = ROOT, citations: Optional[Dict] = None) -> List[str]:
    """One line per identifier of the repository that neither a seed text nor the allow-list
    gives (``path:line: identifier``)."""
    citations = citations if citations is not None else load(root / "claims" / "citations.json")
    known = {entry["id"] for entry in citations["identifiers"]}
    out = []
    for rel, text in scanned_files(root):
        for line, kind, value in identifiers_in(text):
            if value in known or allowed_by(value, citations["allowed"]):
                continue
            out.append(f"{rel}:{line}: {kind} {value} is given by no seed text and is not on "
                       f"the allow-list of claims/citations.json")
    return out


def main(argv: Sequence[str] = ()) -> int:
    if "--check" in argv:
        lines = problems()
        for line in lines:
            print(line)
        return 1 if lines else 0
    folder = seeds_folder()
    if folder is None:
        print("no seed texts found beside the repository (../shared/seeds)", file=sys.stderr)
        return 2
    allowed = load()["allowed"] if CITATIONS.exists() else []
    write(CITATIONS, extract_seeds(folder), allowed)
    print(f"wrote {CITATIONS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
