"""Reading a build folder written by the sources step (``build/<release>/``).

Files (JSON Lines, gzip allowed): ``documents.jsonl`` (``docid``, ``pages``, ``source``,
``sha256``, ``text_sha256``, ``language``, ``title``, ...), ``pages.jsonl.gz`` (``docid``,
``page`` 1-based, ``text``, ``flags``) and ``outlines.jsonl`` (``docid``, ``items``: ``title``,
``page``, ``level``; ``method``).  Every document must have exactly pages 1..N.  Outline items
whose page is missing or outside 1..N are skipped and counted.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from ..errors import InputError
from ..formats import field, iter_jsonl, list_of_str, sha256_file

DOCUMENTS = "documents.jsonl"
PAGES = ("pages.jsonl.gz", "pages.jsonl")
OUTLINES = "outlines.jsonl"


@dataclass(frozen=True)
class SourceDocument:
    docid: str
    pages: int
    source: str
    sha256: str
    extra: Dict[str, Any]


@dataclass(frozen=True)
class Page:
    text: str
    flags: FrozenSet[str]


@dataclass(frozen=True)
class OutlineItem:
    title: str
    page: int
    level: int


@dataclass(frozen=True)
class BuildInput:
    documents: Dict[str, SourceDocument]
    pages: Dict[str, Tuple[Page, ...]]
    outlines: Dict[str, Tuple[OutlineItem, ...]]
    outline_methods: Dict[str, str]
    file_sha256: Dict[str, str]
    skipped_outline_items: int


def _pages_path(folder: Path) -> Path:
    for name in PAGES:
        if (folder / name).exists():
            return folder / name
    raise InputError(folder / PAGES[0], "file not found")


def read_build(folder) -> BuildInput:
    """Read and validate a build folder."""
    folder = Path(folder)
    doc_path = folder / DOCUMENTS
    documents: Dict[str, SourceDocument] = {}
    for line, obj in iter_jsonl(doc_path):
        docid = field(obj, "docid", str, doc_path, line)
        pages = field(obj, "pages", int, doc_path, line)
        if docid in documents:
            raise InputError(doc_path, f"duplicate docid {docid!r}", line)
        if pages < 1:
            raise InputError(doc_path, f"document {docid!r} has {pages} pages", line)
        source = field(obj, "source", str, doc_path, line)
        sha = field(obj, "sha256", str, doc_path, line)
        extra = {k: v for k, v in obj.items() if k not in ("docid", "pages", "source", "sha256")}
        documents[docid] = SourceDocument(docid, pages, source, sha, extra)
    if not documents:
        raise InputError(doc_path, "no documents")

    page_path = _pages_path(folder)
    collected: Dict[str, Dict[int, Page]] = {docid: {} for docid in documents}
    for line, obj in iter_jsonl(page_path):
        docid = field(obj, "docid", str, page_path, line)
        number = field(obj, "page", int, page_path, line)
        text = field(obj, "text", str, page_path, line)
        flags = list_of_str(obj.get("flags", []), "field 'flags'", page_path, line)
        if docid not in documents:
            raise InputError(page_path, f"page of unknown document {docid!r}", line)
        if not 1 <= number <= documents[docid].pages:
            raise InputError(page_path, f"page {number} outside 1..{documents[docid].pages} "
                                        f"of {docid!r}", line)
        if number in collected[docid]:
            raise InputError(page_path, f"duplicate page {number} of {docid!r}", line)
        collected[docid][number] = Page(text, frozenset(flags))
    pages: Dict[str, Tuple[Page, ...]] = {}
    for docid in sorted(documents):
        have = collected[docid]
        if len(have) != documents[docid].pages:
            missing = [n for n in range(1, documents[docid].pages + 1) if n not in have][:5]
            raise InputError(page_path, f"document {docid!r} lacks pages {missing}")
        pages[docid] = tuple(have[n] for n in range(1, documents[docid].pages + 1))

    outline_path = folder / OUTLINES
    outlines: Dict[str, Tuple[OutlineItem, ...]] = {}
    methods: Dict[str, str] = {}
    skipped = 0
    for line, obj in iter_jsonl(outline_path):
        docid = field(obj, "docid", str, outline_path, line)
        items = field(obj, "items", list, outline_path, line)
        if docid not in documents:
            raise InputError(outline_path, f"outline of unknown document {docid!r}", line)
        if docid in outlines:
            raise InputError(outline_path, f"duplicate outline of {docid!r}", line)
        kept: List[OutlineItem] = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("title"), str):
                raise InputError(outline_path, "outline items need a string 'title'", line)
            page: Optional[Any] = item.get("page")
            level = item.get("level", 0)
            if not isinstance(level, int) or isinstance(level, bool):
                raise InputError(outline_path, "outline item 'level' must be an integer", line)
            if (not isinstance(page, int) or isinstance(page, bool)
                    or not 1 <= page <= documents[docid].pages):
                skipped += 1
                continue
            kept.append(OutlineItem(item["title"], page, level))
        outlines[docid] = tuple(kept)
        method = obj.get("method", "")
        methods[docid] = method if isinstance(method, str) else ""
    file_sha = {name: sha256_file(folder / name) for name in (DOCUMENTS, OUTLINES)}
    file_sha[page_path.name] = sha256_file(page_path)
    return BuildInput(documents={k: documents[k] for k in sorted(documents)}, pages=pages,
                      outlines=outlines, outline_methods=methods, file_sha256=file_sha,
                      skipped_outline_items=skipped)
