"""Rebuilt page text for the audit packet (the ``pages.jsonl.gz`` of ``build/<release>/``).

Rows are ``{"docid", "page" (1-based), "text", "flags"}``. Third-party page text is read from the
ignored ``build/`` folder and written only into the packet, which is built into ``build/`` too
and never committed (n-Clue paper, supplement sec. 12: the annotator packet "embeds ... OCR
excerpts" and is withheld; it "can be rebuilt locally"). The example release ships its own
text (``data/example/pages.jsonl``, written by ``tools/make_example.py``).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Dict, Mapping, Optional, Tuple

from ..errors import InputError
from ..formats import PathLike, field, iter_jsonl, list_of_str


@dataclass(frozen=True)
class PageText:
    text: str
    flags: Tuple[str, ...]


def _has_lone_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def load_pages(path: PathLike, docids: Optional[Collection[str]] = None,
               page_counts: Optional[Mapping[str, int]] = None) -> Dict[str, Dict[int, PageText]]:
    """Page text of ``docids`` (every document when None): ``{docid: {page: PageText}}``.

    With ``page_counts`` (the release corpus), every page of a wanted document must lie in
    1..pages and the document must be complete; text must be valid Unicode (no lone surrogate,
    which could not be hashed the same way in the browser).
    """
    wanted = None if docids is None else set(docids)
    out: Dict[str, Dict[int, PageText]] = {}
    for line, obj in iter_jsonl(path):
        docid = field(obj, "docid", str, path, line)
        if wanted is not None and docid not in wanted:
            continue
        if "text" not in obj and isinstance(obj.get("margins"), list):
            continue  # a shipped sample's neighbour row (nclue.label_audit.sample_pages): no page text
        page = field(obj, "page", int, path, line)
        text = field(obj, "text", str, path, line)
        flags = tuple(list_of_str(obj.get("flags") or [], "flags", path, line))
        if page < 1:
            raise InputError(path, f"{docid} page {page}: pages are numbered from 1", line)
        if page_counts is not None and docid in page_counts and page > page_counts[docid]:
            raise InputError(path, f"{docid} page {page}: the release corpus says "
                                   f"{page_counts[docid]} pages", line)
        if _has_lone_surrogate(text):
            raise InputError(path, f"{docid} page {page}: text holds a lone surrogate", line)
        pages = out.setdefault(docid, {})
        if page in pages:
            raise InputError(path, f"{docid} page {page}: duplicate page", line)
        pages[page] = PageText(text, flags)
    if wanted is not None:
        missing = sorted(wanted - set(out))
        if missing:
            raise InputError(path, f"no page text for {len(missing)} document(s), e.g. {missing[0]!r}")
    if page_counts is not None:
        for docid, pages in sorted(out.items()):
            expected = page_counts.get(docid)
            if expected is not None and len(pages) != expected:
                raise InputError(path, f"{docid}: {len(pages)} pages of text, the release corpus "
                                       f"says {expected}")
    return out


def default_pages_path(release_dir: PathLike) -> Path:
    """``<release>/pages.jsonl`` (the example ships its text), else the rebuilt
    ``build/<release>/pages.jsonl.gz`` of the repository holding ``data/<release>``."""
    folder = Path(release_dir)
    for name in ("pages.jsonl", "pages.jsonl.gz"):
        if (folder / name).exists():
            return folder / name
    return folder.resolve().parent.parent / "build" / folder.resolve().name / "pages.jsonl.gz"
